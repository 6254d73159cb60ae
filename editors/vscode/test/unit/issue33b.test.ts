// Issue 33, second part, in the extension's pure parts: a question with options answered in free
// text ("Other…", Missing 3), and the Session view after Navigate (bug 14): VS Code keeps an
// element's expanded state by its id, so the branch point and the branch that became the current
// one come back with new ids, and open with "← current" in view.
import '../stub/register';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as vscode from 'vscode';
import type { Agent } from '../../src/agent';
import type { AgentManager } from '../../src/manager';
import type { SessionTree } from '../../src/protocol';
import { questionReply } from '../../src/replies';
import { sessionPickItem } from '../../src/commands';
import { SessionTreeProvider } from '../../src/sessionTree';
import { e, flatServer } from './flatServer';

describe('question with options: Other…', () => {
  const req = { id: 'q1', question: 'Which database?', options: ['sqlite', 'postgres'], selectionMode: 'single' } as never;
  it('sends the free text as the answer', () => {
    assert.deepEqual(questionReply(req, { text: ' duckdb ' }), { answer: 'duckdb' });
    assert.deepEqual(questionReply(req, { selected: ['sqlite'] }), { answer: 'sqlite' });
    assert.deepEqual(questionReply(req, { text: '  ' }), { cancelled: true });
  });
  it('adds it to the picked options of a multi question', () => {
    const multi = { id: 'q2', question: 'Which?', options: ['a', 'b'], selectionMode: 'multi' } as never;
    assert.deepEqual(questionReply(multi, { selected: ['a'], text: 'c too' }), { answers: ['a', 'c too'] });
  });
});

describe('session tree after Navigate', () => {
  // a < b - c (current before), d - f (current after navigating to f)
  const tree = (onB: boolean): SessionTree => ({
    leafId: onB ? 'c' : 'f',
    roots: [e('a', 'message', [e('b', 'message', [e('c', 'message', [], { onBranch: onB })], { onBranch: onB }), e('d', 'message', [e('f', 'message', [], { onBranch: !onB })], { onBranch: !onB })], { onBranch: true })],
  });

  it('gives the branch point and the newly current branch new ids, so they open', async () => {
    let t = tree(true);
    const agent = {
      status: 'ready',
      display: { state: {} },
      onDidChangeDisplay: () => new vscode.Disposable(() => undefined),
      request: async (m: string, p: unknown) => flatServer(t, [])(m, p),
    } as unknown as Agent;
    const manager = { current: () => agent, onDidChangeCurrent: () => new vscode.Disposable(() => undefined) } as unknown as AgentManager;
    const p = new SessionTreeProvider(manager);
    try {
      const look = async () => {
        await p.refresh();
        const top = await p.getChildren();
        const point = top[top.length - 1];
        const groups = await p.getChildren(point);
        return { point: p.getTreeItem(point), groups: groups.map((g) => p.getTreeItem(g)) };
      };
      const before = await look();
      t = tree(false); // session/navigate to f
      const after = await look();
      assert.notEqual(after.point.id, before.point.id, 'the branch point is a new element');
      assert.equal(after.point.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
      const [bBefore, dBefore] = before.groups;
      const [bAfter, dAfter] = after.groups;
      assert.equal(dAfter.collapsibleState, vscode.TreeItemCollapsibleState.Expanded, 'the current branch opens');
      assert.notEqual(dAfter.id, dBefore.id, 'as a new element');
      assert.notEqual(bAfter.id, bBefore.id, 'the branch left closes as a new element too');
    } finally {
      p.dispose();
    }
  });
});

describe('Resume Session picks', () => {
  it('tell apart two sessions that began alike, by date and last prompt', () => {
    const base = { id: 's', cwd: '/w', firstMessage: 'hi, who are you?', modified: '2026-12-01T10:00:00Z', entryCount: 4 };
    const a = sessionPickItem({ ...base, path: '/s/a.jsonl', created: '2026-11-30T09:15:00Z', lastMessage: 'fix the parser' } as never);
    const b = sessionPickItem({ ...base, path: '/s/b.jsonl', created: '2026-12-01T08:00:00Z', lastMessage: 'write the docs' } as never);
    assert.equal(a.label, b.label, 'the same first prompt');
    assert.match(a.description ?? '', /started 2026-11-30 09:15/);
    assert.match(a.detail ?? '', /last: fix the parser/);
    assert.match(b.detail ?? '', /last: write the docs/);
  });
});
