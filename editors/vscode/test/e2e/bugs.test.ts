// Issue 33's VS Code bugs (2, 3, 6, 7, 8, 10, 11, 14), each checked in a real VS Code
// (code-server, setup: workbench.ts) on what a user sees. One workbench and one fake-model script
// for all: the steps run in order and each prompt's words pick its answers.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { startWorkbench, type Workbench } from './workbench';

const REVIEW = `alpha\n${'same\n'.repeat(8)}omega\n`;
const PLAN = Array.from({ length: 40 }, (_, i) => `${i + 1}. Tidy part ${i + 1} of the review.`).join('\n');
const STORY = Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long story.`).join('\n\n');

describe('issue 33 bugs in code-server', () => {
  let wb: Workbench;

  before(async () => {
    wb = await startWorkbench({
      name: 'e2e-bugs',
      files: { 'review.txt': REVIEW },
      script: [
        { match: 'vet the code', toolCalls: [{ id: 'call_vet', name: 'bash', arguments: { command: 'go vet ./...' } }] },
        { match: '"call_vet"', text: 'Vet ran.' },
        { match: 'count to a lot', toolCalls: [{ id: 'call_seq', name: 'bash', arguments: { command: 'seq 1 200000' } }] },
        { match: '"call_seq"', text: 'Counted.' },
        { match: 'edit the review', toolCalls: [{ id: 'call_edit', name: 'edit', arguments: { path: 'review.txt', edits: [{ oldText: 'omega', newText: 'omega from the model' }] } }] },
        { match: '"call_edit"', text: 'Edited **review.txt**.' },
        { match: 'tell a long story', text: STORY },
        { match: 'answer in bold', text: 'A **bold** answer.' },
        { match: 'boom one', status: 400, error: 'provider exploded (first)' },
        { match: 'boom two', status: 400, error: 'provider exploded (second)' },
        { match: 'boom two', text: 'Recovered after **retry**.' },
        { match: 'make a plan', toolCalls: [{ id: 'call_plan', name: 'submit_plan', arguments: { title: 'Tidy the review', plan: PLAN } }] },
        { match: 'You are now in Build mode', text: 'Building the plan.' },
        { match: 'first step', text: 'Step one done.' },
        { match: 'second step', text: 'Step two done.' },
        { match: 'branch off here', text: 'A new branch.' },
      ],
    });
    await wb.openChat();
  });

  after(async () => {
    await wb?.close();
  });

  /** Whether the chat element's box is inside the transcript's visible box. */
  async function inView(selector: string): Promise<boolean> {
    return wb.chat.locator(selector).last().evaluate((e) => {
      const t = document.getElementById('transcript')!.getBoundingClientRect();
      const b = e.getBoundingClientRect();
      return b.top >= t.top - 1 && b.bottom <= t.bottom + 1;
    });
  }

  async function atBottom(): Promise<boolean> {
    return wb.chat.locator('#transcript').evaluate((t) => t.scrollHeight - t.scrollTop - t.clientHeight < 4);
  }


  it('bug 10: after an answer the view is at its bottom', async () => {
    // First: the transcript is long after it, so that the card below (bug 6 and 10) takes room
    // from a transcript that scrolls.
    const { chat } = wb;
    await wb.send('tell a long story');
    await chat.locator('.kind-assistant .answer', { hasText: 'Line 120 of a long story.' }).waitFor({ timeout: 60000 });
    // The view follows the stream; the last frames may still be laid out.
    for (let i = 0; i < 20 && !(await atBottom()); i++) await wb.page.waitForTimeout(250);
    assert.ok(await atBottom(), 'the transcript shows its end');
  });

  it('bug 6 and 10: a bash approval reads as its command, and the card leaves the prompt in view', async () => {
    const { chat } = wb;
    await wb.send('vet the code please');
    const card = chat.locator('.approval-card');
    await card.waitFor({ timeout: 60000 });
    const text = (await card.textContent()) ?? '';
    const promptInView = await inView('.kind-user');
    await wb.screenshot('bash-card');
    // The turn ends before the checks, so that a failure here leaves the next steps a clean chat.
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await chat.locator('.kind-assistant .answer', { hasText: 'Vet ran.' }).waitFor({ timeout: 60000 });
    assert.equal(text.split('go vet ./...').length - 1, 1, `the command shows once, as text: ${text}`);
    assert.doesNotMatch(text, /\[command=|\\\//, 'no escaped JSON');
    assert.ok(promptInView, 'the prompt is not hidden by the card');
    for (let i = 0; i < 20 && !(await atBottom()); i++) await wb.page.waitForTimeout(250);
    assert.ok(await atBottom(), 'after the answer the transcript shows its end');
  });

  it('bug 7: huge output starts at a whole line, shows its end, and Full output opens the log', async () => {
    const { chat, page } = wb;
    await wb.send('count to a lot');
    const card = chat.locator('.approval-card');
    await card.waitFor({ timeout: 60000 });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await chat.locator('.kind-assistant .answer', { hasText: 'Counted.' }).waitFor({ timeout: 60000 });
    const tool = chat.locator('.kind-tool', { hasText: 'seq 1 200000' }).last();
    const link = tool.locator('.full-output .file-link');
    await link.waitFor({ timeout: 30000 });
    const log = ((await link.textContent()) ?? '').trim();
    assert.match(log, /\.log$/);
    await tool.locator('summary').first().click({ position: { x: 5, y: 5 } });
    const pre = tool.locator('pre.output');
    await pre.waitFor({ timeout: 10000 });
    const lines = ((await pre.textContent()) ?? '').split('\n').filter((l) => /^\d+$/.test(l));
    assert.ok(lines.length > 10, `numbers shown: ${lines.length}`);
    assert.equal(Number(lines[1]), Number(lines[0]) + 1, `the first line is whole: ${lines[0]}, ${lines[1]}`);
    assert.equal(lines[lines.length - 1], '200000', 'the end is shown');
    await wb.screenshot('long-output');
    await link.click();
    await page.locator('.tab', { hasText: path.basename(log) }).first().waitFor({ timeout: 30000 });
    // The log is large: close it (its tab's ×) so that it does not weigh on the steps after.
    const tab = page.locator('.tab', { hasText: path.basename(log) }).first();
    await tab.hover();
    await tab.locator('.tab-actions .action-label').first().click();
    await tab.waitFor({ state: 'detached', timeout: 30000 });
  });

  it('bug 2 and 11: Approve in the card keeps the edit made in the diff editor; "1 file changed" shows at the run end', async () => {
    const { chat, page } = wb;
    const target = path.join(wb.workspace, 'review.txt');
    await wb.send('edit the review file');
    const modified = page.locator('.monaco-diff-editor .editor.modified');
    await modified.locator('.view-line', { hasText: 'omega from the model' }).waitFor({ timeout: 60000 });
    await modified.locator('.view-line', { hasText: 'omega from the model' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' and the user');
    await modified.locator('.view-line', { hasText: 'omega from the model and the user' }).waitFor({ timeout: 10000 });
    const card = chat.locator('.approval-card');
    await card.waitFor({ timeout: 30000 });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await chat.locator('.kind-assistant .answer', { hasText: 'Edited review.txt.' }).waitFor({ timeout: 60000 });
    assert.equal(fs.readFileSync(target, 'utf8'), REVIEW.replace('omega', 'omega from the model and the user'));
    // No other prompt: the summary comes with the run's end.
    await chat.locator('.turn-files', { hasText: '1 file changed' }).waitFor({ timeout: 30000 });
    await wb.screenshot('reviewed-approve');
  });


  it('bug 14: Session view labels without markdown marks', async () => {
    const { chat, page } = wb;
    await wb.send('answer in bold');
    await chat.locator('.kind-assistant .answer', { hasText: 'A bold answer.' }).waitFor({ timeout: 60000 });
    // The Session view lists the answer, "A **bold** answer.", without the marks.
    await wb.runCommand('Focus on Session View', 'Focus on Session View');
    const row = page.locator('.monaco-list-row', { hasText: 'assistant: A ' }).filter({ hasText: 'answer.' }).last();
    const shown = await treeEnd(row);
    if (!shown) await wb.screenshot('failure');
    assert.ok(shown, 'the Session view shows the answer');
    const label = (await row.textContent()) ?? '';
    assert.match(label, /A bold answer\./);
    assert.doesNotMatch(label, /\*\*/);
  });

  it('bug 8: an error shows once, × dismisses it, Retry runs again', async () => {
    const { chat } = wb;
    await wb.send('boom one');
    const first = chat.locator('.kind-error', { hasText: 'provider exploded (first)' });
    await first.waitFor({ timeout: 60000 });
    const all = (await chat.locator('#app').textContent()) ?? '';
    assert.equal(all.split('provider exploded (first)').length - 1, 1, 'shown once');
    await first.locator('.error-dismiss').click();
    await first.waitFor({ state: 'hidden', timeout: 10000 });
    await wb.send('boom two');
    const second = chat.locator('.kind-error', { hasText: 'provider exploded (second)' });
    await second.waitFor({ timeout: 60000 });
    await second.locator('.error-retry').click();
    await chat.locator('.kind-assistant .answer', { hasText: 'Recovered after retry.' }).waitFor({ timeout: 60000 });
  });


  /**
   * Goes to the end of the focused tree until `row` is drawn (the list draws only the rows in
   * view, and the Session view refreshes after a run ends); false if it never is.
   */
  async function treeEnd(row: Locator, timeoutMs = 30000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      await wb.page.keyboard.press('End');
      if (await row.waitFor({ timeout: 1000 }).then(() => true, () => false)) return true;
      if (Date.now() > end) return false;
    }
  }

  /**
   * Closes a context menu that is still open (Escape), saying which one it was: an open menu
   * blocks the workbench's pointer (its `.context-view-block`) and takes the keys, so a hover or
   * the palette after it would wait on nothing.
   */
  async function closeMenus(why: string): Promise<void> {
    const { page } = wb;
    const open = page.locator('.context-view-block');
    for (let i = 0; i < 10 && (await open.count()) > 0; i++) {
      if (i === 0) {
        const items = await page.locator('.context-view .action-label').allTextContents();
        console.error(`closeMenus(${why}): a menu was open: ${JSON.stringify(items)}`);
        await wb.screenshot(`menu-open-${why}`);
      }
      await page.keyboard.press('Escape');
      await page.waitForTimeout(250);
    }
    await open.first().waitFor({ state: 'detached', timeout: 10000 });
  }

  /**
   * The mode the status bar item that has `text` names, and what its tooltip says after "mode: "
   * (the tooltip's lines may run together in the hover's text).
   */
  async function statusModes(text: string): Promise<{ bar: string | undefined; tooltip: string }> {
    const { page } = wb;
    await closeMenus('status');
    const item = page.locator('.statusbar-item', { hasText: text }).first();
    await item.waitFor({ timeout: 60000 });
    const bar = new RegExp(`${text} · ([^·\\s]+)`).exec((await item.textContent()) ?? '')?.[1];
    // The hover opens on a mouse move over the item; if the item is redrawn under a still
    // pointer (a loaded CI run after a reload), no hover comes. Move away and hover again.
    const hover = page.locator('.monaco-hover, .workbench-hover', { hasText: 'mode:' }).first();
    for (let attempt = 1; ; attempt++) {
      await item.hover();
      const shown = await hover.waitFor({ timeout: 5000 }).then(() => true, () => false);
      if (shown) break;
      if (attempt === 4) await hover.waitFor({ timeout: 5000 });
      await page.mouse.move(10, 10);
    }
    const tooltip = /mode: ?(.*)/s.exec((await hover.textContent()) ?? '')?.[1] ?? '';
    await page.mouse.move(10, 10);
    await hover.waitFor({ state: 'hidden', timeout: 15000 }).catch(() => undefined);
    return { bar, tooltip };
  }

  it('bug 10 and 14: a long plan keeps Approve in view; its hand-over shows as a note, not as a user bubble', async () => {
    const { chat } = wb;
    // The chat gets the sidebar's height (its neighbours fold), as when it is the view in use:
    // in a 300-pixel chat no layout shows a 40-step plan and its buttons.
    for (const name of ['Tasks', 'Jobs', 'Session']) {
      const open = wb.page.locator('.pane-header[aria-expanded="true"]', { hasText: name });
      if (await open.count()) await open.first().click({ position: { x: 30, y: 10 } });
      await wb.page.locator('.pane-header[aria-expanded="false"]', { hasText: name }).first().waitFor({ timeout: 10000 });
    }
    await wb.send('make a plan');
    const card = chat.locator('.plan-card');
    await card.waitFor({ timeout: 60000 });
    const approve = card.getByRole('button', { name: 'Approve', exact: true });
    await approve.waitFor({ timeout: 10000 });
    // Within the cards' box and the window, without scrolling (bug 10).
    const approveInView = await approve.evaluate((b) => {
      const box = document.getElementById('pending')!.getBoundingClientRect();
      const r = b.getBoundingClientRect();
      return r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.bottom <= window.innerHeight + 1;
    });
    await wb.screenshot('plan-card');
    await approve.click();
    // The approved plan hands over to Build mode: pi-lsp sends its text as the user.
    await chat.locator('.kind-assistant .answer', { hasText: 'Building the plan.' }).waitFor({ timeout: 60000 });
    const bubbles = await chat.locator('.kind-user').allTextContents();
    const note = chat.locator('.plan-handover');
    const noteText = (await note.count()) ? ((await note.first().textContent()) ?? '') : '';
    await wb.screenshot('plan-handover');
    assert.ok(!bubbles.some((b) => /was approved|Build mode/.test(b)), `no user bubble holds the hand-over: ${JSON.stringify(bubbles.slice(-2))}`);
    assert.match(noteText, /Plan approved: Tidy the review/, 'the hand-over shows as its note');
    assert.ok(approveInView, "the long plan's Approve was in view");
  });

  it('bug 14: after Navigate and a new prompt the branch point is open, "← current" in view', async () => {
    const { chat, page } = wb;
    await wb.send('first step');
    await chat.locator('.kind-assistant .answer', { hasText: 'Step one done.' }).waitFor({ timeout: 60000 });
    await wb.send('second step');
    await chat.locator('.kind-assistant .answer', { hasText: 'Step two done.' }).waitFor({ timeout: 60000 });
    // Navigate Here on "second step" in the Session view: the leaf goes to "Step one done.".
    await wb.runCommand('Focus on Session View', 'Focus on Session View');
    // The view refreshes after the run: "Step two done." is the leaf.
    const stepTwo = page.locator('.monaco-list-row', { hasText: 'Step two done.' }).filter({ hasText: '← current' });
    assert.ok(await treeEnd(stepTwo), 'the Session view shows the leaf "Step two done."');
    await page.locator('.monaco-list-row', { hasText: 'user: second step' }).first().click({ button: 'right' });
    // By the keyboard, not a click: a click on the item often left the menu open with the item
    // highlighted and nothing run (3 of 4 runs at load 1-4, the e2e's own; the menu's block then took the
    // pointer from the next tests, as in stop 36's CI). Hovering focuses the item; Enter runs it.
    const navigate = page.locator('.context-view .action-item', { has: page.locator('.action-label', { hasText: /^Navigate Here$/ }) });
    await navigate.hover();
    await page.locator('.context-view .action-item.focused', { hasText: /^Navigate Here/ }).waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
    await page.locator('.context-view-block').waitFor({ state: 'detached', timeout: 10000 });
    await chat.locator('.kind-user', { hasText: 'second step' }).waitFor({ state: 'detached', timeout: 30000 });
    await wb.send('branch off here');
    await chat.locator('.kind-assistant .answer', { hasText: 'A new branch.' }).waitFor({ timeout: 60000 });
    // "Step one done." is now a branch point: open, its new branch too, the leaf in view.
    await wb.runCommand('Focus on Session View', 'Focus on Session View');
    const leaf = page.locator('.monaco-list-row', { hasText: 'A new branch.' }).filter({ hasText: '← current' });
    const shown = await treeEnd(leaf);
    await wb.screenshot(shown ? 'branch-point' : 'failure');
    const rows = (await page.locator('.monaco-list-row', { hasText: /Step|branch/ }).allTextContents()).map((r) => r.replace(/\s+/g, ' ').trim());
    assert.ok(shown, `the new leaf "A new branch." is shown with "← current"; rows at the end: ${JSON.stringify(rows)}`);
  });

  it('bug 14: the status bar mode and its tooltip agree', async () => {
    const { bar, tooltip } = await statusModes('fake/fake-model');
    assert.ok(bar, 'the status bar names a mode');
    assert.ok(tooltip.startsWith(bar), `the tooltip says "mode: ${tooltip.split('\n')[0].slice(0, 20)}", the bar "${bar}"`);
  });

  it('bug 14: Accept/Reject Change are not in the palette with nothing under review', async () => {
    const { page } = wb;
    await closeMenus('palette');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.press('End');
    await page.keyboard.type('Change', { delay: 20 });
    // The palette lists matches at once; something of VS Code's own that says "Change" shows.
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 10000 });
    const rows = await page.locator('.quick-input-list .monaco-list-row').allTextContents();
    await page.keyboard.press('Escape');
    assert.ok(!rows.some((r) => /pi-lsp: (Accept|Reject) Change/.test(r)), rows.join(' | '));
  });

  it('bug 3: a failed send keeps the prompt and offers Open Settings, Select Model and Retry', async () => {
    const { chat, page } = wb;
    // Break the binary's path in the Settings editor: the extension restarts pi-lsp, which
    // cannot start.
    await wb.runCommand('Open User Settings', 'Preferences: Open User Settings');
    await page.locator('.settings-editor').waitFor({ timeout: 30000 });
    await page.keyboard.type('piLsp.path', { delay: 20 });
    const setting = page.locator('.settings-editor .setting-item-contents', { hasText: 'Path to the' }).locator('input').first();
    await setting.waitFor({ timeout: 30000 });
    await setting.fill(path.join(wb.tmp, 'no-such-pi-lsp'));
    await setting.press('Tab');
    // The restart fails: the chat says so.
    await chat.locator('.banner.server-failed, .banner.server-crashed').waitFor({ timeout: 60000 });
    // The Settings editor opens over the chat (a modal in code-server): Escape closes it.
    for (let i = 0; i < 5 && (await page.locator('.settings-editor').isVisible()); i++) {
      await page.keyboard.press('Escape');
      await page.waitForTimeout(500);
    }
    await page.locator('.settings-editor').waitFor({ state: 'hidden', timeout: 10000 });
    await chat.locator('#input').fill('this prompt must survive');
    await chat.locator('#input').press('Enter');
    await chat.locator('#errors', { hasText: 'Not sent' }).waitFor({ timeout: 60000 }).catch(async (e) => {
      await wb.screenshot('failure');
      throw e;
    });
    assert.equal(await chat.locator('#input').inputValue(), 'this prompt must survive');
    const toast = page.locator('.notification-toast', { hasText: 'the prompt was not sent' }).first();
    await toast.waitFor({ timeout: 30000 });
    for (const action of ['Open Settings', 'Select Model', 'Retry']) await toast.getByRole('button', { name: action }).waitFor({ timeout: 5000 });
    await wb.screenshot('send-failed');
  });

  it('bug 14: with a server that never started, the tooltip names the mode the status bar shows', async () => {
    // piLsp.path is still broken (bug 3): after a reload the window's pi-lsp never starts, so
    // there is no state from the server, and the status bar falls back to its default mode.
    await wb.reload();
    await wb.runCommand('Open Chat', 'pi-lsp: Open Chat');
    const { bar, tooltip } = await statusModes('no model');
    await wb.screenshot('tooltip-failed-start');
    assert.ok(bar, 'the status bar names a mode');
    assert.ok(tooltip.startsWith(bar), `the tooltip says "mode: ${tooltip.split('\n')[0].slice(0, 20)}", the bar "${bar}"`);
  });
});
