// Issue 22 in headless Chromium: the approval card with its diff and buttons in view, highlighted
// code with Copy / Insert, clickable paths, @-completion and attachments. Screenshots go to
// docs/images/ (committed; the docs show them).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { PendingUi } from '../../src/messages';
import type { DisplayState } from '../../src/protocol';
import { clearPosted, launch, openChat, problems, ROOT, send, waitPosted } from './harness';

const IMAGES = path.join(ROOT, '..', '..', 'docs', 'images');

const before_ = `package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n\n${'// filler\n'.repeat(8)}\n// Mul returns a*b.\nfunc Mul(a, b int) int { return a * b }\n`;
const after_ = before_.replace('// Add returns a+b.', '// Add returns the sum of a and b.').replace('// Mul returns a*b.', '// Mul returns the product of a and b.');
const diff = `--- a/calc.go
+++ b/calc.go
@@ -1,6 +1,6 @@
 package calc
 
-// Add returns a+b.
+// Add returns the sum of a and b.
 func Add(a, b int) int { return a + b }
 
 // filler
@@ -13,3 +13,3 @@
 // filler
 
-// Mul returns a*b.
+// Mul returns the product of a and b.
 func Mul(a, b int) int { return a * b }
`;

const approval: Extract<PendingUi, { kind: 'approval' }> = {
  key: 'approval:e1',
  kind: 'approval',
  req: {
    toolCallId: 'e1',
    toolName: 'edit',
    category: 'edit',
    args: { path: 'calc.go', edits: [{ oldText: '// Add returns a+b.', newText: '// Add returns the sum of a and b.' }] },
    display: 'edit calc.go (2 change(s))',
    outsideWorkspace: false,
    preview: { path: '/home/u/proj/calc.go', before: before_, after: after_, diff },
  },
};

const answer = [
  'Here is the helper, in `calc.go` (see [the tests](calc_test.go#L12) and editors/vscode/src/agent.ts:42):',
  '',
  '```go',
  '// Sub returns a-b.',
  'func Sub(a, b int) int {',
  '\treturn a - b // "minus"',
  '}',
  '```',
  '',
  '| function | result |',
  '|---|---|',
  '| Add(2, 3) | 5 |',
  '| Sub(2, 3) | -1 |',
  '',
  '> Tests pass.',
].join('\n');

function state(): DisplayState {
  return {
    session: { id: 's1', path: '/s.jsonl', name: '', cwd: '/home/u/proj' },
    status: 'idle',
    phase: 'idle',
    mode: { id: 'build', name: 'Build', color: '#4caf50' },
    model: 'fake/m1',
    thinkingLevel: 'off',
    items: [
      { id: 'h1', kind: 'user', text: 'add Sub to @calc.go', attachments: [{ type: 'selection', path: 'calc.go', lines: '3-4' }] },
      { id: 'e0', kind: 'tool', toolName: 'edit', args: { path: 'calc.go' }, status: 'done', output: 'Successfully replaced 1 block(s) in calc.go.', diff, path: '/home/u/proj/calc.go', isError: false },
      { id: 'h2', kind: 'assistant', text: answer, thinking: '', streaming: false, status: '' },
      { id: 'h3', kind: 'assistant', text: 'Looking at the', thinking: '', streaming: false, status: 'interrupted' },
    ],
    pending: { approval: null, question: null, plan: null },
    tasks: [],
    queue: { steering: [], followUp: [] },
    tokens: { input: 5200, output: 800, contextTokens: 6000, contextWindow: 128000, compactions: 0, cost: { total: 0.0276 }, turnCost: { total: 0.0041 } },
    modifiedFiles: ['/home/u/proj/calc.go'],
    errors: [],
    retry: null,
    compaction: null,
    returnedDrafts: [],
  };
}

describe('chat webview: review, code, links (issue 22)', () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    fs.mkdirSync(IMAGES, { recursive: true });
    browser = await launch();
    page = await openChat(browser);
    await send(page, { type: 'snapshot', version: 1, state: state() });
    await page.waitForSelector('.code-block');
  });
  after(async () => {
    await browser?.close();
  });

  it('highlights fenced code with a language label, Copy and Insert', async () => {
    const block = page.locator('.kind-assistant .code-block').first();
    assert.equal(await block.locator('.code-lang').textContent(), 'go');
    assert.ok((await block.locator('.hljs-keyword').count()) >= 2, 'keywords are highlighted');
    assert.equal(await block.locator('.hljs-comment').first().textContent(), '// Sub returns a-b.');
    await page.locator('.kind-assistant').first().screenshot({ path: path.join(IMAGES, 'vscode-code-block.png') });
    await clearPosted(page);
    await block.getByRole('button', { name: 'Copy' }).click();
    const m = await waitPosted(page, 'copy');
    assert.equal(m.text, '// Sub returns a-b.\nfunc Sub(a, b int) int {\n\treturn a - b // "minus"\n}\n');
    await block.getByRole('button', { name: 'Insert' }).click();
    assert.equal((await waitPosted(page, 'insert')).text, m.text);
    assert.equal(await page.locator('.markdown table td').count(), 4);
    // The turn's files-changed summary: one file, +2 −2, its link opens it.
    assert.equal(await page.locator('.turn-files > summary').textContent(), '1 file changed');
    assert.match((await page.locator('.turn-file > summary').textContent()) ?? '', /proj\/calc\.go \+2 −2/);
    assert.equal(await page.locator('.kind-assistant .interrupted').textContent(), 'interrupted by Stop');
    assert.match((await page.textContent('#cost')) ?? '', /^\$0\.028$/);
  });

  it('opens files from links, inline code, path:line and tool headers', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['.kind-assistant a.file-link[data-path="calc_test.go"]', { type: 'openFile', path: 'calc_test.go', line: 12 }],
      ['.kind-assistant a.file-link[data-path="calc.go"]', { type: 'openFile', path: 'calc.go' }],
      ['.kind-assistant a.file-link[data-path="editors/vscode/src/agent.ts"]', { type: 'openFile', path: 'editors/vscode/src/agent.ts', line: 42 }],
      ['.kind-tool summary .file-link', { type: 'openFile', path: '/home/u/proj/calc.go' }],
      ['.kind-user .chip.file-link', { type: 'openFile', path: 'calc.go', line: 3 }],
    ];
    for (const [sel, want] of cases) {
      await clearPosted(page);
      await page.locator(sel).first().click();
      assert.deepEqual(await waitPosted(page, 'openFile'), want, sel);
    }
    // A click on the tool header's path does not toggle the tool open.
    assert.equal(await page.locator('.kind-tool details').evaluate((d) => (d as HTMLDetailsElement).open), false);
    await page.locator('.kind-tool summary').click({ position: { x: 5, y: 5 } });
    await page.locator('#transcript').screenshot({ path: path.join(IMAGES, 'vscode-clickable-path.png') });
  });

  it('shows the approval card with a readable diff and its buttons in view', async () => {
    await page.setViewportSize({ width: 460, height: 700 });
    await send(page, { type: 'pending', items: [approval] });
    const card = page.locator('.approval-card');
    await card.waitFor();
    assert.equal(await card.locator('.card-path').textContent(), '/home/u/proj/calc.go');
    assert.deepEqual(await card.locator('.diff .add').allTextContents(), ['+// Add returns the sum of a and b.', '+// Mul returns the product of a and b.']);
    assert.doesNotMatch((await card.textContent()) ?? '', /newText|\\n/, 'no escaped JSON arguments');
    assert.deepEqual(await card.locator('.card-buttons button').allTextContents(), ['Review diff', 'Approve', 'Always this tool', 'Always this category', 'Decline…']);
    // Every button is inside the viewport.
    const vp = page.viewportSize()!;
    for (const b of await card.locator('.card-buttons button').all()) {
      const box = (await b.boundingBox())!;
      assert.ok(box.y >= 0 && box.y + box.height <= vp.height, `button at ${box.y} outside ${vp.height}`);
    }
    await clearPosted(page);
    await card.getByRole('button', { name: 'Review diff' }).click();
    assert.deepEqual(await waitPosted(page, 'review'), { type: 'review', key: 'approval:e1' });
    await card.screenshot({ path: path.join(IMAGES, 'vscode-approval-card.png') });
    await card.getByRole('button', { name: 'Decline…' }).click();
    await card.locator('textarea.decline-reason').fill('keep the short comments');
    await card.locator('textarea.decline-reason').press('Enter');
    assert.deepEqual(await waitPosted(page, 'approval'), { type: 'approval', key: 'approval:e1', decision: 'decline', feedback: 'keep the short comments' });
    await send(page, { type: 'pending', items: [] });
  });

  it('shows an edit outside the workspace with both the warning and the diff, and grants the path', async () => {
    const outside: PendingUi = {
      key: 'approval:e2',
      kind: 'approval',
      req: { ...approval.req, toolCallId: 'e2', outsideWorkspace: true, resolvedPath: '/home/u/other/calc.go', access: 'write', preview: { ...approval.req.preview!, path: '/home/u/other/calc.go' } },
    } as PendingUi;
    await send(page, { type: 'pending', items: [outside] });
    const card = page.locator('.approval-card.outside');
    await card.waitFor();
    assert.equal(await card.locator('.card-outside').textContent(), '⚠ OUTSIDE THE WORKSPACE: writes /home/u/other/calc.go');
    assert.deepEqual(await card.locator('.diff .add').allTextContents(), ['+// Add returns the sum of a and b.', '+// Mul returns the product of a and b.']);
    assert.deepEqual(await card.locator('.card-buttons button').allTextContents(), ['Review diff', 'Approve', 'Always allow writing /home/u/other', 'Decline…']);
    await clearPosted(page);
    await card.getByRole('button', { name: 'Always allow writing /home/u/other', exact: true }).click();
    assert.deepEqual(await waitPosted(page, 'approval'), { type: 'approval', key: 'approval:e2', decision: 'alwaysAllowPath' });
    await send(page, { type: 'pending', items: [] });
    await page.waitForSelector('.approval-card', { state: 'detached' });
  });

  it('completes @ from files/search and sends the file as context', async () => {
    await clearPosted(page);
    await page.locator('#input').fill('');
    await page.locator('#input').pressSequentially('explain @cal');
    await page.waitForFunction(() =>
      (window as unknown as { __posted: Array<{ type: string; query?: string }> }).__posted.some((m) => m.type === 'searchFiles' && m.query === 'cal'),
    );
    await send(page, { type: 'files', query: 'cal', files: [{ path: 'src/calc.go', abs: '/home/u/proj/src/calc.go', score: 30, positions: [4, 5, 6] }] });
    await page.locator('.completion-file').waitFor();
    assert.equal(await page.locator('.completion-file .completion-name').textContent(), '@calc.go');
    await page.locator('#input').press('Enter');
    assert.equal(await page.inputValue('#input'), 'explain @src/calc.go ');
    await send(page, { type: 'addContext', item: { type: 'selection', path: '/home/u/proj/calc.go', range: { startLine: 3, endLine: 4 }, text: 'x' } });
    await page.locator('#attachments .chip').waitFor();
    await clearPosted(page);
    await page.locator('#input').press('Enter');
    const m = await waitPosted(page, 'send');
    assert.deepEqual(m.context, [
      { type: 'selection', path: '/home/u/proj/calc.go', range: { startLine: 3, endLine: 4 }, text: 'x' },
      { type: 'file', path: 'src/calc.go' },
    ]);
    assert.deepEqual(problems(page), []);
  });
});
