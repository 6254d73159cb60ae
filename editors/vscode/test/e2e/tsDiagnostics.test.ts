// Diagnostics from VS Code's own TypeScript server in a real VS Code (issue 29): code-server's
// built-in typescript-language-features extension checks a.ts; the fake model writes a type
// error into it; pi-lsp asks the editor (editor/diagnostics) and the next model request carries
// the TS error in that write's tool result, and the chat shows it under the tool item. An error
// that was there before the write is not reported.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CODE_SERVER_DIR, startWorkbench, type Workbench } from './workbench';

const BEFORE = 'export const k = missingName;\n';
const AFTER = `${BEFORE}export const s: number = "text";\n`;
const NEW_ERROR = `a.ts:2:14: error: Type 'string' is not assignable to type 'number'. (ts)`;

describe('TypeScript diagnostics in code-server', () => {
  let wb: Workbench;

  before(async () => {
    const ext = path.join(CODE_SERVER_DIR, 'lib', 'vscode', 'extensions', 'typescript-language-features', 'package.json');
    assert.ok(fs.existsSync(ext), `code-server bundles no typescript-language-features (${ext})`);
    wb = await startWorkbench({
      name: 'e2e-tsdiag',
      yolo: true,
      files: { 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, files: ['a.ts'] }), 'a.ts': BEFORE },
      // A longer settle than the default: the TS server is slow on a loaded 2-core machine.
      piSettings: { diagnostics: { settleMs: 4000 } },
      script: [
        { match: 'add a number', toolCalls: [{ id: 'call_ts', name: 'write', arguments: { path: 'a.ts', content: AFTER } }] },
        { match: '"call_ts"', text: 'I added s.' },
      ],
    });
  });

  after(async () => {
    await wb?.close();
  });

  it('has the built-in TypeScript server checking a.ts', async () => {
    await wb.openChat();
    await wb.openFile('a.ts');
    // The TS server is active when its error for missingName is drawn in the editor.
    const editor = wb.page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.squiggly-error').first().waitFor({ timeout: 120000 });
    await wb.page.locator('.statusbar-item', { hasText: /TypeScript/ }).first().waitFor({ timeout: 30000 });
    await wb.screenshot('ts-active');
  });

  it("carries the TS error of the model's write in that write's result", async () => {
    const { chat } = wb;
    await wb.send('add a number to a.ts');
    await chat.locator('.kind-assistant .answer', { hasText: 'I added s.' }).waitFor({ timeout: 90000 });
    assert.equal(fs.readFileSync(path.join(wb.workspace, 'a.ts'), 'utf8'), AFTER);

    const reqs = (await wb.llm.requests()) as Array<{ messages: Array<{ role: string; tool_call_id?: string; content: unknown }> }>;
    assert.equal(reqs.length, 2, 'two model requests');
    const result = reqs[1].messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_ts');
    assert.ok(result, 'the write result is in the second request');
    const text = JSON.stringify(result.content);
    assert.ok(text.includes(NEW_ERROR), `the write's result: ${text}`);
    assert.ok(!text.includes('missingName'), `an error present before the write was reported: ${text}`);

    // The chat shows it under the write's tool item.
    await chat.locator('.kind-tool .tool-diagnostics .diagnostic-error', { hasText: NEW_ERROR }).waitFor({ timeout: 10000 });
    await wb.screenshot('ts-diagnostics');
  });
});
