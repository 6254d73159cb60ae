// Loads the session tree from session/tree's flat, paged answers (no answer nests: a 35k-turn
// chain is one node with a `chain`) and builds the nested SessionTree the Session view draws.
// Runs of up to CHAIN_SHOWN entries are listed entry by entry (session/tree {chain}); a longer
// run shows its first entry and one entry standing for the rest (its id is the run's last entry,
// so navigate/fork/label act there). Branch points are loaded page by page ({root, after}).
// Pure (no vscode import), unit-tested.
import type { FlatTreePage, FlatTreeNode, SessionTree, TreeNode } from './protocol';

export const CHAIN_SHOWN = 200;

export type TreeRequest = (method: string, params: unknown) => Promise<unknown>;

function nodeOf(n: FlatTreeNode): TreeNode {
  return { id: n.id, parentId: n.parentId, type: n.type, role: n.role, preview: n.preview, label: n.label, timestamp: n.timestamp, onBranch: n.onBranch, children: [] };
}

export async function loadTree(request: TreeRequest): Promise<SessionTree> {
  const tree: SessionTree = { leafId: '', roots: [] };
  const page = async (params: Record<string, unknown>): Promise<FlatTreePage> => {
    const p = (await request('session/tree', params)) as FlatTreePage;
    if (p?.leafId) tree.leafId = p.leafId;
    return p ?? { nodes: [], leafId: '', next: null };
  };
  // Fills `into` with the children of root ('' = the roots).
  const childrenOf = async (root: string, into: TreeNode[]): Promise<void> => {
    let after: string | null = null;
    do {
      const params: Record<string, unknown> = { limit: 1000 };
      if (root) params.root = root;
      if (after) params.after = after;
      const p = await page(params);
      for (const n of p.nodes ?? []) {
        const first = nodeOf(n);
        into.push(first);
        const chain = n.chain;
        if (chain && chain.length <= CHAIN_SHOWN) {
          let tail = first;
          let cursor: string | null = null;
          do {
            const cp: FlatTreePage = await page(cursor ? { chain: n.id, limit: 1000, after: cursor } : { chain: n.id, limit: 1000 });
            for (const c of cp.nodes ?? []) {
              if (c.id === first.id) continue;
              const node = nodeOf(c);
              tail.children = [node];
              tail = node;
            }
            cursor = cp.next ?? null;
          } while (cursor);
          if (chain.lastChildCount > 0) await childrenOf(chain.lastId, tail.children!);
        } else if (chain) {
          const gap: TreeNode = { id: chain.lastId, type: '…', preview: `${chain.length - 1} more entries`, onBranch: n.onBranch, children: [] };
          first.children = [gap];
          if (chain.lastChildCount > 0) await childrenOf(chain.lastId, gap.children!);
        } else if (n.childCount > 0) {
          await childrenOf(n.id, first.children!);
        }
      }
      after = p.next ?? null;
    } while (after);
  };
  await childrenOf('', tree.roots);
  return tree;
}
