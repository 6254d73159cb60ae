// The chat WebviewView: forwards the current agent's display state and pending requests to the
// page, and turns the page's messages into protocol requests.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { resourceMatches } from './mcpAuth';
import type { Agent } from './agent';
import { chatHtml } from './chatHtml';
import type { AgentManager } from './manager';
import type { FromWebview, ToWebview } from './messages';
import type { CommandInfo, ContextItem, DisplayItem, FileMatch, SessionImageResult } from './protocol';
import { approvalReply, declineReply, planReply } from './replies';
import { openFileAt, insertAtCursor } from './openFile';
import { describeError } from './errors';
import { parseGoalCommand } from './goal';

export const CHAT_VIEW_ID = 'piLsp.chat';

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private agent: Agent | undefined;
  private agentSubs: vscode.Disposable[] = [];
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly manager: AgentManager,
  ) {
    this.subs.push(manager.onDidChangeCurrent((a) => this.attach(a)));
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const outDir = vscode.Uri.joinPath(this.extensionUri, 'out');
    const mediaDir = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [outDir, mediaDir] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      nonce: crypto.randomBytes(16).toString('base64'),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(outDir, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(mediaDir, 'chat.css')).toString(),
    });
    const subs = [
      view.webview.onDidReceiveMessage((m: FromWebview) => void this.onMessage(m)),
      view.onDidChangeVisibility(() => {
        if (view.visible) void this.resync();
      }),
    ];
    view.onDidDispose(() => {
      subs.forEach((s) => s.dispose());
      if (this.view === view) this.view = undefined;
    });
    this.attach(this.manager.current());
  }

  private attach(agent: Agent): void {
    if (this.agent === agent) return;
    this.agentSubs.forEach((s) => s.dispose());
    this.agent = agent;
    this.agentSubs = [
      agent.onDidChangeDisplay((c) => {
        if (c.kind === 'reset') this.postSnapshot();
        else this.post({ type: 'ops', version: c.version, ops: c.result.ops });
      }),
      agent.onDidChangePending((items) => {
        this.post({ type: 'pending', items });
        this.updateBadge(items.length);
      }),
      agent.onDidChangeStatus((s) => this.post({ type: 'server', status: s.status, message: s.message })),
      agent.onDidChangeSkills(() => void this.sendCommands()),
    ];
    this.post({ type: 'server', status: agent.status });
    this.post({ type: 'pending', items: agent.pending });
    if (agent.display.synced) {
      this.postSnapshot();
    } else if (this.view) {
      // Another folder's server: clear the page, and start that server (the view is in use).
      this.post({ type: 'snapshot', version: 0, state: {} });
      void agent
        .ensureStarted()
        .then(() => this.resync())
        .catch((e) => this.post({ type: 'error', message: describeError(e) }));
    }
  }

  private post(m: ToWebview): void {
    void this.view?.webview.postMessage(m);
  }

  private postSnapshot(): void {
    const a = this.agent;
    if (!a || !a.display.synced) return;
    this.post({ type: 'snapshot', version: a.display.version, state: a.display.state });
  }

  /** Asks the server for display/snapshot and redraws the page from it. */
  async resync(): Promise<void> {
    const a = this.agent ?? this.manager.current();
    await a.resync();
    this.postSnapshot();
    this.post({ type: 'pending', items: a.pending });
  }

  private async sendCommands(): Promise<void> {
    const a = this.agent ?? this.manager.current();
    try {
      const r = await a.request<{ commands: CommandInfo[] }>('commands/list', {});
      this.post({ type: 'commands', commands: r.commands ?? [] });
    } catch (e) {
      this.post({ type: 'commands', commands: [] });
      this.post({ type: 'error', message: `commands/list: ${describeError(e)}` });
    }
  }

  /** The π view's badge: how many requests wait for the user. */
  private updateBadge(n: number): void {
    const v = this.view as (vscode.WebviewView & { badge?: { value: number; tooltip: string } }) | undefined;
    if (v) v.badge = n ? { value: n, tooltip: `${n} request(s) wait for you` } : undefined;
  }

  /** Attaches a file or selection to the next prompt (Add Selection to pi-lsp). */
  addContext(item: ContextItem): void {
    this.post({ type: 'addContext', item });
  }

  /** Puts text into the chat input (after fork or navigate). */
  setInput(text: string): void {
    this.post({ type: 'editorText', text });
  }

  private async onMessage(m: FromWebview): Promise<void> {
    const a = this.agent ?? this.manager.current();
    try {
      switch (m.type) {
        case 'ready':
          this.post({ type: 'server', status: a.status });
          this.post({ type: 'pending', items: a.pending });
          this.postSnapshot();
          await a.ensureStarted();
          await this.resync();
          break;
        case 'resync':
          await this.resync();
          break;
        case 'send': {
          // /goal sets (or clears) the goal instead of prompting.
          const goal = parseGoalCommand(m.text);
          if (goal?.action === 'error') throw new Error(`/goal: ${goal.message}`);
          if (goal?.action === 'set') await a.request('goal/set', goal.params);
          else if (goal?.action === 'clear') await a.request('goal/clear', {});
          else await a.request('agent/prompt', { text: m.text, streamingBehavior: m.behavior, ...(m.context?.length ? { context: m.context } : {}) });
          break;
        }
        case 'retry':
          await a.request('agent/retry', {});
          break;
        case 'editQueue':
          // -32005: delivered meanwhile; the queue in the state has moved on and is redrawn.
          await a.request('agent/editQueue', { queue: m.queue, index: m.index, expect: m.expect, ...(m.text !== undefined ? { text: m.text } : {}) });
          break;
        case 'goalStop':
          await a.request('goal/clear', {});
          break;
        case 'abort':
          await vscode.commands.executeCommand('piLsp.abort');
          break;
        case 'approval':
          a.answerApproval(m.key, m.decision === 'decline' ? declineReply(m.feedback) : approvalReply(m.decision));
          break;
        case 'review':
          a.openReview(m.key);
          break;
        case 'searchFiles': {
          const r = await a.request<{ files: FileMatch[] }>('files/search', { query: m.query, limit: 20 });
          this.post({ type: 'files', query: m.query, files: [...(r.files ?? []), ...(await resourceMatches(a, m.query))] });
          break;
        }
        case 'openFile':
          await openFileAt(a.cwd, m.path, m.line);
          break;
        case 'copy':
          await vscode.env.clipboard.writeText(m.text);
          break;
        case 'insert':
          await insertAtCursor(m.text);
          break;
        case 'answer':
          a.answerQuestion(m.key, m.answer);
          break;
        case 'plan':
          a.answer(m.key, planReply(m.approved, m.feedback));
          break;
        case 'commands':
          await this.sendCommands();
          break;
        case 'runCommand':
          if (m.command.startsWith('piLsp.')) await vscode.commands.executeCommand(m.command);
          break;
        case 'older': {
          // Scrolled to the top: the page of items before the oldest shown.
          const r = await a.request<{ items: DisplayItem[]; before: string | null }>('display/history', { before: m.before, limit: 200 });
          this.post({ type: 'history', items: r.items ?? [], before: r.before ?? null });
          break;
        }
        case 'image': {
          // A thumbnail for an image attachment read from the session; gone or unreadable: none.
          const r = await a.request<SessionImageResult>('session/image', { entry: m.entry, index: m.index }).catch(() => undefined);
          this.post({ type: 'image', entry: m.entry, index: m.index, ...(r ? { mimeType: r.mimeType, data: r.data } : {}) });
          break;
        }
        case 'openSession':
          await vscode.commands.executeCommand('piLsp.openSubagentSession', m.path);
          break;
        case 'rewind': {
          // The chat's user items and the branch's user messages end together: the item that
          // is the k-th user item from the end is the k-th user message from the end.
          const items = a.display.state.items ?? [];
          const at = items.findIndex((i) => i.id === m.itemId);
          const k = items.slice(at).filter((i) => i.kind === 'user').length;
          const id = at >= 0 ? await userEntryFromEnd(a, k) : undefined;
          if (!id) throw new Error('this message is not on the current branch');
          await vscode.commands.executeCommand('piLsp.rewind', id);
          break;
        }
        case 'openLink':
          if (/^(https?:|mailto:)/i.test(m.href)) await vscode.env.openExternal(vscode.Uri.parse(m.href));
          break;
      }
    } catch (e) {
      const message = describeError(e);
      this.post({ type: 'error', message });
      if (m.type === 'send') this.sendFailed(m, message);
    }
  }

  /**
   * A prompt that could not be sent (no binary, no model, a dead server): the text and its
   * context go back into the input, and the error offers its fixes and a retry.
   */
  private sendFailed(m: Extract<FromWebview, { type: 'send' }>, message: string): void {
    this.post({ type: 'sendFailed', text: m.text, message, ...(m.context?.length ? { context: m.context } : {}) });
    void vscode.window.showErrorMessage(`pi-lsp: the prompt was not sent: ${message}`, ...SEND_FIXES).then((c) => {
      if (c === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'piLsp');
      else if (c === 'Select Model') void vscode.commands.executeCommand('piLsp.selectModel');
      // The input holds the prompt again: Retry sends it from there, as the user would.
      else if (c === 'Retry') this.post({ type: 'resend', behavior: m.behavior });
    });
  }

  dispose(): void {
    this.agentSubs.forEach((s) => s.dispose());
    this.subs.forEach((s) => s.dispose());
  }
}

/** The actions of a failed send's error message. */
export const SEND_FIXES = ['Open Settings', 'Select Model', 'Retry'] as const;

/** The id of the k-th user message from the end of the current branch (k ≥ 1). */
async function userEntryFromEnd(a: { request<T>(method: string, params: unknown): Promise<T> }, k: number): Promise<string | undefined> {
  const r = await a.request<{ entries: Array<{ id: string; type: string; message?: { role: string } }> }>('session/entries', { limit: 10000 });
  const users = (r.entries ?? []).filter((e) => e.type === 'message' && e.message?.role === 'user');
  return users[users.length - k]?.id;
}
