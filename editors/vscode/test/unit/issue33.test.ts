// Issue 33's small VS Code fixes under the stub `vscode`: the chat card's Approve carries the
// diff editor's edits, tree labels without markdown marks, the status bar and its tooltip agree
// on the mode, and the review commands stay out of the palette with nothing under review.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DiffReviews } from '../../src/diffReview';
import type { ApprovalReply, DisplayState } from '../../src/protocol';
import { plainLine } from '../../src/sessionTree';
import { modeLine, statusText } from '../../src/statusBar';

const preview = { path: '/tmp/proj/a.txt', before: 'a\nb\n', after: 'a\nB\n', diff: '' };

function rightSide(): string {
  const d = [...stub.control.executed].reverse().find((e) => e.id === 'vscode.diff');
  assert.ok(d, 'vscode.diff was executed');
  return (d.args[1] as { fsPath: string }).fsPath;
}

describe("the card's Approve with an open diff review", () => {
  let reviews: DiffReviews;
  let replies: ApprovalReply[];
  beforeEach(() => {
    stub.control.reset();
    reviews = new DiffReviews();
    replies = [];
  });
  afterEach(() => reviews.dispose());

  it("sends the right side's edited text as content", async () => {
    await reviews.open('approval:c1', preview, (r) => replies.push(r));
    fs.writeFileSync(rightSide(), 'a\nB edited by the user\n');
    assert.deepEqual(reviews.reviewed('approval:c1', { decision: 'approve' }), { decision: 'approve', content: 'a\nB edited by the user\n' });
    // Any allowing decision keeps its decision and carries the content.
    assert.deepEqual(reviews.reviewed('approval:c1', { decision: 'alwaysAllowTool' }), { decision: 'alwaysAllowTool', content: 'a\nB edited by the user\n' });
    // A decline sends no content; another key has no review.
    assert.deepEqual(reviews.reviewed('approval:c1', { decision: 'decline', feedback: 'no' }), { decision: 'decline', feedback: 'no' });
    assert.deepEqual(reviews.reviewed('approval:other', { decision: 'approve' }), { decision: 'approve' });
    assert.equal(replies.length, 0, 'reviewed only builds the reply');
  });

  it('sends a plain approval when the right side is untouched', async () => {
    await reviews.open('approval:c1', preview, (r) => replies.push(r));
    assert.ok(fs.existsSync(path.dirname(rightSide())));
    assert.deepEqual(reviews.reviewed('approval:c1', { decision: 'approve' }), { decision: 'approve' });
  });
});

describe('tree labels', () => {
  it('strip markdown marks', () => {
    assert.equal(plainLine('✓ **edit** `main.go`'), '✓ edit main.go');
    assert.equal(plainLine('see [the docs](https://x.y) and __this__\nsecond line'), 'see the docs and this');
    assert.equal(plainLine('# Title *emphasis* a*b*c'), 'Title emphasis a*b*c');
    assert.equal(plainLine('a_b_c snake_case_name'), 'a_b_c snake_case_name');
    assert.equal(plainLine(undefined), '');
  });
});

describe('status bar mode', () => {
  it('says the same mode in the text and the tooltip', () => {
    const none = {} as DisplayState;
    assert.match(statusText(none), / · build/);
    assert.equal(modeLine(none), 'mode: build');
    const plan = { mode: { id: 'plan', name: 'Plan' }, yolo: true } as unknown as DisplayState;
    assert.match(statusText(plan), / · Plan/);
    assert.equal(modeLine(plan), 'mode: Plan (yolo)');
  });
});

describe('command palette', () => {
  it('hides Accept/Reject Change with nothing under review', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
    const palette = new Map<string, string>(pkg.contributes.menus.commandPalette.map((m: { command: string; when: string }) => [m.command, m.when]));
    assert.equal(palette.get('piLsp.review.accept'), 'piLsp.reviewing');
    assert.equal(palette.get('piLsp.review.reject'), 'piLsp.reviewing');
    assert.equal(palette.get('piLsp.review.acceptAllowFolder'), 'piLsp.reviewing && piLsp.reviewOutside');
  });
});
