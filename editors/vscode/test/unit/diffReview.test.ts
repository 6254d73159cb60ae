// The diff editor of a pending edit (DiffReviews) under the stub `vscode`: an edit outside the
// workspace shows the warning in the title and gets "Accept and Allow This Folder" (the
// alwaysAllowPath decision, with the reviewed content); an edit inside it does not.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DiffReviews } from '../../src/diffReview';
import type { ApprovalReply, ApprovalRequest } from '../../src/protocol';
import { reviewOutside } from '../../src/replies';

const before = 'a\nb\nc\n';
const after = 'a\nB\nc\nd\n';

function outsideReq(): ApprovalRequest {
  return {
    toolCallId: 'w1',
    toolName: 'write',
    args: {},
    outsideWorkspace: true,
    access: 'write',
    resolvedPath: '/tmp/elsewhere/notes.txt',
    preview: { path: '/tmp/elsewhere/notes.txt', before, after, diff: '' },
  } as unknown as ApprovalRequest;
}

/** The title vscode.diff was opened with, and the right side's file. */
function lastDiff(): { title: string; right: string } {
  const d = [...stub.control.executed].reverse().find((e) => e.id === 'vscode.diff');
  assert.ok(d, 'vscode.diff was executed');
  return { title: String(d.args[2]), right: (d.args[1] as { fsPath: string }).fsPath };
}

describe('diff review of an edit outside the workspace', () => {
  let reviews: DiffReviews;
  let replies: ApprovalReply[];

  beforeEach(() => {
    stub.control.reset();
    reviews = new DiffReviews();
    replies = [];
  });
  afterEach(() => {
    stub.setActiveEditor(undefined);
    reviews.dispose();
  });

  it('offers the folder grant and sends alwaysAllowPath with the reviewed content', async () => {
    const req = outsideReq();
    const outside = reviewOutside(req);
    assert.deepEqual(outside, { warning: 'OUTSIDE THE WORKSPACE: writes /tmp/elsewhere/notes.txt', dir: '/tmp/elsewhere' });
    await reviews.open('approval:w1', req.preview!, (r) => replies.push(r), outside);
    const { title, right } = lastDiff();
    assert.match(title, /OUTSIDE THE WORKSPACE: writes \/tmp\/elsewhere\/notes\.txt/);
    assert.match(title, /Accept and Allow \/tmp\/elsewhere/);
    assert.equal(fs.readFileSync(right, 'utf8'), after, 'the right side holds the proposal');

    // The title-bar action shows for this review only.
    stub.setActiveEditor(right);
    assert.equal(stub.control.context.get('piLsp.reviewing'), true);
    assert.equal(stub.control.context.get('piLsp.reviewOutside'), true);

    // The user reverts the first hunk on the right side, then accepts with the grant.
    fs.writeFileSync(right, 'a\nb\nc\nd\n');
    await stub.commands.executeCommand('piLsp.review.acceptAllowFolder');
    assert.deepEqual(replies, [{ decision: 'alwaysAllowPath', content: 'a\nb\nc\nd\n' }]);
    assert.equal(fs.existsSync(right), false, 'the review is closed and its scratch file removed');
    // Answered once: a second click finds nothing to accept.
    await stub.commands.executeCommand('piLsp.review.acceptAllowFolder');
    assert.equal(replies.length, 1);
  });

  it('sends alwaysAllowPath without content when the proposal is accepted as it is', async () => {
    const req = outsideReq();
    await reviews.open('approval:w1', req.preview!, (r) => replies.push(r), reviewOutside(req));
    stub.setActiveEditor(lastDiff().right);
    await stub.commands.executeCommand('piLsp.review.acceptAllowFolder');
    assert.deepEqual(replies, [{ decision: 'alwaysAllowPath' }]);
  });

  it('has no folder grant for an edit inside the workspace', async () => {
    const req = { ...outsideReq(), outsideWorkspace: false, resolvedPath: undefined } as ApprovalRequest;
    assert.equal(reviewOutside(req), undefined);
    await reviews.open('approval:w1', req.preview!, (r) => replies.push(r), reviewOutside(req));
    const { title, right } = lastDiff();
    assert.doesNotMatch(title, /OUTSIDE|Allow/);
    stub.setActiveEditor(right);
    assert.equal(stub.control.context.get('piLsp.reviewing'), true);
    assert.equal(stub.control.context.get('piLsp.reviewOutside'), false);
    await stub.commands.executeCommand('piLsp.review.acceptAllowFolder');
    assert.deepEqual(replies, [], 'no grant is sent for an edit inside the workspace');
    assert.ok(stub.control.messages.some((m) => m.message.includes('inside the workspace')));
    await stub.commands.executeCommand('piLsp.review.accept');
    assert.deepEqual(replies, [{ decision: 'approve' }]);
  });

  it('the manifest shows the action in the diff editor title only for an outside review', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { commands: Array<{ command: string; title: string }>; menus: { 'editor/title': Array<{ command: string; when: string }> } };
    };
    const cmd = manifest.contributes.commands.find((c) => c.command === 'piLsp.review.acceptAllowFolder');
    assert.equal(cmd?.title, 'Accept and Allow This Folder');
    const menu = manifest.contributes.menus['editor/title'].find((m) => m.command === 'piLsp.review.acceptAllowFolder');
    assert.equal(menu?.when, 'piLsp.reviewing && piLsp.reviewOutside');
  });
});
