// End to end in a real VS Code: code-server 4.139.1 (installed by test/e2e/setup.sh under
// .e2e/) with the packaged .vsix, driven in headless Chromium like a person would: open the
// chat, type a prompt, watch the fake model's answer stream, approve a write in the card, and
// check the file on disk. The setup is workbench.ts; screenshots go to test-output/.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startWorkbench, type Workbench } from './workbench';

const REVIEW_BEFORE = `first old\n${'unchanged\n'.repeat(10)}second old\n`;

const GREETING = 'Hello from the fake model! This answer is streamed into the pi-lsp chat view, a few words at a time.';

describe('pi-lsp in code-server', () => {
  let wb: Workbench;

  before(async () => {
    wb = await startWorkbench({
      name: 'e2e',
      files: { 'README.md': '# e2e project\n', 'review.txt': REVIEW_BEFORE },
      script: [
        // ~2.5 s of streaming: the server batches display changes (250 ms debounce, 500 ms cap).
        { text: GREETING, chunkSize: 6, chunkDelayMs: 150 },
        { toolCalls: [{ id: 'call_e2e', name: 'write', arguments: { path: 'e2e.txt', content: 'written by pi-lsp from code-server\n' } }] },
        { text: 'I wrote **e2e.txt** for you.' },
        { toolCalls: [{ id: 'call_review', name: 'edit', arguments: { path: 'review.txt', edits: [{ oldText: 'first old', newText: 'first new' }, { oldText: 'second old', newText: 'second new' }] } }] },
        { text: 'Applied the hunk you kept.' },
      ],
    });
  });

  after(async () => {
    await wb?.close();
  });

  it('opens the chat view from the command palette', async () => {
    await wb.openChat();
  });

  it('streams the fake model answer into the view', async () => {
    const chat = wb.chat;
    await wb.send('please greet me');
    // Mid-stream: part of the answer is there, not all of it.
    await chat.locator('.kind-assistant .answer', { hasText: 'Hello from the fake model!' }).waitFor({ timeout: 30000 });
    const partial = ((await chat.locator('.kind-assistant .answer').last().textContent()) ?? '').trim();
    await wb.screenshot('streaming');
    await chat.locator('.kind-assistant .answer', { hasText: 'a few words at a time.' }).waitFor({ timeout: 30000 });
    assert.ok(partial.length < GREETING.length, `saw a partial answer first (${partial.length} of ${GREETING.length} chars)`);
  });

  it('approves a write in the card and the file changes on disk', async () => {
    const { chat, page } = wb;
    const target = path.join(wb.workspace, 'e2e.txt');
    assert.equal(fs.existsSync(target), false);
    await wb.send('write e2e.txt please');
    const card = chat.locator('.approval-card');
    await card.waitFor({ timeout: 30000 });
    assert.match((await card.textContent()) ?? '', /write/);
    await wb.screenshot('approval');
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
    await wb.screenshot('workbench');
  });

  it('opens a pending edit in the diff editor: one hunk rejected, the other accepted', async () => {
    const { chat, page } = wb;
    const target = path.join(wb.workspace, 'review.txt');
    await wb.send('edit review.txt please');
    const diff = page.locator('.monaco-diff-editor');
    await diff.waitFor({ timeout: 30000 });
    const modified = diff.locator('.editor.modified');
    await modified.locator('.view-line', { hasText: 'second new' }).waitFor({ timeout: 30000 });
    await wb.screenshot('review');
    // Reject the second hunk: put its line back as it was on the right-hand side.
    await modified.locator('.view-line', { hasText: 'second new' }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.type('second old');
    await modified.locator('.view-line', { hasText: 'second old' }).waitFor({ timeout: 10000 });
    await page.getByRole('button', { name: 'Accept Change' }).first().click();
    await chat.locator('.kind-assistant .answer', { hasText: 'Applied the hunk you kept.' }).waitFor({ timeout: 30000 });
    assert.equal(fs.readFileSync(target, 'utf8'), REVIEW_BEFORE.replace('first old', 'first new'));
    await wb.screenshot('review-done');
  });

  it('shows model · mode · context in the status bar', async () => {
    const item = wb.page.locator('.statusbar-item', { hasText: 'fake/fake-model' });
    await item.first().waitFor({ timeout: 10000 });
    assert.match((await item.first().textContent()) ?? '', /fake\/fake-model · \S+/);
  });
});
