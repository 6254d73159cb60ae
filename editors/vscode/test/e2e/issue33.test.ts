// Issue 33 end to end in code-server (setup: workbench.ts): the first run (an empty chat), the
// walkthrough, and a window reload that keeps the conversation (Missing 1). Screenshots of the
// first run and the walkthrough go to docs/images/.
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startWorkbench, type Workbench } from './workbench';

const IMAGES = path.resolve(__dirname, '..', '..', '..', '..', '..', 'docs', 'images');

describe('issue 33 in code-server', () => {
  let wb: Workbench;

  before(async () => {
    wb = await startWorkbench({
      name: 'e2e-issue33',
      files: { 'README.md': '# e2e project\n' },
      script: [{ match: 'hello', text: 'Hello! This conversation should still be here after a window reload.' }],
    });
  });

  after(async () => {
    await wb?.close();
  });

  it('first run: an empty chat, ready for a prompt', async () => {
    const chat = await wb.openChat();
    await chat.locator('.empty').waitFor({ timeout: 30000 });
    await wb.page.screenshot({ path: path.join(IMAGES, 'vscode-first-run.png') });
  });

  it('the walkthrough lists its steps', async () => {
    const { page } = wb;
    await wb.runCommand('Open Walkthrough', 'Welcome: Open Walkthrough');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with pi-lsp' }).first();
    await pick.waitFor({ timeout: 30000 });
    await pick.click();
    await page.locator('.getting-started-step', { hasText: 'Paste your API key' }).first().waitFor({ timeout: 30000 });
    await page.screenshot({ path: path.join(IMAGES, 'vscode-walkthrough.png') });
    await page.keyboard.press('Control+W').catch(() => undefined);
  });

  it('a window reload keeps the conversation', async () => {
    let chat = await wb.openChat();
    await wb.send('hello there');
    await chat.locator('.kind-assistant .answer', { hasText: 'still be here after a window reload' }).waitFor({ timeout: 60000 });
    await wb.reload();
    chat = await wb.openChat();
    await chat.locator('.kind-user', { hasText: 'hello there' }).waitFor({ timeout: 60000 });
    await chat.locator('.kind-assistant .answer', { hasText: 'still be here after a window reload' }).waitFor({ timeout: 30000 });
    await wb.screenshot('reload');
  });
});
