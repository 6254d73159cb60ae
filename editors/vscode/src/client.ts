// PiClient: one pi-lsp child process and its JSON-RPC connection (vscode-jsonrpc, LSP framing
// over stdio). It does not import `vscode`, so the tests can drive it directly too.
import * as cp from 'child_process';
import {
  CancellationToken,
  createMessageConnection,
  MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import type {
  ApprovalReply,
  ApprovalRequest,
  AttachInfo,
  DisplayFrame,
  PlanReply,
  PlanRequest,
  QuestionReply,
  QuestionRequest,
  SessionOwner,
  UiResolved,
  EditorDiagnosticsParams,
  EditorDiagnosticsResult,
  EditorLSPParams,
  EditorLSPResult,
  ElicitParams,
  ElicitResult,
} from './protocol';

/** What the client asks its owner for when the server sends a request. */
export interface UiHandler {
  requestApproval(req: ApprovalRequest, token: CancellationToken): Promise<ApprovalReply>;
  askQuestion(req: QuestionRequest, token: CancellationToken): Promise<QuestionReply>;
  approvePlan(req: PlanRequest, token: CancellationToken): Promise<PlanReply>;
  readTextFile(path: string): Promise<{ text: string } | null>;
  /** fs/writeTextFile: applies the text to the open buffer (undoable) or writes the file. */
  writeTextFile?(path: string, text: string): Promise<null>;
  /** editor/diagnostics: the problems VS Code's language servers report (declares capabilities.diagnostics). */
  diagnostics?(p: EditorDiagnosticsParams, token: CancellationToken): Promise<EditorDiagnosticsResult>;
  /** editor/lsp: definition, references, hover, symbols, rename preview from VS Code's providers. */
  lsp?(p: EditorLSPParams): Promise<EditorLSPResult>;
  /** window/showDocument: MCP login pages (external) open in the browser. */
  showDocument?(p: { uri: string; external?: boolean }): Promise<{ success: boolean }>;
  /** ui/elicit: an MCP server's form. */
  elicit?(p: ElicitParams, token: CancellationToken): Promise<ElicitResult>;
}

export interface ClientOptions {
  command: string;
  args?: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** file:// URI of the workspace folder, or undefined without one. */
  rootUri?: string;
  model?: string;
  /** `new`, `continue` or a session file path. */
  session?: string;
  clientVersion?: string;
  ui: UiHandler;
  onDisplay(frame: DisplayFrame): void;
  onStderr(chunk: string): void;
  onLog(message: string): void;
  onProgress?(token: string | number, value: unknown): void;
  onSkillsChanged?(): void;
  /** ui/resolved: another client answered a prompt first (attach, issue 17). */
  onResolved?(p: UiResolved): void;
  /** session/owner: the session's owner changed. */
  onOwner?(p: SessionOwner): void;
  /** Called once when the process ends (not called for an exit we asked for). */
  onCrash(info: { code: number | null; signal: NodeJS.Signals | null }): void;
}

export interface InitializeResult extends AttachInfo {
  serverInfo?: { name?: string; version?: string };
  capabilities?: { displayState?: { diffs?: boolean }; methods?: string[] };
}

/** An error answered by the server, with its JSON-RPC code. */
export function rpcErrorCode(e: unknown): number | undefined {
  return e instanceof ResponseError ? e.code : undefined;
}

export class PiClient {
  private child: cp.ChildProcess | undefined;
  private conn: MessageConnection | undefined;
  private stopping = false;
  initializeResult: InitializeResult | undefined;

  constructor(private readonly opts: ClientOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the server and runs `initialize` / `initialized`. */
  async start(): Promise<InitializeResult> {
    const o = this.opts;
    const child = cp.spawn(o.command, o.args ?? ['serve'], {
      cwd: o.cwd,
      env: o.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (err) => reject(new Error(`cannot start ${o.command}: ${err.message}`, { cause: err })));
    });
    // A write after the process died fails with EPIPE; the exit handler reports the crash.
    child.stdin!.on('error', (err) => o.onLog(`stdin: ${err.message}`));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => o.onStderr(d));
    child.on('exit', (code, signal) => {
      this.conn?.dispose();
      this.conn = undefined;
      if (!this.stopping) o.onCrash({ code, signal });
    });
    await spawned;

    const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.conn = conn;
    conn.onNotification('display/state', (p: DisplayFrame) => o.onDisplay(p));
    conn.onNotification('window/logMessage', (p: { type?: number; message?: string }) => o.onLog(p?.message ?? ''));
    conn.onNotification('$/progress', (p: { token: string | number; value: unknown }) => o.onProgress?.(p.token, p.value));
    conn.onNotification('skills/changed', () => o.onSkillsChanged?.());
    conn.onNotification('ui/resolved', (p: UiResolved) => o.onResolved?.(p));
    conn.onNotification('session/owner', (p: SessionOwner) => o.onOwner?.(p));
    conn.onRequest('ui/requestApproval', (p: ApprovalRequest, t: CancellationToken) => o.ui.requestApproval(p, t));
    conn.onRequest('ui/askQuestion', (p: QuestionRequest, t: CancellationToken) => o.ui.askQuestion(p, t));
    conn.onRequest('ui/approvePlan', (p: PlanRequest, t: CancellationToken) => o.ui.approvePlan(p, t));
    conn.onRequest('fs/readTextFile', (p: { path: string }) => o.ui.readTextFile(p.path));
    const show = o.ui.showDocument?.bind(o.ui);
    if (show) conn.onRequest('window/showDocument', (p: { uri: string; external?: boolean }) => show(p));
    const elicit = o.ui.elicit?.bind(o.ui);
    if (elicit) conn.onRequest('ui/elicit', (p: ElicitParams, t: CancellationToken) => elicit(p, t));
    const write = o.ui.writeTextFile?.bind(o.ui);
    if (write) conn.onRequest('fs/writeTextFile', (p: { path: string; content?: string; text?: string }) => write(p.path, p.content ?? p.text ?? ''));
    const diags = o.ui.diagnostics?.bind(o.ui);
    const lsp = o.ui.lsp?.bind(o.ui);
    if (diags) conn.onRequest('editor/diagnostics', (p: EditorDiagnosticsParams, t: CancellationToken) => diags(p, t));
    if (lsp) conn.onRequest('editor/lsp', (p: EditorLSPParams) => lsp(p));
    conn.onError(([err]) => o.onLog(`connection error: ${err.message}`));
    conn.listen();

    const initOptions: Record<string, unknown> = { session: o.session ?? 'new' };
    if (o.model) initOptions.model = o.model;
    const result = await conn.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      clientInfo: { name: 'vscode', version: o.clientVersion ?? '' },
      rootUri: o.rootUri ?? null,
      capabilities: {
        ui: { approvals: true, questions: true, planApproval: true, elicitation: !!o.ui.elicit },
        fs: { readTextFile: true, writeTextFile: !!o.ui.writeTextFile },
        window: { showDocument: { support: !!o.ui.showDocument } },
        harnessEvents: false,
        diagnostics: !!(o.ui.diagnostics && o.ui.lsp),
      },
      initializationOptions: initOptions,
    });
    await conn.sendNotification('initialized', {});
    this.initializeResult = result;
    return result;
  }

  /** Sends a request; rejects with a ResponseError (see rpcErrorCode) when the server errs. */
  request<R>(method: string, params: unknown = {}): Promise<R> {
    if (!this.conn) return Promise.reject(new Error('pi-lsp is not running'));
    return this.conn.sendRequest<R>(method, params);
  }

  get running(): boolean {
    return this.conn !== undefined;
  }

  /** `shutdown` + `exit`, then kills the process if it lingers. */
  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    const conn = this.conn;
    if (!child) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      if (conn) {
        await Promise.race([conn.sendRequest('shutdown'), delay(2000)]);
        await conn.sendNotification('exit');
      }
    } catch {
      // the process may already be gone; the kill below covers it
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
    conn?.dispose();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
