// What the Session view shows of a session/tree result. By default it hides bookkeeping entries,
// as pi's /tree does (and the Neovim plugin, editors/neovim/lua/pi_lsp/tree_render.lua): the
// children of a hidden entry hang from its nearest shown ancestor, and the current-leaf marker
// goes on the nearest shown ancestor of the leaf. Pure functions, no vscode import (unit-tested).
import type { SessionTree, TreeNode } from './protocol';

/** Entry types hidden unless every entry is shown: settings and bookkeeping (pi's isSettingsEntry, plus leaf moves). */
const BOOKKEEPING_TYPES: ReadonlySet<string> = new Set(['label', 'custom', 'model_change', 'thinking_level_change', 'session_info', 'leaf']);

/** Whether an entry is shown: messages, compactions, branch summaries, custom messages (and anything unknown). */
export function isShown(node: TreeNode, showAll: boolean): boolean {
  return showAll || !BOOKKEEPING_TYPES.has(node.type ?? '');
}

/** The id of the leaf as displayed: the leaf itself or its nearest shown ancestor ('' when none is shown). */
export function displayedLeaf(tree: SessionTree, showAll: boolean): string {
  const leaf = tree.leafId ?? '';
  if (!leaf || showAll) return leaf;
  const byId = new Map<string, TreeNode>();
  const parent = new Map<string, string>();
  const stack: TreeNode[] = [...(tree.roots ?? [])];
  while (stack.length > 0) {
    const n = stack.pop()!;
    byId.set(n.id, n);
    for (const c of n.children ?? []) {
      parent.set(c.id, n.id);
      stack.push(c);
    }
  }
  let cur: string | undefined = leaf;
  // An id the tree does not hold is left as it is (nothing gets marked).
  while (cur !== undefined && byId.has(cur) && !isShown(byId.get(cur)!, showAll)) cur = parent.get(cur);
  return cur ?? '';
}

/**
 * The tree as displayed: hidden entries are dropped and each one's children take its place among
 * its parent's children (in order), recursively; leafId is the displayed leaf. The input is not
 * changed. Iterative, so a long linear session cannot overflow the stack.
 */
export function visibleTree(tree: SessionTree, showAll: boolean): SessionTree {
  const roots: TreeNode[] = [];
  // into: the displayed children list the node joins; parentId: the displayed parent's id.
  type Work = { node: TreeNode; into: TreeNode[]; parentId: string };
  const stack: Work[] = [];
  const pushAll = (list: TreeNode[] | undefined, into: TreeNode[], parentId: string) => {
    const l = list ?? [];
    for (let i = l.length - 1; i >= 0; i--) stack.push({ node: l[i], into, parentId });
  };
  pushAll(tree.roots, roots, '');
  while (stack.length > 0) {
    const { node, into, parentId } = stack.pop()!;
    if (isShown(node, showAll)) {
      const copy: TreeNode = { ...node, parentId, children: [] };
      into.push(copy);
      pushAll(node.children, copy.children!, node.id);
    } else {
      pushAll(node.children, into, parentId);
    }
  }
  return { leafId: displayedLeaf(tree, showAll), roots };
}
