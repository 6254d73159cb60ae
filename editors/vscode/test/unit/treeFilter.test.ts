import '../stub/register';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as vscode from 'vscode';
import type { Agent } from '../../src/agent';
import type { AgentManager } from '../../src/manager';
import type { SessionTree, TreeNode } from '../../src/protocol';
import { childrenOf, SessionTreeProvider, topLevel, type SessionElement } from '../../src/sessionTree';
import { displayedLeaf, isShown, visibleTree } from '../../src/treeFilter';
import { CHAIN_SHOWN, loadTree } from '../../src/treeLoad';
import { control } from '../stub/vscode';

function e(id: string, type: string, children: TreeNode[] = [], extra: Partial<TreeNode> = {}): TreeNode {
  return { id, type, role: type === 'message' ? 'user' : undefined, preview: id, children, ...extra };
}

/** The displayed tree as text: 'a(b,c)' is a whose children are b and c. */
function shape(nodes: TreeNode[]): string {
  return nodes.map((n) => ((n.children ?? []).length > 0 ? `${n.id}(${shape(n.children!)})` : n.id)).join(',');
}

/**
 * A session/tree server for a nested fixture, answering as pi-lsp does (docs/protocol.md): flat
 * pages of `limit` children, runs compressed into `chain`, {chain} listing a run. Records calls.
 */
function flatServer(tree: SessionTree, calls: unknown[] = []) {
  const byId = new Map<string, TreeNode>();
  const stack = [...tree.roots];
  while (stack.length > 0) {
    const n = stack.pop()!;
    byId.set(n.id, n);
    stack.push(...(n.children ?? []));
  }
  const kids = (n: TreeNode) => n.children ?? [];
  const runOf = (n: TreeNode) => {
    const run = [n];
    let cur = n;
    while (kids(cur).length === 1 && cur.id !== tree.leafId) {
      cur = kids(cur)[0];
      run.push(cur);
    }
    return run;
  };
  const flat = (n: TreeNode, parentId: string, withRun: boolean) => {
    const out: Record<string, unknown> = { id: n.id, parentId, type: n.type, role: n.role, preview: n.preview, label: n.label, timestamp: '', onBranch: n.onBranch === true, childCount: kids(n).length };
    const run = runOf(n);
    if (withRun && run.length > 1) out.chain = { length: run.length, lastId: run[run.length - 1].id, lastChildCount: kids(run[run.length - 1]).length };
    return out;
  };
  return async (method: string, params: any) => {
    assert.equal(method, 'session/tree');
    calls.push(params);
    const limit = params.limit ?? 200;
    const start = params.after ? Number(params.after) : 0;
    let list: Array<Record<string, unknown>>;
    if (params.chain) {
      list = runOf(byId.get(params.chain)!).map((n, i, run) => flat(n, i === 0 ? (params.parentId ?? '') : run[i - 1].id, false));
    } else {
      const parent = params.root ? byId.get(params.root) : undefined;
      if (params.root && !parent) throw new Error('-32602 unknown root');
      list = (parent ? kids(parent) : tree.roots).map((n) => flat(n, params.root ?? '', true));
    }
    const nodes = list.slice(start, start + limit);
    return { nodes, leafId: tree.leafId, next: start + limit < list.length ? String(start + limit) : null };
  };
}

/** A chain of n user messages m0..m(n-1). */
function chain(n: number, from = 0): TreeNode {
  let node: TreeNode | undefined;
  for (let i = from + n - 1; i >= from; i--) node = e(`m${i}`, 'message', node ? [node] : []);
  return node!;
}

describe('loadTree', () => {
  it('rebuilds the nested tree from flat pages: short runs entry by entry, branch points page by page', async () => {
    const fixture: SessionTree = { leafId: 'c1', roots: [e('a', 'message', [e('b', 'message', [e('b1', 'message'), e('b2', 'message')]), e('c', 'message', [e('c1', 'message')])])] };
    const calls: unknown[] = [];
    const got = await loadTree(flatServer(fixture, calls));
    assert.equal(shape(got.roots), shape(fixture.roots));
    assert.equal(got.leafId, 'c1');
  });

  it('pages a root with more children than fit in one answer', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => e(`k${i}`, 'message'));
    const fixture: SessionTree = { leafId: 'k0', roots: [e('r', 'message', many)] };
    const calls: any[] = [];
    const got = await loadTree(flatServer(fixture, calls));
    assert.equal(got.roots[0].children?.length, 1500);
    assert.ok(calls.some((c) => c.after), 'a second page was asked for');
  });

  it('shows a run longer than CHAIN_SHOWN as its first entry and one entry for the rest', async () => {
    const long = chain(CHAIN_SHOWN * 10);
    const fixture: SessionTree = { leafId: `m${CHAIN_SHOWN * 10 - 1}`, roots: [long] };
    const calls: any[] = [];
    const got = await loadTree(flatServer(fixture, calls));
    assert.equal(got.roots[0].id, 'm0');
    const gap = got.roots[0].children![0];
    assert.equal(gap.id, fixture.leafId);
    assert.match(gap.preview ?? '', new RegExp(`${CHAIN_SHOWN * 10 - 1} more entries`));
    assert.equal(calls.filter((c) => c.chain).length, 0, 'the long run is not listed');
  });
});

function ids(els: SessionElement[]): string[] {
  return els.map((x) => (x.kind === 'entry' ? x.node.id : `branch:${x.start.id}`));
}

describe('isShown', () => {
  const cases: Array<[string, boolean]> = [
    ['message', true],
    ['compaction', true],
    ['branch_summary', true],
    ['custom_message', true],
    ['corrupt', true],
    ['some_future_type', true],
    ['model_change', false],
    ['thinking_level_change', false],
    ['label', false],
    ['session_info', false],
    ['custom', false],
    ['leaf', false],
  ];
  for (const [type, shown] of cases) {
    it(`${type} is ${shown ? 'shown' : 'hidden'} by default and shown with show-all`, () => {
      assert.equal(isShown(e('x', type), false), shown);
      assert.equal(isShown(e('x', type), true), true);
    });
  }
});

describe('visibleTree', () => {
  // Session start bookkeeping, then a chat that branches after a hidden model change:
  //   session_info s0 - model_change m0 - user a - assistant b - custom pi-lsp/state c1
  //     - thinking_level_change t1 < user d - custom pi-lsp/tasks c2 - label l1 (leaf)
  //                                 compaction k - assistant f
  const raw: SessionTree = {
    leafId: 'l1',
    roots: [
      e('s0', 'session_info', [
        e('m0', 'model_change', [
          e('a', 'message', [
            e('b', 'message', [
              e('c1', 'custom', [
                e('t1', 'thinking_level_change', [
                  e('d', 'message', [e('c2', 'custom', [e('l1', 'label', [], { onBranch: true })], { onBranch: true })], { onBranch: true }),
                  e('k', 'compaction', [e('f', 'message')]),
                ], { onBranch: true }),
              ], { onBranch: true }),
            ], { onBranch: true, role: 'assistant' }),
          ], { onBranch: true }),
        ], { onBranch: true }),
      ], { onBranch: true }),
    ],
  };

  it('hides bookkeeping and hangs the children of hidden entries from their nearest shown ancestor', () => {
    const v = visibleTree(raw, false);
    assert.deepEqual(shape(v.roots), 'a(b(d,k(f)))');
    const b = v.roots[0].children![0];
    assert.deepEqual(
      b.children!.map((c) => c.parentId),
      ['b', 'b'],
      'the re-hung children name their displayed parent',
    );
  });

  it('puts the leaf marker on the nearest shown ancestor of a hidden leaf', () => {
    assert.equal(visibleTree(raw, false).leafId, 'd');
    assert.equal(displayedLeaf(raw, false), 'd');
  });

  it('keeps a shown leaf, an unknown leaf and an empty one as they are', () => {
    assert.equal(displayedLeaf({ ...raw, leafId: 'f' }, false), 'f');
    assert.equal(displayedLeaf({ ...raw, leafId: 'gone' }, false), 'gone');
    assert.equal(displayedLeaf({ ...raw, leafId: '' }, false), '');
  });

  it('marks nothing when no ancestor of the leaf is shown', () => {
    assert.equal(displayedLeaf({ ...raw, leafId: 'm0' }, false), '');
    const v = visibleTree({ ...raw, leafId: 'm0' }, false);
    assert.equal(v.leafId, '');
    assert.deepEqual(shape(v.roots), 'a(b(d,k(f)))');
  });

  it('shows every entry, the leaf included, with show-all', () => {
    const v = visibleTree(raw, true);
    assert.equal(v.leafId, 'l1');
    assert.deepEqual(shape(v.roots), 's0(m0(a(b(c1(t1(d(c2(l1)),k(f)))))))');
  });

  it('keeps sibling order when hidden siblings are replaced by their children', () => {
    // r < x(hidden: p, q) , y , z(hidden: w(hidden: v))
    const t: SessionTree = {
      leafId: 'v',
      roots: [e('r', 'message', [e('x', 'custom', [e('p', 'message'), e('q', 'message')]), e('y', 'message'), e('z', 'label', [e('w', 'model_change', [e('v', 'message')])])])],
    };
    assert.deepEqual(shape(visibleTree(t, false).roots), 'r(p,q,y,v)');
  });

  it('makes the children of hidden roots roots', () => {
    const t: SessionTree = { leafId: 'b', roots: [e('h', 'session_info', [e('a', 'message'), e('b', 'message')])] };
    const v = visibleTree(t, false);
    assert.deepEqual(shape(v.roots), 'a,b');
    assert.deepEqual(v.roots.map((r) => r.parentId), ['', '']);
  });

  it('does not change the tree it is given', () => {
    const before = JSON.stringify(raw);
    visibleTree(raw, false);
    visibleTree(raw, true);
    assert.equal(JSON.stringify(raw), before);
  });

  it('handles a long linear session without recursion', () => {
    // 40,000 entries, every other one bookkeeping.
    let node: TreeNode | undefined;
    for (let i = 40000; i > 0; i--) node = e(`n${i}`, i % 2 === 0 ? 'custom' : 'message', node ? [node] : []);
    const v = visibleTree({ leafId: 'n40000', roots: [node!] }, false);
    let count = 0;
    let cur: TreeNode | undefined = v.roots[0];
    while (cur) {
      count++;
      cur = cur.children?.[0];
    }
    assert.equal(count, 20000);
    assert.equal(v.leafId, 'n39999');
  });

  it('gives the layout branch points that hidden entries used to sit between', () => {
    // a - model_change m < b, c : in the view a itself is the branch point.
    const t: SessionTree = { leafId: 'b', roots: [e('a', 'message', [e('m', 'model_change', [e('b', 'message'), e('c', 'message')])])] };
    const top = topLevel(visibleTree(t, false));
    assert.deepEqual(ids(top), ['a']);
    assert.deepEqual(ids(childrenOf(top[0])), ['branch:b', 'branch:c']);
    const all = topLevel(visibleTree(t, true));
    assert.deepEqual(ids(all), ['a', 'm']);
  });
});

describe('SessionTreeProvider filtering', () => {
  // A ready agent whose session/tree answers `tree`, and a manager holding it.
  function fakeManager(tree: SessionTree): AgentManager {
    const agent = {
      status: 'ready',
      display: { state: {} },
      onDidChangeDisplay: () => new vscode.Disposable(() => undefined),
      request: flatServer(tree),
    } as unknown as Agent;
    return {
      current: () => agent,
      onDidChangeCurrent: () => new vscode.Disposable(() => undefined),
    } as unknown as AgentManager;
  }

  const tree: SessionTree = {
    leafId: 'st',
    roots: [
      e('u', 'message', [e('mc', 'model_change', [e('r', 'message', [e('st', 'custom', [], { onBranch: true })], { onBranch: true, role: 'assistant' })], { onBranch: true })], {
        onBranch: true,
      }),
    ],
  };

  function current(p: SessionTreeProvider, els: SessionElement[]): string[] {
    return els.filter((x) => String(p.getTreeItem(x).description ?? '').includes('current')).map((x) => (x.kind === 'entry' ? x.node.id : ''));
  }

  it('shows the filtered tree, marks the nearest shown ancestor of the leaf, and toggles show-all', async () => {
    const p = new SessionTreeProvider(fakeManager(tree));
    try {
      assert.equal(control.context.get('piLsp.tree.showAll'), false);
      await p.refresh();
      let top = p.getChildren();
      assert.deepEqual(ids(top), ['u', 'r']);
      assert.deepEqual(current(p, top), ['r']);
      assert.match(p.getTreeItem(top[1]).contextValue ?? '', /leaf/);
      assert.equal(p.tree?.roots[0].children?.[0].id, 'mc', 'the raw tree is kept as the server sent it');

      await p.setShowAll(true);
      assert.equal(p.showAll, true);
      top = p.getChildren();
      assert.deepEqual(ids(top), ['u', 'mc', 'r', 'st']);
      assert.deepEqual(current(p, top), ['st']);
      assert.equal(control.context.get('piLsp.tree.showAll'), true);

      await p.setShowAll(false);
      assert.deepEqual(ids(p.getChildren()), ['u', 'r']);
      assert.equal(control.context.get('piLsp.tree.showAll'), false);
    } finally {
      p.dispose();
    }
  });
});
