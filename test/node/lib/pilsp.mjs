// A pi-lsp client in the shape of a VS Code extension: the real binary as a
// child process, vscode-jsonrpc's StreamMessageReader/Writer over its stdio,
// a DisplayMirror folding display/state, and handlers for the server's
// requests.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node.js';
import { DisplayMirror } from './display.mjs';
import { validate } from './schema.mjs';
import { FrameMeter } from './meter.mjs';
import { piLspBin, startFakellm } from './fakellm.mjs';

/** The model id fakellm writes to models.json (llm/llmtest.ModelSpec default). */
export const MODEL = 'fake/fake-model';

/**
 * A world is one test's fake LLM, HOME, sessions directory and workspace.
 * `files` maps workspace-relative paths to contents.
 */
export async function newWorld(script, { files = {} } = {}) {
  const base = mkdtempSync(join(tmpdir(), 'pi-lsp-node-'));
  const world = {
    base,
    home: join(base, 'home'),
    sessions: join(base, 'sessions'),
    work: join(base, 'work'),
    models: join(base, 'models.json'),
    servers: [],
  };
  mkdirSync(world.home);
  mkdirSync(world.work);
  for (const [rel, text] of Object.entries(files)) {
    const p = join(world.work, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  world.fake = await startFakellm(script, world.models);
  world.start = (opts) => PiLsp.start(world, opts);
  world.close = async () => {
    for (const s of world.servers) s.kill();
    await world.fake.close();
    rmSync(base, { recursive: true, force: true });
  };
  return world;
}

const DEFAULT_CAPS = { ui: { approvals: true, questions: true, planApproval: true } };

export class PiLsp {
  /** Spawns pi-lsp in `world` and connects; does not initialize. */
  static async start(world, { args = [], env = {} } = {}) {
    const bin = await piLspBin();
    const proc = spawn(bin, ['serve', '--model', MODEL, ...args], {
      cwd: world.work,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOME: world.home,
        PI_LSP_MODELS: world.models,
        PI_LSP_SESSIONS: world.sessions,
        OPENAI_API_KEY: '',
        OPENROUTER_API_KEY: '',
        ...env,
      },
    });
    const s = new PiLsp(world, proc);
    world.servers.push(s);
    return s;
  }

  constructor(world, proc) {
    this.world = world;
    this.proc = proc;
    this.stderr = '';
    proc.stderr.on('data', (d) => { this.stderr += d.toString(); });
    this.exited = new Promise((res) => proc.on('exit', (code, signal) => res({ code, signal })));
    this.meter = new FrameMeter();
    proc.stdout.pipe(this.meter);
    this.conn = createMessageConnection(new StreamMessageReader(this.meter), new StreamMessageWriter(proc.stdin));
    // Every display frame, snapshot, harness event and approval request is checked against
    // the generated schema (protocol/protocol.schema.json); shutdown() fails on a mismatch.
    this.schemaErrors = [];
    this.display = new DisplayMirror(async () => this.checked('DisplaySnapshot', await this.request('display/snapshot', {})));
    this.notifications = [];
    this.approvals = []; // params of every ui/requestApproval
    this.onApproval = async () => ({ decision: 'decline' });
    this.conn.onNotification((method, params) => {
      if (method === 'display/state') this.display.onFrame(this.checked('DisplayFrame', params));
      else {
        if (method === 'harness/event') this.checked('EventParams', params);
        this.notifications.push({ method, params });
      }
    });
    this.conn.onRequest('ui/requestApproval', (params) => {
      this.approvals.push(this.checked('ApprovalParams', params));
      return this.onApproval(params);
    });
    this.conn.onError(([err]) => { this.connError ??= err; });
    this.conn.listen();
  }

  /** Sends a request; rejects after timeoutMs with the server's stderr tail. */
  request(method, params, timeoutMs = 20000) {
    let timer;
    const timeout = new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${method}: no answer in ${timeoutMs} ms; stderr:\n${this.stderr.slice(-2000)}`)), timeoutMs);
    });
    const call = params === undefined ? this.conn.sendRequest(method) : this.conn.sendRequest(method, params);
    return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
  }

  /** initialize + initialized, as an editor does. */
  async initialize({ capabilities = DEFAULT_CAPS, initializationOptions } = {}) {
    const params = {
      processId: process.pid,
      clientInfo: { name: 'node-vscode-jsonrpc', version: '1' },
      rootUri: pathToFileURL(this.world.work).href,
      capabilities,
    };
    if (initializationOptions) params.initializationOptions = initializationOptions;
    const res = await this.request('initialize', params);
    await this.conn.sendNotification('initialized', {});
    return res;
  }

  /** Waits until session/state says the run is over. */
  async waitIdle(timeoutMs = 20000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const st = await this.request('session/state', {});
      if (!st.isRunning && st.phase === 'idle') return st;
      if (Date.now() > deadline) throw new Error(`not idle after ${timeoutMs} ms: ${JSON.stringify(st)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Records the ways `value` does not fit the generated type `name`; returns value. */
  checked(name, value) {
    for (const e of validate(name, value)) if (this.schemaErrors.length < 20) this.schemaErrors.push(e);
    return value;
  }

  /** shutdown then exit; resolves to the process's {code, signal}. Fails when a message did not fit the schema. */
  async shutdown() {
    if (this.schemaErrors.length) throw new Error(`messages that do not fit protocol.schema.json:\n${this.schemaErrors.join('\n')}`);
    const res = await this.request('shutdown');
    await this.conn.sendNotification('exit');
    const exit = await this.exited;
    this.conn.dispose();
    return { result: res, ...exit };
  }

  kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    this.conn.dispose();
  }
}

/** The display items of one kind. */
export function itemsOf(state, kind) {
  return (state?.items ?? []).filter((it) => it.kind === kind);
}
