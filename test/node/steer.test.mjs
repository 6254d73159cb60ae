// Steering and follow-ups during a run, through agent/prompt's
// streamingBehavior, seen in the display state and in what the model gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newWorld, itemsOf } from './lib/pilsp.mjs';

const words = (n, w) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
const LONG = words(150, 'token');

test('agent/prompt with streamingBehavior steer and followUp during a streaming answer', async (t) => {
  const world = await newWorld([
    { match: 'START-RUN', text: LONG, chunkSize: 8, chunkDelayMs: 10 },
    { match: 'STEERED-NOTE', text: 'Took the steer.' },
    { match: 'FOLLOWUP-NOTE', text: 'Did the follow-up.' },
  ]);
  t.after(() => world.close());
  const s = await world.start();
  await s.initialize();

  assert.deepEqual(await s.request('agent/prompt', { text: 'START-RUN: write a lot' }), { accepted: true, delivery: 'run' });
  await s.display.waitFor('the answer streaming', (d) => {
    const a = itemsOf(d, 'assistant').at(-1);
    return a?.streaming && a.text.length > 0;
  });

  const steer = await s.request('agent/prompt', { text: 'STEERED-NOTE: use short names', streamingBehavior: 'steer' });
  assert.deepEqual(steer, { accepted: true, delivery: 'steer' });
  const follow = await s.request('agent/prompt', { text: 'FOLLOWUP-NOTE: then summarize', streamingBehavior: 'followUp' });
  assert.deepEqual(follow, { accepted: true, delivery: 'followUp' });

  // Both wait in the queue while the first answer is still streaming.
  const queued = await s.display.waitFor('the queue', (d) => d.queue.steering.length === 1 && d.queue.followUp.length === 1);
  assert.match(queued.queue.steering[0], /STEERED-NOTE/);
  assert.match(queued.queue.followUp[0], /FOLLOWUP-NOTE/);
  assert.ok(itemsOf(queued, 'assistant').at(-1).streaming, 'the first answer ended before the queue showed');

  await s.waitIdle();
  const st = await s.display.waitFor('idle with four turns', (d) => d.status === 'idle' && itemsOf(d, 'assistant').length === 3);
  assert.equal(s.display.error, null);
  const convo = st.items.filter((it) => it.kind === 'user' || it.kind === 'assistant').map((it) => [it.kind, it.text]);
  assert.deepEqual(convo, [
    ['user', 'START-RUN: write a lot'],
    ['assistant', LONG],
    ['user', 'STEERED-NOTE: use short names'],
    ['assistant', 'Took the steer.'],
    ['user', 'FOLLOWUP-NOTE: then summarize'],
    ['assistant', 'Did the follow-up.'],
  ]);
  assert.deepEqual(st.queue, { steering: [], followUp: [] });

  // The steer reached the model after the whole first answer, before the follow-up.
  const reqs = await world.fake.requests();
  assert.equal(reqs.length, 3);
  const tail = (req, n) => req.messages.slice(-n).map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]);
  const [a2, u2] = tail(reqs[1], 2);
  assert.equal(a2[0], 'assistant');
  assert.ok(a2[1].includes('token149'), 'the steer cut the first answer short');
  assert.equal(u2[0], 'user');
  assert.match(u2[1], /STEERED-NOTE/);
  assert.ok(!JSON.stringify(reqs[1]).includes('FOLLOWUP-NOTE'), 'the follow-up was delivered with the steer');
  assert.match(tail(reqs[2], 1)[0][1], /FOLLOWUP-NOTE/);

  const state = await s.request('session/state', {});
  assert.equal(state.messageCount, 6);
  assert.equal((await s.shutdown()).code, 0);
});
