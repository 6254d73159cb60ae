// The chat page in headless Chromium, fed recorded display/state frames.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { PendingUi } from '../../src/messages';
import { clearPosted, frames, launch, openChat, OUTPUT, posted, problems, send, toMessage, waitPosted } from './harness';

const approval: PendingUi = {
  key: 'approval:call_1',
  kind: 'approval',
  req: { toolCallId: 'call_1', toolName: 'write', category: 'edit', args: { path: 'hello.txt', content: 'hello world\n' }, display: 'write hello.txt (1 line)', outsideWorkspace: false },
};

describe('chat webview', () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launch();
    page = await openChat(browser);
  });
  after(async () => {
    await browser?.close();
  });

  it('draws the first frame and streams appended text', async () => {
    const fs = frames();
    await send(page, toMessage(fs[0]));
    await page.waitForSelector('#transcript .empty');
    assert.equal(await page.textContent('#model'), 'fake/m1');
    for (const f of fs.slice(1, 6)) await send(page, toMessage(f));
    await page.waitForFunction(() => document.querySelector('.kind-assistant .answer')?.textContent?.includes("I'll create hello.txt"));
    assert.equal(await page.locator('.kind-assistant .cursor').count(), 1, 'streaming cursor');
    for (const f of fs.slice(6, 7)) await send(page, toMessage(f));
    await page.waitForFunction(() => document.querySelector('.kind-assistant .answer')?.textContent?.includes('with a greeting.'));
    assert.equal(await page.textContent('.kind-assistant .answer strong'), 'hello.txt');
    assert.equal(await page.textContent('.kind-user .user-text'), 'create hello.txt and plan the work');
    assert.equal(await page.textContent('#send'), 'Steer', 'Enter steers while running');
    assert.equal(await page.isDisabled('#abort'), false);
  });

  it('keeps thinking collapsed', async () => {
    const details = page.locator('.kind-assistant details.thinking').first();
    assert.equal(await details.evaluate((d) => (d as HTMLDetailsElement).open), false);
    assert.match((await details.textContent()) ?? '', /The user wants a file\. I will write it\./);
  });

  it('shows the task list', async () => {
    await send(page, toMessage(frames()[7]));
    await page.waitForSelector('#tasks li');
    const tasks = await page.$$eval('#tasks li', (lis) => lis.map((li) => `${li.className}|${li.textContent}`));
    assert.deepEqual(tasks, [
      'task task-in_progress|◐Writing hello.txt',
      'task task-pending|○Run the tests',
      'task task-completed|●Plan the work',
    ]);
    assert.equal(await page.textContent('#tasks-count'), '1/3');
  });

  it('shows an approval card whose buttons post the right reply', async () => {
    await send(page, toMessage(frames()[8]));
    await page.waitForSelector('.kind-tool details.tool.status-awaiting_approval');
    assert.equal(await page.textContent('#context-label'), '75%');
    const cases: Array<[string, string]> = [
      ['Approve', 'approve'],
      ['Always this tool', 'alwaysAllowTool'],
      ['Always this category', 'alwaysAllowCategory'],
      ['Decline…', 'decline'],
    ];
    for (const [label, decision] of cases) {
      await clearPosted(page);
      await send(page, { type: 'pending', items: [] });
      await send(page, { type: 'pending', items: [approval] });
      const card = page.locator('.approval-card');
      await card.waitFor();
      assert.match((await card.textContent()) ?? '', /write hello\.txt \(1 line\)/);
      assert.deepEqual(await card.locator('.card-buttons button').allTextContents(), cases.map((c) => c[0]));
      await card.getByRole('button', { name: label, exact: true }).click();
      if (decision === 'decline') {
        // The first click asks why; the second sends, with the reason.
        await card.locator('textarea.decline-reason').fill('not that file');
        await card.getByRole('button', { name: 'Decline', exact: true }).click();
      }
      const m = await waitPosted(page, 'approval');
      const want = decision === 'decline' ? { type: 'approval', key: 'approval:call_1', decision, feedback: 'not that file' } : { type: 'approval', key: 'approval:call_1', decision };
      assert.deepEqual(m, want, label);
      assert.equal(await card.locator('.card-buttons button:disabled').count(), 4, 'buttons disabled once answered');
    }
    await send(page, { type: 'pending', items: [] });
    await page.waitForSelector('.approval-card', { state: 'detached' });
  });

  it('shows an approval outside the workspace prominently, with a per-path grant', async () => {
    const outside: PendingUi = {
      key: 'approval:call_9',
      kind: 'approval',
      req: { toolCallId: 'call_9', toolName: 'read', category: 'read', args: { path: '../secret/id_rsa' }, display: 'read ../secret/id_rsa', outsideWorkspace: true, resolvedPath: '/home/u/secret/id_rsa', access: 'read' },
    };
    await clearPosted(page);
    await send(page, { type: 'pending', items: [outside] });
    const card = page.locator('.approval-card.outside');
    await card.waitFor();
    assert.equal(await card.locator('.card-outside').textContent(), '⚠ OUTSIDE THE WORKSPACE: reads /home/u/secret/id_rsa');
    // (Decline, with its reason box, comes last: issue 22.)
    assert.deepEqual(await card.locator('.card-buttons button').allTextContents(), ['Approve', 'Always allow reading /home/u/secret', 'Decline…']);
    await card.getByRole('button', { name: 'Always allow reading /home/u/secret', exact: true }).click();
    assert.deepEqual(await waitPosted(page, 'approval'), { type: 'approval', key: 'approval:call_9', decision: 'alwaysAllowPath' });
    await send(page, { type: 'pending', items: [] });
    await page.waitForSelector('.approval-card', { state: 'detached' });
  });

  it('shows tool status, output and the edit as a diff', async () => {
    for (const f of frames().slice(9, 11)) await send(page, toMessage(f));
    const tool = page.locator('.kind-tool details.tool');
    await page.waitForSelector('.kind-tool details.tool.status-done');
    assert.equal(await tool.evaluate((d) => (d as HTMLDetailsElement).open), false, 'tools start collapsed');
    assert.equal(await page.textContent('.kind-tool .badge'), 'done');
    // (Left of the path: a click on the path opens the file instead.)
    await tool.locator('summary').click({ position: { x: 5, y: 5 } });
    assert.equal(await tool.evaluate((d) => (d as HTMLDetailsElement).open), true);
    assert.deepEqual(await page.$$eval('.kind-tool .diff .add', (e) => e.map((x) => x.textContent)), ['+hello world']);
    assert.equal(await page.textContent('.kind-tool pre.output'), 'Wrote 12 bytes to hello.txt');
  });

  it('never runs script from model output', async () => {
    await page.evaluate(() => {
      (window as unknown as { __violations: string[] }).__violations = [];
      document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __violations: string[] }).__violations.push(e.violatedDirective));
    });
    await send(page, toMessage(frames()[11]));
    await page.waitForFunction(() => document.querySelectorAll('.kind-assistant').length === 2);
    const last = page.locator('.kind-assistant').nth(1);
    const text = (await last.textContent()) ?? '';
    assert.match(text, /<script>window.__pwned = 1<\/script>/, 'shown as text');
    assert.match(text, /<img src=x onerror="window.__pwned = 2">/);
    assert.equal(await last.locator('script, img, iframe, object, embed').count(), 0);
    assert.equal(await last.locator('a').count(), 0, 'javascript: link is not a link');
    assert.match(text, /\[image: tracker\]/, 'images are not loaded');
    await last.getByText('[click me]', { exact: false }).click();
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
  });

  it('shows the queue, retry and errors', async () => {
    await send(page, toMessage(frames()[12]));
    await page.waitForSelector('#queue .queued');
    assert.deepEqual(await page.$$eval('#queue .queued', (e) => e.map((x) => `${x.querySelector('.queued-kind')?.textContent}${x.querySelector('.queued-text')?.textContent}`)), [
      'steeruse tabs, not spaces',
      'follow-upthen run the tests',
    ]);
    assert.equal(await page.textContent('#retry'), 'Retrying (attempt 2) in 2s: 429 Too Many Requests');
    assert.equal(await page.textContent('#errors .error-banner .error-message'), 'stream dropped: unexpected EOF');
  });

  it('takes a screenshot', async () => {
    await send(page, { type: 'pending', items: [approval] });
    await page.locator('.approval-card').waitFor();
    await page.locator('.kind-assistant details.thinking summary').first().click();
    await page.screenshot({ path: path.join(OUTPUT, 'webview-chat.png'), fullPage: true });
    await send(page, { type: 'pending', items: [] });
  });

  it('asks for a resync on a version gap', async () => {
    await clearPosted(page);
    await send(page, { type: 'ops', version: 20, ops: [{ op: 'set', path: ['status'], value: 'idle' }] });
    await waitPosted(page, 'resync');
    // frames are ignored until the snapshot comes
    await send(page, { type: 'ops', version: 21, ops: [{ op: 'set', path: ['model'], value: 'other/x' }] });
    await send(page, { type: 'snapshot', version: 30, state: { ...frames()[0].state!, status: 'idle', model: 'fake/m2' } });
    await page.waitForFunction(() => document.querySelector('#model')?.textContent === 'fake/m2');
    assert.equal(await page.textContent('#send'), 'Send');
    assert.equal(await page.isDisabled('#abort'), true);
  });

  it('Enter sends, the follow-up button queues, Esc aborts', async () => {
    // A run's start and end come as merges at the root (["m", [], {...}] on the wire).
    await send(page, { type: 'ops', version: 31, ops: [{ op: 'merge', path: [], value: { status: 'running', phase: 'turn' } }] });
    await page.waitForFunction(() => document.querySelector('#send')?.textContent === 'Steer');
    await clearPosted(page);
    await page.fill('#input', 'use the other API');
    await page.press('#input', 'Enter');
    assert.deepEqual(await waitPosted(page, 'send'), { type: 'send', text: 'use the other API', behavior: 'steer' });
    assert.equal(await page.inputValue('#input'), '');
    await clearPosted(page);
    await page.fill('#input', 'then run the tests');
    await page.click('#followup');
    assert.deepEqual(await waitPosted(page, 'send'), { type: 'send', text: 'then run the tests', behavior: 'followUp' });
    await clearPosted(page);
    await page.fill('#input', 'line one');
    await page.press('#input', 'Shift+Enter');
    assert.equal((await posted(page)).some((m) => m.type === 'send'), false, 'Shift+Enter does not send');
    await page.press('#input', 'Escape');
    await waitPosted(page, 'abort');
  });

  it('completes slash commands from commands/list', async () => {
    await clearPosted(page);
    await page.fill('#input', '');
    await page.type('#input', '/');
    await waitPosted(page, 'commands');
    await send(page, {
      type: 'commands',
      commands: [
        { name: 'skill:pdf', description: 'Work with PDFs', kind: 'skill' },
        { name: 'review', description: 'Review the diff', kind: 'template' },
      ],
    });
    await page.waitForSelector('#completions .completion');
    assert.deepEqual(await page.$$eval('#completions .completion-name', (e) => e.map((x) => x.textContent)), ['/skill:pdf', '/review']);
    await page.type('#input', 're');
    await page.waitForFunction(() => document.querySelectorAll('#completions .completion').length === 1);
    await page.press('#input', 'Tab');
    assert.equal(await page.inputValue('#input'), '/review ');
    assert.equal(await page.isHidden('#completions'), true);
  });

  it('answers questions and plans', async () => {
    await clearPosted(page);
    await send(page, {
      type: 'pending',
      items: [
        { key: 'question:q1', kind: 'question', req: { id: 'q1', question: 'Which database?', options: ['sqlite', 'postgres'], selectionMode: 'single' } },
        { key: 'plan:p1', kind: 'plan', req: { id: 'p1', title: 'Add caching', plan: '1. Add an **LRU**\n2. <script>window.__pwned=9</script>' } },
      ],
    });
    await page.locator('.question-card').getByRole('button', { name: 'postgres' }).click();
    assert.deepEqual(await waitPosted(page, 'answer'), { type: 'answer', key: 'question:q1', answer: { selected: ['postgres'] } });
    assert.equal(await page.textContent('.plan-card .plan-text strong'), 'LRU');
    assert.equal(await page.locator('.plan-card script').count(), 0);
    await page.fill('.plan-card textarea', 'also handle eviction');
    await page.locator('.plan-card').getByRole('button', { name: 'Reject' }).click();
    assert.deepEqual(await waitPosted(page, 'plan'), { type: 'plan', key: 'plan:p1', approved: false, feedback: 'also handle eviction' });
    await clearPosted(page);
    await send(page, {
      type: 'pending',
      items: [{ key: 'question:q2', kind: 'question', req: { id: 'q2', question: 'Pick', options: ['a', 'b', 'c'], selectionMode: 'multi' } }],
    });
    const card = page.locator('.question-card');
    await card.locator('input[value="a"]').check();
    await card.locator('input[value="c"]').check();
    await card.getByRole('button', { name: 'Submit' }).click();
    assert.deepEqual(await waitPosted(page, 'answer'), { type: 'answer', key: 'question:q2', answer: { selected: ['a', 'c'] } });
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
  });

  it('scrolling to the top loads older items (display/history) above, keeping the view in place', async () => {
    const item = (i: number) => ({ id: `h${i}`, kind: 'user', text: `question ${i}` });
    const items = Array.from({ length: 60 }, (_, i) => item(100 + i));
    await send(page, { type: 'snapshot', version: 1, state: { items, history: { older: 100, before: 'e100' } } as never });
    await page.waitForFunction(() => document.querySelectorAll('#transcript > .item').length === 60);
    await clearPosted(page);
    await page.evaluate(() => {
      const t = document.getElementById('transcript')!;
      t.scrollTop = t.scrollHeight;
      t.scrollTop = 0;
      t.dispatchEvent(new Event('scroll'));
    });
    assert.deepEqual(await waitPosted(page, 'older'), { type: 'older', before: 'e100' });
    const older = Array.from({ length: 50 }, (_, i) => item(50 + i));
    const firstTop = await page.evaluate(() => (document.querySelector('#transcript > .item') as HTMLElement).getBoundingClientRect().top);
    await send(page, { type: 'history', items: older as never, before: 'e50' });
    await page.waitForFunction(() => document.querySelectorAll('#older > .item').length === 50);
    const texts = await page.$$eval('#transcript .item .user-text', (els) => els.map((e) => e.textContent));
    assert.equal(texts[0], 'question 50');
    assert.equal(texts[50], 'question 100');
    const afterTop = await page.evaluate(() => (document.querySelector('#transcript > .item') as HTMLElement).getBoundingClientRect().top);
    assert.ok(Math.abs(afterTop - firstTop) < 5, `the first state item stayed in place: ${firstTop} -> ${afterTop}`);
    // The next page asks with the cursor of the last one.
    await clearPosted(page);
    await page.evaluate(() => {
      const t = document.getElementById('transcript')!;
      t.scrollTop = 0;
      t.dispatchEvent(new Event('scroll'));
    });
    assert.deepEqual(await waitPosted(page, 'older'), { type: 'older', before: 'e50' });
    await send(page, { type: 'history', items: [], before: null });
  });

  it('logged no page errors', () => {
    assert.deepEqual(problems(page), []);
  });
});
