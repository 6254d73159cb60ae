// Rewind from the chat in a real VS Code (issue 28): three prompts change files through the fake
// model (write, edit + a new nested file, bash rm), then "Rewind to here" on the second prompt's
// message shows the preview (the files a restore would change, with their diff lines), and
// "Restore code and conversation" puts the files back as they were before that prompt and the
// conversation back to before it (its text returns to the input).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startWorkbench, type Workbench } from './workbench';

describe('rewind in code-server', () => {
  let wb: Workbench;
  const file = (rel: string) => path.join(wb.workspace, rel);

  before(async () => {
    wb = await startWorkbench({
      name: 'e2e-rewind',
      yolo: true,
      files: { 'notes.txt': 'v1\n', 'keep.txt': 'keep me\n' },
      script: [
        { match: 'turn one', toolCalls: [{ id: 'call_w1', name: 'write', arguments: { path: 'notes.txt', content: 'v2\n' } }] },
        { match: '"call_w1"', text: 'Turn one done.' },
        {
          match: 'turn two',
          toolCalls: [
            { id: 'call_e2', name: 'edit', arguments: { path: 'notes.txt', edits: [{ oldText: 'v2', newText: 'v3' }] } },
            { id: 'call_w2', name: 'write', arguments: { path: 'src/deep/new.txt', content: 'new file\n' } },
          ],
        },
        { match: '"call_w2"', text: 'Turn two done.' },
        { match: 'turn three', toolCalls: [{ id: 'call_b3', name: 'bash', arguments: { command: 'rm keep.txt' } }] },
        { match: '"call_b3"', text: 'Turn three done.' },
      ],
    });
  });

  after(async () => {
    await wb?.close();
  });

  it('runs three prompts that change files', async () => {
    const chat = await wb.openChat();
    await wb.send('turn one: bump the notes');
    await chat.locator('.kind-assistant .answer', { hasText: 'Turn one done.' }).waitFor({ timeout: 60000 });
    await wb.send('turn two: edit and add a file');
    await chat.locator('.kind-assistant .answer', { hasText: 'Turn two done.' }).waitFor({ timeout: 60000 });
    await wb.send('turn three: remove keep.txt');
    await chat.locator('.kind-assistant .answer', { hasText: 'Turn three done.' }).waitFor({ timeout: 60000 });
    assert.equal(fs.readFileSync(file('notes.txt'), 'utf8'), 'v3\n');
    assert.equal(fs.readFileSync(file('src/deep/new.txt'), 'utf8'), 'new file\n');
    assert.equal(fs.existsSync(file('keep.txt')), false);
  });

  it('previews the files of a rewind to the second prompt, then restores code and conversation', async () => {
    const { page, chat } = wb;
    const second = chat.locator('.kind-user', { hasText: 'turn two: edit and add a file' });
    await second.hover();
    await second.locator('button.rewind').click();

    // The preview: a quick pick titled with the count, the three choices, then the files.
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'Rewind: 3 file(s) would change' }).waitFor({ timeout: 30000 });
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    const row = (text: string) => rows.filter({ hasText: text }).first();
    await row('src/deep/new.txt').waitFor({ timeout: 10000 });
    await wb.screenshot('preview');
    // The docs' picture of a rewind (docs/vscode.md, "Rewind").
    await page.screenshot({ path: path.join(__dirname, '..', '..', '..', '..', '..', 'docs', 'images', 'vscode-rewind.png') });
    const texts = (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    const fileRows = texts.filter((t) => /notes\.txt|keep\.txt|new\.txt/.test(t));
    assert.equal(fileRows.length, 3, `preview rows: ${JSON.stringify(texts)}`);
    assert.match((await row('notes.txt').textContent()) ?? '', /modified.*-v3.*\+v2/s);
    assert.match((await row('keep.txt').textContent()) ?? '', /added.*\+keep me/s);
    assert.match((await row('src/deep/new.txt').textContent()) ?? '', /deleted/);
    for (const choice of ['Restore code and conversation', 'Conversation only', 'Code only']) {
      assert.ok(texts.some((t) => t.includes(choice)), `choice ${choice} in ${JSON.stringify(texts)}`);
    }
    // The preview changed nothing.
    assert.equal(fs.readFileSync(file('notes.txt'), 'utf8'), 'v3\n');

    await row('Restore code and conversation').click();

    // The chat: back to before the second prompt, whose text returns to the input.
    await chat.locator('.kind-user', { hasText: 'turn three' }).waitFor({ state: 'detached', timeout: 30000 });
    await chat.locator('.kind-user', { hasText: 'turn two' }).waitFor({ state: 'detached', timeout: 30000 });
    await chat.locator('.kind-assistant .answer', { hasText: 'Turn one done.' }).waitFor({ timeout: 10000 });
    assert.equal(await chat.locator('.kind-user', { hasText: 'turn one: bump the notes' }).count(), 1);
    const input = chat.locator('#input');
    await assertEventually(async () => ((await input.inputValue()) === 'turn two: edit and add a file' ? true : `input is ${JSON.stringify(await input.inputValue())}`));
    await page.locator('.notifications-toasts', { hasText: '2 file(s) restored, 1 deleted' }).waitFor({ timeout: 10000 });
    await wb.screenshot('restored');

    // The files: as they were just before the second prompt's run.
    assert.equal(fs.readFileSync(file('notes.txt'), 'utf8'), 'v2\n');
    assert.equal(fs.readFileSync(file('keep.txt'), 'utf8'), 'keep me\n');
    assert.equal(fs.existsSync(file('src/deep/new.txt')), false);
    assert.equal(fs.existsSync(file('src')), false, 'the folders the restore emptied are removed');
  });
});

async function assertEventually(check: () => Promise<true | string>, timeoutMs = 10000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await check();
    if (r === true) return;
    if (Date.now() > end) assert.fail(r);
    await new Promise((res) => setTimeout(res, 200));
  }
}
