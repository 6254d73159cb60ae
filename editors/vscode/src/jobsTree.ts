// The Jobs TreeView: the session's background jobs (display state `jobs`) with their live
// output (the last lines of `outputTail`), a kill action and open-full-output.
import * as vscode from 'vscode';
import type { Agent } from './agent';
import type { AgentManager } from './manager';
import type { Job } from './protocol';
import { touches } from './displayState';

/** Output lines shown under a job. */
export const JOB_LINES = 20;

export type JobNode = { kind: 'job'; job: Job } | { kind: 'line'; jobId: string; index: number; text: string };

const ICONS: Record<string, [string, string | undefined]> = {
  running: ['sync~spin', 'charts.blue'],
  exited: ['pass-filled', 'charts.green'],
  killed: ['circle-slash', 'charts.orange'],
};

/** The description of a job: its status, with the exit code once it ended. */
export function jobStatus(j: Job): string {
  if (j.status === 'running') return 'running';
  return j.exitCode === null || j.exitCode === undefined ? j.status : `${j.status} ${j.exitCode}`;
}

/** How many jobs of a display state run. */
export function runningJobs(jobs: Job[] | undefined): number {
  return (jobs ?? []).filter((j) => j.status === 'running').length;
}

/** The last `n` lines of a job's output tail. */
export function lastLines(tail: string, n: number): string[] {
  const lines = tail.replace(/\n$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return [];
  return lines.slice(-n);
}

export class JobsTreeProvider implements vscode.TreeDataProvider<JobNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<JobNode | undefined | void>();
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
      if (c.kind === 'reset' || c.result.ops.some((o) => touches(o, 'jobs'))) this.changed.fire();
    });
    this.changed.fire();
  }

  private jobs(): Job[] {
    return [...(this.agent?.display.state.jobs ?? [])];
  }

  getTreeItem(n: JobNode): vscode.TreeItem {
    if (n.kind === 'line') {
      const item = new vscode.TreeItem(n.text || ' ', vscode.TreeItemCollapsibleState.None);
      item.id = `${n.jobId}/${n.index}`;
      return item;
    }
    const j = n.job;
    const item = new vscode.TreeItem(`${j.id}: ${j.command}`, vscode.TreeItemCollapsibleState.Expanded);
    const [icon, color] = ICONS[j.status] ?? ['circle-large-outline', undefined];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.description = jobStatus(j);
    item.tooltip = `${j.command}\n${jobStatus(j)}${j.outputPath ? `\n${j.outputPath}` : ''}`;
    item.contextValue = j.status === 'running' ? 'piLsp.job.running' : 'piLsp.job';
    item.id = j.id;
    return item;
  }

  getChildren(n?: JobNode): JobNode[] {
    if (!n) return this.jobs().map((job) => ({ kind: 'job', job }));
    if (n.kind === 'line') return [];
    const j = this.jobs().find((x) => x.id === n.job.id) ?? n.job;
    return lastLines(j.outputTail ?? '', JOB_LINES).map((text, index) => ({ kind: 'line', jobId: j.id, index, text }));
  }

  dispose(): void {
    this.agentSub?.dispose();
    this.sub.dispose();
    this.changed.dispose();
  }
}

function jobOf(manager: AgentManager, arg: unknown): Job | undefined {
  const jobs = manager.current().display.state.jobs ?? [];
  if (typeof arg === 'string') return jobs.find((j) => j.id === arg);
  const n = arg as JobNode | undefined;
  if (n?.kind === 'job') return jobs.find((j) => j.id === n.job.id) ?? n.job;
  if (n?.kind === 'line') return jobs.find((j) => j.id === n.jobId);
  return undefined;
}

/** piLsp.killJob and piLsp.openJobOutput: a job node (or id) of the Jobs view. */
export function registerJobCommands(manager: AgentManager): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('piLsp.killJob', async (arg?: unknown) => {
      const j = jobOf(manager, arg);
      if (!j) return;
      try {
        await manager.current().request('jobs/kill', { jobId: j.id });
      } catch (e) {
        void vscode.window.showErrorMessage(`pi-lsp: ${(e as Error).message}`);
      }
    }),
    vscode.commands.registerCommand('piLsp.openJobOutput', async (arg?: unknown) => {
      const j = jobOf(manager, arg);
      if (!j?.outputPath) return;
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(j.outputPath));
    }),
  ];
}
