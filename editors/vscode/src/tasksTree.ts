// The Tasks TreeView: the live task list from the current agent's display state.
import * as vscode from 'vscode';
import type { Agent } from './agent';
import type { AgentManager } from './manager';
import type { Task } from './protocol';
import { touches } from './displayState';

const ICONS: Record<string, [string, string | undefined]> = {
  pending: ['circle-large-outline', undefined],
  in_progress: ['sync~spin', 'charts.blue'],
  completed: ['pass-filled', 'charts.green'],
};

export class TasksTreeProvider implements vscode.TreeDataProvider<Task>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Task | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  private agent: Agent | undefined;
  private agentSub: vscode.Disposable | undefined;
  private readonly sub: vscode.Disposable;

  constructor(manager: AgentManager) {
    this.sub = manager.onDidChangeCurrent((a) => this.attach(a));
    this.attach(manager.current());
  }

  private attach(a: Agent): void {
    this.agentSub?.dispose();
    this.agent = a;
    this.agentSub = a.onDidChangeDisplay((c) => {
      if (c.kind === 'reset' || c.result.ops.some((o) => touches(o, 'tasks'))) this.changed.fire();
    });
    this.changed.fire();
  }

  getTreeItem(t: Task): vscode.TreeItem {
    const label = t.status === 'in_progress' && t.activeForm ? t.activeForm : t.content;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    const [icon, color] = ICONS[t.status] ?? ['circle-large-outline', undefined];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.description = t.status === 'completed' ? 'done' : t.status === 'in_progress' ? 'in progress' : '';
    item.tooltip = `${t.content} (${t.status})`;
    item.id = t.id;
    return item;
  }

  getChildren(t?: Task): Task[] {
    if (t) return [];
    return [...(this.agent?.display.state.tasks ?? [])];
  }

  dispose(): void {
    this.agentSub?.dispose();
    this.sub.dispose();
    this.changed.dispose();
  }
}
