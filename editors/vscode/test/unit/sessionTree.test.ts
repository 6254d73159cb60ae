// The Session view's lazy layout, against a session/tree server that answers as pi-lsp does.
import '../stub/register';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as vscode from 'vscode';
import type { Agent } from '../../src/agent';
import type { AgentManager } from '../../src/manager';
import type { SessionTree } from '../../src/protocol';
import { SessionTreeProvider, type SessionElement } from '../../src/sessionTree';
import { control } from '../stub/vscode';
import { chain, e, flatServer } from './flatServer';

// A ready agent whose session/tree answers `tree` (recording the params), and a manager holding it.
function fakeManager(tree: SessionTree, calls: any[], fail?: () => boolean): AgentManager {
  const server = flatServer(tree, calls);
  const agent = {
    status: 'ready',
    display: { state: {} },
    onDidChangeDisplay: () => new vscode.Disposable(() => undefined),
    request: async (m: string, p: unknown) => {
      if (fail?.()) throw new Error('server gone');
      return server(m, p);
    },
  } as unknown as Agent;
  return { current: () => agent, onDidChangeCurrent: () => new vscode.Disposable(() => undefined) } as unknown as AgentManager;
}

function ids(els: SessionElement[]): string[] {
  return els.map((x) => (x.kind === 'entry' ? (x.end ? `end:${x.node.id}` : x.node.id) : x.kind === 'branch' ? `branch:${x.start.id}` : `more:${x.key}`));
}

function current(p: SessionTreeProvider, els: SessionElement[]): string[] {
  return els.filter((x) => String(p.getTreeItem(x).description ?? '').includes('current')).map((x) => (x.kind === 'entry' ? x.node.id : ''));
}

async function withProvider(tree: SessionTree, fn: (p: SessionTreeProvider, calls: any[]) => Promise<void>, pageSize?: number, fail?: () => boolean) {
  const calls: any[] = [];
  const p = new SessionTreeProvider(fakeManager(tree, calls, fail));
  p.pageSize = pageSize;
  try {
    await fn(p, calls);
  } finally {
    p.dispose();
  }
}

describe('session tree, loaded lazily', () => {
  // a - b - c < d - e      (branch 1, current)
  //             f          (branch 2)
  const tree: SessionTree = {
    leafId: 'e',
    roots: [e('a', 'message', [e('b', 'message', [e('c', 'message', [e('d', 'message', [e('e', 'message', [], { onBranch: true })], { onBranch: true }), e('f', 'message')], { onBranch: true })], { onBranch: true })], { onBranch: true })],
  };

  it('asks for the roots on refresh, a run when it is shown, a branch point when it is opened', async () => {
    await withProvider(tree, async (p, calls) => {
      await p.refresh();
      assert.deepEqual(calls, [{ limit: 200 }], 'a refresh asks for the first page of roots only');
      const top = await p.getChildren();
      assert.deepEqual(ids(top), ['a', 'b', 'c'], 'a lone root run is shown flat');
      assert.deepEqual(calls.slice(1), [{ limit: 200, chain: 'a' }]);
      assert.equal(p.getTreeItem(top[0]).collapsibleState, vscode.TreeItemCollapsibleState.None);
      assert.equal(p.getTreeItem(top[2]).collapsibleState, vscode.TreeItemCollapsibleState.Expanded, 'the branch point opens');
      const groups = await p.getChildren(top[2]);
      assert.deepEqual(ids(groups), ['branch:d', 'branch:f']);
      assert.deepEqual(calls.slice(2), [{ limit: 200, root: 'c' }]);
      assert.equal(p.getTreeItem(groups[0]).collapsibleState, vscode.TreeItemCollapsibleState.Expanded, 'the current branch is open');
      assert.equal(p.getTreeItem(groups[1]).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, 'another branch is closed');
      const d = await p.getChildren(groups[0]);
      assert.deepEqual(ids(d), ['d', 'e']);
      assert.deepEqual(current(p, d), ['e']);
      assert.deepEqual(ids(await p.getChildren(groups[1])), ['f'], 'a one-entry branch needs no request');
      assert.equal(calls.length, 4);
      // Looking again costs nothing; a refresh drops it all and opened elements ask again.
      await p.getChildren(top[2]);
      assert.equal(calls.length, 4);
      await p.refresh();
      assert.deepEqual(ids(await p.getChildren(top[2])), ['branch:d', 'branch:f']);
      assert.deepEqual(calls.slice(4), [{ limit: 200 }, { limit: 200, root: 'c' }]);
    });
  });

  it('pages a long run with Load more and stands its end for the rest', async () => {
    const long: SessionTree = { leafId: 'm24', roots: [chain(25)] };
    await withProvider(
      long,
      async (p, calls) => {
        await p.refresh();
        let top = await p.getChildren();
        assert.deepEqual(ids(top), [...Array.from({ length: 10 }, (_, i) => `m${i}`), 'more:chain:m0', 'end:m24']);
        assert.match(String(p.getTreeItem(top[10]).label), /Load more… \(15 more entries\)/);
        assert.deepEqual(current(p, top), ['m24'], 'the run end stands for the leaf');
        const more = top[10];
        const item = p.getTreeItem(more);
        assert.deepEqual(item.command, { command: 'piLsp.tree.loadMore', title: 'Load more', arguments: [more] });
        await p.loadMore(more);
        top = await p.getChildren();
        assert.equal(top.length, 22);
        await p.loadMore(top[20]);
        top = await p.getChildren();
        assert.deepEqual(ids(top), Array.from({ length: 25 }, (_, i) => `m${i}`));
        assert.deepEqual(current(p, top), ['m24']);
        assert.deepEqual(calls, [{ limit: 10 }, { limit: 10, chain: 'm0' }, { limit: 10, chain: 'm0', after: '10' }, { limit: 10, chain: 'm0', after: '20' }]);
      },
      10,
    );
  });

  it('pages a branch point with many children', async () => {
    const many: SessionTree = { leafId: 'k0', roots: [e('r', 'message', Array.from({ length: 25 }, (_, i) => e(`k${i}`, 'message')))] };
    await withProvider(
      many,
      async (p, calls) => {
        await p.refresh();
        const [r] = await p.getChildren();
        let groups = await p.getChildren(r);
        assert.equal(groups.length, 11);
        assert.equal(groups[10].kind, 'more');
        await p.loadMore(groups[10]);
        groups = await p.getChildren(r);
        assert.equal(groups.length, 21);
        await p.loadMore(groups[20]);
        groups = await p.getChildren(r);
        assert.deepEqual(ids(groups), Array.from({ length: 25 }, (_, i) => `branch:k${i}`));
        assert.ok(calls.every((c) => c.limit === 10 && c.depth === undefined));
      },
      10,
    );
  });

  it('hides bookkeeping, marks the nearest shown entry of the leaf, and toggles show-all without a request', async () => {
    const t: SessionTree = {
      leafId: 'st',
      roots: [e('u', 'message', [e('mc', 'model_change', [e('r', 'message', [e('st', 'custom', [], { onBranch: true })], { onBranch: true, role: 'assistant' })], { onBranch: true })], { onBranch: true })],
    };
    await withProvider(t, async (p, calls) => {
      assert.equal(control.context.get('piLsp.tree.showAll'), false);
      await p.refresh();
      let top = await p.getChildren();
      assert.deepEqual(ids(top), ['u', 'r']);
      assert.deepEqual(current(p, top), ['r']);
      assert.match(p.getTreeItem(top[1]).contextValue ?? '', /leaf/);
      const n = calls.length;
      await p.setShowAll(true);
      top = await p.getChildren();
      assert.deepEqual(ids(top), ['u', 'mc', 'r', 'st']);
      assert.deepEqual(current(p, top), ['st']);
      assert.equal(control.context.get('piLsp.tree.showAll'), true);
      await p.setShowAll(false);
      assert.deepEqual(ids(await p.getChildren()), ['u', 'r']);
      assert.equal(calls.length, n, 'show-all redraws from what is loaded');
    });
  });

  it('hangs a hidden branch point on the entry before it', async () => {
    // a - model_change m < b, c : in the view a itself is the branch point.
    const t: SessionTree = { leafId: 'b', roots: [e('a', 'message', [e('m', 'model_change', [e('b', 'message', [], { onBranch: true }), e('c', 'message')], { onBranch: true })], { onBranch: true })] };
    await withProvider(t, async (p, calls) => {
      await p.refresh();
      const top = await p.getChildren();
      assert.deepEqual(ids(top), ['a']);
      assert.deepEqual(ids(await p.getChildren(top[0])), ['branch:b', 'branch:c']);
      assert.deepEqual(calls.at(-1), { limit: 200, root: 'm' });
      await p.setShowAll(true);
      const all = await p.getChildren();
      assert.deepEqual(ids(all), ['a', 'm']);
      assert.deepEqual(ids(await p.getChildren(all[1])), ['branch:b', 'branch:c']);
      assert.equal(p.getTreeItem(all[0]).collapsibleState, vscode.TreeItemCollapsibleState.None);
    });
  });

  it('shows a hidden branch point when nothing before it in its run is shown', async () => {
    const t: SessionTree = { leafId: 'b', roots: [e('m', 'model_change', [e('b', 'message', [], { onBranch: true }), e('c', 'message')], { onBranch: true })] };
    await withProvider(t, async (p) => {
      await p.refresh();
      const top = await p.getChildren();
      assert.deepEqual(ids(top), ['m']);
      assert.deepEqual(ids(await p.getChildren(top[0])), ['branch:b', 'branch:c']);
    });
  });

  it('shows nothing when a request fails, and asks again on the next look', async () => {
    let down = false;
    await withProvider(
      tree,
      async (p, calls) => {
        await p.refresh();
        down = true;
        assert.deepEqual(await p.getChildren(), []);
        down = false;
        assert.deepEqual(ids(await p.getChildren()), ['a', 'b', 'c']);
        assert.equal(calls.filter((c) => c.chain === 'a').length, 1);
      },
      undefined,
      () => down,
    );
  });
});
