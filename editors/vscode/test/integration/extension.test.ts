// The extension, activated under the stub `vscode`, driving the real pi-lsp binary with the
// scripted fake LLM: a prompt streams, approvals are answered, abort, the trees, resume.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import type { PendingUi } from '../../src/messages';
import type { SessionElement } from '../../src/sessionTree';
import type { FlatTreeNode, FlatTreePage, Task } from '../../src/protocol';
import { FakeLlm, FakeWebviewView, ROOT, waitFor, Workspace, writeSession } from './helpers';
import { useExtensionWithFakeModel } from './start';

type TreeProvider<T> = { getChildren(e?: T): T[] | Promise<T[]>; getTreeItem(e: T): { label: string; description?: string; contextValue?: string } };

/** Every element of a tree view, depth first. */
async function collect<T>(tree: TreeProvider<T>, parent?: T): Promise<T[]> {
  const out: T[] = [];
  for (const e of await tree.getChildren(parent)) {
    out.push(e, ...(await collect(tree, e)));
  }
  return out;
}

/** Every node of the current session's tree, asked of the server run by run (a small session). */
async function serverTree(api: PiLspApi): Promise<FlatTreeNode[]> {
  const a = api.manager.current();
  const out: FlatTreeNode[] = [];
  const below = async (root: string | undefined): Promise<void> => {
    let after: string | null = null;
    do {
      const page: FlatTreePage = await a.request<FlatTreePage>('session/tree', { ...(root ? { root } : {}), ...(after ? { after } : {}), limit: 1000 });
      for (const n of page.nodes) {
        if (n.chain) {
          const run = await a.request<FlatTreePage>('session/tree', { chain: n.id, limit: 1000 });
          assert.equal(run.next, null);
          out.push(...run.nodes);
          if (n.chain.lastChildCount > 0) await below(n.chain.lastId);
        } else {
          out.push(n);
          if (n.childCount > 0) await below(n.id);
        }
      }
      after = page.next;
    } while (after);
  };
  await below(undefined);
  return out;
}

function lastAssistant(api: PiLspApi): string {
  const items = api.manager.current().display.state.items ?? [];
  const a = [...items].reverse().find((i) => i.kind === 'assistant');
  return a?.text ?? '';
}

function idle(api: PiLspApi): boolean {
  const a = api.manager.current();
  return a.display.synced && a.display.state.status === 'idle';
}

describe('extension against pi-lsp', () => {
  let ws: Workspace;
  let llm: FakeLlm;
  let api: PiLspApi;
  let view: FakeWebviewView;

  useExtensionWithFakeModel({ prefix: 'int', until: 'snapshot' }, (s) => ({ ws, llm, api, view } = s));

  it('registers every command of the issue', () => {
    for (const c of ['newSession', 'resumeSession', 'selectModel', 'selectMode', 'thinkingLevel', 'compact', 'abort']) {
      assert.ok(stub.control.commands.has(`piLsp.${c}`), c);
    }
    // and every command the manifest contributes (menus and the palette name them)
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { commands: Array<{ command: string }> } };
    for (const { command } of manifest.contributes.commands) assert.ok(stub.control.commands.has(command), command);
    const html = view.webview.html;
    assert.match(html, /Content-Security-Policy/);
    assert.match(html, /default-src 'none'/);
    assert.doesNotMatch(html, /https?:\/\//, 'no remote resources');
  });

  it('streams a prompt into the chat', async () => {
    const answer = 'Hello from the fake model. This answer arrives in many small pieces so that it streams.';
    // The server batches display changes (250 ms debounce, 500 ms cap): stream for ~1.5 s.
    await llm.add({ text: answer, chunkSize: 4, chunkDelayMs: 70 });
    const before = view.posted.length;
    view.receive({ type: 'send', text: 'say hello', behavior: 'steer' });
    await waitFor('the answer', () => lastAssistant(api) === answer && idle(api));
    const appends = view.posted
      .slice(before)
      .flatMap((m) => (m.type === 'ops' ? m.ops : []))
      .filter((o) => o.op === 'append' && o.path.includes('text'));
    assert.ok(appends.length >= 2, `text streamed as several appends (got ${appends.length})`);
    assert.equal(view.mirrorGaps, 0, 'no version gaps in the frames forwarded to the page');
    assert.deepEqual(view.mirror, api.manager.current().display.state, 'the page sees the same state as the extension');
    const items = api.manager.current().display.state.items ?? [];
    assert.ok(items.some((i) => i.kind === 'user' && i.text === 'say hello'));
    assert.match(stub.control.statusBarText, /fake\/fake-model · \w+/);
  });

  async function promptWrite(file: string, content: string): Promise<Extract<PendingUi, { kind: 'approval' }>> {
    const id = `call_${file.replace(/\W/g, '_')}`;
    await llm.add(
      { toolCalls: [{ id, name: 'write', arguments: { path: file, content } }] },
      { text: `Handled ${file}.` },
    );
    view.receive({ type: 'send', text: `write ${file}`, behavior: 'steer' });
    const p = await waitFor('an approval card', () => view.last('pending')?.items.find((i) => i.kind === 'approval' && i.req.toolCallId === id));
    return p as Extract<PendingUi, { kind: 'approval' }>;
  }

  it('answers an approval from the card (approve writes the file)', async () => {
    const card = await promptWrite('hello.txt', 'hello world\n');
    assert.equal(card.req.toolName, 'write');
    view.receive({ type: 'approval', key: card.key, decision: 'approve' });
    const read = (p: string) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined);
    await waitFor('the file to hold the text', () => read(path.join(ws.folder, 'hello.txt')) === 'hello world\n');
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Handled hello.txt.');
    const tool = api.manager.current().display.state.items?.find((i) => i.id === card.req.toolCallId);
    assert.equal(tool?.status, 'done');
    assert.equal(view.last('pending')?.items.length, 0, 'the card is gone');
  });

  it("the card's Approve writes the user's edit of the open diff review (issue 33)", async () => {
    const card = await promptWrite('reviewed.txt', 'the proposal\n');
    // The approval opened the diff editor; its right side is an editable scratch file.
    const diff = await waitFor('the diff review', () => [...stub.control.executed].reverse().find((e) => e.id === 'vscode.diff' && String(e.args[2]).startsWith('reviewed.txt')));
    const right = (diff.args[1] as { fsPath: string }).fsPath;
    assert.equal(fs.readFileSync(right, 'utf8'), 'the proposal\n');
    fs.writeFileSync(right, 'the proposal, edited by the user\n');
    view.receive({ type: 'approval', key: card.key, decision: 'approve' });
    const file = path.join(ws.folder, 'reviewed.txt');
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Handled reviewed.txt.');
    assert.equal(fs.readFileSync(file, 'utf8'), 'the proposal, edited by the user\n', 'the reviewed content was written, not the proposal');
    assert.equal(fs.existsSync(right), false, 'the review closed');
  });

  it('answers an approval from the card (decline leaves the disk alone)', async () => {
    const card = await promptWrite('nope.txt', 'x\n');
    view.receive({ type: 'approval', key: card.key, decision: 'decline' });
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Handled nope.txt.');
    assert.equal(fs.existsSync(path.join(ws.folder, 'nope.txt')), false);
    const tool = api.manager.current().display.state.items?.find((i) => i.id === card.req.toolCallId);
    assert.equal(tool?.status, 'declined');
  });

  it('asks through a notification when the chat is hidden', async () => {
    view.setVisible(false);
    stub.control.notification = (_m, items) => (items.includes('Approve') ? 'Approve' : undefined);
    try {
      await llm.add({ toolCalls: [{ id: 'call_hidden', name: 'write', arguments: { path: 'hidden.txt', content: 'from a notification\n' } }] }, { text: 'Handled hidden.txt.' });
      view.receive({ type: 'send', text: 'write hidden.txt', behavior: 'steer' });
      const hidden = path.join(ws.folder, 'hidden.txt');
      await waitFor('the file to hold the text', () => fs.existsSync(hidden) && fs.readFileSync(hidden, 'utf8') === 'from a notification\n');
      const note = stub.control.messages.find((m) => m.message.includes('hidden.txt') || m.items.includes('Always this tool'));
      assert.ok(note, 'a notification was shown');
      // Short labels; a write has a preview, so Review (the diff editor) comes first.
      assert.deepEqual(note.items, ['Review', 'Approve', 'Decline']);
      await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Handled hidden.txt.');
    } finally {
      stub.control.notification = () => undefined;
    }
    // Shown again: the view resyncs with display/snapshot.
    const n = view.posted.length;
    view.setVisible(true);
    const snap = await waitFor('a snapshot after showing the view', () => view.posted.slice(n).find((m) => m.type === 'snapshot'));
    assert.equal(snap.type === 'snapshot' && snap.version, api.manager.current().display.version);
  });

  it('answers a question and a plan from their cards', async () => {
    await llm.add(
      { toolCalls: [{ id: 'call_ask', name: 'ask_user', arguments: { question: 'Which database?', options: ['sqlite', 'postgres'] } }] },
      { toolCalls: [{ id: 'call_plan', name: 'submit_plan', arguments: { title: 'Add caching', plan: '1. Add an **LRU**\n2. Test it' } }] },
      { text: 'Planned.' },
    );
    view.receive({ type: 'send', text: 'ask me, then plan', behavior: 'steer' });
    const q = await waitFor('a question card', () => view.last('pending')?.items.find((i) => i.kind === 'question'));
    assert.equal(q.kind === 'question' && q.req.question, 'Which database?');
    view.receive({ type: 'answer', key: q.key, answer: { selected: ['postgres'] } });
    const p = await waitFor('a plan card', () => view.last('pending')?.items.find((i) => i.kind === 'plan'));
    assert.equal(p.kind === 'plan' && p.req.title, 'Add caching');
    view.receive({ type: 'plan', key: p.key, approved: false, feedback: 'also handle eviction' });
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Planned.');
    const reqs = JSON.stringify(await llm.requests());
    assert.match(reqs, /postgres/, 'the answer went back to the model');
    assert.match(reqs, /also handle eviction/, 'the plan feedback went back to the model');
  });

  it('lists slash commands for completion', async () => {
    const n = view.posted.length;
    view.receive({ type: 'commands' });
    const m = await waitFor('a commands message', () => view.posted.slice(n).find((x) => x.type === 'commands'));
    assert.ok(m.type === 'commands' && Array.isArray(m.commands));
    assert.equal(view.posted.slice(n).some((x) => x.type === 'error'), false, JSON.stringify(view.posted.slice(n)));
  });

  it('serves unsaved editor buffers to the read tool (fs/readTextFile)', async () => {
    const readme = path.join(ws.folder, 'README.md');
    stub.workspace.textDocuments = [{ uri: stub.Uri.file(readme), getText: () => '# unsaved buffer text\n' }];
    try {
      await llm.add({ toolCalls: [{ id: 'call_read', name: 'read', arguments: { path: 'README.md' } }] }, { text: 'Read it.' });
      view.receive({ type: 'send', text: 'read the readme', behavior: 'steer' });
      await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Read it.');
      const tool = api.manager.current().display.state.items?.find((i) => i.id === 'call_read');
      assert.match(tool?.output ?? '', /unsaved buffer text/);
      assert.equal(fs.readFileSync(readme, 'utf8'), '# demo project\n', 'the file on disk is another text');
    } finally {
      stub.workspace.textDocuments = [];
    }
  });

  it('aborts a run', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    await llm.add({ text: long, chunkSize: 8, chunkDelayMs: 40 });
    view.receive({ type: 'send', text: 'write a long story', behavior: 'steer' });
    await waitFor('some streamed text', () => lastAssistant(api).startsWith('word0 word1'));
    view.receive({ type: 'abort' });
    await waitFor('the run to stop', () => idle(api), 15000);
    const got = lastAssistant(api);
    assert.ok(got.length < long.length, `stopped early (${got.length} of ${long.length} chars)`);
    assert.ok(stub.control.executed.some((e) => e.id === 'piLsp.abort'));
  });

  it('shows the task list in the Tasks tree', async () => {
    await llm.add(
      {
        toolCalls: [
          {
            id: 'call_tasks',
            name: 'task_write',
            arguments: {
              tasks: [
                { content: 'Write the code', status: 'in_progress', activeForm: 'Writing the code' },
                { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
              ],
            },
          },
        ],
      },
      { text: 'Tasks noted.' },
    );
    view.receive({ type: 'send', text: 'plan it', behavior: 'steer' });
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Tasks noted.');
    const tree = stub.control.treeProviders.get('piLsp.tasks') as TreeProvider<Task>;
    const tasks = await tree.getChildren();
    assert.deepEqual(tasks.map((t) => tree.getTreeItem(t).label), ['Writing the code', 'Run the tests']);
  });

  it('compacts the context', async () => {
    // Recent messages (20k tokens by default) are kept: make an older one big enough to go.
    await llm.add({ text: 'Noted.' }, { text: 'ok' });
    view.receive({ type: 'send', text: `remember this: ${'lorem ipsum dolor sit amet '.repeat(4000)}`, behavior: 'steer' });
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'Noted.');
    view.receive({ type: 'send', text: 'and this', behavior: 'steer' });
    await waitFor('the run to end', () => idle(api) && lastAssistant(api) === 'ok');
    await llm.add({ text: '## Goal\nSay hello and write files.\n\n## Progress\nDone.' });
    stub.control.inputBox = () => '';
    const errorsBefore = stub.control.messages.filter((m) => m.level === 'error').length;
    const r = (await stub.commands.executeCommand('piLsp.compact')) as { summary?: string } | undefined;
    assert.equal(stub.control.messages.filter((m) => m.level === 'error').length, errorsBefore, JSON.stringify(stub.control.messages));
    assert.match(r?.summary ?? '', /Say hello/);
    await waitFor('a summary item', () => (api.manager.current().display.state.items ?? []).some((i) => i.kind === 'summary'));
  });

  it('populates the session tree and labels and navigates entries', async () => {
    const tree = stub.control.treeProviders.get('piLsp.sessionTree') as TreeProvider<SessionElement>;
    await api.sessionTree.refresh();
    const top = await tree.getChildren();
    const labels = top.map((e) => tree.getTreeItem(e).label);
    assert.ok(labels.some((l) => l === 'user: say hello'), `tree shows the first prompt: ${JSON.stringify(labels)}`);
    const current = top.map((e) => tree.getTreeItem(e)).filter((i) => i.description?.includes('current'));
    assert.equal(current.length, 1, 'the leaf is marked');

    // Bookkeeping (the model and thinking level set at the start, pi-lsp/* state) is hidden as
    // pi's /tree does, until Show All Entries; Hide Bookkeeping hides it again.
    const bookkeeping = new Set(['model_change', 'thinking_level_change', 'label', 'session_info', 'custom']);
    const entryTypes = async () =>
      (await collect(tree)).flatMap((e) => (e.kind === 'entry' ? [e.node.type ?? ''] : []));
    const rawTypes = (await serverTree(api)).map((n) => n.type);
    assert.ok(rawTypes.includes('model_change'), `the session records its model: ${JSON.stringify(rawTypes)}`);
    const hidden = await entryTypes();
    assert.deepEqual(hidden.filter((t) => bookkeeping.has(t)), [], `no bookkeeping shown: ${JSON.stringify(hidden)}`);
    assert.equal(hidden.length, rawTypes.filter((t) => !bookkeeping.has(t)).length, 'every other entry is shown');
    await stub.commands.executeCommand('piLsp.tree.showAll');
    assert.equal(stub.control.context.get('piLsp.tree.showAll'), true);
    assert.deepEqual((await entryTypes()).sort(), [...rawTypes].sort(), 'Show All Entries shows every entry');
    const currentAll = (await collect(tree)).filter((e) => e.kind === 'entry' && tree.getTreeItem(e).description?.includes('← current'));
    assert.equal(currentAll.length, 1, 'the leaf is marked once with every entry shown');
    await stub.commands.executeCommand('piLsp.tree.hideBookkeeping');
    assert.equal(stub.control.context.get('piLsp.tree.showAll'), false);
    assert.deepEqual(await entryTypes(), hidden);

    const first = top.find((e) => tree.getTreeItem(e).label === 'user: say hello')!;
    stub.control.inputBox = () => 'checkpoint';
    await stub.commands.executeCommand('piLsp.tree.label', first);
    const relabeled = (await tree.getChildren()).find((e) => e.kind === 'entry' && first.kind === 'entry' && e.node.id === first.node.id)!;
    assert.match(tree.getTreeItem(relabeled).description ?? '', /checkpoint/);

    // Navigate with a summary to the 'and this' prompt: what follows it is summarized.
    const all = (await collect(tree)).filter((e): e is Extract<SessionElement, { kind: 'entry' }> => e.kind === 'entry');
    const andThis = all.find((e) => e.node.preview === 'and this');
    assert.ok(andThis, 'the tree holds the later prompt');
    await llm.add({ text: 'The user asked for a compaction after this point.' });
    stub.control.inputBox = () => '';
    const sumText = view.posted.length;
    await stub.commands.executeCommand('piLsp.tree.navigateSummarize', andThis);
    assert.deepEqual(
      await waitFor('the prompt back in the input', () => view.posted.slice(sumText).find((m) => m.type === 'editorText')),
      { type: 'editorText', text: 'and this' },
    );
    await waitFor('a branch summary in the chat', () =>
      (api.manager.current().display.state.items ?? []).some((i) => i.kind === 'summary' && /compaction after this point/.test(i.text ?? '')),
    );

    const n = view.posted.length;
    await stub.commands.executeCommand('piLsp.tree.navigate', relabeled);
    const text = await waitFor('the navigated prompt in the input', () => view.posted.slice(n).find((m) => m.type === 'editorText'));
    assert.deepEqual(text, { type: 'editorText', text: 'say hello' });
    await waitFor('the display to follow', () => (api.manager.current().display.state.items ?? []).every((i) => i.text !== 'plan it'));
    const after = await tree.getChildren();
    assert.ok(after.length > 0);
  });

  it('changes thinking level, model and mode through the pickers', async () => {
    const errorsBefore = stub.control.messages.filter((m) => m.level === 'error').length;
    stub.control.quickPick = (items) => (items as Array<{ label: string }>).find((i) => i.label.endsWith('high'));
    await stub.commands.executeCommand('piLsp.thinkingLevel');
    await waitFor('thinking level high', () => api.manager.current().display.state.thinkingLevel === 'high');
    stub.control.quickPick = (items) => (items as Array<{ id?: string }>).find((i) => i.id === 'fake/fake-model');
    await stub.commands.executeCommand('piLsp.selectModel');
    stub.control.quickPick = (items) => (items as Array<{ mode?: string }>).find((i) => i.mode && i.mode !== api.manager.current().display.state.mode?.id);
    const before = api.manager.current().display.state.mode?.id;
    await stub.commands.executeCommand('piLsp.selectMode');
    await waitFor('another mode', () => api.manager.current().display.state.mode?.id !== before);
    assert.equal(stub.control.messages.filter((m) => m.level === 'error').length, errorsBefore, JSON.stringify(stub.control.messages));
  });

  it('starts a new session and resumes the old one', async () => {
    const oldId = api.manager.current().display.state.session?.id;
    assert.ok(oldId);
    await stub.commands.executeCommand('piLsp.newSession');
    await waitFor('a new session', () => {
      const s = api.manager.current().display.state;
      return s.session?.id && s.session.id !== oldId && (s.items ?? []).length === 0;
    });
    let offered: Array<{ label: string; session: { id: string } }> = [];
    stub.control.quickPick = (items) => {
      offered = items as typeof offered;
      return offered.find((i) => i.session.id === oldId);
    };
    await stub.commands.executeCommand('piLsp.resumeSession');
    assert.ok(offered.length >= 1, 'session/list offered sessions');
    assert.ok(
      offered.some((i) => i.session.id === oldId),
      `the old session is offered: ${JSON.stringify(offered)} ${JSON.stringify(stub.control.messages)}`,
    );
    // The old session's leaf is where the navigate test above left it (before 'say hello'), so
    // check its whole tree rather than the current branch.
    await waitFor('the old session back', () => api.manager.current().display.state.session?.id === oldId);
    await api.sessionTree.refresh();
    const tree = stub.control.treeProviders.get('piLsp.sessionTree') as TreeProvider<SessionElement>;
    const previews = (await collect(tree)).flatMap((e) => (e.kind === 'entry' ? [e.node.preview ?? ''] : []));
    assert.ok(previews.includes('say hello'), `the resumed tree holds the first prompt: ${JSON.stringify(previews)}`);
    assert.ok(previews.includes('plan it'));
    await waitFor('the page to follow', () => view.mirror.session?.id === oldId);
  });

  it('runs one server per workspace folder', async () => {
    const first = api.manager.current();
    const other = path.join(ws.dir, 'other');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'main.go'), 'package main\n');
    stub.control.folders.push({ uri: stub.Uri.file(other), name: 'other', index: 1 });
    stub.setActiveEditor(path.join(other, 'main.go'));
    try {
      const second = api.manager.current();
      assert.notEqual(second, first);
      await waitFor('the second server', () => second.status === 'ready' && second.display.synced, 30000);
      const pid = (a: unknown) => (a as { client?: { pid?: number } }).client?.pid;
      assert.notEqual(pid(second), pid(first));
      assert.equal(second.display.state.session?.cwd, other);
      await waitFor('the page to show the other folder', () => view.mirror.session?.cwd === other);
    } finally {
      stub.setActiveEditor(path.join(ws.folder, 'README.md'));
    }
    assert.equal(api.manager.current(), first);
    await waitFor('the page to come back', () => view.mirror.session?.cwd === ws.folder);
  });

  it('restarts a crashed server and keeps the session', async () => {
    const agent = api.manager.current();
    const sessionPath = agent.display.state.session?.path;
    const pid = (agent as unknown as { client?: { pid?: number } }).client?.pid;
    assert.ok(pid, 'server pid');
    process.kill(pid, 'SIGKILL');
    await waitFor('the crash to be noticed', () => stub.control.messages.some((m) => m.level === 'warning' && /restart/.test(m.message)));
    await waitFor('the restart', () => agent.status === 'ready' && (agent as unknown as { client?: { pid?: number } }).client?.pid !== pid, 30000);
    await waitFor('the same session', () => agent.display.state.session?.path === sessionPath);
    assert.ok(stub.control.output.join('').includes('exited'), 'the exit is in the Output channel');
  });

  it('restarts on a piLsp.env change; the next prompt, its answer and its cost appear', async () => {
    const agent = api.manager.current();
    const pidOf = () => (agent as unknown as { client?: { pid?: number } }).client?.pid;
    const pid = pidOf();
    await waitFor('an idle display', () => idle(api));
    const heldVersion = agent.display.version;
    assert.ok(heldVersion > 1, `the display holds version ${heldVersion}`);
    // A models.json with a price: the restarted server must show this prompt's cost.
    const priced = JSON.parse(fs.readFileSync(llm.modelsJson, 'utf8')) as { providers: Record<string, { models: Array<Record<string, unknown>> }> };
    for (const p of Object.values(priced.providers)) for (const m of p.models) m.cost = { input: 1000, output: 2000, cacheRead: 0, cacheWrite: 0 };
    const pricedPath = path.join(ws.dir, 'models-priced.json');
    fs.writeFileSync(pricedPath, JSON.stringify(priced));
    const env = stub.control.config['piLsp.env'] as Record<string, string>;
    stub.control.config['piLsp.env'] = { ...env, PI_LSP_MODELS: pricedPath };
    stub.fireConfigChange('piLsp.env');
    try {
      await waitFor('the restart', () => agent.status === 'ready' && pidOf() !== undefined && pidOf() !== pid, 30000);
      await llm.add({ text: 'Answered after the restart.' });
      view.receive({ type: 'send', text: 'prompt after the restart', behavior: 'steer' });
      await waitFor('the prompt and its answer in the display', () => {
        const items = agent.display.state.items ?? [];
        return idle(api) && items.some((i) => i.kind === 'user' && i.text === 'prompt after the restart') && lastAssistant(api) === 'Answered after the restart.';
      });
      await waitFor('the cost in the display', () => (agent.display.state.tokens?.cost?.total ?? 0) > 0);
      await waitFor('the answer on the page', () => (view.mirror.items ?? []).some((i) => i.kind === 'assistant' && i.text === 'Answered after the restart.'));
      await waitFor('the cost on the page', () => (view.mirror.tokens?.cost?.total ?? 0) > 0);
    } finally {
      stub.control.config['piLsp.env'] = env;
    }
  });

  it('forks a new session before a user message', async () => {
    const tree = stub.control.treeProviders.get('piLsp.sessionTree') as TreeProvider<SessionElement>;
    await api.sessionTree.refresh();
    const before = api.manager.current().display.state.session?.id;
    const entry = (await collect(tree)).find((e) => e.kind === 'entry' && e.node.preview === 'write hello.txt');
    assert.ok(entry, 'the tree holds the prompt to fork from');
    const n = view.posted.length;
    await stub.commands.executeCommand('piLsp.tree.fork', entry);
    assert.deepEqual(
      await waitFor('the prompt in the input', () => view.posted.slice(n).find((m) => m.type === 'editorText')),
      { type: 'editorText', text: 'write hello.txt' },
    );
    await waitFor('the forked session', () => {
      const s = api.manager.current().display.state;
      return s.session?.id !== before && (s.items ?? []).some((i) => i.text === 'say hello') && !(s.items ?? []).some((i) => i.text === 'write hello.txt');
    });
  });

  it('loads a long, branchy session tree lazily, page by page', async () => {
    const tree = stub.control.treeProviders.get('piLsp.sessionTree') as TreeProvider<SessionElement>;
    const agent = api.manager.current();
    const back = agent.display.state.session?.path;
    assert.ok(back);
    const gen = writeSession(ws.dir, ws.folder, 40, [
      { name: 'side', entries: 10 },
      { name: 'other', entries: 12 },
      { name: 'main', entries: 500 },
    ]);
    const total = 1 + 40 + 10 + 12 + 500;
    const main = gen.ids.get('main')!;
    const trunkEnd = gen.ids.get('trunk')!.at(-1)!;
    // Every session/tree request of the extension, with the number of nodes it got.
    const calls: Array<{ params: Record<string, unknown>; nodes: number }> = [];
    const request = agent.request.bind(agent);
    agent.request = (async (method: string, params: unknown) => {
      const r = await request(method, params);
      if (method === 'session/tree') calls.push({ params: params as Record<string, unknown>, nodes: (r as FlatTreePage).nodes.length });
      return r;
    }) as typeof agent.request;
    try {
      await stub.commands.executeCommand('piLsp.openSubagentSession', gen.path);
      await waitFor('the generated session', () => agent.display.state.session?.path === gen.path && agent.display.synced);
      // Let the view's own refreshes (after display changes) settle: a second with no request.
      let seen = -1;
      let quietSince = Date.now();
      await waitFor('the tree to settle', () => {
        if (calls.length !== seen) [seen, quietSince] = [calls.length, Date.now()];
        return Date.now() - quietSince > 1000 && api.sessionTree.tree?.leafId === main.at(-1);
      });

      calls.length = 0;
      await api.sessionTree.refresh();
      assert.deepEqual(calls.map((c) => c.params), [{ limit: 200 }], 'a refresh asks for the roots only');
      assert.equal(calls[0].nodes, 1, 'one root: the model change, standing for the trunk run');

      const top = await tree.getChildren();
      assert.deepEqual(calls.slice(1).map((c) => c.params), [{ limit: 200, chain: gen.ids.get('root')![0] }], 'the top level asks for the root run');
      assert.equal(top.length, 40, 'the trunk run flat, the model change hidden');
      const point = top.at(-1)!;
      assert.ok(point.kind === 'entry' && point.node.id === trunkEnd && point.below === trunkEnd, 'the trunk ends at the branch point');

      const n = calls.length;
      const groups = await tree.getChildren(point);
      assert.deepEqual(calls.slice(n).map((c) => c.params), [{ limit: 200, root: trunkEnd }], 'opening the branch point asks for its children');
      assert.deepEqual(groups.map((g) => tree.getTreeItem(g).label), ['user: side question 0', 'user: other question 0', 'user: main question 0']);
      assert.deepEqual(groups.map((g) => tree.getTreeItem(g).description), ['branch', 'branch', 'current branch']);

      const m = calls.length;
      let run = await tree.getChildren(groups[2]);
      assert.deepEqual(calls.slice(m).map((c) => c.params), [{ limit: 200, chain: main[0] }]);
      assert.equal(run.length, 202, '200 entries, Load more, the run end');
      const more = run[200];
      assert.equal(more.kind, 'more');
      assert.equal(tree.getTreeItem(more).label, 'Load more… (300 more entries)');
      assert.match(tree.getTreeItem(run[201]).description ?? '', /← current/, 'the run end stands for the leaf');
      const loadMore = async (e: SessionElement) => {
        const cmd = (tree.getTreeItem(e) as { command?: { command: string; arguments: unknown[] } }).command!;
        await stub.commands.executeCommand(cmd.command, ...cmd.arguments);
      };
      await loadMore(more);
      run = await tree.getChildren(groups[2]);
      assert.equal(run.length, 402);
      await loadMore(run[400]);
      run = await tree.getChildren(groups[2]);
      const entries = run.filter((e): e is Extract<SessionElement, { kind: 'entry' }> => e.kind === 'entry');
      assert.deepEqual(entries.map((e) => e.node.id), main, 'every entry of the run, in order');
      assert.deepEqual(run.filter((e) => tree.getTreeItem(e).description?.includes('current')).map((e) => (e as { node: { id: string } }).node.id), [main.at(-1)]);
      assert.deepEqual(calls.slice(m + 1).map((c) => c.params), [
        { limit: 200, chain: main[0], after: calls[m + 1].params.after },
        { limit: 200, chain: main[0], after: calls[m + 2].params.after },
      ]);
      assert.ok(calls.every((c) => c.nodes <= 200 && c.nodes < total && (c.params.limit as number) <= 200 && c.params.depth === undefined), `no request lists the whole tree: ${JSON.stringify(calls)}`);

      // Navigate into a closed branch, and label an entry there: the view follows, lazily.
      const side = await tree.getChildren(groups[0]);
      assert.equal(side.length, 10);
      await stub.commands.executeCommand('piLsp.tree.navigate', side[9]);
      await waitFor('the leaf in the side branch', () => api.sessionTree.tree?.leafId === gen.ids.get('side')!.at(-1));
      const [pointAgain] = (await tree.getChildren()).slice(-1);
      const groupsAgain = await tree.getChildren(pointAgain);
      assert.deepEqual(groupsAgain.map((g) => tree.getTreeItem(g).description), ['current branch', 'branch', 'branch']);
      stub.control.inputBox = () => 'side end';
      await stub.commands.executeCommand('piLsp.tree.label', side[5]);
      const sideAgain = await tree.getChildren(groupsAgain[0]);
      assert.match(tree.getTreeItem(sideAgain[5]).description ?? '', /🏷 side end/);
      assert.equal(sideAgain.filter((e) => tree.getTreeItem(e).description?.includes('← current')).length, 1, 'the leaf is marked once');
    } finally {
      agent.request = request as typeof agent.request;
      await stub.commands.executeCommand('piLsp.openSubagentSession', back);
      await waitFor('the session back', () => agent.display.state.session?.path === back);
    }
  });
  it('runs /goal from the chat input as goal/set; the header line and the stop button follow it', async () => {
    await llm.add({ match: 'Goal: ship the feature', text: 'working', repeat: true });
    const check = 'c=$(cat goal-n 2>/dev/null || echo 0); c=$((c+1)); echo $c > goal-n; [ $c -ge 2 ]';
    view.receive({ type: 'send', text: `/goal ship the feature --check '${check}' --max-turns 3`, behavior: 'steer' });
    const agent = api.manager.current();
    await waitFor('the goal met', () => agent.display.state.goal?.status === 'met' && idle(api), 30000);
    assert.equal(agent.display.state.goal?.turns, 2);
    assert.equal(fs.readFileSync(path.join(ws.folder, 'goal-n'), 'utf8'), '2\n');
    const users = (agent.display.state.items ?? []).filter((i) => i.kind === 'user').map((i) => i.text ?? '');
    assert.ok(!users.some((u) => u.startsWith('/goal')), 'the /goal input was sent as a prompt');
    assert.ok(users.some((u) => u.startsWith('Goal: ship the feature')));
    assert.deepEqual(view.mirror.goal, agent.display.state.goal, 'the page sees the goal');
    assert.match(view.webview.html, /id="goal-stop"/);

    // A goal that never passes, stopped from the page's button: no further run.
    await llm.add({ match: 'Goal: wait forever', text: 'trying', repeat: true });
    view.receive({ type: 'send', text: '/goal wait forever --check "touch goal-started; sleep 60"', behavior: 'steer' });
    await waitFor('the check', () => fs.existsSync(path.join(ws.folder, 'goal-started')), 30000);
    assert.match(stub.control.statusBarText, /goal 1\/20/);
    const before = (await llm.requests()).length;
    view.receive({ type: 'goalStop' });
    await waitFor('the goal stopped', () => agent.display.state.goal?.status === 'stopped' && idle(api), 30000);
    assert.equal((await llm.requests()).length, before);
    assert.doesNotMatch(stub.control.statusBarText, /goal/);
  });
});
