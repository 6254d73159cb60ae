// Bad input: a malformed line gets a JSON-RPC parse error and the agent
// keeps serving; unknown methods get -32601; bad params -32602; nothing but
// protocol lines reach stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { world, startAgent } from './lib/acp.mjs';

test('malformed lines, unknown methods and bad params get errors; the agent keeps serving', async () => {
  const w = await world([{ text: 'still here' }]);
  const a = await startAgent(w);
  try {
    const before = a.validator.lines.length;
    a.raw('{"jsonrpc":"2.0","id":900,"method":"session/new",'); // torn
    a.raw('garbage that is not json');
    a.raw('[{"jsonrpc":"2.0","id":901,"method":"initialize"}]'); // a batch
    a.raw('{"jsonrpc":"2.0"}'); // neither method nor id
    a.raw('{"jsonrpc":"2.0","id":902,"method":"no/such/method","params":{}}');
    a.raw('{"jsonrpc":"2.0","id":903,"method":"session/new","params":{"cwd":42}}');
    a.raw('{"jsonrpc":"2.0","id":904,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}');
    a.raw('{"jsonrpc":"2.0","id":905,"method":"_session/steering","params":{"sessionId":"missing","prompt":[]}}');
    const wantErrors = 8;
    const deadline = Date.now() + 5000;
    let errs = [];
    while (Date.now() < deadline) {
      errs = a.validator.lines.slice(before).map((l) => JSON.parse(l)).filter((m) => m.error);
      if (errs.length >= wantErrors) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const byId = Object.fromEntries(errs.filter((e) => e.id !== null).map((e) => [e.id, e.error.code]));
    const nullCodes = errs.filter((e) => e.id === null).map((e) => e.error.code).sort();
    assert.deepEqual(nullCodes, [-32700, -32700, -32600, -32600].sort());
    assert.equal(byId[902], -32601);
    assert.equal(byId[903], -32602);
    assert.equal(byId[904], -32602);
    assert.equal(byId[905], -32002);

    // Still serving: a whole turn works.
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(r.stopReason, 'end_turn');
    await assert.rejects(a.ctx.request('session/prompt', { sessionId, prompt: [] }), (e) => e.code === -32602);
    // Every stdout line was a protocol line the schema accepts.
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('a model failure answers the prompt with an error and the session goes on', async () => {
  const w = await world([{ status: 400, error: 'bad request from the provider' }, { text: 'recovered' }]);
  const a = await startAgent(w);
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    await assert.rejects(a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] }), (e) => /bad request from the provider/.test(e.message));
    const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});
