// Agent: the pi-lsp server of one workspace folder as the extension sees it: the child process
// (started on first use, restarted after a crash), the display state it pushes, and the
// server → client requests waiting for the user.
import * as fs from 'fs';
import * as vscode from 'vscode';
import { elicit, showDocument } from './mcpAuth';
import type { CancellationToken } from 'vscode-jsonrpc/node';
import { PiClient } from './client';
import { launchConfig, PiSettings } from './config';
import { DisplayModel, FrameResult, isRunning } from './displayState';
import type { PendingUi, ServerStatus } from './messages';
import type {
  ApprovalReply,
  ApprovalRequest,
  DisplayFrame,
  DisplaySnapshot,
  PlanReply,
  PlanRequest,
  QuestionReply,
  QuestionRequest,
  SessionOwner,
  UiResolved,
} from './protocol';
import { attachOf, ownerText, resolvedText } from './attach';
import { approvalReply, approvalButtons, outsideWarning, planReply, questionReply, QuestionAnswer, reviewOutside } from './replies';
import { DiffReviews } from './diffReview';
import { writeToEditor } from './editorWrites';
import { editorDiagnostics, editorLsp } from './diagnostics';

/** What an Agent needs from the rest of the extension. */
export interface AgentHost {
  output: vscode.OutputChannel;
  /** Whether the chat view is visible now (cards are shown there; else a notification too). */
  chatVisible(): boolean;
  focusChat(): void;
  /** Opens pending edits in the diff editor (absent in tests without an editor). */
  reviews?: DiffReviews;
  /**
   * The session each folder had open last (the window's workspaceState), so a window reload
   * reopens it instead of an empty chat (issue 33, Missing 1). Absent: always a new session.
   */
  lastSession?: SessionMemory;
  /** Keys from the walkthrough (SecretStorage), as environment variables for the server. */
  secretEnv?: () => Promise<Record<string, string>>;
}

/** Where the last open session of each folder is kept. */
export interface SessionMemory {
  get(folderKey: string): string | undefined;
  set(folderKey: string, sessionPath: string): void;
}

/** Emitted after the display state changed: a reset (snapshot) or ops applied. */
export type DisplayChange = { kind: 'reset' } | { kind: 'ops'; result: Extract<FrameResult, { kind: 'applied' }>; version: number };

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

interface Waiter {
  item: PendingUi;
  resolve(reply: unknown): void;
}

export class Agent implements vscode.Disposable {
  readonly display = new DisplayModel();
  private client: PiClient | undefined;
  private starting: Promise<PiClient> | undefined;
  private resyncing: Promise<void> | undefined;
  private resyncClient: PiClient | undefined;
  private readonly waiters = new Map<string, Waiter>();
  private restarts: number[] = [];
  private disposed = false;
  /** Whether a server was started in this window already. */
  private everStarted = false;
  /** The session path last remembered in host.lastSession. */
  private remembered: string | undefined;
  status: ServerStatus = 'stopped';
  /** Set while another pi-lsp process owns the session and this one is attached to it (issue 17). */
  attached: { ownerPid?: number } | undefined;

  private readonly displayEmitter = new vscode.EventEmitter<DisplayChange>();
  readonly onDidChangeDisplay = this.displayEmitter.event;
  private readonly pendingEmitter = new vscode.EventEmitter<PendingUi[]>();
  readonly onDidChangePending = this.pendingEmitter.event;
  private readonly statusEmitter = new vscode.EventEmitter<{ status: ServerStatus; message?: string }>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  private readonly skillsEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeSkills = this.skillsEmitter.event;

  constructor(
    readonly folder: vscode.WorkspaceFolder | undefined,
    private readonly host: AgentHost,
  ) {}

  get name(): string {
    return this.folder?.name ?? 'no folder';
  }

  get cwd(): string {
    return this.folder?.uri.fsPath ?? process.cwd();
  }

  get pending(): PendingUi[] {
    return [...this.waiters.values()].map((w) => w.item);
  }

  get isRunning(): boolean {
    return isRunning(this.display.state);
  }

  private setStatus(status: ServerStatus, message?: string): void {
    this.status = status;
    this.statusEmitter.fire({ status, message });
  }

  /** The running client, starting the server on first use. */
  ensureStarted(): Promise<PiClient> {
    if (this.client?.running) return Promise.resolve(this.client);
    if (!this.starting) {
      this.starting = this.start().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  /** Sends a request to this folder's server, starting it if needed. */
  async request<R>(method: string, params: unknown = {}): Promise<R> {
    const c = await this.ensureStarted();
    const r = await c.request<R>(method, params);
    if (method === 'session/open' || method === 'session/new') {
      // An attached open names the owner; any other open or new session is this server's own.
      this.attached = attachOf(r);
      this.statusEmitter.fire({ status: this.status });
    }
    return r;
  }

  /** The key of this folder in host.lastSession. */
  private get memoryKey(): string {
    return this.folder?.uri.toString() ?? '';
  }

  /** The session this folder had open before the window reloaded, when its file is still there. */
  private lastSession(): string | undefined {
    const p = this.host.lastSession?.get(this.memoryKey);
    return p && fs.existsSync(p) ? p : undefined;
  }

  /** Remembers the open session (after each display change: a new session, a switch). */
  private rememberSession(): void {
    const p = this.display.state.session?.path;
    if (!p || p === this.remembered || !this.host.lastSession) return;
    this.remembered = p;
    this.host.lastSession.set(this.memoryKey, p);
  }

  private async start(session?: string): Promise<PiClient> {
    if (this.disposed) throw new Error('pi-lsp: the extension is shutting down');
    // The first start of this window reopens the folder's last session (a reload keeps the chat).
    if (session === undefined && !this.everStarted) session = this.lastSession();
    this.everStarted = true;
    const settings = vscode.workspace.getConfiguration('piLsp', this.folder?.uri);
    const s: PiSettings = {
      path: settings.get<string>('path'),
      model: settings.get<string>('model'),
      env: settings.get<Record<string, unknown>>('env'),
      sessionsDir: settings.get<string>('sessionsDir'),
    };
    // Keys saved by the walkthrough go under the settings' env (an explicit setting wins).
    const secrets = (await this.host.secretEnv?.().catch(() => undefined)) ?? {};
    const launch = launchConfig(s, this.folder?.uri.fsPath, { ...process.env, ...secrets });
    const out = this.host.output;
    this.setStatus('starting');
    out.appendLine(`[${this.name}] starting ${launch.command} serve in ${this.cwd}`);
    const client: PiClient = new PiClient({
      command: launch.command,
      cwd: this.cwd,
      env: launch.env,
      rootUri: this.folder?.uri.toString(),
      model: launch.model,
      session,
      clientVersion: vscode.version,
      ui: {
        requestApproval: (r, t) => this.requestApproval(r, t),
        askQuestion: (r, t) => this.askQuestion(r, t),
        approvePlan: (r, t) => this.approvePlan(r, t),
        readTextFile: (p) => this.readTextFile(p),
        writeTextFile: (p, text) => writeToEditor(p, text),
        diagnostics: (p, t) => editorDiagnostics(p, t),
        lsp: (p) => editorLsp(p),
        showDocument: (p) => showDocument(p),
        elicit: (p, t) => elicit(p, t),
      },
      // Frames of a client replaced meanwhile (a restart, a crash) are not this display's.
      onDisplay: (f) => {
        if (this.client === client) this.onFrame(f);
      },
      onStderr: (d) => out.append(d),
      onLog: (m) => out.appendLine(`[${this.name}] ${m}`),
      onSkillsChanged: () => this.skillsEmitter.fire(),
      onResolved: (p) => this.onResolved(p),
      onOwner: (p) => this.onOwner(client, p),
      onCrash: (info) => this.onCrash(client, info),
    });
    this.client = client;
    try {
      const init = await client.start();
      this.attached = attachOf(init);
      out.appendLine(
        `[${this.name}] ${init.serverInfo?.name ?? 'pi-lsp'} ${init.serverInfo?.version ?? ''} ready (pid ${client.pid})` +
          (this.attached ? `, attached to pid ${this.attached.ownerPid}` : ''),
      );
      this.setStatus('ready');
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      out.appendLine(`[${this.name}] failed to start: ${msg}`);
      this.client = undefined;
      void client.stop();
      this.setStatus('failed', msg);
      throw new Error(`pi-lsp failed to start: ${msg}`, { cause: e });
    }
    void this.resync();
    return client;
  }

  private onCrash(client: PiClient, info: { code: number | null; signal: NodeJS.Signals | null }): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.cancelAllPending();
    const why = info.signal ? `signal ${info.signal}` : `code ${info.code}`;
    this.host.output.appendLine(`[${this.name}] pi-lsp exited (${why})`);
    if (this.disposed) return;
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    if (this.restarts.length >= MAX_RESTARTS) {
      this.setStatus('crashed', `pi-lsp exited (${why}) ${MAX_RESTARTS} times; not restarting`);
      void vscode.window
        .showErrorMessage(`pi-lsp (${this.name}) keeps crashing (${why}). See the pi-lsp output.`, 'Restart', 'Show Output')
        .then((c) => {
          if (c === 'Restart') {
            this.restarts = [];
            void this.ensureStarted();
          } else if (c === 'Show Output') this.host.output.show();
        });
      return;
    }
    this.restarts.push(now);
    this.setStatus('crashed', `pi-lsp exited (${why}); restarting`);
    void vscode.window.showWarningMessage(`pi-lsp (${this.name}) exited (${why}) and is being restarted.`);
    const sessionPath = this.display.state.session?.path;
    this.starting = this.start(sessionPath || 'continue').finally(() => {
      this.starting = undefined;
    });
    this.starting.catch(() => undefined);
  }

  /** Restarts the server (after a settings change or on request), keeping the session. */
  async restart(): Promise<void> {
    const old = this.client;
    const sessionPath = this.display.state.session?.path;
    this.client = undefined;
    this.cancelAllPending();
    if (old) await old.stop();
    this.restarts = [];
    this.starting = this.start(sessionPath || undefined).finally(() => {
      this.starting = undefined;
    });
    await this.starting;
  }

  private onFrame(frame: DisplayFrame): void {
    const r = this.display.apply(frame);
    if (r.kind === 'reset' || r.kind === 'applied') this.rememberSession();
    if (r.kind === 'reset') this.displayEmitter.fire({ kind: 'reset' });
    else if (r.kind === 'applied') this.displayEmitter.fire({ kind: 'ops', result: r, version: this.display.version });
    else if (r.kind === 'gap') {
      this.host.output.appendLine(`[${this.name}] display/state gap (${r.reason}); resyncing`);
      void this.resync();
    }
  }

  /**
   * Replaces the display state with `display/snapshot` (docs/protocol.md, "Display streams"): an
   * answer that predates what is held is dropped, and asked again while still out of sync. A
   * resync of a client replaced meanwhile does not stand in for this client's.
   */
  resync(): Promise<void> {
    const c = this.client;
    if (!this.resyncing || this.resyncClient !== c) {
      this.resyncClient = c;
      // eslint-disable-next-line prefer-const -- read in the body, which runs after the assignment
      let p: Promise<void> | undefined;
      p = (async () => {
        await Promise.resolve(); // runs after `this.resyncing = p` below
        try {
          for (let tries = 0; tries < 5; tries++) {
            if (!c?.running || this.client !== c) return;
            const asked = this.display.stream;
            const snap = await c.request<DisplaySnapshot>('display/snapshot', {});
            if (this.client !== c) return;
            if (this.display.snapshot(snap, asked)) {
              this.rememberSession();
              this.displayEmitter.fire({ kind: 'reset' });
              return;
            }
            if (this.display.synced) return;
          }
        } catch (e) {
          this.host.output.appendLine(`[${this.name}] display/snapshot failed: ${e instanceof Error ? e.message : e}`);
        } finally {
          if (this.resyncing === p) this.resyncing = undefined;
        }
      })();
      this.resyncing = p;
    }
    return this.resyncing!;
  }

  // --- attach (issue 17) -----------------------------------------------------------------------

  /**
   * ui/resolved: another client answered first. The card, the diff review and the waiting
   * request close (a notification already shown cannot be taken back; a click on it later finds
   * nothing waiting), and a notice says who answered.
   */
  private onResolved(p: UiResolved): void {
    if (!p || typeof p !== 'object') return;
    const key = `${p.kind}:${p.requestId}`;
    const w = this.waiters.get(key);
    let what: string | undefined;
    if (w) {
      const req = w.item.req as { display?: string; toolName?: string; title?: string; question?: string };
      what = req.display || req.toolName || req.title || req.question;
      // The server took the other answer; this reply only ends the request.
      const reply = w.item.kind === 'approval' ? approvalReply('decline') : w.item.kind === 'plan' ? planReply(false) : { cancelled: true };
      this.answer(key, reply);
    }
    const text = resolvedText(p, what);
    this.host.output.appendLine(`[${this.name}] ${text}`);
    void vscode.window.showInformationMessage(text);
  }

  /** session/owner: a notice (not an error), and the status bar follows. */
  private onOwner(client: PiClient, p: SessionOwner): void {
    if (!p || typeof p !== 'object') return;
    const self = client.pid !== undefined && client.pid === p.pid;
    this.attached = self ? undefined : { ownerPid: p.pid };
    const text = ownerText(p, self);
    this.host.output.appendLine(`[${this.name}] ${text}`);
    void vscode.window.showInformationMessage(text);
    this.statusEmitter.fire({ status: this.status });
  }

  // --- server → client requests -------------------------------------------------------------

  private wait<R>(item: PendingUi, token: CancellationToken, onCancel: R): Promise<R> {
    return new Promise<R>((resolve) => {
      const sub = token.onCancellationRequested(() => this.answer(item.key, onCancel));
      this.waiters.set(item.key, {
        item,
        resolve: (r) => {
          sub.dispose();
          resolve(r as R);
        },
      });
      this.pendingEmitter.fire(this.pending);
    });
  }

  /** Answers a waiting request; false when it is no longer waiting. */
  answer(key: string, reply: unknown): boolean {
    const w = this.waiters.get(key);
    if (!w) return false;
    this.waiters.delete(key);
    w.resolve(reply);
    this.host.reviews?.close(key);
    this.pendingEmitter.fire(this.pending);
    return true;
  }

  private cancelAllPending(): void {
    for (const [key, w] of [...this.waiters]) {
      const reply = w.item.kind === 'approval' ? approvalReply('decline') : w.item.kind === 'plan' ? planReply(false) : { cancelled: true };
      this.answer(key, reply);
    }
  }

  /** Declines what is waiting (used by Abort: the server stops waiting anyway). */
  declinePending(): void {
    this.cancelAllPending();
  }

  private requestApproval(req: ApprovalRequest, token: CancellationToken): Promise<ApprovalReply> {
    const key = `approval:${req.toolCallId}`;
    const p = this.wait<ApprovalReply>({ key, kind: 'approval', req }, token, approvalReply('decline'));
    const reviewable = DiffReviews.reviewable(req.preview ?? undefined);
    const outside = reviewOutside(req);
    if (reviewable && this.host.reviews) {
      void this.host.reviews.open(key, req.preview!, (r) => this.answer(key, r), outside).catch((e) => this.host.output.appendLine(`diff review: ${e}`));
    }
    if (!this.host.chatVisible()) {
      // Short labels, so the buttons fit; the notification is a warning so it stays in view
      // longer, and the badge and status bar keep the count until it is answered.
      const what = req.display || `${req.toolName}`;
      const labels = reviewable ? ['Review', 'Approve', 'Decline'] : ['Approve', 'Decline', 'Chat'];
      // Outside the workspace (issue 16): the warning leads the message and the path grant is offered.
      const grant = approvalButtons(req).find((b) => b.choice === 'alwaysAllowPath');
      if (grant) labels.splice(labels.indexOf('Decline') + 1, 0, grant.label);
      const text = req.outsideWorkspace ? `pi-lsp: ${outsideWarning(req)} (${req.toolName}) — waits for approval: ${what}` : `pi-lsp waits for approval: ${what}`;
      void vscode.window.showWarningMessage(text, ...labels).then((clicked) => {
        if (clicked === 'Chat') this.host.focusChat();
        else if (clicked === 'Review') void this.host.reviews?.open(key, req.preview!, (r) => this.answer(key, r), outside);
        else if (clicked !== undefined) this.answerApproval(key, approvalReply(clicked));
      });
    }
    return p;
  }

  private askQuestion(req: QuestionRequest, token: CancellationToken): Promise<QuestionReply> {
    const key = `question:${req.id}`;
    const p = this.wait<QuestionReply>({ key, kind: 'question', req }, token, { cancelled: true });
    if (!this.host.chatVisible()) this.notifyOpen(`pi-lsp asks: ${req.question}`);
    return p;
  }

  private approvePlan(req: PlanRequest, token: CancellationToken): Promise<PlanReply> {
    const key = `plan:${req.id}`;
    const p = this.wait<PlanReply>({ key, kind: 'plan', req }, token, planReply(false));
    if (!this.host.chatVisible()) this.notifyOpen(`pi-lsp has a plan to approve${req.title ? `: ${req.title}` : ''}`);
    return p;
  }

  private notifyOpen(message: string): void {
    void vscode.window.showInformationMessage(message, 'Open Chat').then((c) => {
      if (c === 'Open Chat') this.host.focusChat();
    });
  }

  /**
   * Answers an approval from the chat card or a notification. While its diff editor is open, an
   * allowing answer carries the right side's text (the user's edits), as the diff editor's Accept.
   */
  answerApproval(key: string, reply: ApprovalReply): boolean {
    return this.answer(key, this.host.reviews ? this.host.reviews.reviewed(key, reply) : reply);
  }

  /** Opens the diff editor of a pending approval (the card's Review button). */
  openReview(key: string): void {
    const w = this.waiters.get(key);
    if (w?.item.kind !== 'approval') return;
    const preview = w.item.req.preview;
    if (!preview || !DiffReviews.reviewable(preview)) return;
    void this.host.reviews?.open(key, preview, (r) => this.answer(key, r), reviewOutside(w.item.req));
  }

  /** Maps a question card's answer to the reply and sends it. */
  answerQuestion(key: string, ans: QuestionAnswer): boolean {
    const w = this.waiters.get(key);
    if (!w || w.item.kind !== 'question') return false;
    return this.answer(key, questionReply(w.item.req, ans));
  }

  private async readTextFile(p: string): Promise<{ text: string } | null> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === p);
    return doc ? { text: doc.getText() } : null;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.cancelAllPending();
    const c = this.client;
    this.client = undefined;
    if (c) await c.stop();
    this.displayEmitter.dispose();
    this.pendingEmitter.dispose();
    this.statusEmitter.dispose();
    this.skillsEmitter.dispose();
  }
}
