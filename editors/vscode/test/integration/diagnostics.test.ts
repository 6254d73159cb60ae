// editor/diagnostics and editor/lsp answered by the extension (under the stub `vscode`, whose
// languages.getDiagnostics plays a Go language server) for the real pi-lsp binary: the new error a
// write makes reaches the model in that write's result, an older warning does not, and the chat
// shows the line under the tool item.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import { FakeLlm, FakeWebviewView, waitFor, Workspace } from './helpers';
import { useExtensionWithFakeModel } from './start';

function diag(line: number, char: number, sev: number, msg: string) {
  const d = new stub.Diagnostic(new stub.Range(new stub.Position(line, char), new stub.Position(line, char + 3)), msg, sev);
  d.source = 'compiler';
  return d;
}

describe('diagnostics from VS Code', () => {
  let ws: Workspace;
  let llm: FakeLlm;
  let api: PiLspApi;
  let view: FakeWebviewView;

  useExtensionWithFakeModel({
    prefix: 'diag',
    prepare: (w) => {
      fs.mkdirSync(path.join(w.dir, '.pi', 'agent'), { recursive: true });
      fs.writeFileSync(path.join(w.dir, '.pi', 'agent', 'pi-lsp.json'), JSON.stringify({ diagnostics: { settleMs: 200 } }));
      // The fake language server: a warning for an unused variable, an error for frobnicate.
      stub.control.diagnosticsProvider = (p) => {
        if (!fs.existsSync(p)) return [];
        const out: InstanceType<typeof stub.Diagnostic>[] = [];
        fs.readFileSync(p, 'utf8')
          .split('\n')
          .forEach((l, i) => {
            if (l.includes('var unused')) out.push(diag(i, l.indexOf('var unused') + 4, stub.DiagnosticSeverity.Warning, 'declared and not used: unused'));
            if (l.includes('frobnicate(')) out.push(diag(i, l.indexOf('frobnicate('), stub.DiagnosticSeverity.Error, 'undefined: frobnicate'));
          });
        return out;
      };
    },
  }, (s) => ({ ws, llm, api, view } = s));

  it('appends the new error of a write, not the old warning, and shows it under the item', async () => {
    const file = path.join(ws.folder, 'a.go');
    fs.writeFileSync(file, 'package main\n\nfunc main() {\n\tvar unused int\n}\n');
    await llm.add(
      { toolCalls: [{ id: 'call_w', name: 'write', arguments: { path: 'a.go', content: 'package main\n\nfunc main() {\n\tvar unused int\n\tfrobnicate()\n}\n' } }] },
      { toolCalls: [{ id: 'call_def', name: 'lsp', arguments: { op: 'definition', path: 'a.go', line: 5, column: 2 } }] },
      { text: 'Saw it.' },
    );
    // editor/lsp: VS Code's definition provider.
    stub.commands.registerCommand('vscode.executeDefinitionProvider', (u: unknown, pos: unknown) => [
      { uri: u, range: new stub.Range(pos as InstanceType<typeof stub.Position>, pos as InstanceType<typeof stub.Position>) },
    ]);
    view.receive({ type: 'send', text: 'call frobnicate', behavior: 'steer' });
    const card = await waitFor('an approval card', () => view.last('pending')?.items.find((i) => i.kind === 'approval'));
    view.receive({ type: 'approval', key: card.key, decision: 'approve' });
    await waitFor('the run to end', () => {
      const items = api.manager.current().display.state.items ?? [];
      return items.some((i) => i.kind === 'assistant' && i.text === 'Saw it.');
    });
    const reqs = (await llm.requests()).map((r) => JSON.stringify(r));
    assert.equal(reqs.length, 3);
    assert.match(reqs[1], /a\.go:5:2: error: undefined: frobnicate \(compiler\)/);
    assert.doesNotMatch(reqs[1], /declared and not used/);
    assert.match(reqs[2], /a\.go:5:2: \\tfrobnicate\(\)|a\.go:5:2: frobnicate\(\)/);
    const tool = api.manager.current().display.state.items?.find((i) => i.id === 'call_w');
    assert.deepEqual(tool?.diagnostics, ['a.go:5:2: error: undefined: frobnicate (compiler)']);
    assert.ok(stub.control.opened.includes(file), 'the file was opened for its language server');
  });
});
