// Helpers for driving the extension (under the stub `vscode`) against the real pi-lsp binary and
// the scripted fake LLM (cmd/fakellm).
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { DisplayModel } from '../../src/displayState';
import type { FromWebview, ToWebview } from '../../src/messages';
import type { DisplayState } from '../../src/protocol';
import { stub } from '../stub/register';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

export function requireEnvFile(name: string): string {
  const p = process.env[name];
  if (!p) throw new Error(`${name} is not set (run the tests through the Makefile)`);
  if (!fs.existsSync(p)) throw new Error(`${name}=${p} does not exist`);
  return p;
}

/** A scripted response of the fake LLM (llm/llmtest.Response). */
export interface FakeResponse {
  match?: string;
  repeat?: boolean;
  text?: string;
  thinking?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
  status?: number;
  error?: string;
  chunkDelayMs?: number;
  chunkSize?: number;
}

export interface FakeLlm {
  url: string;
  modelsJson: string;
  add(...responses: FakeResponse[]): Promise<void>;
  requests(): Promise<unknown[]>;
  stop(): void;
}

export async function startFakeLlm(dir: string, script: FakeResponse[] = []): Promise<FakeLlm> {
  const bin = requireEnvFile('FAKELLM_BIN');
  const modelsJson = path.join(dir, 'models.json');
  const scriptFile = path.join(dir, 'script.json');
  fs.writeFileSync(scriptFile, JSON.stringify(script));
  const child = cp.spawn(bin, ['--script', scriptFile, '--models-json', modelsJson], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('fakellm did not print FAKELLM_URL')), 15000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      const m = /^FAKELLM_URL=(\S+)/.exec(line);
      if (m) resolve(m[1]);
      else reject(new Error(`fakellm: unexpected first line ${JSON.stringify(line)}`));
    });
    child.once('exit', (code) => reject(new Error(`fakellm exited with ${code}`)));
  });
  return {
    url,
    modelsJson,
    async add(...responses) {
      const r = await fetch(`${url}/script`, { method: 'POST', body: JSON.stringify(responses), headers: { 'content-type': 'application/json' } });
      if (!r.ok) throw new Error(`fakellm /script: ${r.status} ${await r.text()}`);
    },
    async requests() {
      const r = await fetch(`${url}/requests`);
      return (await r.json()) as unknown[];
    },
    stop() {
      child.stdin?.end();
      child.kill();
    },
  };
}

/** Polls `fn` until it returns a truthy value. */
export async function waitFor<T>(what: string, fn: () => T | undefined | null | false, timeoutMs = 20000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Listener<T> = (e: T) => void;

/**
 * A WebviewView as VS Code would hand it to the provider: it records what the extension posts
 * and applies the display messages like the page does, so a test sees what the page would draw.
 */
export class FakeWebviewView {
  visible = true;
  readonly posted: ToWebview[] = [];
  /** The page's copy of the state, kept as the page keeps it. */
  private readonly model = new DisplayModel();
  mirrorGaps = 0;
  get mirror(): DisplayState {
    return this.model.state;
  }
  get mirrorVersion(): number {
    return this.model.version;
  }
  private readonly msgListeners = new Set<Listener<FromWebview>>();
  private readonly visListeners = new Set<Listener<void>>();
  readonly webview = {
    options: {} as unknown,
    html: '',
    cspSource: 'vscode-webview://fake',
    asWebviewUri: (u: unknown) => u,
    postMessage: async (m: ToWebview) => {
      this.posted.push(m);
      if (m.type === 'snapshot') this.model.reset(m.version, structuredClone(m.state));
      else if (m.type === 'ops' && this.model.applyDecoded(m.version, m.ops).kind === 'gap') this.mirrorGaps++;
      return this.visible;
    },
    onDidReceiveMessage: (l: Listener<FromWebview>) => {
      this.msgListeners.add(l);
      return { dispose: () => this.msgListeners.delete(l) };
    },
  };
  onDidChangeVisibility = (l: Listener<void>) => {
    this.visListeners.add(l);
    return { dispose: () => this.visListeners.delete(l) };
  };
  onDidDispose = () => ({ dispose: () => undefined });

  /** A message from the page to the extension. */
  receive(m: FromWebview): void {
    for (const l of this.msgListeners) l(m);
  }

  setVisible(v: boolean): void {
    this.visible = v;
    for (const l of this.visListeners) l();
  }

  last<T extends ToWebview['type']>(type: T): Extract<ToWebview, { type: T }> | undefined {
    for (let i = this.posted.length - 1; i >= 0; i--) {
      if (this.posted[i].type === type) return this.posted[i] as Extract<ToWebview, { type: T }>;
    }
    return undefined;
  }
}

export interface Workspace {
  dir: string;
  folder: string;
  sessions: string;
  cleanup(): void;
}

export function makeWorkspace(prefix: string): Workspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pi-lsp-vscode-${prefix}-`));
  const folder = path.join(dir, 'project');
  const sessions = path.join(dir, 'sessions');
  fs.mkdirSync(folder);
  fs.mkdirSync(sessions);
  fs.writeFileSync(path.join(folder, 'README.md'), '# demo project\n');
  return { dir, folder, sessions, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Sets the stub's workspace and settings for the real binary and the fake LLM. */
export function configure(ws: Workspace, llm: FakeLlm): void {
  stub.control.reset();
  stub.control.folders = [{ uri: stub.Uri.file(ws.folder), name: 'project', index: 0 }];
  stub.control.config = {
    'piLsp.path': requireEnvFile('PI_LSP_BIN'),
    'piLsp.model': 'fake/fake-model',
    'piLsp.env': { PI_LSP_MODELS: llm.modelsJson, HOME: ws.dir },
    'piLsp.sessionsDir': ws.sessions,
  };
}

export { stub };

/**
 * Writes a pi session file into dir: a model change, a run of `trunk` messages, then `branches`
 * hanging from the trunk's last entry, written in order (so the last one ends at the leaf).
 * Returns the path and the ids of each branch's entries (the trunk as 'trunk', the model change as 'root').
 */
export function writeSession(dir: string, cwd: string, trunk: number, branches: Array<{ entries: number; name: string }>): { path: string; ids: Map<string, string[]> } {
  let next = 0;
  const id = () => (0x10000000 + next++).toString(16);
  const t0 = Date.parse('2026-11-30T00:00:00Z');
  const ts = () => new Date(t0 + next * 1000).toISOString();
  const lines: unknown[] = [{ type: 'session', version: 3, id: '01a229c9-f1da-7051-9451-000000000001', timestamp: ts(), cwd }];
  const mc = id();
  lines.push({ type: 'model_change', id: mc, parentId: null, timestamp: ts(), provider: 'fake', modelId: 'fake-model' });
  const ids = new Map<string, string[]>([['root', [mc]]]);
  const run = (name: string, parent: string, n: number): string[] => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const me = id();
      const user = i % 2 === 0;
      const text = `${name} ${user ? 'question' : 'answer'} ${i}`;
      const message = user
        ? { role: 'user', content: [{ type: 'text', text }], timestamp: t0 + next * 1000 }
        : {
            role: 'assistant',
            content: [{ type: 'text', text }],
            api: 'openai-completions',
            provider: 'fake',
            model: 'fake-model',
            usage: { input: 400 + 12 * i, output: 6, cacheRead: 0, cacheWrite: 0, totalTokens: 406 + 12 * i, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
            stopReason: 'stop',
            timestamp: t0 + next * 1000,
          };
      lines.push({ type: 'message', id: me, parentId: parent, timestamp: ts(), message });
      out.push(me);
      parent = me;
    }
    return out;
  };
  const trunkIds = run('trunk', mc, trunk);
  ids.set('trunk', trunkIds);
  for (const b of branches) ids.set(b.name, run(b.name, trunkIds[trunkIds.length - 1], b.entries));
  const file = path.join(dir, `generated-${trunk}-${branches.length}.jsonl`);
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { path: file, ids };
}
