// Makes `require('vscode')` return the stub, for everything loaded after this module (the
// extension bundle and the sources the tests import). Import it first.
import Module from 'module';
import * as stub from './vscode';

type Load = (request: string, parent: unknown, isMain: boolean) => unknown;
const mod = Module as unknown as { _load: Load };
const original = mod._load;
if (!(original as { __piLspStub?: boolean }).__piLspStub) {
  const hooked: Load = function (this: unknown, request, parent, isMain) {
    if (request === 'vscode') return stub;
    return original.call(this, request, parent, isMain);
  };
  (hooked as { __piLspStub?: boolean }).__piLspStub = true;
  mod._load = hooked;
}

export { stub };
