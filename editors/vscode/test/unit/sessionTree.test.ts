import '../stub/register';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TreeNode } from '../../src/protocol';
import { chainFrom, childrenOf, topLevel } from '../../src/sessionTree';

function n(id: string, children: TreeNode[] = [], onBranch = false): TreeNode {
  return { id, role: 'user', preview: id, onBranch, children };
}

describe('session tree layout', () => {
  // a - b - c < d - e      (branch 1, current)
  //             f          (branch 2)
  const tree = { leafId: 'e', roots: [n('a', [n('b', [n('c', [n('d', [n('e', [], true)], true), n('f')], true)], true)], true)] };

  it('shows a linear run flat', () => {
    assert.deepEqual(chainFrom(tree.roots[0]).map((x) => x.id), ['a', 'b', 'c']);
    const top = topLevel(tree);
    assert.deepEqual(top.map((e) => (e.kind === 'entry' ? e.node.id : `branch:${e.start.id}`)), ['a', 'b', 'c']);
  });

  it('expands a branch point into one group per branch', () => {
    const c = topLevel(tree)[2];
    const groups = childrenOf(c);
    assert.deepEqual(groups.map((g) => (g.kind === 'branch' ? g.start.id : '?')), ['d', 'f']);
    assert.deepEqual(childrenOf(groups[0]).map((e) => (e.kind === 'entry' ? e.node.id : '?')), ['d', 'e']);
    assert.deepEqual(childrenOf(childrenOf(groups[0])[1]), []);
  });

  it('shows several roots as groups, and nothing for no tree', () => {
    assert.equal(topLevel({ leafId: '', roots: [n('x'), n('y')] }).every((e) => e.kind === 'branch'), true);
    assert.deepEqual(topLevel(undefined), []);
  });
});
