// Issue 33, second part, in the chat page (headless Chromium): a run cut off by a reload is
// marked; tool arguments read as text and diffs (bug 6); a huge output opens at its end with the
// full-output file as a link (bug 7); an error shows once, with Retry and dismiss (bug 8); the view
// follows the end, a card leaves the prompt in view, the plan's buttons are visible (bug 10); a
// question with options takes "Other…" free text (Missing 3).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { PendingUi } from '../../src/messages';
import type { DisplayState } from '../../src/protocol';
import { clearPosted, launch, openChat, posted, problems, send, waitPosted } from './harness';

const state = (s: Record<string, unknown>) => ({ model: 'fake/m1', status: 'idle', ...s }) as unknown as DisplayState;
const user = (id: string, text: string) => ({ id, kind: 'user', text, attachments: [] });
const answer = (id: string, text: string) => ({ id, kind: 'assistant', text });

// A 1×1 PNG, the picture of a stored image.
const STORED_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A reopened session's state (a reload): a user item names its image (entry, index), no bytes. */
function reopened(version: number): { type: 'snapshot'; version: number; state: DisplayState } {
  return {
    type: 'snapshot',
    version,
    state: {
      model: 'fake/m1',
      status: 'idle',
      items: [
        { id: 'he1', kind: 'user', text: 'what is this?', attachments: [{ type: 'image', path: 'image/png', image: { entry: 'e1', index: 0 } }] },
        { id: 'ha1', kind: 'assistant', text: 'A dot.' },
        { id: 'he2', kind: 'user', text: 'and an old one', attachments: [{ type: 'image', path: 'image/png' }] },
      ],
    } as unknown as DisplayState,
  };
}

/** Whether el is inside the visible part of the transcript (and of the window). */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    const t = document.getElementById('transcript')!.getBoundingClientRect();
    const inside = (box: DOMRect) => r.bottom > box.top + 1 && r.top < box.bottom - 1;
    return inside(t) || (!e.closest('#transcript') && r.bottom <= window.innerHeight && r.top >= 0);
  });
}

describe('chat webview (issue 33, second part)', () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launch();
    page = await openChat(browser);
  });
  after(async () => {
    assert.deepEqual(problems(page), []);
    await browser?.close();
  });

  it('marks a run that a reload cut off (an idle session ending in an unanswered prompt)', async () => {
    await send(page, { type: 'snapshot', version: 1, state: state({ items: [user('u1', 'hi'), answer('a1', 'Hello.'), user('u2', 'count to a million')] }) });
    await page.waitForSelector('.cut-off');
    assert.match((await page.textContent('.cut-off')) ?? '', /cut off/);
    // An answer the reload cut says so itself (its end reason), not "by Stop".
    await send(page, { type: 'snapshot', version: 2, state: state({ items: [user('u1', 'count'), { id: 'a1', kind: 'assistant', text: 'one two', status: 'interrupted', endReason: 'client_gone' }] }) });
    await page.waitForSelector('.interrupted');
    assert.match((await page.textContent('.interrupted')) ?? '', /client went away/);
    assert.equal(await page.locator('.cut-off').count(), 0, 'said once');
    // An answered session is not marked.
    await send(page, { type: 'snapshot', version: 2, state: state({ items: [user('u1', 'hi'), answer('a1', 'Hello.')] }) });
    await page.waitForSelector('.kind-assistant');
    assert.equal(await page.locator('.cut-off').count(), 0);
  });

  it('shows a bash call as its command and a declined write as a diff, not JSON', async () => {
    await send(page, {
      type: 'snapshot',
      version: 3,
      state: state({
        items: [
          user('u1', 'vet and write'),
          { id: 'b1', kind: 'tool', toolCallId: 'b1', toolName: 'bash', status: 'awaiting_approval', args: { command: 'go vet ./... && echo vet-ok' } },
          { id: 'w1', kind: 'tool', toolCallId: 'w1', toolName: 'write', status: 'declined', isError: true, args: { path: 'clamp.go', content: '\tif v < lo {\n\t\treturn lo\n\t}\n' } },
        ],
      }),
    });
    await page.click('.kind-tool[data-id="b1"] summary');
    assert.equal((await page.textContent('.kind-tool[data-id="b1"] pre.args'))?.trim(), '$ go vet ./... && echo vet-ok');
    await page.click('.kind-tool[data-id="w1"] summary');
    const w = page.locator('.kind-tool[data-id="w1"]');
    assert.equal(await w.locator('pre.args').count(), 0, 'no JSON arguments');
    assert.deepEqual(await w.locator('.dl.add').allTextContents(), ['+\tif v < lo {', '+\t\treturn lo', '+\t}']);
    assert.doesNotMatch((await w.textContent()) ?? '', /newText|"content"|\\n/);
  });

  it('shows the bash command once in its approval card', async () => {
    const card: PendingUi = {
      key: 'approval:b1',
      kind: 'approval',
      req: { toolCallId: 'b1', toolName: 'bash', category: 'execute', args: { command: 'go vet ./... && echo vet-ok' }, display: '$ go vet ./... && echo vet-ok' } as never,
    };
    await send(page, { type: 'pending', items: [card] });
    await page.waitForSelector('.approval-card');
    const text = (await page.textContent('.approval-card')) ?? '';
    assert.equal(text.split('go vet ./... && echo vet-ok').length - 1, 1, text);
    assert.doesNotMatch(text, /\[command=|\\\//);
    await send(page, { type: 'pending', items: [] });
  });

  it('opens a huge output at its end, without a fragment line, with the full output as a link', async () => {
    // What the state holds for `seq 1 200000`: its last 8 KB, cut inside "…43", then the note.
    const body = Array.from({ length: 200000 }, (_, i) => String(i + 1)).join('\n');
    const note = '\n\n[Showing lines 198001-200000 of 200000. Full output: /tmp/pi-bash-123.log]';
    const full = body + note;
    const bytes = 8 << 10;
    const output = full.slice(full.length - bytes);
    assert.notEqual(output[0], '1', 'the kept part starts inside a line');
    const fragment = output.split('\n')[0];
    await send(page, {
      type: 'snapshot',
      version: 4,
      state: state({ items: [user('u1', 'seq'), { id: 's1', kind: 'tool', toolCallId: 's1', toolName: 'bash', status: 'done', args: { command: 'seq 1 200000' }, output }] }),
    });
    // The link shows while the call is folded.
    const link = page.locator('.kind-tool[data-id="s1"] .full-output .file-link');
    assert.equal(await link.textContent(), '/tmp/pi-bash-123.log');
    await page.click('.kind-tool[data-id="s1"] summary');
    const pre = page.locator('.kind-tool[data-id="s1"] pre.output');
    const shown = (await pre.textContent()) ?? '';
    const lines = shown.split('\n').filter((l) => /^\d+$/.test(l));
    assert.notEqual(lines[0], fragment, 'no fragment first line');
    assert.equal(lines[0], output.slice(output.indexOf('\n') + 1).split('\n')[0], 'the first whole line');
    assert.equal(lines[lines.length - 1], '200000');
    const atEnd = await pre.evaluate((e) => Math.abs(e.scrollHeight - e.clientHeight - Math.abs(e.scrollTop)) < 4 || e.scrollTop === 0);
    assert.ok(atEnd);
    // The end is what is in view: the last line's box is inside the block's box.
    const endVisible = await pre.evaluate((e) => {
      const r = document.createRange();
      const text = e.querySelector('div')!.lastChild!;
      r.setStart(text, (text.textContent ?? '').length - 6);
      r.setEnd(text, (text.textContent ?? '').length);
      const b = r.getBoundingClientRect();
      const p = e.getBoundingClientRect();
      return b.bottom <= p.bottom + 1 && b.top >= p.top - 1;
    });
    assert.ok(endVisible, '"200000" is in view without scrolling');
    await clearPosted(page);
    await link.click();
    assert.deepEqual(await waitPosted(page, 'openFile'), { type: 'openFile', path: '/tmp/pi-bash-123.log' });
  });

  it('shows an error once, with Retry and dismiss, until the server clears it', async () => {
    const err = '401 Unauthorized: invalid api key sk-bad***';
    await send(page, { type: 'snapshot', version: 5, state: state({ errors: [err], items: [user('u1', 'hi'), { id: 'e1', kind: 'error', text: err }] }) });
    await page.waitForSelector('.kind-error');
    assert.equal(await page.locator('#errors .error-banner').count(), 0, 'not again in the bottom block');
    assert.equal(((await page.textContent('#app')) ?? '').split(err).length - 1, 1, 'shown once');
    await clearPosted(page);
    await page.click('.kind-error .error-retry');
    assert.deepEqual(await waitPosted(page, 'retry'), { type: 'retry' });
    await page.click('.kind-error .error-dismiss');
    assert.equal(await page.locator('.kind-error').isVisible(), false, 'dismissed');
    // An error with no item in the transcript shows in the bottom block, dismissable…
    await send(page, { type: 'snapshot', version: 6, state: state({ errors: ['provider: overloaded'], items: [user('u1', 'hi')] }) });
    await page.waitForSelector('#errors .error-banner');
    assert.equal(await page.locator('#errors .error-banner .error-retry-run').count(), 1);
    // …and stays while the state holds it, even under a later answer: the webview does not guess
    // that a turn made it untrue…
    await send(page, { type: 'ops', version: 7, ops: [{ op: 'push', path: ['items'], value: user('u2', 'again') }, { op: 'push', path: ['items'], value: answer('a2', 'Fine now.') }] } as never);
    await page.waitForSelector('.item[data-id="a2"]');
    assert.equal(await page.locator('#errors .error-banner').count(), 1, 'the state still holds the error');
    // …and is gone once the server cleared it (display/facts.go clearBanners, after a successful run).
    await send(page, { type: 'ops', version: 8, ops: [{ op: 'set', path: ['errors'], value: [] }] } as never);
    await page.waitForSelector('#errors .error-banner', { state: 'detached' });
  });

  it('follows the end after an answer, and a new card leaves the prompt in view', async () => {
    const items = [] as unknown[];
    for (let i = 0; i < 40; i++) items.push(user(`u${i}`, `question ${i}`), answer(`a${i}`, `answer ${i}\n\n${'word '.repeat(60)}`));
    await send(page, { type: 'snapshot', version: 10, state: state({ items, status: 'running' }) });
    await send(page, { type: 'ops', version: 11, ops: [{ op: 'push', path: ['items'], value: user('u40', 'the last prompt') }] } as never);
    await send(page, { type: 'ops', version: 12, ops: [{ op: 'push', path: ['items'], value: answer('a40', `the answer\n\n${'long '.repeat(400)}`) }, { op: 'merge', path: [], value: { status: 'idle' } }] } as never);
    await page.waitForFunction(() => {
      const t = document.getElementById('transcript')!;
      return t.scrollHeight - t.scrollTop - t.clientHeight < 4;
    });
    // A card arrives for the next prompt: the prompt is still in view above it.
    await send(page, { type: 'ops', version: 13, ops: [{ op: 'push', path: ['items'], value: user('u41', 'plan a greeting') }, { op: 'merge', path: [], value: { status: 'running' } }] } as never);
    const plan: PendingUi = { key: 'plan:p1', kind: 'plan', req: { id: 'p1', title: 'Greeting', plan: Array.from({ length: 80 }, (_, i) => `${i + 1}. step ${i + 1}`).join('\n') } };
    await send(page, { type: 'pending', items: [plan] });
    await page.waitForSelector('.plan-card');
    await page.waitForTimeout(100);
    assert.ok(await inView(page, '.kind-user[data-id="u41"]'), 'the prompt is not hidden by the card');
    assert.ok(await inView(page, '.plan-card button[data-decision="approve"]'), 'Approve is in view');
    assert.ok(await inView(page, '.plan-card button[data-decision="reject"]'), 'Reject is in view');
    // Scrolled up by the user: nothing pulls the view down.
    await send(page, { type: 'pending', items: [] });
    await page.hover('#transcript');
    await page.mouse.wheel(0, -3000);
    await page.waitForTimeout(200);
    const top = await page.$eval('#transcript', (t) => t.scrollTop);
    await send(page, { type: 'ops', version: 14, ops: [{ op: 'push', path: ['items'], value: answer('a41', 'ok') }] } as never);
    await page.waitForTimeout(100);
    assert.equal(await page.$eval('#transcript', (t) => t.scrollTop), top);
  });

  it('shows the attached context as chips before sending, and an image as a thumbnail in the sent message', async () => {
    // A 1×1 PNG.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    await send(page, { type: 'snapshot', version: 20, state: state({ items: [user('u1', 'hi'), answer('a1', 'Hello.')] }) });
    await send(page, { type: 'addContext', item: { type: 'selection', path: '/w/main.go', range: { startLine: 3, endLine: 9 }, text: 'func main() {}' } as never });
    await send(page, { type: 'addContext', item: { type: 'image', mimeType: 'image/png', data: png } });
    await page.waitForSelector('#attachments .chip-image img.thumb');
    assert.deepEqual(await page.$$eval('#attachments .chip', (cs) => cs.map((c) => c.textContent?.replace('×', ''))), ['sel main.go:3-9', 'image image/png']);
    assert.ok(await page.$eval('#attachments img.thumb', (i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth === 1), 'the thumbnail shows the picture');
    await clearPosted(page);
    await page.fill('#input', 'what is in the picture?');
    await page.press('#input', 'Enter');
    const sent = await waitPosted(page, 'send');
    assert.equal((sent.context as unknown[]).length, 2);
    assert.equal(await page.locator('#attachments').isVisible(), false, 'the chips went with the prompt');
    // The state lists the image without its bytes; the message shows the picture sent.
    await send(page, { type: 'ops', version: 21, ops: [{ op: 'push', path: ['items'], value: { id: 'u2', kind: 'user', text: 'what is in the picture?', attachments: [{ type: 'selection', path: 'main.go', lines: '3-9' }, { type: 'image' }] } }] } as never);
    await page.waitForSelector('.kind-user[data-id="u2"] .chip-image img.thumb');
    assert.equal(await page.locator('.kind-user[data-id="u2"] .chip-selection').textContent(), 'sel main.go:3-9');
  });

  it('edits and removes a queued message (agent/editQueue)', async () => {
    await send(page, { type: 'snapshot', version: 30, state: state({ status: 'running', items: [user('u1', 'work')], queue: { steering: ['use tabs'], followUp: ['then run the tests', 'and commit'] } }) });
    await page.waitForSelector('#queue .queued');
    await clearPosted(page);
    await page.click('#queue .queued[data-queue="followUp"][data-index="1"] .queued-remove');
    assert.deepEqual(await waitPosted(page, 'editQueue'), { type: 'editQueue', queue: 'followUp', index: 1, expect: 'and commit' });
    await clearPosted(page);
    await page.click('#queue .queued[data-queue="steering"] .queued-edit');
    await page.fill('#queue .queued-editor', 'use spaces');
    await page.press('#queue .queued-editor', 'Enter');
    assert.deepEqual(await waitPosted(page, 'editQueue'), { type: 'editQueue', queue: 'steering', index: 0, expect: 'use tabs', text: 'use spaces' });
    // The state's queue is what the rows show.
    await send(page, { type: 'ops', version: 31, ops: [{ op: 'set', path: ['queue'], value: { steering: ['use spaces'], followUp: ['then run the tests'] } }] } as never);
    await page.waitForFunction(() => document.querySelectorAll('#queue .queued').length === 2 && !document.querySelector('#queue .queued-editor'));
    assert.equal(await page.textContent('#queue .queued[data-queue="steering"] .queued-text'), 'use spaces');
  });

  it('answers a question that has options in free text ("Other…")', async () => {
    const q: PendingUi = { key: 'question:q1', kind: 'question', req: { id: 'q1', question: 'Which database?', options: ['sqlite', 'postgres'], selectionMode: 'single' } as never };
    await send(page, { type: 'pending', items: [q] });
    await clearPosted(page);
    await page.click('.question-card .option-other');
    await page.fill('.question-card .answer-other', 'duckdb, embedded');
    await page.press('.question-card .answer-other', 'Enter');
    assert.deepEqual(await waitPosted(page, 'answer'), { type: 'answer', key: 'question:q1', answer: { text: 'duckdb, embedded' } });
    assert.equal((await posted(page)).filter((m) => m.type === 'answer').length, 1);
    await send(page, { type: 'pending', items: [] });
  });

  it('asks for a stored image once and shows it as a thumbnail after a reload', async () => {
    await clearPosted(page);
    await send(page, reopened(1));
    assert.deepEqual(await waitPosted(page, 'image'), { type: 'image', entry: 'e1', index: 0 });
    await send(page, { type: 'image', entry: 'e1', index: 0, mimeType: 'image/png', data: STORED_PNG });
    await page.waitForSelector('.kind-user[data-id="he1"] .chip-image img.thumb');
    assert.ok(
      await page.$eval('.kind-user[data-id="he1"] img.thumb', (i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth === 1),
      'the thumbnail shows the picture',
    );
    assert.equal(await page.locator('.kind-user[data-id="he2"] img.thumb').count(), 0, 'no ref, no picture');
    // Drawn again (a new snapshot): the picture comes from what was received, no second ask.
    await send(page, reopened(2));
    await page.waitForSelector('.kind-user[data-id="he1"] .chip-image img.thumb');
    assert.equal((await posted(page)).filter((m) => m.type === 'image').length, 1);
  });

  it('names the mode in the header as the status bar does, build before any state names one (bug 14)', async () => {
    // A server that never started sends no mode: the status bar says "build", so must the chip.
    await send(page, { type: 'snapshot', version: 1, state: state({ items: [] }) });
    await page.waitForFunction(() => document.getElementById('mode')?.textContent === 'build');
    await send(page, { type: 'snapshot', version: 2, state: state({ items: [], mode: { id: 'plan', name: 'Plan' }, yolo: true }) });
    await page.waitForFunction(() => document.getElementById('mode')?.textContent === 'Plan · yolo');
  });
});
