// Which entries the Session view shows. By default it hides bookkeeping entries, as pi's /tree
// does (and the Neovim plugin, editors/neovim/lua/pi_lsp/tree_render.lua); sessionTree.ts hangs a
// hidden branch point's children and the current-leaf marker on the nearest shown entry of the
// run. Pure, no vscode import (unit-tested).
import type { TreeNode } from './protocol';

/** Entry types hidden unless every entry is shown: settings and bookkeeping (pi's isSettingsEntry, plus leaf moves). */
const BOOKKEEPING_TYPES: ReadonlySet<string> = new Set(['label', 'custom', 'model_change', 'thinking_level_change', 'session_info', 'leaf']);

/** Whether an entry is shown: messages, compactions, branch summaries, custom messages (and anything unknown). */
export function isShown(node: TreeNode, showAll: boolean): boolean {
  return showAll || !BOOKKEEPING_TYPES.has(node.type ?? '');
}
