// A session/tree server for unit tests, answering as pi-lsp does (docs/protocol.md).
import assert from 'node:assert/strict';
import type { SessionTree, TreeNode } from '../../src/protocol';

export function e(id: string, type: string, children: TreeNode[] = [], extra: Partial<TreeNode> = {}): TreeNode {
  return { id, type, role: type === 'message' ? 'user' : undefined, preview: id, children, ...extra };
}

/**
 * A session/tree server for a nested fixture, answering as pi-lsp does (docs/protocol.md): flat
 * pages of `limit` children, runs compressed into `chain`, {chain} listing a run. Records calls.
 */
export function flatServer(tree: SessionTree, calls: unknown[] = []) {
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
export function chain(n: number, from = 0): TreeNode {
  let node: TreeNode | undefined;
  for (let i = from + n - 1; i >= from; i--) node = e(`m${i}`, 'message', node ? [node] : []);
  return node!;
}

