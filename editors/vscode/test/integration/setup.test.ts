// Issue 33, Missing 2: the walkthrough's steps against the real pi-lsp. The provider is picked,
// the key pasted goes to SecretStorage (not settings) and reaches the server's environment when it
// (re)starts, and the model picked becomes piLsp.model. The server is started through a wrapper
// that records the variable it was given.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import { requireEnvFile, waitFor } from './helpers';
import { useExtensionWithFakeModel } from './start';

class Memento {
  private readonly m = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.m.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.m.set(key, structuredClone(value));
  }
  keys(): string[] {
    return [...this.m.keys()];
  }
}

class Secrets {
  readonly m = new Map<string, string>();
  async get(k: string): Promise<string | undefined> {
    return this.m.get(k);
  }
  async store(k: string, v: string): Promise<void> {
    this.m.set(k, v);
  }
  async delete(k: string): Promise<void> {
    this.m.delete(k);
  }
}

describe('the first-run walkthrough', () => {
  let api: PiLspApi;
  const secrets = new Secrets();
  let seen: string;

  useExtensionWithFakeModel({
    prefix: 'setup',
    script: [{ match: 'hi', text: 'Hello.' }],
    // pi-lsp through a wrapper that records the key it was given.
    prepare: (ws) => {
      seen = path.join(ws.dir, 'seen-key');
      const wrapper = path.join(ws.dir, 'pi-lsp-wrapper');
      fs.writeFileSync(wrapper, `#!/bin/sh\nprintf '%s' "$PI_FAKE_KEY" > '${seen}'\nexec '${requireEnvFile('PI_LSP_BIN')}' "$@"\n`, { mode: 0o755 });
      stub.control.config['piLsp.path'] = wrapper;
    },
    context: { workspaceState: new Memento(), globalState: new Memento(), secrets },
  }, (s) => ({ api } = s));

  it('keeps the key in SecretStorage and hands it to pi-lsp in its environment', async () => {
    assert.equal(fs.readFileSync(seen, 'utf8'), '', 'no key before the walkthrough');
    stub.control.quickPick = (items) => (items as Array<{ label: string }>).find((i) => i.label.startsWith('Another provider'));
    stub.control.inputBox = (o) => ((o as { password?: boolean }).password ? 'sk-walkthrough-123' : 'PI_FAKE_KEY');
    await stub.commands.executeCommand('piLsp.setup.provider');
    assert.equal(await stub.commands.executeCommand('piLsp.setup.key'), true);
    assert.equal(await secrets.get('piLsp.env.PI_FAKE_KEY'), 'sk-walkthrough-123');
    assert.doesNotMatch(JSON.stringify(stub.control.config), /sk-walkthrough/, 'not in the settings');
    await waitFor('the restarted server', () => api.manager.current().status === 'ready', 60000);
    assert.equal(fs.readFileSync(seen, 'utf8'), 'sk-walkthrough-123', 'the server got the key');
  });

  it('saves the model picked as piLsp.model', async () => {
    stub.control.config['piLsp.model'] = '';
    stub.control.quickPick = (items) => (items as Array<{ label: string }>).find((i) => i.label === 'fake/fake-model');
    assert.equal(await stub.commands.executeCommand('piLsp.setup.model'), 'fake/fake-model');
    assert.equal(stub.control.config['piLsp.model'], 'fake/fake-model');
  });
});
