// AgentManager: one Agent (pi-lsp server) per workspace folder, and which one is current (the
// folder of the active editor, else the first folder).
import * as vscode from 'vscode';
import { Agent, AgentHost } from './agent';

export class AgentManager implements vscode.Disposable {
  private readonly agents = new Map<string, Agent>();
  private currentKey: string | undefined;
  private readonly currentEmitter = new vscode.EventEmitter<Agent>();
  /** Fires when the current agent changes (another folder became active). */
  readonly onDidChangeCurrent = this.currentEmitter.event;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly host: AgentHost) {
    this.subs.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.updateCurrent()),
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const f of e.removed) {
          const key = f.uri.toString();
          const a = this.agents.get(key);
          this.agents.delete(key);
          void a?.dispose();
        }
        this.updateCurrent();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('piLsp')) return;
        for (const a of this.agents.values()) {
          if (a.status === 'ready' || a.status === 'crashed') {
            this.host.output.appendLine(`[${a.name}] settings changed; restarting pi-lsp`);
            void a.restart().catch((err) => this.host.output.appendLine(String(err)));
          }
        }
      }),
    );
  }

  private folderFor(): vscode.WorkspaceFolder | undefined {
    const ed = vscode.window.activeTextEditor;
    if (ed) {
      const f = vscode.workspace.getWorkspaceFolder(ed.document.uri);
      if (f) return f;
    }
    if (this.currentKey) {
      const keep = vscode.workspace.workspaceFolders?.find((f) => f.uri.toString() === this.currentKey);
      if (keep) return keep;
    }
    return vscode.workspace.workspaceFolders?.[0];
  }

  private keyOf(f: vscode.WorkspaceFolder | undefined): string {
    return f ? f.uri.toString() : '';
  }

  /** The agent of `folder`, created (not started) on first ask. */
  agentFor(folder: vscode.WorkspaceFolder | undefined): Agent {
    const key = this.keyOf(folder);
    let a = this.agents.get(key);
    if (!a) {
      a = new Agent(folder, this.host);
      this.agents.set(key, a);
    }
    return a;
  }

  /** The agent of the current folder. */
  current(): Agent {
    const f = this.folderFor();
    this.currentKey = this.keyOf(f);
    return this.agentFor(f);
  }

  private updateCurrent(): void {
    const f = this.folderFor();
    const key = this.keyOf(f);
    if (key === this.currentKey) return;
    this.currentKey = key;
    this.currentEmitter.fire(this.agentFor(f));
  }

  all(): Agent[] {
    return [...this.agents.values()];
  }

  async dispose(): Promise<void> {
    for (const s of this.subs) s.dispose();
    await Promise.all([...this.agents.values()].map((a) => a.dispose()));
    this.agents.clear();
    this.currentEmitter.dispose();
  }
}
