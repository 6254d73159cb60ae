// The nested subagent card, fed the display/state frames the real pi-lsp sent for a parent whose
// general subagent streamed text, asked for an approval and wrote a file
// (testdata/display/subagent-frames.json, recorded by TestSubagentApprovalCarriesTheChildAndDisplayStreamsIt
// with PI_LSP_RECORD_FRAMES).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DisplayFrame } from '../../src/protocol';
import { clearPosted, launch, openChat, problems, ROOT, send, toMessage, waitPosted } from './harness';

function subagentFrames(): DisplayFrame[] {
  const file = path.join(ROOT, '..', '..', 'testdata', 'display', 'subagent-frames.json');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as DisplayFrame[];
}

describe('subagent card', () => {
  let browser: Browser;
  let page: Page;
  const fs = subagentFrames();

  before(async () => {
    browser = await launch();
    page = await openChat(browser);
  });
  after(async () => {
    await browser?.close();
  });

  it('nests the running child under its tool item, open, with its streamed text', async () => {
    // Up to the frame where the child's first answer streamed and its write waits on approval.
    const upTo = fs.findIndex((f) => JSON.stringify(f).includes('"pending","approval"],{'));
    assert.ok(upTo > 0, 'the recording has the approval frame');
    for (const f of fs.slice(0, upTo + 1)) await send(page, toMessage(f));
    const card = page.locator('.kind-tool details.subagent-card');
    await card.waitFor();
    assert.equal(await card.count(), 1);
    assert.equal(await card.evaluate((d) => (d as HTMLDetailsElement).open), true, 'open while running');
    assert.equal(await card.locator('> summary .child-agent').textContent(), 'general');
    assert.equal(await card.locator('> summary .badge').textContent(), 'running');
    const items = card.locator('.child-items > .item');
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.className)), ['item kind-user', 'item kind-assistant', 'item kind-tool']);
    assert.equal(await items.nth(0).locator('.user-text').textContent(), 'WRITE-TASK: create child.txt');
    assert.match((await items.nth(1).textContent()) ?? '', /Writing now\./);
    assert.equal(await items.nth(2).locator('details.tool').getAttribute('class'), 'tool status-awaiting_approval');
    // The child's items are not the parent's: the transcript has three top-level items.
    assert.equal(await page.locator('#transcript > .item').count(), 3);
  });

  it('streams the rest and collapses the finished child, keeping its tokens apart', async () => {
    for (const f of fs.slice(fs.findIndex((f) => JSON.stringify(f).includes('"pending","approval"],{')) + 1)) await send(page, toMessage(f));
    const card = page.locator('.kind-tool details.subagent-card');
    await page.waitForFunction(() => document.querySelector('details.subagent-card')?.classList.contains('status-done'));
    assert.equal(await card.evaluate((d) => (d as HTMLDetailsElement).open), false, 'collapsed once done');
    const items = card.locator('.child-items > .item');
    assert.equal(await items.count(), 4);
    assert.equal((await items.nth(3).locator('.answer').textContent())?.trim(), 'CHILD-STREAMED-TEXT: child.txt is written.');
    assert.equal(await items.nth(2).locator('details.tool').getAttribute('class'), 'tool status-done');
    assert.match((await card.locator('> summary .child-tokens').textContent()) ?? '', /^\d+ tokens$/);
    assert.match((await page.locator('.kind-assistant .answer').last().textContent()) ?? '', /The child wrote it\./);
  });

  it('remembers that the user opened it across re-renders', async () => {
    const summary = page.locator('.kind-tool details.subagent-card > summary');
    await summary.click();
    const last = fs[fs.length - 1];
    // A later frame re-renders the item: it stays open.
    await send(page, toMessage({ version: last.version + 1, ops: [['s', ['items', 2, 'child', 'status'], 'done']] } as unknown as DisplayFrame));
    assert.equal(await page.locator('details.subagent-card').evaluate((d) => (d as HTMLDetailsElement).open), true);
  });

  it('opens the child session', async () => {
    await clearPosted(page);
    await page.locator('details.subagent-card button.open-child').click();
    const m = await waitPosted(page, 'openSession');
    const session = String(m.path);
    assert.match(session, /\/subagents\/[^/]+\.jsonl$/);
  });

  it('logged no page errors', () => {
    assert.deepEqual(problems(page), []);
  });
});
