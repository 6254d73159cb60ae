// Display facts in the chat page (headless Chromium): a tool's outcome and reason, a plan's
// verdict, why an answer was cut and the banners come from the state as the server sends it
// (docs/protocol.md, "Display facts"); the page keeps none of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DisplayState } from '../../src/protocol';
import { launch, openChat, send } from './harness';

function factsState(): DisplayState {
  return {
    model: 'fake/m1',
    status: 'idle',
    phase: 'idle',
    items: [
      { id: 'u1', kind: 'user', text: 'rename it', attachments: [] },
      { id: 'e1', kind: 'tool', toolName: 'edit', args: { path: 'a.txt' }, status: 'declined', output: 'Tool call declined by the user', diff: '', path: '', isError: true, outcome: 'declined', reason: 'keep the old name' },
      { id: 'p1', kind: 'tool', toolName: 'submit_plan', args: { title: 'Add cache' }, status: 'done', output: '', diff: '', path: '', isError: false, verdict: 'rejected' },
      { id: 'p2', kind: 'tool', toolName: 'submit_plan', args: { title: 'Add LRU' }, status: 'done', output: '', diff: '', path: '', isError: false, verdict: 'approved' },
      { id: 'b1', kind: 'tool', toolName: 'bash', args: { command: 'sleep 9' }, status: 'error', output: '', diff: '', path: '', isError: false, outcome: 'interrupted', reason: 'client_gone' },
      { id: 'a1', kind: 'assistant', text: 'half an answer', thinking: '', streaming: false, status: 'interrupted', endReason: 'client_gone' },
    ],
    errors: [{ text: 'gave up after 3 retries', itemId: 'u1' }],
    retry: null,
  } as unknown as DisplayState;
}

describe('chat webview (display facts)', () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launch();
    page = await openChat(browser);
  });
  after(async () => {
    await browser?.close();
  });

  it('draws outcome, reason, verdict, end reason and banners from the state', async () => {
    await send(page, { type: 'snapshot', version: 1, state: factsState() });
    await page.waitForSelector('.kind-assistant .interrupted');
    const badge = (id: string) => page.locator(`.item[data-id="${id}"] .badge`).first().textContent();
    assert.equal(await badge('e1'), 'declined');
    assert.equal(await page.locator('.item[data-id="e1"] .tool-reason').textContent(), 'Declined: keep the old name');
    assert.equal(await badge('p1'), 'rejected');
    assert.equal(await badge('p2'), 'approved');
    assert.equal(await badge('b1'), 'interrupted');
    assert.equal(await page.locator('.kind-assistant .interrupted').textContent(), 'interrupted: the client went away');
    assert.equal(await page.textContent('#errors .error-banner .error-message'), 'gave up after 3 retries');
    // The server clears the banner: nothing of it stays on the page.
    await send(page, { type: 'ops', version: 2, ops: [{ op: 'set', path: ['errors'], value: [] }] } as never);
    await page.waitForFunction(() => document.querySelectorAll('#errors .error-banner').length === 0);
    await send(page, { type: 'ops', version: 3, ops: [{ op: 'set', path: ['retry'], value: { attempt: 3, delayMs: 4000, error: '503', itemId: 'u1' } }] } as never);
    await page.waitForFunction(() => !document.getElementById('retry')?.classList.contains('hidden'));
    await send(page, { type: 'ops', version: 4, ops: [{ op: 'set', path: ['retry'], value: null }] } as never);
    await page.waitForFunction(() => document.getElementById('retry')?.classList.contains('hidden'));
  });
});
