// Issue 33 in the chat page (headless Chromium): the files-changed summary when the run ends,
// a prompt that failed to send kept in the input with Retry, and the plan handover shown as a
// system note rather than the user's bubble.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { DisplayState } from '../../src/protocol';
import { clearPosted, launch, openChat, posted, send, waitPosted } from './harness';

function runningState(): DisplayState {
  return {
    model: 'fake/m1',
    status: 'running',
    phase: 'turn',
    items: [
      { id: 'u1', kind: 'user', text: 'fix main.go', attachments: [] },
      { id: 't1', kind: 'tool', toolCallId: 'c1', toolName: 'edit', status: 'done', path: 'main.go', diff: '--- a/main.go\n+++ b/main.go\n@@ -1 +1 @@\n-a\n+b\n' },
      { id: 'a1', kind: 'assistant', text: 'Done.' },
    ],
  } as unknown as DisplayState;
}

describe('chat webview (issue 33)', () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launch();
    page = await openChat(browser);
  });
  after(async () => {
    await browser?.close();
  });

  it('shows "1 file changed" as soon as the run ends (a root merge of status)', async () => {
    await send(page, { type: 'snapshot', version: 1, state: runningState() });
    await page.waitForSelector('.kind-assistant');
    assert.equal(await page.locator('.turn-files').count(), 0, 'no summary while running');
    // The server ends a run with a merge at the root ({status, phase}), not a set of /status.
    await send(page, { type: 'ops', version: 2, ops: [{ op: 'merge', path: [], value: { status: 'idle', phase: 'idle' } }] } as never);
    await page.waitForSelector('.turn-files', { timeout: 5000 });
    assert.match((await page.textContent('.turn-files')) ?? '', /1 file changed/);
  });

  it('keeps a prompt whose send failed, shows why, and Retry sends it again', async () => {
    await clearPosted(page);
    await page.fill('#input', 'explain main.go');
    await page.press('#input', 'Enter');
    const sent = await waitPosted(page, 'send');
    assert.equal(sent.text, 'explain main.go');
    assert.equal(await page.inputValue('#input'), '', 'cleared while it is being sent');
    await send(page, { type: 'sendFailed', text: 'explain main.go', message: 'spawn pi-lsp ENOENT' });
    await page.waitForFunction(() => (document.getElementById('input') as HTMLTextAreaElement).value === 'explain main.go');
    assert.match((await page.textContent('#errors')) ?? '', /Not sent: spawn pi-lsp ENOENT/);
    await clearPosted(page);
    await send(page, { type: 'resend', behavior: 'steer' });
    const again = await waitPosted(page, 'send');
    assert.equal(again.text, 'explain main.go');
    assert.equal((await posted(page)).filter((m) => m.type === 'send').length, 1);
  });

  it('shows the plan-approval handover as a system note, not a user bubble (the server marks it)', async () => {
    const text = 'The plan "Add a greeting" was approved. You are now in Build mode with all tools: implement it step by step.';
    await send(page, {
      type: 'snapshot',
      version: 10,
      state: {
        model: 'fake/m1',
        status: 'idle',
        items: [
          { id: 'u1', kind: 'user', text: 'plan a greeting', attachments: [] },
          { id: 'u2', kind: 'user', text, attachments: [], note: 'plan_handover', planTitle: 'Add a greeting' },
          // The same words typed by the user carry no mark: a bubble.
          { id: 'u3', kind: 'user', text, attachments: [] },
        ],
      } as unknown as DisplayState,
    });
    await page.waitForSelector('.plan-handover');
    assert.deepEqual(await page.$$eval('.kind-user .user-text', (e) => e.map((x) => x.textContent)), ['plan a greeting', text]);
    assert.equal(await page.locator('.plan-handover').count(), 1);
    assert.match((await page.textContent('.plan-handover')) ?? '', /Plan approved: Add a greeting/);
  });
});
