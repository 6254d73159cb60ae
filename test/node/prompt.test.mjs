// The prompt flow of an editor over vscode-jsonrpc against the real pi-lsp
// binary and fakellm: initialize, session/new, agent/prompt with a read tool
// call and a streamed answer, the display state rebuilt from display/state
// ops (with a forced resync), session/state, shutdown/exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newWorld, itemsOf, MODEL } from './lib/pilsp.mjs';

const ANSWER = 'The file greets you: hello from disk. It has one line and nothing else in it, so there is nothing to fix.';

test('prompt with a read tool call and a streamed answer, rebuilt from display/state ops', async (t) => {
  const world = await newWorld([
    { text: 'Reading it.', toolCalls: [{ id: 'call_1', name: 'read', arguments: { path: 'hello.txt' } }] },
    // ≈0.9 s of streaming, longer than the 500 ms batching cap: the text that
    // follows the frame carrying the new item must come as appends.
    { match: 'hello from disk', text: ANSWER, chunkSize: 3, chunkDelayMs: 25 },
  ], { files: { 'hello.txt': 'hello from disk\n' } });
  t.after(() => world.close());
  const s = await world.start();

  const init = await s.initialize();
  assert.equal(init.serverInfo.name, 'pi-lsp');
  assert.ok(init.capabilities.methods.includes('agent/prompt'), JSON.stringify(init.capabilities));

  const ns = await s.request('session/new', {});
  assert.match(ns.sessionId, /\S/);
  assert.ok(ns.path.startsWith(world.sessions), `session path ${ns.path} not under ${world.sessions}`);

  // Lose the first frame of the run on purpose (the urgent agent-start
  // frame; the run's end always follows in a later frame): the mirror must
  // see the gap and resync through display/snapshot, like an editor whose
  // view was hidden.
  await s.display.waitFor('first frame', () => true);
  s.display.dropNext = 1;

  const acc = await s.request('agent/prompt', { text: 'what is in hello.txt?' });
  assert.deepEqual(acc, { accepted: true, delivery: 'run' });

  const st = await s.display.waitFor('the streamed answer, idle', (d) => {
    const a = itemsOf(d, 'assistant');
    return d.status === 'idle' && a.length > 0 && a.at(-1).text === ANSWER;
  });
  assert.equal(s.display.error, null);
  assert.ok(s.display.gaps >= 1 && s.display.resyncs >= 1, `gaps ${s.display.gaps} resyncs ${s.display.resyncs}`);
  assert.ok(s.display.opCounts.append > 0, `streamed text must come as append ops: ${JSON.stringify(s.display.opCounts)}`);

  const kinds = st.items.map((it) => it.kind);
  assert.deepEqual(kinds.filter((k) => k !== 'info'), ['user', 'assistant', 'tool', 'assistant']);
  assert.equal(itemsOf(st, 'user')[0].text, 'what is in hello.txt?');
  const [tool] = itemsOf(st, 'tool');
  assert.equal(tool.toolName, 'read');
  assert.equal(tool.status, 'done');
  assert.match(tool.output, /hello from disk/);
  assert.equal(itemsOf(st, 'assistant')[0].text, 'Reading it.');

  // The rebuilt copy equals the server's snapshot.
  const snap = await s.request('display/snapshot', {});
  if (snap.version === s.display.version) assert.deepEqual(s.display.state, snap.state);
  else assert.ok(snap.version > s.display.version, 'snapshot older than the frames received');

  const state = await s.waitIdle();
  assert.equal(state.phase, 'idle');
  assert.equal(state.isRunning, false);
  assert.equal(state.sessionId, ns.sessionId);
  assert.equal(state.path, ns.path);
  assert.equal(state.model, MODEL);
  assert.equal(state.messageCount, 4);
  assert.ok(state.tokens.total > 0, JSON.stringify(state.tokens));

  // The model saw the file through the tool result.
  const reqs = await world.fake.requests();
  assert.equal(reqs.length, 2);
  const toolMsg = reqs[1].messages.find((m) => m.role === 'tool');
  assert.equal(toolMsg.tool_call_id, 'call_1');
  assert.match(JSON.stringify(toolMsg.content), /hello from disk/);

  const bye = await s.shutdown();
  assert.equal(bye.result, null);
  assert.equal(bye.code, 0, `exit code; stderr:\n${s.stderr}`);
  assert.equal(s.connError, undefined);
});

test('requests before initialize and unknown methods get JSON-RPC errors; the server keeps serving', async (t) => {
  const world = await newWorld([]);
  t.after(() => world.close());
  const s = await world.start();
  await assert.rejects(s.request('session/state', {}), (err) => err.code === -32002);
  await s.initialize();
  await assert.rejects(s.request('no/such', {}), (err) => err.code === -32601);
  await assert.rejects(s.request('session/open', { path: 42 }), (err) => err.code === -32602);
  const st = await s.request('session/state', {});
  assert.equal(st.phase, 'idle');
  assert.equal((await s.shutdown()).code, 0);
});
