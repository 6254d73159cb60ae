// Applying `display/state` frames (docs/protocol.md, "Display"). Used by both the extension host
// (for the trees and the status bar) and the webview (for the chat); it has no dependencies.
import type { DisplayFrame, DisplayOp, DisplaySnapshot, DisplayState, PathElem, WireOp } from './protocol';

/** Thrown when an op does not fit the state it is applied to; the caller resyncs. */
export class OpError extends Error {}

type Container = Record<string, unknown> | unknown[];

function isContainer(v: unknown): v is Container {
  return typeof v === 'object' && v !== null;
}

/** The value a path element names in `c`; throws when it does not exist. */
function step(c: Container, key: PathElem, path: PathElem[]): unknown {
  if (Array.isArray(c)) {
    if (!Number.isInteger(key) || (key as number) < 0 || (key as number) >= c.length) {
      throw new OpError(`path ${JSON.stringify(path)}: array index ${JSON.stringify(key)} out of range (length ${c.length})`);
    }
    return c[key as number];
  }
  if (typeof key !== 'string') throw new OpError(`path ${JSON.stringify(path)}: object key ${JSON.stringify(key)} is not a string`);
  if (!Object.prototype.hasOwnProperty.call(c, key)) throw new OpError(`path ${JSON.stringify(path)}: no key ${JSON.stringify(key)}`);
  return (c as Record<string, unknown>)[key];
}

/** Walks the first `n` elements of the path; every one must exist (nothing is created on the way). */
function walk(root: unknown, path: PathElem[], n: number): unknown {
  let cur: unknown = root;
  for (let i = 0; i < n; i++) {
    if (!isContainer(cur)) throw new OpError(`path ${JSON.stringify(path)}: element ${i} is not an object or array`);
    cur = step(cur, path[i], path);
  }
  return cur;
}

/** A copy of an op's value, so the state never shares objects with the ops (which are forwarded). */
function own(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? structuredClone(v) : v;
}

/**
 * Applies one op to `state` in place and returns the (possibly new) root. The op is not modified
 * and the state keeps no reference into it. The rules are Go's `display.Patch` (the corpus in
 * testdata/display-ops checks both): a `set` with an empty path replaces the root; an object key
 * may be set (added) or deleted; an array element may be set, appended to or pushed onto but never
 * deleted, and its index must exist (arrays grow by `push` only); `append` needs a string there
 * and `push` an array (nothing is created); `merge` needs an object at its path. Throws OpError
 * when the op does not fit.
 */
export function applyOp(state: DisplayState, op: DisplayOp): DisplayState {
  const path = Array.isArray(op.path) ? op.path : [];
  if (op.op === 'merge') {
    const target = walk(state, path, path.length);
    if (!isContainer(target) || Array.isArray(target)) throw new OpError(`merge needs an object at ${JSON.stringify(path)}`);
    if (!isContainer(op.value) || Array.isArray(op.value)) throw new OpError('merge needs an object value');
    for (const [k, v] of Object.entries(op.value)) (target as Record<string, unknown>)[k] = own(v);
    return state;
  }
  if (path.length === 0) {
    if (op.op !== 'set') throw new OpError(`${String(op.op)} needs a path`);
    if (!isContainer(op.value)) throw new OpError('set on the root needs an object');
    return own(op.value) as DisplayState;
  }
  const parent = walk(state, path, path.length - 1);
  if (!isContainer(parent)) throw new OpError(`path ${JSON.stringify(path)}: parent is not an object or array`);
  const key = path[path.length - 1];
  const isArray = Array.isArray(parent);
  if (isArray) {
    step(parent, key, path); // the index must exist
  } else if (typeof key !== 'string') {
    throw new OpError(`path ${JSON.stringify(path)}: object key ${JSON.stringify(key)} is not a string`);
  }
  const c = parent as Record<string | number, unknown>;
  switch (op.op) {
    case 'set':
      c[key] = own(op.value);
      return state;
    case 'append': {
      const cur = c[key];
      if (typeof cur !== 'string' || typeof op.value !== 'string') {
        throw new OpError(`append needs a string at ${JSON.stringify(path)} and a string value`);
      }
      c[key] = cur + op.value;
      return state;
    }
    case 'push': {
      const cur = c[key];
      if (!Array.isArray(cur)) throw new OpError(`push needs an array at ${JSON.stringify(path)}`);
      cur.push(own(op.value));
      return state;
    }
    case 'delete':
      if (isArray) throw new OpError(`delete names an object key, not an array element (${JSON.stringify(path)})`);
      delete c[key];
      return state;
    default:
      throw new OpError(`unknown op ${JSON.stringify((op as { op?: unknown }).op)}`);
  }
}

const CODES: Record<string, DisplayOp['op']> = { s: 'set', a: 'append', p: 'push', d: 'delete', m: 'merge' };

/** Decodes an op from its wire form `[code, path, value]` (`[code, path]` for delete). */
export function decodeOp(wire: WireOp): DisplayOp {
  if (!Array.isArray(wire) || wire.length < 2) {
    throw new OpError(`an op is an array [code, path, value], got ${JSON.stringify(wire)}`);
  }
  const op = typeof wire[0] === 'string' ? CODES[wire[0]] : undefined;
  if (!op) throw new OpError(`unknown op code ${JSON.stringify(wire[0])}`);
  const want = op === 'delete' ? 2 : 3;
  if (wire.length !== want) throw new OpError(`op ${JSON.stringify(wire[0])} needs ${want} elements, got ${wire.length}`);
  if (!Array.isArray(wire[1])) throw new OpError(`op path is not an array: ${JSON.stringify(wire[1])}`);
  const path = wire[1] as PathElem[];
  return want === 3 ? { op, path, value: wire[2] } : { op, path };
}

/** Applies ops in order; returns the new root. */
export function applyOps(state: DisplayState, ops: DisplayOp[]): DisplayState {
  let s = state;
  for (const op of ops) s = applyOp(s, op);
  return s;
}

export type FrameResult =
  | { kind: 'reset' }
  | { kind: 'applied'; ops: DisplayOp[] }
  | { kind: 'stale' }
  | { kind: 'gap'; reason: string };

/**
 * DisplayModel holds one display state, the stream it came in and its version. The sync rules
 * are docs/protocol.md's "Display streams" (the corpus in testdata/display-sync checks them):
 * a frame of another stream discards what is held (a full state is taken as the truth, ops wait
 * for a snapshot); within a stream frames at or below the held version are stale, full states
 * too; ops must follow the held version by one. A gap (or an op that does not fit) leaves the
 * model marked out of sync until a snapshot is taken with `snapshot`.
 */
export class DisplayModel {
  version = 0;
  /** The display stream of the held state ('' until the first frame, or from an old server). */
  stream = '';
  state: DisplayState = {};
  /** False until a full state arrived, and after a gap or a new stream until the next snapshot. */
  synced = false;

  reset(version: number, state: DisplayState, stream?: string): void {
    this.version = version;
    this.state = state ?? {};
    if (stream) this.stream = stream;
    this.synced = true;
  }

  apply(frame: DisplayFrame): FrameResult {
    const fs = frame.stream ?? '';
    if (this.stream && fs && fs !== this.stream) {
      // A new stream (a restarted server, another owner): its versions are not comparable with
      // the held ones. What is held is discarded; a full state is the truth.
      this.stream = fs;
      this.version = 0;
      if (!frame.state) {
        this.synced = false;
        return { kind: 'gap', reason: `new display stream ${fs}` };
      }
    }
    if (!this.stream) this.stream = fs;
    if (frame.version <= this.version) return { kind: 'stale' };
    if (frame.state) {
      this.reset(frame.version, frame.state);
      return { kind: 'reset' };
    }
    return this.step(frame.version, () => (frame.ops ?? []).map(decodeOp));
  }

  /**
   * Takes a display/snapshot answer to a request sent while the model held stream `asked`; false
   * when it is dropped: of the held stream but older than a state in sync, or of another stream
   * while the held stream changed since the request (the answer predates what is held).
   */
  snapshot(snap: DisplaySnapshot, asked: string): boolean {
    const ss = snap.stream ?? '';
    if (ss && this.stream && ss !== this.stream) {
      if (this.stream !== asked) return false;
    } else if (this.synced && snap.version < this.version) {
      return false;
    }
    this.reset(snap.version, snap.state, ss);
    return true;
  }

  /** Applies ops already decoded (the page gets them so from the extension) as frame `version`. */
  applyDecoded(version: number, ops: DisplayOp[]): FrameResult {
    return this.step(version, () => ops);
  }

  private step(version: number, decode: () => DisplayOp[]): FrameResult {
    if (!this.synced) return { kind: 'gap', reason: 'not synced' };
    if (version <= this.version) return { kind: 'stale' };
    if (version !== this.version + 1) {
      this.synced = false;
      return { kind: 'gap', reason: `version ${version} after ${this.version}` };
    }
    let ops: DisplayOp[];
    try {
      ops = decode();
      this.state = applyOps(this.state, ops);
    } catch (e) {
      this.synced = false;
      return { kind: 'gap', reason: e instanceof Error ? e.message : String(e) };
    }
    this.version = version;
    return { kind: 'applied', ops };
  }
}

/** Whether a run is going on in this state. */
export function isRunning(state: DisplayState): boolean {
  const s = state.status;
  return s !== undefined && s !== 'idle';
}

/** Whether `op` may change the top-level key `key` of the state. */
export function touches(op: DisplayOp, key: string): boolean {
  if (op.path.length > 0) return op.path[0] === key;
  return isContainer(op.value) && Object.prototype.hasOwnProperty.call(op.value, key);
}

/** Context use as a whole percentage, or undefined when the window is unknown. */
export function contextPercent(state: DisplayState): number | undefined {
  const t = state.tokens;
  if (!t || !t.contextWindow || t.contextWindow <= 0 || typeof t.contextTokens !== 'number') return undefined;
  return Math.min(100, Math.round((t.contextTokens / t.contextWindow) * 100));
}

/** The text of a queued message, whether the server sends a string or an object. */
export function queuedText(m: unknown): string {
  if (typeof m === 'string') return m;
  if (m && typeof m === 'object' && typeof (m as { text?: unknown }).text === 'string') {
    return (m as { text: string }).text;
  }
  return JSON.stringify(m);
}

/** The memory part of the status: observation tokens, and what runs. */
export function memoryText(s: DisplayState): string {
  const m = s.memory;
  if (!m || m.mode !== 'observational') return '';
  const k = (n: number | undefined) => (n && n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n ?? 0}`);
  let t = `mem ${k(m.observationTokens)}`;
  if (m.reflecting) t += ' reflecting';
  else if (m.observing) t += ' observing';
  if (m.lastError) t += ' ⚠';
  return t;
}

/**
 * The mode's name as the status bar, its tooltip and the chat's header show it: the server's
 * default, build, until a state names one (a server that never started sends none).
 */
export function modeName(s: DisplayState): string {
  return s.mode?.name || s.mode?.id || 'build';
}
