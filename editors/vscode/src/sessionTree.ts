// The Session TreeView: the session's entry tree from session/tree's flat pages (treeLoad.ts). Linear runs of entries are
// shown flat; a branch point expands into one group per branch. The current branch is marked and
// the leaf (where the next message goes) is highlighted. Bookkeeping entries are hidden unless
// "Show All Entries" is on (treeFilter.ts).
import * as vscode from 'vscode';
import type { Agent } from './agent';
import type { AgentManager } from './manager';
import type { SessionTree, TreeNode } from './protocol';
import { visibleTree } from './treeFilter';
import { loadTree } from './treeLoad';

export type SessionElement = { kind: 'entry'; node: TreeNode } | { kind: 'branch'; start: TreeNode };

/** The node and its single-child descendants, up to a leaf or a branch point. */
export function chainFrom(node: TreeNode): TreeNode[] {
  const out: TreeNode[] = [node];
  let cur = node;
  while (cur.children && cur.children.length === 1) {
    cur = cur.children[0];
    out.push(cur);
  }
  return out;
}

/** The top level of the view for a tree. */
export function topLevel(tree: SessionTree | undefined): SessionElement[] {
  const roots = tree?.roots ?? [];
  if (roots.length === 1) return chainFrom(roots[0]).map((node) => ({ kind: 'entry', node }));
  return roots.map((start) => ({ kind: 'branch', start }));
}

export function childrenOf(e: SessionElement): SessionElement[] {
  if (e.kind === 'branch') return chainFrom(e.start).map((node) => ({ kind: 'entry', node }));
  const kids = e.node.children ?? [];
  return kids.length > 1 ? kids.map((start) => ({ kind: 'branch', start })) : [];
}

function roleOf(n: TreeNode): string {
  return n.role || n.type || 'entry';
}

function onBranchBelow(n: TreeNode): boolean {
  const stack: TreeNode[] = [n];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if (cur.onBranch === true) return true;
    stack.push(...(cur.children ?? []));
  }
  return false;
}

/** The context key that tells which of Show All Entries / Hide Bookkeeping the view title offers. */
export const SHOW_ALL_CONTEXT = 'piLsp.tree.showAll';

export class SessionTreeProvider implements vscode.TreeDataProvider<SessionElement>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionElement | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The tree as the server sent it. */
  tree: SessionTree | undefined;
  /** The tree as displayed (bookkeeping hidden unless showAll). */
  shown: SessionTree | undefined;
  /** Whether bookkeeping entries (model changes, labels, custom state...) are shown too. */
  showAll = false;
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

  /** Shows every entry (true) or hides bookkeeping (false); the view redraws without a request. */
  async setShowAll(all: boolean): Promise<void> {
    this.showAll = all;
    this.shown = this.tree ? visibleTree(this.tree, all) : undefined;
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

  /** Fetches session/tree again (only when the server is running: a tree never starts it). */
  async refresh(): Promise<SessionTree | undefined> {
    const a = this.agent;
    if (!a || a.status !== 'ready') {
      this.tree = undefined;
      this.shown = undefined;
      this.changed.fire();
      return undefined;
    }
    try {
      this.tree = await loadTree((method, params) => a.request(method, params));
    } catch {
      this.tree = undefined;
    }
    this.shown = this.tree ? visibleTree(this.tree, this.showAll) : undefined;
    this.changed.fire();
    return this.tree;
  }

  getTreeItem(e: SessionElement): vscode.TreeItem {
    if (e.kind === 'branch') {
      const n = e.start;
      const item = new vscode.TreeItem(
        `${roleOf(n)}: ${n.preview ?? ''}`,
        onBranchBelow(n) ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.iconPath = new vscode.ThemeIcon('git-branch');
      item.description = onBranchBelow(n) ? 'current branch' : 'branch';
      item.contextValue = 'branch';
      item.id = `branch:${n.id}`;
      return item;
    }
    const n = e.node;
    const isLeaf = this.shown?.leafId === n.id;
    const branchPoint = (n.children?.length ?? 0) > 1;
    const item = new vscode.TreeItem(
      `${roleOf(n)}: ${(n.preview ?? '').split('\n')[0]}`,
      branchPoint ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = n.id;
    const desc: string[] = [];
    if (n.label) desc.push(`🏷 ${n.label}`);
    if (isLeaf) desc.push('← current');
    item.description = desc.join(' ');
    item.iconPath = new vscode.ThemeIcon(
      isLeaf ? 'arrow-right' : n.onBranch ? 'circle-filled' : 'circle-outline',
      n.onBranch || isLeaf ? new vscode.ThemeColor('charts.green') : undefined,
    );
    item.contextValue = `entry${n.role === 'user' ? ' user' : ''}${isLeaf ? ' leaf' : ''}`;
    item.tooltip = `${n.type ?? ''} ${n.role ?? ''} · ${n.id}${n.timestamp ? ` · ${n.timestamp}` : ''}${n.label ? `\nlabel: ${n.label}` : ''}\n\n${n.preview ?? ''}`;
    return item;
  }

  getChildren(e?: SessionElement): SessionElement[] {
    return e ? childrenOf(e) : topLevel(this.shown);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.agentSub?.dispose();
    this.sub.dispose();
    this.changed.dispose();
  }
}
