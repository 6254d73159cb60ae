// The approval flow end to end through vscode-jsonrpc: the fake model calls
// `write`, pi-lsp asks the client with the server->client request
// ui/requestApproval, and the client's answer decides whether the file
// changes and what the model is told.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newWorld, itemsOf } from './lib/pilsp.mjs';

const ORIGINAL = 'original line\n';

test('ui/requestApproval: approve writes the file, decline leaves it and tells the model', async (t) => {
  // Responses are picked by the first unused entry whose `match` is in the
  // request body, so each run's follow-up request finds its own answer.
  const world = await newWorld([
    { match: 'APPROVE-RUN', toolCalls: [{ id: 'w_ok', name: 'write', arguments: { path: 'notes.txt', content: 'approved content\n' } }] },
    { match: '"w_ok"', text: 'Wrote notes.txt.' },
    { match: 'DECLINE-RUN', toolCalls: [{ id: 'w_no', name: 'write', arguments: { path: 'notes.txt', content: 'declined content\n' } }] },
    { match: '"w_no"', text: 'Understood, I left notes.txt alone.' },
  ], { files: { 'notes.txt': ORIGINAL } });
  t.after(() => world.close());
  const file = join(world.work, 'notes.txt');
  const s = await world.start();
  await s.initialize({ capabilities: { ui: { approvals: true } } });

  // While the server waits on the client, the display shows the pending
  // approval: check it from inside the handler, before answering.
  let pendingSeen = null;
  s.onApproval = async (params) => {
    const st = await s.display.waitFor('pending approval', (d) => d.pending?.approval != null);
    pendingSeen = st.pending.approval;
    assert.equal(readFileSync(file, 'utf8'), ORIGINAL, 'the file changed before approval');
    return { decision: 'approve' };
  };
  await s.request('agent/prompt', { text: 'APPROVE-RUN: put the notes in notes.txt' });
  await s.waitIdle();
  assert.equal(s.approvals.length, 1);
  const [ask] = s.approvals;
  assert.equal(ask.toolCallId, 'w_ok');
  assert.equal(ask.toolName, 'write');
  assert.equal(ask.category, 'edit');
  assert.equal(ask.args.path, 'notes.txt');
  assert.match(ask.display, /notes\.txt/);
  assert.ok(pendingSeen, 'display never showed the pending approval');
  assert.equal(readFileSync(file, 'utf8'), 'approved content\n');

  // Second run: decline.
  s.onApproval = async () => ({ decision: 'decline' });
  await s.request('agent/prompt', { text: 'DECLINE-RUN: overwrite notes.txt' });
  await s.waitIdle();
  assert.equal(s.approvals.length, 2);
  assert.equal(s.approvals[1].toolCallId, 'w_no');
  assert.equal(readFileSync(file, 'utf8'), 'approved content\n', 'a declined write changed the file');

  const st = await s.display.waitFor('both runs shown', (d) => itemsOf(d, 'tool').length === 2 && d.status === 'idle');
  const tools = itemsOf(st, 'tool');
  assert.equal(tools[0].status, 'done');
  assert.equal(tools[1].status, 'declined');
  assert.equal(st.pending.approval, null);
  assert.equal(itemsOf(st, 'assistant').at(-1).text, 'Understood, I left notes.txt alone.');

  // The model's request after the declined call carries the decline.
  const reqs = await world.fake.requests();
  assert.equal(reqs.length, 4);
  const result = reqs[3].messages.find((m) => m.role === 'tool' && m.tool_call_id === 'w_no');
  assert.ok(result, 'no tool result for the declined call');
  assert.match(JSON.stringify(result.content), /declined by the user/);

  assert.equal((await s.shutdown()).code, 0);
});

test('ui/requestApproval: a garbage answer declines; no approval capability declines by policy', async (t) => {
  const world = await newWorld([
    { match: 'GARBAGE-RUN', toolCalls: [{ id: 'w_g', name: 'write', arguments: { path: 'notes.txt', content: 'garbage\n' } }] },
    { match: '"w_g"', text: 'ok' },
    { match: 'NOCAP-RUN', toolCalls: [{ id: 'w_c', name: 'write', arguments: { path: 'notes.txt', content: 'nocap\n' } }] },
    { match: '"w_c"', text: 'ok' },
  ], { files: { 'notes.txt': ORIGINAL } });
  t.after(() => world.close());
  const file = join(world.work, 'notes.txt');

  const s = await world.start();
  await s.initialize({ capabilities: { ui: { approvals: true } } });
  s.onApproval = async () => ({ decision: 'yes please' });
  await s.request('agent/prompt', { text: 'GARBAGE-RUN' });
  await s.waitIdle();
  assert.equal(s.approvals.length, 1);
  assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
  assert.equal((await s.shutdown()).code, 0);

  const s2 = await world.start();
  await s2.initialize({ capabilities: {} });
  await s2.request('agent/prompt', { text: 'NOCAP-RUN' });
  await s2.waitIdle();
  assert.equal(s2.approvals.length, 0, 'asked a client that cannot approve');
  assert.equal(readFileSync(file, 'utf8'), ORIGINAL);
  const reqs = await world.fake.requests();
  const result = reqs.at(-1).messages.find((m) => m.role === 'tool' && m.tool_call_id === 'w_c');
  assert.match(JSON.stringify(result.content), /cannot approve tool calls/);
  assert.equal((await s2.shutdown()).code, 0);
});
