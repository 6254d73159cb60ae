// Permissions: allow_always is remembered on the next call and after
// session/load in a new process; reject stops the call; reject_always
// denies the tool from then on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { world, startAgent, ofKind } from './lib/acp.mjs';

const pick = (kind, asked) => ({ params }) => {
  asked.push(params);
  return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === kind).optionId } };
};

const bash = (id, cmd) => ({ toolCalls: [{ id, name: 'bash', arguments: { command: cmd } }] });

test('allow_always is remembered on the next call and after session/load in a new process', async () => {
  const w = await world([
    bash('c1', 'echo one-1'), { match: 'one-1', text: 'first done' },
    bash('c2', 'echo two-2'), { match: 'two-2', text: 'second done' },
    bash('c3', 'echo three-3'), { match: 'three-3', text: 'third done' },
  ]);
  const asked = [];
  let a = await startAgent(w, { handlers: { 'session/request_permission': pick('allow_always', asked) } });
  let sessionId;
  try {
    ({ sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] }));
    assert.equal((await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] })).stopReason, 'end_turn');
    assert.equal(asked.length, 1, 'the first bash call asks');
    assert.equal((await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] })).stopReason, 'end_turn');
    assert.equal(asked.length, 1, 'the second does not');
    assert.ok(ofKind(a.updates, 'tool_call_update').some((u) => u.toolCallId === 'c2' && u.status === 'completed'));
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
  }
  // A new process: the grant comes back with the session.
  const asked2 = [];
  a = await startAgent(w, { handlers: { 'session/request_permission': pick('reject_once', asked2) } });
  try {
    await a.ctx.request('session/load', { sessionId, cwd: w.project, mcpServers: [] });
    assert.equal((await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'three' }] })).stopReason, 'end_turn');
    assert.equal(asked2.length, 0, 'no question after load');
    assert.ok(ofKind(a.updates, 'tool_call_update').some((u) => u.toolCallId === 'c3' && u.status === 'completed' && JSON.stringify(u.content).includes('three-3')));
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('reject stops the call; reject_always denies the tool without asking again', async () => {
  const w = await world([
    bash('r1', 'echo should-not-run > ran.txt'), { match: 'declined by the user', text: 'ok, not running it' },
    bash('r2', 'echo nope'), { match: 'r2', text: 'never then' },
    bash('r3', 'echo nope-again'), { match: 'denied by policy', text: 'denied' },
  ]);
  const asked = [];
  let answer = 'reject_once';
  const a = await startAgent(w, { handlers: { 'session/request_permission': ({ params }) => pick(answer, asked)({ params }) } });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    assert.equal((await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })).stopReason, 'end_turn');
    const end = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'r1' && u.status);
    assert.equal(end.status, 'failed');
    assert.match(JSON.stringify(end.content), /declined by the user/);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(`${w.project}/ran.txt`), false, 'the rejected command did not run');

    answer = 'reject_always';
    await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    assert.equal(asked.length, 2);
    await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and again' }] });
    assert.equal(asked.length, 2, 'reject_always: not asked again');
    const r3 = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'r3' && u.status);
    assert.equal(r3.status, 'failed');
    assert.match(JSON.stringify(r3.content), /denied by policy/);
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('a cancelled permission outcome declines and stops the turn', async () => {
  const w = await world([bash('x1', 'echo x')]);
  const a = await startAgent(w, { handlers: { 'session/request_permission': () => ({ outcome: { outcome: 'cancelled' } }) } });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    assert.equal(r.stopReason, 'cancelled');
    assert.equal((await w.llm.requests()).length, 1, 'no model call after the cancel');
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});
