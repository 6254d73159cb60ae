// One start for the integration tests that drive the extension against the real pi-lsp: a
// workspace, the fake LLM with its script, the stub's settings, the extension activated from the
// built bundle (as VS Code loads it) with the chat view resolved, and the first waits.
import type { PiLspApi } from '../../src/extension';
import { configure, FakeLlm, FakeResponse, FakeWebviewView, makeWorkspace, ROOT, startFakeLlm, stub, waitFor, Workspace } from './helpers';
import * as path from 'node:path';
import { after, before } from 'node:test';

export interface StartOptions {
  /** The workspace's temp dir prefix. */
  prefix: string;
  /** The fake LLM's script at start (more with llm.add). */
  script?: FakeResponse[];
  /** Runs after the stub is configured and before activation: settings, files, the models file. */
  prepare?(ws: Workspace, llm: FakeLlm): void;
  /** More fields of the ExtensionContext (workspaceState, globalState, secrets). */
  context?: Record<string, unknown>;
  /** What to wait for before the tests run: the server ready (default), also the chat's first
   * display state, or nothing. */
  until?: 'ready' | 'snapshot' | 'nothing';
}

export interface Started {
  ws: Workspace;
  llm: FakeLlm;
  api: PiLspApi;
  /** The chat view, resolved and ready. */
  view: FakeWebviewView;
  /** Disposes the extension (its server with it), stops the fake LLM, removes the workspace. */
  stop(): Promise<void>;
}

/** The extension as one VS Code window runs it: activated, its chat view resolved and ready. */
export interface Window {
  api: PiLspApi;
  view: FakeWebviewView;
  /** Disposes the extension, and its server with it (a window closed or reloaded). */
  close(): Promise<void>;
}

/**
 * Activates the extension from the built bundle, as VS Code loads it, with more fields of the
 * ExtensionContext (context), resolves the chat view and sends its ready. The stub must be
 * configured first.
 */
export function openWindow(context?: Record<string, unknown>): Window {
  const subscriptions: Array<{ dispose(): unknown }> = [];
  const ext = require(path.join(ROOT, 'out', 'extension.js')) as { activate(c: unknown): PiLspApi };
  const api = ext.activate({ subscriptions, extensionUri: stub.Uri.file(ROOT), ...context });
  const close = async () => {
    for (const s of subscriptions.reverse()) await s.dispose();
    await api.manager.dispose();
  };
  const provider = stub.control.views.get('piLsp.chat') as { resolveWebviewView(v: unknown): void } | undefined;
  if (!provider) {
    void close();
    throw new Error('the chat view provider is not registered');
  }
  const view = new FakeWebviewView();
  provider.resolveWebviewView(view);
  view.receive({ type: 'ready' });
  return { api, view, close };
}

/**
 * A workspace, the fake LLM, the stub's settings for both, then the extension (openWindow), and
 * the waits opts.until names. What it started is stopped again when a step fails.
 */
export async function startExtensionWithFakeModel(opts: StartOptions): Promise<Started> {
  const ws = makeWorkspace(opts.prefix);
  let llm: FakeLlm | undefined;
  let win: Window | undefined;
  const stop = async () => {
    await win?.close();
    llm?.stop();
    ws.cleanup();
  };
  try {
    llm = await startFakeLlm(ws.dir, opts.script);
    configure(ws, llm);
    opts.prepare?.(ws, llm);
    win = openWindow(opts.context);
    const { api, view } = win;
    const until = opts.until ?? 'ready';
    if (until !== 'nothing') await waitFor('the server to start', () => api.manager.current().status === 'ready', 60000);
    if (until === 'snapshot') await waitFor('the first display state', () => view.last('snapshot'));
    return { ws, llm, api, view, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * startExtensionWithFakeModel for the enclosing describe: started in its before (take gets what
 * was started, to keep in the suite's variables), stopped in its after.
 */
export function useExtensionWithFakeModel(opts: StartOptions, take: (s: Started) => void): void {
  let started: Started | undefined;
  before(async () => {
    started = await startExtensionWithFakeModel(opts);
    take(started);
  });
  after(() => started?.stop());
}
