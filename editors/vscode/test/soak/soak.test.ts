import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import * as path from 'node:path';
import type { PiLspApi } from '../../src/extension';
import type { DisplaySnapshot, DisplayState, FlatTreeNode, FlatTreePage } from '../../src/protocol';
import { configure, FakeLlm, FakeWebviewView, makeWorkspace, ROOT, startFakeLlm, waitFor, Workspace } from '../integration/helpers';

// Convergence soak (issue 27): a seeded random mix of prompts, aborts, navigates, forks, session
// switches, server restarts and one kill -9, against the real binary. After each step, once the
// server is idle, the extension's display state (items, tasks, session, tokens, retry, errors)
// must equal a fresh display/snapshot. PI_SOAK_SEED replays a run; PI_SOAK_MS bounds it
// (default 120 s). The seed is printed on failure.

/** mulberry32: a small seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const KEYS = ['items', 'tasks', 'session', 'tokens', 'retry', 'errors'] as const;
function facts(s: DisplayState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of KEYS) out[k] = (s as Record<string, unknown>)[k] ?? null;
  return out;
}

describe('convergence soak', () => {
  const seed = Number(process.env.PI_SOAK_SEED ?? Date.now() % 1_000_000);
  const budget = Number(process.env.PI_SOAK_MS ?? 120_000);
  const rand = rng(seed);
  let ws: Workspace;
  let llm: FakeLlm;
  let api: PiLspApi;
  const subscriptions: Array<{ dispose(): unknown }> = [];

  before(async () => {
    ws = makeWorkspace('soak');
    llm = await startFakeLlm(ws.dir);
    configure(ws, llm);
    const ext = require(path.join(ROOT, 'out', 'extension.js')) as { activate(c: unknown): PiLspApi };
    api = ext.activate({ subscriptions, extensionUri: stub.Uri.file(ROOT) });
    const view = new FakeWebviewView();
    const provider = stub.control.views.get('piLsp.chat') as { resolveWebviewView(v: unknown): void };
    provider.resolveWebviewView(view);
    view.receive({ type: 'ready' });
    await waitFor('the server to start', () => api.manager.current().status === 'ready', 30000);
  });

  after(async () => {
    for (const s of subscriptions.reverse()) await s.dispose();
    await api?.manager.dispose();
    llm?.stop();
    ws?.cleanup();
  });

  it(`converges after every step (seed ${seed})`, async () => {
    const agent = api.manager.current();
    const pidOf = () => (agent as unknown as { client?: { pid?: number } }).client?.pid;
    const idle = () => agent.status === 'ready' && agent.display.synced && agent.display.state.status === 'idle';
    const sessions = new Set<string>();
    let killed = false;
    let n = 0;
    const log: string[] = [];

    const userNodes = async (): Promise<FlatTreeNode[]> => {
      const out: FlatTreeNode[] = [];
      const below = async (root?: string): Promise<void> => {
        const page = await agent.request<FlatTreePage>('session/tree', { ...(root ? { root } : {}), limit: 1000 });
        for (const node of page.nodes) {
          if (node.chain) {
            const run = await agent.request<FlatTreePage>('session/tree', { chain: node.id, limit: 1000 });
            out.push(...run.nodes);
            if (node.chain.lastChildCount > 0) await below(node.chain.lastId);
          } else {
            out.push(node);
            if (node.childCount > 0) await below(node.id);
          }
        }
      };
      await below();
      return out.filter((x) => x.type === 'message' && x.role === 'user');
    };

    const steps: Record<string, () => Promise<void>> = {
      prompt: async () => {
        const text = `answer ${n} ${Math.floor(rand() * 1e6)}`;
        await llm.add({ text, chunkSize: 6, chunkDelayMs: Math.floor(rand() * 20) });
        await agent.request('agent/prompt', { text: `prompt ${n}` });
        await waitFor('the answer', () => idle() && (agent.display.state.items ?? []).some((i) => i.kind === 'assistant' && i.text === text), 30000);
      },
      abort: async () => {
        const long = Array.from({ length: 150 }, (_, i) => `w${i}`).join(' ');
        await llm.add({ text: long, chunkSize: 8, chunkDelayMs: 30 });
        await agent.request('agent/prompt', { text: `long ${n}` });
        // The answer after this prompt (an earlier abort's answer also starts with w0).
        const answered = () => {
          const items = agent.display.state.items ?? [];
          const at = items.findIndex((i) => i.kind === 'user' && i.text === `long ${n}`);
          return at >= 0 && items.slice(at + 1).some((i) => i.kind === 'assistant' && (i.text ?? '').startsWith('w0'));
        };
        await waitFor('some text', answered, 30000);
        await agent.request('agent/abort', {});
      },
      newSession: async () => {
        await agent.request('session/new', {});
      },
      switch: async () => {
        const all = [...sessions];
        if (all.length === 0) return;
        await agent.request('session/open', { path: all[Math.floor(rand() * all.length)] });
      },
      fork: async () => {
        const users = await userNodes();
        if (users.length === 0) return;
        await agent.request('session/fork', { entryId: users[Math.floor(rand() * users.length)].id, at: false });
      },
      navigate: async () => {
        const users = await userNodes();
        if (users.length === 0) return;
        await agent.request('session/navigate', { targetId: users[Math.floor(rand() * users.length)].id });
      },
      restart: async () => {
        await agent.restart();
      },
      kill: async () => {
        if (killed) return;
        killed = true;
        const pid = pidOf();
        assert.ok(pid);
        process.kill(pid, 'SIGKILL');
        await waitFor('the restart after the kill', () => agent.status === 'ready' && pidOf() !== undefined && pidOf() !== pid, 30000);
      },
    };
    const weights: Array<[string, number]> = [['prompt', 5], ['abort', 2], ['newSession', 1], ['switch', 2], ['fork', 2], ['navigate', 2], ['restart', 1], ['kill', 1]];
    const total = weights.reduce((a, [, w]) => a + w, 0);
    const pick = () => {
      let r = rand() * total;
      for (const [name, w] of weights) if ((r -= w) < 0) return name;
      return 'prompt';
    };

    const converge = async (step: string) => {
      await waitFor(`idle after ${step}`, idle, 30000);
      await sleep(700); // the last batch leaves within 500 ms
      let last: unknown;
      for (let i = 0; i < 20; i++) {
        const snap = await agent.request<DisplaySnapshot>('display/snapshot', {});
        await sleep(100);
        if (idle() && isDeepStrictEqual(facts(agent.display.state), facts(snap.state))) return;
        last = { client: facts(agent.display.state), server: facts(snap.state) };
        await sleep(400);
      }
      assert.fail(`seed ${seed}: after step ${n} (${step}; steps: ${log.join(' ')}) the display did not converge: ${JSON.stringify(last).slice(0, 3000)}`);
    };

    const start = Date.now();
    await steps.prompt();
    while (Date.now() - start < budget && n < 200) {
      n++;
      const step = pick();
      log.push(step);
      try {
        await steps[step]();
      } catch (e) {
        let server = '';
        try {
          const snap = await agent.request<DisplaySnapshot>('display/snapshot', {});
          server = JSON.stringify({ status: snap.state.status, items: (snap.state.items ?? []).slice(-4) });
        } catch (e2) {
          server = String(e2);
        }
        const client = JSON.stringify({ status: agent.display.state.status, items: (agent.display.state.items ?? []).slice(-4) });
        assert.fail(`seed ${seed}: step ${n} (${step}; steps: ${log.join(' ')}) failed: ${e instanceof Error ? e.message : e}\nclient: ${client}\nserver: ${server}`);
      }
      await converge(step);
      const p = agent.display.state.session?.path;
      if (p) sessions.add(p);
    }
    console.log(`soak seed ${seed}: ${n} steps in ${Math.round((Date.now() - start) / 1000)} s: ${log.join(' ')}`);
  });
});
