// Loads the built chat page (out/webview.js + media/chat.css) in headless Chromium with a fake
// acquireVsCodeApi that records what the page posts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chatHtml } from '../../src/chatHtml';
import { decodeOp } from '../../src/displayState';
import type { DisplayFrame } from '../../src/protocol';
import type { ToWebview } from '../../src/messages';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const OUTPUT = path.join(ROOT, 'test-output');

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export function frames(): DisplayFrame[] {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'chat-frames.json'), 'utf8')) as DisplayFrame[];
}

/** The message the extension posts for a display/state frame. */
export function toMessage(f: DisplayFrame): ToWebview {
  return f.state
    ? { type: 'snapshot', version: f.version, state: f.state }
    : { type: 'ops', version: f.version, ops: (f.ops ?? []).map(decodeOp) };
}

export async function openChat(browser: Browser): Promise<Page> {
  fs.mkdirSync(path.join(OUTPUT, 'webview'), { recursive: true });
  const html = chatHtml({
    cspSource: 'file:',
    nonce: 'dGVzdC1ub25jZQ==',
    scriptUri: pathToFileURL(path.join(ROOT, 'out', 'webview.js')).href,
    styleUri: pathToFileURL(path.join(ROOT, 'media', 'chat.css')).href,
  });
  const file = path.join(OUTPUT, 'webview', 'chat.html');
  fs.writeFileSync(file, html);
  const page = await browser.newPage({ viewport: { width: 460, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  (page as Page & { problems?: string[] }).problems = problems;
  await page.addInitScript(() => {
    const w = window as unknown as { __posted: unknown[]; acquireVsCodeApi: () => unknown };
    w.__posted = [];
    w.acquireVsCodeApi = () => ({
      postMessage: (m: unknown) => w.__posted.push(m),
      getState: () => undefined,
      setState: () => undefined,
    });
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
  return page;
}

export function problems(page: Page): string[] {
  return (page as Page & { problems?: string[] }).problems ?? [];
}

export async function send(page: Page, m: ToWebview): Promise<void> {
  await page.evaluate((msg) => window.postMessage(msg, '*'), m as unknown as Record<string, unknown>);
}

export async function posted(page: Page): Promise<Array<Record<string, unknown>>> {
  return page.evaluate(() => (window as unknown as { __posted: Array<Record<string, unknown>> }).__posted);
}

export async function clearPosted(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __posted: unknown[] }).__posted = [];
  });
}

/** Waits until the page posted a message matching `pred`, and returns it. */
export async function waitPosted(page: Page, type: string): Promise<Record<string, unknown>> {
  const h = await page.waitForFunction(
    (t) => (window as unknown as { __posted: Array<{ type: string }> }).__posted.find((m) => m.type === t),
    type,
  );
  return (await h.jsonValue()) as Record<string, unknown>;
}
