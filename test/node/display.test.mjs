// The client-side display reducer on its own: the four ops, bad paths, and
// resync on a version gap. The real server's frames are folded by the same
// code in prompt.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyOp, applyOps, decodeOp, DisplayMirror } from './lib/display.mjs';

const base = () => ({ items: [{ id: 'a', kind: 'assistant', text: 'He' }], queue: { steering: [] }, retry: null });

test('applyOp: set, append, push, delete', () => {
  const cases = [
    { name: 'set object key', op: { op: 'set', path: ['status'], value: 'running' }, check: (d) => d.status === 'running' },
    { name: 'set array index', op: { op: 'set', path: ['items', 0], value: { id: 'b' } }, check: (d) => d.items[0].id === 'b' },
    { name: 'set nested key', op: { op: 'set', path: ['items', 0, 'streaming'], value: true }, check: (d) => d.items[0].streaming === true },
    { name: 'set null value', op: { op: 'set', path: ['retry'], value: null }, check: (d) => d.retry === null && 'retry' in d },
    { name: 'append text', op: { op: 'append', path: ['items', 0, 'text'], value: 'llo' }, check: (d) => d.items[0].text === 'Hello' },
    { name: 'push item', op: { op: 'push', path: ['items'], value: { id: 'c' } }, check: (d) => d.items.length === 2 && d.items[1].id === 'c' },
    { name: 'push nested', op: { op: 'push', path: ['queue', 'steering'], value: 'go' }, check: (d) => d.queue.steering[0] === 'go' },
    { name: 'delete key', op: { op: 'delete', path: ['retry'] }, check: (d) => !('retry' in d) },
    { name: 'set root', op: { op: 'set', path: [], value: { x: 1 } }, check: (d) => d.x === 1 && !d.items },
    { name: 'merge at root', op: { op: 'merge', path: [], value: { status: 'idle', retry: 1 } }, check: (d) => d.status === 'idle' && d.retry === 1 && d.items.length === 1 },
    { name: 'merge nested', op: { op: 'merge', path: ['items', 0], value: { streaming: false } }, check: (d) => d.items[0].streaming === false && d.items[0].text === 'He' },
  ];
  for (const c of cases) {
    const out = applyOp(base(), c.op);
    assert.ok(c.check(out), `${c.name}: ${JSON.stringify(out)}`);
  }
});

test('applyOp: paths that do not fit are errors', () => {
  const cases = [
    { name: 'index out of range', op: { op: 'set', path: ['items', 5, 'text'], value: 'x' }, re: /out of range/ },
    { name: 'missing key on the way', op: { op: 'set', path: ['nope', 'x'], value: 1 }, re: /no key/ },
    { name: 'append to non-string', op: { op: 'append', path: ['items'], value: 'x' }, re: /append needs a string/ },
    { name: 'append non-string value', op: { op: 'append', path: ['items', 0, 'text'], value: 3 }, re: /append needs a string/ },
    { name: 'push to non-array', op: { op: 'push', path: ['queue'], value: 1 }, re: /push needs an array/ },
    { name: 'delete in array', op: { op: 'delete', path: ['items', 0] }, re: /delete needs an object key/ },
    { name: 'numeric key on object', op: { op: 'set', path: [0], value: 1 }, re: /not a string/ },
    { name: 'unknown op', op: { op: 'move', path: ['status'], value: 1 }, re: /unknown op/ },
    { name: 'append at root', op: { op: 'append', path: [], value: 'x' }, re: /empty path/ },
    { name: 'merge into a string', op: { op: 'merge', path: ['items', 0, 'text'], value: { x: 1 } }, re: /merge needs an object at the path/ },
    { name: 'merge an array', op: { op: 'merge', path: ['queue'], value: [1] }, re: /merge needs an object value/ },
  ];
  for (const c of cases) {
    assert.throws(() => applyOp(base(), c.op), c.re, c.name);
  }
  assert.throws(() => applyOps(base(), [{ op: 'set', path: ['a'], value: 1 }, { op: 'push', path: ['a'], value: 1 }]), /op 1 \(push \["a"\]\)/);
});

test('decodeOp: the wire form of ops', () => {
  assert.deepEqual(decodeOp(['s', ['status'], 'running']), { op: 'set', path: ['status'], value: 'running' });
  assert.deepEqual(decodeOp(['a', ['items', 0, 'text'], 'lo']), { op: 'append', path: ['items', 0, 'text'], value: 'lo' });
  assert.deepEqual(decodeOp(['p', ['items'], { id: 'c' }]), { op: 'push', path: ['items'], value: { id: 'c' } });
  assert.deepEqual(decodeOp(['d', ['retry']]), { op: 'delete', path: ['retry'] });
  assert.deepEqual(decodeOp(['m', [], { phase: 'idle' }]), { op: 'merge', path: [], value: { phase: 'idle' } });
  assert.deepEqual(decodeOp(['s', ['retry'], null]), { op: 'set', path: ['retry'], value: null });
  for (const [wire, re] of [
    [{ op: 'set', path: ['a'], value: 1 }, /an op is an array/],
    [['s'], /an op is an array/],
    [['x', ['a'], 1], /unknown op code "x"/],
    [['s', ['a']], /needs 3 elements/],
    [['d', ['a'], 1], /needs 2 elements/],
    [['a', 'items.0.text', 'x'], /path is not an array/],
  ]) {
    assert.throws(() => decodeOp(wire), re, JSON.stringify(wire));
  }
});

test('DisplayMirror folds frames in order and resyncs on a gap', async () => {
  let snapshots = 0;
  const server = { version: 4, state: { items: [{ kind: 'assistant', text: 'Hello world' }], status: 'running' } };
  const m = new DisplayMirror(async () => {
    snapshots++;
    return structuredClone(server);
  });
  m.onFrame({ version: 1, state: { items: [], status: 'idle' } });
  m.onFrame({ version: 2, ops: [['p', ['items'], { kind: 'assistant', text: 'Hel' }]] });
  m.onFrame({ version: 3, ops: [['a', ['items', 0, 'text'], 'lo']] });
  assert.equal(m.version, 3);
  assert.equal(m.state.items[0].text, 'Hello');
  assert.equal(snapshots, 0);

  // Version 4 is lost; 5 arrives: a gap. The snapshot (version 4) replaces
  // the copy and the stashed frame 5 applies on top of it.
  m.onFrame({ version: 5, ops: [['a', ['items', 0, 'text'], '!']] });
  assert.equal(m.gaps, 1);
  await m.resyncing;
  assert.equal(snapshots, 1);
  assert.equal(m.version, 5);
  assert.equal(m.state.items[0].text, 'Hello world!');
  assert.equal(m.state.status, 'running');

  // An old frame after the snapshot is ignored; a full-state frame replaces.
  m.onFrame({ version: 3, ops: [['s', ['status'], 'bogus']] });
  assert.equal(m.state.status, 'running');
  m.onFrame({ version: 9, state: { items: [], status: 'idle' } });
  assert.equal(m.version, 9);
  assert.equal(m.state.status, 'idle');
  assert.equal(m.error, null);
});

test('DisplayMirror resyncs after a frame that does not apply', async () => {
  const m = new DisplayMirror(async () => ({ version: 2, state: { items: ['fixed'] } }));
  m.onFrame({ version: 1, state: { items: [] } });
  m.onFrame({ version: 2, ops: [['a', ['items', 3], 'x']] });
  assert.match(m.error.message, /version 2: op 0/);
  await m.resyncing;
  assert.deepEqual(m.state, { items: ['fixed'] });
  assert.equal(m.version, 2);
});

test('DisplayMirror.waitFor resolves on change and times out otherwise', async () => {
  const m = new DisplayMirror(async () => ({ version: 0, state: {} }));
  m.onFrame({ version: 1, state: { status: 'running' } });
  const idle = m.waitFor('idle', (s) => s.status === 'idle', 2000);
  m.onFrame({ version: 2, ops: [['s', ['status'], 'idle']] });
  assert.equal((await idle).status, 'idle');
  await assert.rejects(m.waitFor('never', () => false, 50), /timed out waiting for never/);
});
