// The validator of lib/schema.mjs against protocol/protocol.schema.json: it
// accepts what the server sends and rejects drift (a member the server does
// not send, a wrong type, an op code that does not exist).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validate } from './lib/schema.mjs';

test('a frame of ops fits; a bad op code does not', () => {
  assert.deepEqual(validate('DisplayFrame', { stream: 'a1b2c3d4', version: 2, ops: [['a', ['items', 0, 'text'], 'x'], ['d', ['retry']]] }), []);
  assert.notDeepEqual(validate('DisplayFrame', { stream: 'a1b2c3d4', version: 2, ops: [['x', ['status'], 1]] }), []);
  assert.notDeepEqual(validate('DisplayFrame', { version: '2' }), []);
});

test('an item fits its kind; retry.maxAttempts (never sent) does not', () => {
  assert.deepEqual(validate('Item', { id: 'a1', kind: 'user', text: 'hi', attachments: [] }), []);
  assert.deepEqual(validate('Item', { id: 'a2', kind: 'bash', command: 'ls', status: 'done', output: '', exitCode: 0 }), []);
  assert.notDeepEqual(validate('Item', { id: 'a1', kind: 'user', text: 'hi' }), []);
  assert.deepEqual(validate('Retry', { attempt: 1, delayMs: 100, error: 'e', itemId: 'i1' }), []);
  assert.notDeepEqual(validate('Retry', { attempt: 1, delayMs: 100, error: 'e', itemId: 'i1', maxAttempts: 3 }), []);
  assert.notDeepEqual(validate('Retry', { attempt: 1, delayMs: 100, error: 'e' }), []); // the turn is required
  assert.deepEqual(validate('ErrorBanner', { text: 'down', itemId: 'i1' }), []);
});

test('a harness event with a message fits', () => {
  const ev = { type: 'message_end', seq: 3, message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 } };
  assert.deepEqual(validate('EventParams', { event: ev }), []);
  assert.notDeepEqual(validate('EventParams', { event: { ...ev, type: 'nope' } }), []);
});
