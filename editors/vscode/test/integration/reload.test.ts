// Issue 33, Missing 1: after a window reload the chat reopens the folder's last session, with the
// run the reload cut off still there. The extension runs under the stub `vscode` against the real
// pi-lsp and the fake LLM; a "reload" disposes the extension (its server dies with it) and
// activates it again with the same workspaceState, as VS Code does.
import '../stub/register';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { configure, FakeLlm, makeWorkspace, startFakeLlm, waitFor, Workspace } from './helpers';
import { openWindow } from './start';

/** VS Code's Memento, kept in memory (it survives the "reload" below as it survives a real one). */
class Memento {
  private readonly m = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.m.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    this.m.set(key, structuredClone(value));
    return Promise.resolve();
  }
  keys(): string[] {
    return [...this.m.keys()];
  }
}

describe('a window reload', () => {
  let ws: Workspace;
  let llm: FakeLlm;
  const workspaceState = new Memento();
  const open = () => openWindow({ workspaceState });

  before(async () => {
    ws = makeWorkspace('reload');
    llm = await startFakeLlm(ws.dir, [
      { match: 'hello', text: 'Hello from the first window.' },
      // Slow enough that the reload below cuts it off.
      { match: 'count', text: 'one two three four five six seven eight nine ten '.repeat(20), chunkSize: 4, chunkDelayMs: 300 },
    ]);
    configure(ws, llm);
  });
  after(() => {
    llm?.stop();
    ws?.cleanup();
  });

  it('reopens the last session with its conversation and the run it cut off', async () => {
    const first = open();
    first.view.receive({ type: 'send', text: 'hello there', behavior: 'steer' });
    await waitFor('the first answer', () => first.view.mirror.items?.some((i) => i.kind === 'assistant' && i.text === 'Hello from the first window.') && first.view.mirror.status === 'idle', 60000);
    first.view.receive({ type: 'send', text: 'count to a million', behavior: 'steer' });
    await waitFor('the run to stream', () => first.view.mirror.status === 'running' && first.view.mirror.items?.some((i) => i.kind === 'assistant' && !!i.text), 60000);
    const session = first.api.manager.current().display.state.session?.path;
    assert.ok(session, 'a session file');
    await first.close(); // the reload: the extension host and its pi-lsp go away mid-run

    const second = open();
    try {
      const items = await waitFor('the reopened conversation', () => (second.view.mirror.items?.length ? second.view.mirror.items : undefined), 60000);
      assert.equal(second.api.manager.current().display.state.session?.path, session, 'the same session');
      const users = items.filter((i) => i.kind === 'user').map((i) => i.text);
      assert.deepEqual(users, ['hello there', 'count to a million']);
      assert.ok(items.some((i) => i.kind === 'assistant' && i.text === 'Hello from the first window.'));
      assert.notEqual(second.view.mirror.status, 'running', 'the cut-off run is not running');
    } finally {
      await second.close();
    }
  });
});
