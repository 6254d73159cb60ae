// Attach (issue 17), the editor side: "attached to pid N" in the status bar, ui/resolved closing the
// card, diff review and waiting request another client answered, session/owner as a notice. The
// real Agent, PiClient and StatusBar run under the stub `vscode` against a FAKE server
// (test/fixtures/fake-attach-server.js), used only for these attach messages: the server side of
// attach is not on this branch. Everything else is tested against the real binary elsewhere.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent } from '../../src/agent';
import { attachLabel, attachOf, outcomeText } from '../../src/attach';
import { DiffReviews } from '../../src/diffReview';
import type { AgentManager } from '../../src/manager';
import { StatusBar } from '../../src/statusBar';

const FAKE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fake-attach-server.js');

async function waitFor(what: string, cond: () => boolean, ms = 10000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('attach: the pure parts', () => {
  it('reads attached/ownerPid from a result', () => {
    assert.deepEqual(attachOf({ attached: true, ownerPid: 7 }), { ownerPid: 7 });
    assert.equal(attachOf({ attached: false, ownerPid: 7 }), undefined);
    assert.equal(attachOf({ sessionId: 'x' }), undefined);
    assert.equal(attachOf(null), undefined);
    assert.equal(attachLabel({ ownerPid: 7 }), 'attached to pid 7');
    assert.equal(attachLabel(undefined), '');
  });
  it('names outcomes', () => {
    assert.equal(outcomeText('approval', { decision: 'alwaysAllowTool' }), 'alwaysAllowTool');
    assert.equal(outcomeText('plan', { approved: false, feedback: 'no' }), 'rejected');
    assert.equal(outcomeText('question', { answers: ['a', 'b'] }), 'a, b');
    assert.equal(outcomeText('question', { cancelled: true }), 'cancelled');
  });
});

describe('attach against a fake attached server', () => {
  let agent: Agent;
  let bar: StatusBar;
  let reviews: DiffReviews;

  before(async () => {
    stub.control.reset();
    assert.ok(fs.statSync(FAKE).mode & 0o100, 'the fake server is executable');
    stub.control.config['piLsp.path'] = FAKE;
    reviews = new DiffReviews();
    const output = stub.window.createOutputChannel('pi-lsp test') as never;
    agent = new Agent(undefined, { output, chatVisible: () => true, focusChat: () => undefined, reviews });
    const manager = { current: () => agent, onDidChangeCurrent: () => new stub.Disposable() } as unknown as AgentManager;
    await agent.ensureStarted();
    await waitFor('the display snapshot', () => agent.display.synced);
    bar = new StatusBar(manager);
  });

  after(async () => {
    bar?.dispose();
    await agent?.dispose();
    reviews?.dispose();
  });

  it('shows "attached to pid N" from the initialize result', () => {
    assert.deepEqual(agent.attached, { ownerPid: 4242 });
    assert.match(bar.item.text, /attached to pid 4242/);
  });

  it('closes the approval card and its diff review when another client answered, and says who', async () => {
    const before = 'a\n';
    const req = {
      toolCallId: 'call_x',
      toolName: 'write',
      display: 'write a.txt',
      args: {},
      preview: { path: '/tmp/a.txt', before, after: 'b\n', diff: '' },
    };
    await agent.request('test/ask', { method: 'ui/requestApproval', params: req });
    await waitFor('the approval waits', () => agent.pending.length === 1);
    assert.match(bar.item.text, /bell-dot\) 1/);
    const diff = stub.control.executed.find((e) => e.id === 'vscode.diff');
    assert.ok(diff, 'the diff review opened');
    const right = (diff.args[1] as { fsPath: string }).fsPath;
    assert.ok(fs.existsSync(right));

    await agent.request('test/notify', { method: 'ui/resolved', params: { requestId: 'call_x', kind: 'approval', outcome: { decision: 'approve' }, by: 'neovim' } });
    await waitFor('the approval closes', () => agent.pending.length === 0);
    assert.equal(fs.existsSync(right), false, 'the diff review closed');
    const msg = stub.control.messages.find((m) => m.message.includes('answered by neovim'));
    assert.ok(msg, 'the user is told who answered');
    assert.equal(msg.message, 'pi-lsp: approval (write a.txt) answered by neovim: approve');
    assert.equal(msg.level, 'info', 'a notice, not an error');
    assert.doesNotMatch(bar.item.text, /bell-dot/);
    // The request ended once; the reply only closes it (the server took the other answer).
    const replies = await agent.request<Array<{ method: string; reply: unknown }>>('test/replies');
    assert.deepEqual(replies, [{ method: 'ui/requestApproval', reply: { decision: 'decline' } }]);
  });

  it('closes a question and a plan another client answered', async () => {
    await agent.request('test/ask', { method: 'ui/askQuestion', params: { id: 'q1', question: 'Which one?', options: ['A', 'B'] } });
    await agent.request('test/ask', { method: 'ui/approvePlan', params: { id: 'p1', title: 'The plan', plan: '1. x' } });
    await waitFor('both wait', () => agent.pending.length === 2);
    await agent.request('test/notify', { method: 'ui/resolved', params: { requestId: 'q1', kind: 'question', outcome: { answer: 'B' }, by: 'neovim' } });
    await waitFor('the question closes', () => agent.pending.length === 1);
    assert.equal(agent.pending[0].kind, 'plan');
    await agent.request('test/notify', { method: 'ui/resolved', params: { requestId: 'p1', kind: 'plan', outcome: { approved: true }, by: 'vscode-2' } });
    await waitFor('the plan closes', () => agent.pending.length === 0);
    assert.ok(stub.control.messages.some((m) => m.message === 'pi-lsp: question (Which one?) answered by neovim: B'));
    assert.ok(stub.control.messages.some((m) => m.message === 'pi-lsp: plan (The plan) answered by vscode-2: approved'));
  });

  it('shows session/owner as a notice and follows the owner in the status bar', async () => {
    await agent.request('test/notify', { method: 'session/owner', params: { pid: 5000, reason: 'takeover' } });
    await waitFor('the new owner', () => agent.attached?.ownerPid === 5000);
    assert.match(bar.item.text, /attached to pid 5000/);
    const msg = stub.control.messages.find((m) => m.message.includes('owned by pid 5000'));
    assert.equal(msg?.level, 'info');
    assert.match(msg!.message, /the previous owner died/);
    assert.ok(!stub.control.messages.some((m) => m.level === 'error'), 'no error shown');
    // This window's own server took over: not attached any more.
    await agent.request('test/notify', { method: 'session/owner', params: { pid: 'self', reason: 'handover' } });
    await waitFor('owner is this server', () => agent.attached === undefined);
    assert.doesNotMatch(bar.item.text, /attached/);
    assert.ok(stub.control.messages.some((m) => m.message.startsWith('pi-lsp: this window now owns the session')));
  });

  it('reads attached from session/open and clears it on session/new', async () => {
    await agent.request('session/open', { path: '/tmp/other.jsonl' });
    assert.deepEqual(agent.attached, { ownerPid: 5151 });
    assert.match(bar.item.text, /attached to pid 5151/);
    await agent.request('session/new', {});
    assert.equal(agent.attached, undefined);
    assert.doesNotMatch(bar.item.text, /attached/);
  });
});
