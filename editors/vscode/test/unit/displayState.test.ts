import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyOp, applyOps, contextPercent, decodeOp, DisplayModel, memoryText, OpError, queuedText, touches } from '../../src/displayState';
import type { DisplayOp, DisplayState } from '../../src/protocol';

function base(): DisplayState {
  return {
    status: 'running',
    items: [
      { id: 'a1', kind: 'user', text: 'fix the test' },
      { id: 'a2', kind: 'assistant', text: 'Look', streaming: true },
    ],
    tasks: [],
    queue: { steering: [], followUp: [] },
    pending: { approval: null, question: null, plan: null },
    tokens: { contextTokens: 160, contextWindow: 128000 },
    retry: null,
  };
}

describe('applyOp', () => {
  const cases: Array<{ name: string; op: DisplayOp; check: (s: DisplayState) => void }> = [
    { name: 'append to a string', op: { op: 'append', path: ['items', 1, 'text'], value: 'ing' }, check: (s) => assert.equal(s.items![1].text, 'Looking') },
    { name: 'set an object key', op: { op: 'set', path: ['status'], value: 'idle' }, check: (s) => assert.equal(s.status, 'idle') },
    { name: 'set a nested key', op: { op: 'set', path: ['items', 1, 'streaming'], value: false }, check: (s) => assert.equal(s.items![1].streaming, false) },
    { name: 'set an array element', op: { op: 'set', path: ['items', 0], value: { id: 'z', kind: 'info', text: 'x' } }, check: (s) => assert.equal(s.items![0].id, 'z') },
    { name: 'set null', op: { op: 'set', path: ['retry'], value: { attempt: 2 } }, check: (s) => assert.deepEqual(s.retry, { attempt: 2 }) },
    {
      name: 'push to an array',
      op: { op: 'push', path: ['items'], value: { id: 'call_1', kind: 'tool', toolName: 'edit', status: 'running' } },
      check: (s) => assert.equal(s.items![2].toolName, 'edit'),
    },
    { name: 'push to a nested array', op: { op: 'push', path: ['queue', 'steering'], value: 'use the other API' }, check: (s) => assert.deepEqual(s.queue!.steering, ['use the other API']) },
    { name: 'delete an object key', op: { op: 'delete', path: ['items', 1, 'streaming'] }, check: (s) => assert.equal('streaming' in s.items![1], false) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = applyOp(base(), c.op);
      c.check(s);
    });
  }

  it('set with an empty path replaces the root', () => {
    const s = applyOp(base(), { op: 'set', path: [], value: { status: 'idle' } });
    assert.deepEqual(s, { status: 'idle' });
  });

  const bad: Array<{ name: string; op: DisplayOp }> = [
    { name: 'append to a number', op: { op: 'append', path: ['tokens', 'contextTokens'], value: 'x' } },
    { name: 'append a non-string', op: { op: 'append', path: ['items', 1, 'text'], value: 3 } },
    { name: 'path through a missing item', op: { op: 'append', path: ['items', 9, 'text'], value: 'x' } },
    { name: 'string key into an array', op: { op: 'set', path: ['items', 'x'], value: 1 } },
    { name: 'array index out of range', op: { op: 'set', path: ['items', 5], value: {} } },
    { name: 'push to a string', op: { op: 'push', path: ['status'], value: 'x' } },
    { name: 'unknown op', op: { op: 'frobnicate' as 'set', path: ['status'], value: 1 } },
    { name: 'path through a string', op: { op: 'set', path: ['status', 'x'], value: 1 } },
    // Go's display.Patch is the specification (testdata/display-ops): nothing is created.
    { name: 'append to a missing key', op: { op: 'append', path: ['items', 1, 'thinking'], value: 'hm' } },
    { name: 'set one past the end', op: { op: 'set', path: ['items', 2], value: { id: 'n', kind: 'info' } } },
    { name: 'push onto a missing array', op: { op: 'push', path: ['modifiedFiles'], value: 'a.go' } },
    { name: 'delete an array element', op: { op: 'delete', path: ['items', 0] } },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => assert.throws(() => applyOp(base(), c.op), OpError));
  }

  it('leaves the ops untouched (they are forwarded after being applied)', () => {
    const ops: DisplayOp[] = [
      { op: 'push', path: ['items'], value: { id: 'a3', kind: 'assistant', text: 'Hel' } },
      { op: 'append', path: ['items', 2, 'text'], value: 'lo' },
      { op: 'set', path: ['tasks'], value: [{ id: 't', content: 'x', status: 'pending' }] },
      { op: 'set', path: ['tasks', 0, 'status'], value: 'completed' },
    ];
    const before = structuredClone(ops);
    const s = applyOps(base(), ops);
    assert.deepEqual(ops, before);
    assert.equal(s.items![2].text, 'Hello');
    assert.equal(s.tasks![0].status, 'completed');
  });

  it('applies ops in order', () => {
    const s = applyOps(base(), [
      { op: 'push', path: ['items'], value: { id: 'a3', kind: 'assistant', text: '' } },
      { op: 'append', path: ['items', 2, 'text'], value: 'Hel' },
      { op: 'append', path: ['items', 2, 'text'], value: 'lo' },
    ]);
    assert.equal(s.items![2].text, 'Hello');
  });
});

describe('decodeOp', () => {
  it('decodes the wire form of each op', () => {
    assert.deepEqual(decodeOp(['s', ['status'], 'idle']), { op: 'set', path: ['status'], value: 'idle' });
    assert.deepEqual(decodeOp(['a', ['items', 1, 'text'], 'x']), { op: 'append', path: ['items', 1, 'text'], value: 'x' });
    assert.deepEqual(decodeOp(['p', ['items'], { id: 'a' }]), { op: 'push', path: ['items'], value: { id: 'a' } });
    assert.deepEqual(decodeOp(['d', ['retry']]), { op: 'delete', path: ['retry'] });
    assert.deepEqual(decodeOp(['m', [], { phase: 'idle' }]), { op: 'merge', path: [], value: { phase: 'idle' } });
  });
  it('merges keys into an object at the path, or at the root', () => {
    let s = applyOp(base(), { op: 'merge', path: [], value: { status: 'idle', phase: 'idle' } });
    s = applyOp(s, { op: 'merge', path: ['items', 1], value: { streaming: false } });
    assert.equal(s.status, 'idle');
    assert.equal(s.phase, 'idle');
    assert.equal(s.items![1].streaming, false);
    assert.equal(s.items![1].text, 'Look');
    assert.throws(() => applyOp(base(), { op: 'merge', path: ['items', 1, 'text'], value: { x: 1 } }), OpError);
    assert.throws(() => applyOp(base(), { op: 'merge', path: ['items'], value: { x: 1 } }), OpError);
    assert.throws(() => applyOp(base(), { op: 'merge', path: [], value: [1] }), OpError);
    assert.throws(() => applyOp(base(), { op: 'merge', path: ['nope', 'x'], value: { x: 1 } }), OpError);
  });
  it('touches names the top-level keys an op may change', () => {
    assert.equal(touches({ op: 'set', path: ['tasks', 0, 'status'], value: 'done' }, 'tasks'), true);
    assert.equal(touches({ op: 'merge', path: [], value: { tasks: [], phase: 'idle' } }, 'tasks'), true);
    assert.equal(touches({ op: 'merge', path: [], value: { phase: 'idle' } }, 'tasks'), false);
    assert.equal(touches({ op: 'merge', path: ['tokens'], value: { tasks: 1 } }, 'tasks'), false);
  });
  const bad: { name: string; wire: unknown }[] = [
    { name: 'an object op', wire: { op: 'set', path: ['status'], value: 'idle' } },
    { name: 'an unknown code', wire: ['x', ['status'], 1] },
    { name: 'a set without a value', wire: ['s', ['status']] },
    { name: 'a delete with a value', wire: ['d', ['retry'], null] },
    { name: 'a string path', wire: ['a', 'items.1.text', 'x'] },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => assert.throws(() => decodeOp(c.wire as unknown[]), OpError));
  }
  it('a frame with a malformed op is a gap, not a crash', () => {
    const m = new DisplayModel();
    m.reset(1, base());
    assert.equal(m.apply({ version: 2, ops: [{ op: 'set' } as unknown as unknown[]] }).kind, 'gap');
  });
});

describe('DisplayModel', () => {
  it('resets on a full state and applies the next versions', () => {
    const m = new DisplayModel();
    assert.deepEqual(m.apply({ version: 4, ops: [] }), { kind: 'gap', reason: 'not synced' });
    assert.equal(m.apply({ version: 1, state: base() }).kind, 'reset');
    const r = m.apply({ version: 2, ops: [['a', ['items', 1, 'text'], 'ing']] });
    assert.equal(r.kind, 'applied');
    assert.equal(m.version, 2);
    assert.equal(m.state.items![1].text, 'Looking');
  });

  it('ignores a frame it already has', () => {
    const m = new DisplayModel();
    m.reset(5, base());
    assert.equal(m.apply({ version: 5, ops: [['s', ['status'], 'idle']] }).kind, 'stale');
    assert.equal(m.state.status, 'running');
    assert.equal(m.synced, true);
  });

  it('reports a version gap and stays out of sync until a snapshot', () => {
    const m = new DisplayModel();
    m.reset(5, base());
    const r = m.apply({ version: 7, ops: [['s', ['status'], 'idle']] });
    assert.equal(r.kind, 'gap');
    assert.equal(m.synced, false);
    assert.equal(m.state.status, 'running', 'a frame after a gap is not applied');
    assert.equal(m.apply({ version: 8, ops: [] }).kind, 'gap');
    m.reset(8, { status: 'idle' });
    assert.equal(m.apply({ version: 9, ops: [['s', ['model'], 'fake/m1']] }).kind, 'applied');
  });

  it('treats an op that does not fit as a gap', () => {
    const m = new DisplayModel();
    m.reset(1, base());
    const r = m.apply({ version: 2, ops: [['a', ['items', 42, 'text'], 'x']] });
    assert.equal(r.kind, 'gap');
    assert.equal(m.synced, false);
    assert.equal(m.version, 1);
  });
});

describe('memory status', () => {
  it('shows observation tokens and what runs, only in observational mode', () => {
    const base: DisplayState = { model: 'fake/m1', mode: { id: 'build', name: 'Build' } };
    assert.equal(memoryText({ ...base, memory: { mode: 'observational', observationTokens: 2480, reflecting: true } }), 'mem 2.5k reflecting');
    assert.equal(memoryText({ ...base, memory: { mode: 'compaction' } }), '');
    assert.equal(memoryText(base), '');
  });
});

describe('helpers', () => {
  it('contextPercent', () => {
    assert.equal(contextPercent({ tokens: { contextTokens: 64000, contextWindow: 128000 } }), 50);
    assert.equal(contextPercent({ tokens: { contextTokens: 1, contextWindow: 0 } }), undefined);
    assert.equal(contextPercent({}), undefined);
    assert.equal(contextPercent({ tokens: { contextTokens: 200, contextWindow: 100 } }), 100);
  });
  it('queuedText', () => {
    assert.equal(queuedText('a'), 'a');
    assert.equal(queuedText({ text: 'b' }), 'b');
    assert.equal(queuedText(3), '3');
  });
});
