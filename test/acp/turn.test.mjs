// The turn: cancel mid-stream, a prompt queued behind a running turn,
// _session/steering, and an edit through fs/write_text_file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { world, startAgent, answerText, ofKind, Validator } from './lib/acp.mjs';

const words = (n, w = 'word') => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

test('session/cancel mid-stream answers cancelled at once', async () => {
  const w = await world([{ text: words(400), chunkDelayMs: 20 }]);
  const a = await startAgent(w);
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const p = a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk' }] });
    await a.until((us) => answerText(us).length > 0);
    await a.ctx.notify('session/cancel', { sessionId });
    const r = await p;
    assert.equal(r.stopReason, 'cancelled');
    assert.ok(answerText(a.updates).length < words(400).length, 'the stream stopped early');
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('a prompt during a turn is queued, not a cancel; each answer comes when its own turn ends', async () => {
  const w = await world([
    { text: 'first answer ' + words(30), chunkDelayMs: 15 },
    { match: 'second question', text: 'second answer' },
  ]);
  const a = await startAgent(w);
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const order = [];
    const p1 = a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first question' }] }).then((r) => { order.push(['1', answerText(a.updates)]); return r; });
    await a.until((us) => answerText(us).length > 0);
    const p2 = a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'second question' }] }).then((r) => { order.push(['2', answerText(a.updates)]); return r; });
    const [r1, r2] = await Promise.all([p1, p2]);
    assert.equal(r1.stopReason, 'end_turn');
    assert.equal(r2.stopReason, 'end_turn');
    assert.deepEqual(order.map((o) => o[0]), ['1', '2']);
    assert.ok(!order[0][1].includes('second answer'), 'the first answer came before the second turn streamed');
    assert.ok(order[1][1].endsWith('second answer'));
    const reqs = await w.llm.requests();
    assert.equal(reqs.length, 2);
    assert.ok(JSON.stringify(reqs[1]).includes('first answer'), 'the second turn saw the whole first one');
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('_session/steering injects into a running turn and starts one when idle', async () => {
  const w = await world([
    { toolCalls: [{ id: 's1', name: 'bash', arguments: { command: 'sleep 0.4; echo slept' } }] },
    { match: 'use tabs', text: 'steered: tabs it is' },
    { match: 'idle steer', text: 'a new turn' },
  ]);
  const a = await startAgent(w, { args: ['--yolo'] });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const p = a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'work' }] });
    await a.until((us) => ofKind(us, 'tool_call').length > 0);
    const r = await a.ctx.request('_session/steering', { sessionId, prompt: [{ type: 'text', text: 'use tabs' }] });
    assert.equal(r.outcome, 'injected');
    assert.equal((await p).stopReason, 'end_turn');
    assert.match(answerText(a.updates), /steered: tabs it is/);
    const idle = await a.ctx.request('_session/steering', { sessionId, prompt: [{ type: 'text', text: 'idle steer' }] });
    assert.equal(idle.outcome, 'startedNewTurn');
    await a.until((us) => answerText(us).includes('a new turn'));
    assert.equal((await a.ctx.request('_session/steering', { sessionId, prompt: [] })).outcome, 'promptRequired');
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('an edit goes through fs/write_text_file (and reads through fs/read_text_file) when the client declares them', async () => {
  const w = await world([
    { toolCalls: [{ id: 'e1', name: 'edit', arguments: { path: 'app.js', edits: [{ oldText: 'const x = 1;', newText: 'const x = 2;' }] } }] },
    { match: 'e1', text: 'edited' },
  ]);
  const file = w.write('app.js', 'disk version\n');
  const writes = [];
  const reads = [];
  const buffer = 'line one\nconst x = 1;\nline three\n'; // unsaved editor buffer
  const a = await startAgent(w, {
    fs: true,
    handlers: {
      'fs/read_text_file': ({ params }) => { reads.push(params.path); return { content: buffer }; },
      'fs/write_text_file': ({ params }) => { writes.push(params); return {}; },
      'session/request_permission': ({ params }) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } }),
    },
  });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'bump x' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.ok(reads.includes(file), 'read the buffer through the client');
    assert.equal(writes.length, 1);
    assert.equal(writes[0].path, file);
    assert.equal(writes[0].content, 'line one\nconst x = 2;\nline three\n');
    assert.equal(readFileSync(file, 'utf8'), 'disk version\n', 'the disk was not written behind the editor');
    const call = ofKind(a.updates, 'tool_call').find((u) => u.toolCallId === 'e1');
    assert.equal(call.kind, 'edit');
    const end = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'e1' && u.status === 'completed');
    const diff = end.content.find((c) => c.type === 'diff');
    assert.deepEqual(diff, { type: 'diff', path: file, oldText: buffer, newText: writes[0].content });
    assert.deepEqual(end.locations, [{ path: file, line: 2 }]);
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('the validator rejects what the schema rejects', () => {
  const v = new Validator();
  v.agent('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":"many"}}}');
  v.agent('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"no_such_update"}}}');
  v.agent('not json');
  assert.equal(v.failures.length, 3, v.failures.join('\n'));
  v.failures = [];
  v.agent('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2}}}');
  assert.deepEqual(v.failures, []);
});

test('stop reasons: length -> max_tokens, content_filter -> refusal', async () => {
  const w = await world([
    { match: 'long one', text: 'cut off here', finishReason: 'length' },
    { match: 'forbidden', text: 'no', finishReason: 'content_filter' },
  ]);
  const a = await startAgent(w);
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const r1 = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'long one' }] });
    assert.equal(r1.stopReason, 'max_tokens');
    const r2 = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'forbidden' }] });
    assert.equal(r2.stopReason, 'refusal');
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('context files: fs/read_text_file only for the workspace AGENTS.md, never for a missing file or a path outside', async () => {
  const w = await world([{ text: 'one' }, { text: 'two' }]);
  const inside = w.write('AGENTS.md', 'saved project rules\n');
  mkdirSync(join(w.home, '.pi', 'agent'), { recursive: true });
  writeFileSync(join(w.home, '.pi', 'agent', 'AGENTS.md'), 'global rules from home\n');
  const reads = [];
  const a = await startAgent(w, {
    fs: true,
    handlers: {
      'fs/read_text_file': ({ params }) => {
        reads.push(params.path);
        if (params.path === inside) return { content: 'UNSAVED project rules\n' };
        throw new Error('Resource not found');
      },
      'fs/write_text_file': () => ({}),
    },
  });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    for (const text of ['first', 'second']) {
      const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      assert.equal(r.stopReason, 'end_turn');
    }
    assert.ok(reads.length > 0, 'the workspace AGENTS.md was read through the client');
    assert.deepEqual([...new Set(reads)], [inside], `reads: ${reads.join(', ')}`);
    const bodies = await w.llm.requests();
    const last = JSON.stringify(bodies[bodies.length - 1]);
    assert.ok(last.includes('UNSAVED project rules'), 'the unsaved buffer reached the model');
    assert.ok(last.includes('global rules from home'), 'the agent dir AGENTS.md reached the model');
  } finally {
    await a.close();
    await w.close();
  }
});
