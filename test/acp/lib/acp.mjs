// Drives `pi-lsp acp` over its real stdio with the official ACP TypeScript
// SDK (@agentclientprotocol/sdk 2.4.0) and validates every raw line the
// agent writes against the SDK's own zod schema: the SDK's client drops
// invalid updates silently, so a test that only looked at what it delivers
// could pass on a broken wire.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import * as z from '../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js';
import { piLspBin, startFakellm } from '../../node/lib/fakellm.mjs';

export { acp };

/** Result schemas of the agent's answers, by the client's request method. */
const resultSchemas = {
  initialize: z.zInitializeResponse,
  authenticate: z.zAuthenticateResponse,
  logout: z.zLogoutResponse,
  'session/new': z.zNewSessionResponse,
  'session/load': z.zLoadSessionResponse,
  'session/list': z.zListSessionsResponse,
  'session/resume': z.zResumeSessionResponse,
  'session/close': z.zCloseSessionResponse,
  'session/set_mode': z.zSetSessionModeResponse,
  'session/set_config_option': z.zSetSessionConfigOptionResponse,
  'session/prompt': z.zPromptResponse,
};

/** Params schemas of the agent's requests to the client. */
const requestSchemas = {
  'session/request_permission': z.zRequestPermissionRequest,
  'fs/read_text_file': z.zReadTextFileRequest,
  'fs/write_text_file': z.zWriteTextFileRequest,
};

const steeringOutcomes = new Set(['injected', 'startedNewTurn', 'promptRequired', 'failed']);

/**
 * Validator checks agent lines; it learns the methods of the client's
 * requests from the client lines it is shown.
 */
export class Validator {
  constructor() {
    this.clientMethods = new Map(); // request id -> method
    this.failures = [];
    this.lines = []; // every raw agent line
  }

  client(line) {
    const msg = JSON.parse(line);
    if (msg.method && msg.id !== undefined) this.clientMethods.set(JSON.stringify(msg.id), msg.method);
  }

  fail(line, why) {
    this.failures.push(`${why}: ${line.slice(0, 400)}`);
  }

  agent(line) {
    this.lines.push(line);
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (err) {
      this.fail(line, `not JSON (${err.message})`);
      return;
    }
    if (msg.jsonrpc !== '2.0') this.fail(line, 'jsonrpc is not "2.0"');
    if (msg.method !== undefined) {
      if (msg.id !== undefined) {
        const schema = requestSchemas[msg.method];
        if (!schema) return this.fail(line, `unexpected agent request ${msg.method}`);
        const r = schema.safeParse(msg.params);
        if (!r.success) this.fail(line, `${msg.method} params: ${r.error.message}`);
        return;
      }
      if (msg.method === 'session/update') {
        const r = z.zSessionNotification.safeParse(msg.params);
        if (!r.success) return this.fail(line, `session/update: ${r.error.message}`);
        if (r.data.update.sessionUpdate !== msg.params.update.sessionUpdate) this.fail(line, 'session/update: the schema read another variant');
        return;
      }
      if (!msg.method.startsWith('_')) this.fail(line, `unexpected agent notification ${msg.method}`);
      return;
    }
    if (msg.id === undefined) return this.fail(line, 'neither method nor id');
    if (msg.error !== undefined) {
      if (!Number.isInteger(msg.error.code) || typeof msg.error.message !== 'string') this.fail(line, 'malformed error');
      return;
    }
    const method = this.clientMethods.get(JSON.stringify(msg.id));
    if (method === '_session/steering') {
      if (!steeringOutcomes.has(msg.result?.outcome)) this.fail(line, 'bad _session/steering outcome');
      return;
    }
    const schema = resultSchemas[method];
    if (!schema) return this.fail(line, `response to unknown request ${method}`);
    const r = schema.safeParse(msg.result);
    if (!r.success) this.fail(line, `${method} result: ${r.error.message}`);
  }
}

/** Splits a byte stream into lines, calling fn for each. */
function lineTap(fn) {
  let buf = '';
  return (chunk) => {
    buf += chunk.toString('utf8');
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim() !== '') fn(line);
    }
  };
}

/**
 * Makes a scratch world: HOME (agent dir), sessions dir, project dir and a
 * fakellm with `script`. Returns paths and a close().
 */
export async function world(script) {
  const root = mkdtempSync(join(tmpdir(), 'pi-lsp-acp-'));
  const home = join(root, 'home');
  const sessions = join(root, 'sessions');
  const project = join(root, 'project');
  for (const d of [home, sessions, project]) mkdirSync(d, { recursive: true });
  const models = join(root, 'models.json');
  const llm = await startFakellm(script, models);
  return {
    root, home, sessions, project, models, llm,
    write(rel, text) {
      const p = join(project, rel);
      mkdirSync(join(p, '..'), { recursive: true });
      writeFileSync(p, text);
      return p;
    },
    async close() {
      await llm.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Starts `pi-lsp acp` in world w and connects the SDK client. opts:
 * handlers (client request handlers by method), fs (declare fs caps),
 * args (extra flags). Returns {ctx, updates, validator, raw(line), stderr,
 * close()} where updates collects every session/update params in order.
 */
export async function startAgent(w, opts = {}) {
  const bin = await piLspBin();
  const proc = spawn(bin, ['acp', '--sessions-dir', w.sessions, ...(opts.args ?? [])], {
    cwd: w.project,
    env: { ...process.env, HOME: w.home, PI_LSP_MODELS: w.models, PI_LSP_SESSIONS: w.sessions, ...(opts.env ?? {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const exited = new Promise((res) => proc.on('exit', (code, signal) => res({ code, signal })));
  const validator = new Validator();
  const updates = [];
  const waiters = [];
  const nonJSON = [];

  // Agent -> client: every line validated, then handed to the SDK.
  let readClosed = false;
  const input = new ReadableStream({
    start(controller) {
      proc.stdout.on('data', lineTap((line) => {
        validator.agent(line);
        // Lines after the client closed its side (a run still ending) are
        // validated but have nobody to go to.
        if (!readClosed) controller.enqueue(new TextEncoder().encode(line + '\n'));
      }));
      proc.stdout.on('end', () => {
        if (!readClosed) { readClosed = true; controller.close(); }
      });
    },
    cancel() { readClosed = true; },
  });
  // Client -> agent: the validator learns request methods.
  const tapClient = lineTap((line) => validator.client(line));
  const output = new WritableStream({
    write(chunk) {
      tapClient(Buffer.from(chunk));
      return new Promise((res, rej) => proc.stdin.write(chunk, (err) => (err ? rej(err) : res())));
    },
    close() { proc.stdin.end(); },
  });
  const stream = acp.ndJsonStream(output, input);
  const app = acp.client({ name: 'pi-lsp-acp-test' });
  app.onNotification('session/update', ({ params }) => {
    updates.push(params);
    for (const wt of [...waiters]) wt();
  });
  for (const [method, fn] of Object.entries(opts.handlers ?? {})) app.onRequest(method, fn);

  let resolveCtx;
  const ctxReady = new Promise((res) => { resolveCtx = res; });
  let finish;
  const done = new Promise((res) => { finish = res; });
  const connected = app.connectWith(stream, async (ctx) => {
    resolveCtx(ctx);
    await done;
  });
  connected.catch(() => {});
  const ctx = await ctxReady;
  const init = await ctx.request('initialize', {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: !!opts.fs, writeTextFile: !!opts.fs }, terminal: false },
    clientInfo: { name: 'pi-lsp-acp-test', version: '0' },
  });
  return {
    proc, ctx, init, updates, validator, nonJSON,
    get stderr() { return stderr; },
    /** Writes a raw line to the agent's stdin (bad-input tests). */
    raw(line) { proc.stdin.write(line + '\n'); },
    /** Resolves when pred(updates) holds. */
    until(pred, ms = 10000) {
      return new Promise((res, rej) => {
        const check = () => {
          if (pred(updates)) {
            waiters.splice(waiters.indexOf(check), 1);
            clearTimeout(t);
            res();
          }
        };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(check), 1);
          rej(new Error(`timed out waiting; updates: ${JSON.stringify(updates.map((u) => u.update.sessionUpdate))}`));
        }, ms);
        waiters.push(check);
        check();
      });
    },
    async close() {
      finish();
      await connected.catch(() => {});
      proc.stdin.end();
      let timer;
      const r = await Promise.race([exited, new Promise((res) => { timer = setTimeout(() => res(null), 5000); })]);
      clearTimeout(timer);
      if (r === null) proc.kill('SIGKILL');
      return r;
    },
  };
}

/** The concatenated text of agent_message_chunk updates. */
export function answerText(updates, kind = 'agent_message_chunk') {
  return updates.filter((u) => u.update.sessionUpdate === kind && u.update.content.type === 'text')
    .map((u) => u.update.content.text).join('');
}

/** Updates of one kind. */
export function ofKind(updates, kind) {
  return updates.filter((u) => u.update.sessionUpdate === kind).map((u) => u.update);
}

export { Readable, Writable };
