// "Rewind to here" (issue 28): the extension, activated under the stub `vscode`, against the
// real pi-lsp binary and the fake LLM. The preview lists the files with their diffs; "Restore
// code and conversation" puts them back and the message text returns to the input.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import { FakeLlm, FakeWebviewView, waitFor, Workspace } from './helpers';
import { useExtensionWithFakeModel } from './start';

describe('rewind against pi-lsp', () => {
  let ws: Workspace;
  let llm: FakeLlm;
  let api: PiLspApi;
  let view: FakeWebviewView;

  useExtensionWithFakeModel({ prefix: 'rewind', until: 'snapshot' }, (s) => ({ ws, llm, api, view } = s));

  const idle = () => {
    const a = api.manager.current();
    return a.display.synced && a.display.state.status === 'idle' && (a.display.state.items ?? []).length > 0;
  };

  it('previews and restores the files of a user message from the tree', async () => {
    const readme = path.join(ws.folder, 'README.md');
    await llm.add({ text: 'first answer' }, { text: 'second answer' });
    view.receive({ type: 'send', text: 'first question', behavior: 'steer' });
    await waitFor('the first answer', () => idle() && (api.manager.current().display.state.items ?? []).some((i) => i.text === 'first answer'));
    // The user edits between turns: the next run's checkpoint holds it.
    fs.writeFileSync(readme, '# changed by the user\n');
    view.receive({ type: 'send', text: 'second question', behavior: 'steer' });
    await waitFor('the second answer', () => idle() && (api.manager.current().display.state.items ?? []).some((i) => i.text === 'second answer'));

    const a = api.manager.current();
    const entries = await a.request<{ entries: Array<{ id: string; type: string; message?: { role: string; content: unknown } }> }>('session/entries', { limit: 100 });
    const first = entries.entries.find((e) => e.type === 'message' && e.message?.role === 'user' && JSON.stringify(e.message.content).includes('first question'));
    assert.ok(first, 'the first user message');

    let shown: Array<{ label: string; description?: string; detail?: string }> = [];
    let title = '';
    stub.control.quickPick = (items, options) => {
      shown = items as typeof shown;
      title = (options as { title?: string })?.title ?? '';
      return shown.find((i) => i.label.includes('Restore code and conversation'));
    };
    assert.ok(stub.control.commands.has('piLsp.tree.rewind'));
    const r = (await stub.commands.executeCommand('piLsp.tree.rewind', { kind: 'entry', node: { id: first.id, role: 'user', type: 'message' } })) as {
      choice: string;
      files?: { restored: number; deleted: number };
      editorText?: string;
    };
    assert.match(title, /1 file\(s\) would change/);
    const file = shown.find((i) => i.label.includes('README.md'));
    assert.ok(file, `README.md listed: ${shown.map((i) => i.label).join(', ')}`);
    assert.equal(file.description, 'modified');
    assert.match(file.detail ?? '', /-# changed by the user/);
    assert.match(file.detail ?? '', /\+# demo project/);
    assert.equal(r.choice, 'both');
    assert.deepEqual({ restored: r.files?.restored, deleted: r.files?.deleted }, { restored: 1, deleted: 0 });
    assert.equal(fs.readFileSync(readme, 'utf8'), '# demo project\n');
    assert.equal(r.editorText, 'first question');
  });

  it('"Rewind to here" on a user message of the chat restores the code only', async () => {
    const readme = path.join(ws.folder, 'README.md');
    await llm.add({ text: 'third answer' });
    fs.writeFileSync(readme, '# edited again\n');
    view.receive({ type: 'send', text: 'third question', behavior: 'steer' });
    await waitFor('the third answer', () => idle() && (api.manager.current().display.state.items ?? []).some((i) => i.text === 'third answer'));
    fs.writeFileSync(readme, '# after the third\n');
    const a = api.manager.current();
    const item = (a.display.state.items ?? []).find((i) => i.kind === 'user' && i.text === 'third question');
    assert.ok(item, 'the third question in the chat');
    const leaf = (await a.request<{ leafId: string }>('session/tree', {})).leafId;
    let picked = false;
    stub.control.quickPick = (items) => {
      picked = true;
      return (items as Array<{ label: string }>).find((i) => i.label.includes('Code only'));
    };
    view.receive({ type: 'rewind', itemId: item.id });
    await waitFor('the files restored', () => picked && fs.readFileSync(readme, 'utf8') === '# edited again\n');
    assert.equal((await a.request<{ leafId: string }>('session/tree', {})).leafId, leaf, 'code only: the leaf stays');
  });
});
