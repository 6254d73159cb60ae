// The Session TreeView: the session's entry tree, loaded lazily from session/tree's flat pages
// (treeLoad.ts). A refresh asks for the roots only; each element asks for its own children when
// the view opens it. Linear runs of entries are shown flat ({chain}, page by page with a
// "Load more…" item); a branch point expands into one group per branch ({root}). The current
// branch is marked and the leaf (where the next message goes) is highlighted. Bookkeeping entries
// are hidden unless "Show All Entries" is on (treeFilter.ts).
import * as vscode from 'vscode';
import type { Agent } from './agent';
import type { AgentManager } from './manager';
import type { TreeNode } from './protocol';
import { isShown } from './treeFilter';
import { LazyTree } from './treeLoad';

export type SessionElement =
  /** An entry. `below`: the branch point whose children hang here (a hidden one's shown ancestor). */
  | { kind: 'entry'; node: TreeNode; below?: string; current?: boolean; end?: boolean }
  /** A branch: the run that starts at `start`. */
  | { kind: 'branch'; start: TreeNode }
  /** "Load more…": the next page of the listing `key`. */
  | { kind: 'more'; key: string; remaining?: number };

/**
 * The first line of an entry's preview as plain text: tree labels do not render markdown, so its
 * emphasis, code and link marks go (`**edit** \`main.go\`` → `edit main.go`).
 */
export function plainLine(preview: string | undefined): string {
  const line = (preview ?? '').split('\n')[0];
  return line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, '$1$2')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/^\s*(#{1,6}\s+|>\s+|[-*+]\s+)/, '')
    .trim();
}

/** The entry an element acts on (navigate, fork, label): a branch's first entry; none for Load more. */
export function entryOf(e: SessionElement): TreeNode | undefined {
  return e.kind === 'entry' ? e.node : e.kind === 'branch' ? e.start : undefined;
}

/** The command a "Load more…" item runs. */
export const LOAD_MORE_COMMAND = 'piLsp.tree.loadMore';

function roleOf(n: TreeNode): string {
  return n.role || n.type || 'entry';
}

/** The context key that tells which of Show All Entries / Hide Bookkeeping the view title offers. */
export const SHOW_ALL_CONTEXT = 'piLsp.tree.showAll';

/**
 * The elements of the run that starts at `start`, from what `tree` loads: the run's entries
 * (hidden ones dropped), a "Load more…" item and an entry standing for the run's end while pages
 * are left, and the end's branch point hung on its last shown entry.
 */
export async function runElements(tree: LazyTree, start: TreeNode, showAll: boolean): Promise<SessionElement[]> {
  let nodes: TreeNode[] = [start];
  let endId = start.id;
  let endKids = start.childCount ?? 0;
  let more: SessionElement | undefined;
  let complete = true;
  if (start.chain) {
    const key = `chain:${start.id}`;
    const l = await tree.list(key);
    nodes = l.nodes;
    endId = start.chain.lastId;
    endKids = start.chain.lastChildCount;
    if (l.next) {
      complete = false;
      more = { kind: 'more', key, remaining: start.chain.length - l.nodes.length };
    }
  }
  const out: Array<Extract<SessionElement, { kind: 'entry' }>> = [];
  const leaf = tree.leafId;
  let leafHidden = false;
  for (const n of nodes) {
    if (isShown(n, showAll)) out.push({ kind: 'entry', node: n, current: n.id === leaf });
    else if (n.id === leaf) leafHidden = true;
  }
  const last = (): Extract<SessionElement, { kind: 'entry' }> | undefined => out[out.length - 1];
  if (leafHidden && last()) last()!.current = true;
  if (!complete) {
    // The rest of the run stands as one entry, the run's end: navigate/fork/label act there.
    const rest = start.chain!.length - nodes.length;
    out.push({
      kind: 'entry',
      end: true,
      current: endId === leaf,
      node: { id: endId, type: '…', preview: `${rest} more entries to the end of this run`, onBranch: start.onBranch, childCount: endKids },
    });
  }
  if (endKids > 0) {
    const endShown = out.find((e) => e.node.id === endId);
    const holder = endShown ?? last();
    if (holder) holder.below = endId;
    // Every entry of the run is hidden: its branch point is shown anyway, to hold the branches.
    else out.push({ kind: 'entry', node: nodes[nodes.length - 1] ?? start, below: endId, current: endId === leaf });
  }
  // While pages are left the run's end is the last element: Load more goes just before it.
  return more ? [...out.slice(0, -1), more, out[out.length - 1]] : out;
}

export class SessionTreeProvider implements vscode.TreeDataProvider<SessionElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionElement | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The tree loaded so far (undefined until the first refresh against a running server). */
  tree: LazyTree | undefined;
  /** Whether bookkeeping entries (model changes, labels, custom state...) are shown too. */
  showAll = false;
  /** session/tree's `limit` per page. */
  pageSize: number | undefined;
  private agent: Agent | undefined;
  private agentSub: vscode.Disposable | undefined;
  private readonly sub: vscode.Disposable;
  private timer: NodeJS.Timeout | undefined;
  private lastItemCount = -1;
  private lastSession = '';

  constructor(manager: AgentManager) {
    this.sub = manager.onDidChangeCurrent((a) => this.attach(a));
    this.attach(manager.current());
    void vscode.commands.executeCommand('setContext', SHOW_ALL_CONTEXT, false);
  }

  /** Shows every entry (true) or hides bookkeeping (false); the view redraws from what is loaded. */
  async setShowAll(all: boolean): Promise<void> {
    this.showAll = all;
    await vscode.commands.executeCommand('setContext', SHOW_ALL_CONTEXT, all);
    this.changed.fire();
  }

  private attach(a: Agent): void {
    this.agentSub?.dispose();
    this.agent = a;
    this.agentSub = a.onDidChangeDisplay(() => {
      const s = a.display.state;
      const count = s.items?.length ?? 0;
      const session = s.session?.id ?? '';
      if (count !== this.lastItemCount || session !== this.lastSession || s.status === 'idle') {
        this.lastItemCount = count;
        this.lastSession = session;
        this.schedule();
      }
    });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, 300);
  }

  /**
   * Drops what was loaded and asks for the roots again (one session/tree request, only when the
   * server is running: a tree never starts it). Opened elements ask for their children again
   * when the view redraws them.
   */
  async refresh(): Promise<LazyTree | undefined> {
    const a = this.agent;
    if (!a || a.status !== 'ready') {
      this.tree = undefined;
      this.changed.fire();
      return undefined;
    }
    const tree = new LazyTree((method, params) => a.request(method, params), this.pageSize);
    try {
      await tree.list('');
      this.tree = tree;
    } catch {
      this.tree = undefined;
    }
    this.changed.fire();
    return this.tree;
  }

  /** Loads the next page a "Load more…" item stands for, then redraws. */
  async loadMore(e: SessionElement): Promise<void> {
    if (e?.kind !== 'more' || !this.tree) return;
    await this.tree.more(e.key);
    this.changed.fire();
  }

  getTreeItem(e: SessionElement): vscode.TreeItem {
    if (e.kind === 'more') {
      const item = new vscode.TreeItem(e.remaining ? `Load more… (${e.remaining} more entries)` : 'Load more…', vscode.TreeItemCollapsibleState.None);
      item.id = `more:${e.key}`;
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.contextValue = 'more';
      item.command = { command: LOAD_MORE_COMMAND, title: 'Load more', arguments: [e] };
      return item;
    }
    if (e.kind === 'branch') {
      const n = e.start;
      const item = new vscode.TreeItem(`${roleOf(n)}: ${plainLine(n.preview)}`, n.onBranch ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.iconPath = new vscode.ThemeIcon('git-branch');
      item.description = n.onBranch ? 'current branch' : 'branch';
      item.contextValue = 'branch';
      // VS Code keeps an element's expanded state by its id: a branch that became (or stopped
      // being) the current one is a new element, so it opens (or closes) after Navigate (bug 14).
      item.id = `branch:${n.id}${n.onBranch ? ':current' : ''}`;
      return item;
    }
    const n = e.node;
    const isLeaf = e.current === true;
    const item = new vscode.TreeItem(`${roleOf(n)}: ${plainLine(n.preview)}`, e.below ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    // A branch point is open after each Navigate, so "← current" under it shows (bug 14).
    item.id = `${e.end ? `end:${n.id}` : n.id}${e.below ? `@${this.tree?.leafId ?? ''}` : ''}`;
    const desc: string[] = [];
    if (n.label) desc.push(`🏷 ${n.label}`);
    if (isLeaf) desc.push('← current');
    item.description = desc.join(' ');
    item.iconPath = new vscode.ThemeIcon(isLeaf ? 'arrow-right' : n.onBranch ? 'circle-filled' : 'circle-outline', n.onBranch || isLeaf ? new vscode.ThemeColor('charts.green') : undefined);
    item.contextValue = `entry${n.role === 'user' ? ' user' : ''}${isLeaf ? ' leaf' : ''}`;
    item.tooltip = `${n.type ?? ''} ${n.role ?? ''} · ${n.id}${n.timestamp ? ` · ${n.timestamp}` : ''}${n.label ? `\nlabel: ${n.label}` : ''}\n\n${n.preview ?? ''}`;
    return item;
  }

  /** The children of e (the top level for none), asking the server for the first look only. */
  async getChildren(e?: SessionElement): Promise<SessionElement[]> {
    const tree = this.tree;
    if (!tree) return [];
    try {
      if (!e) return await this.groups(tree, '');
      if (e.kind === 'branch') return await runElements(tree, e.start, this.showAll);
      if (e.kind === 'entry' && e.below) return await this.groups(tree, `root:${e.below}`);
    } catch {
      return [];
    }
    return [];
  }

  /** The nodes of a listing as branch groups, or a lone root's run shown flat. */
  private async groups(tree: LazyTree, key: string): Promise<SessionElement[]> {
    const l = await tree.list(key);
    if (key === '' && l.nodes.length === 1 && !l.next) return runElements(tree, l.nodes[0], this.showAll);
    const out: SessionElement[] = l.nodes.map((start) => ({ kind: 'branch', start }));
    if (l.next) out.push({ kind: 'more', key });
    return out;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.agentSub?.dispose();
    this.sub.dispose();
    this.changed.dispose();
  }
}
