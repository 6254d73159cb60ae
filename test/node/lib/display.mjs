// The client side of pi-lsp's display state, as an editor implements it:
// decode the ops of `display/state` frames (arrays [code, path, value] with
// codes s/a/p/d/m for set/append/push/delete/merge, docs/protocol.md
// "display/state"), fold them, detect version gaps and resync with
// `display/snapshot`.
import { EventEmitter } from 'node:events';

/** Walks `doc` along `path` and returns the container at its end. */
function walk(doc, path) {
  let cur = doc;
  for (const el of path) {
    if (Array.isArray(cur)) {
      if (!Number.isInteger(el) || el < 0 || el >= cur.length) {
        throw new Error(`array index ${JSON.stringify(el)} out of range (len ${cur.length})`);
      }
      cur = cur[el];
    } else if (cur !== null && typeof cur === 'object') {
      if (typeof el !== 'string' || !Object.hasOwn(cur, el)) {
        throw new Error(`no key ${JSON.stringify(el)}`);
      }
      cur = cur[el];
    } else {
      throw new Error(`cannot walk into ${JSON.stringify(cur)} at ${JSON.stringify(el)}`);
    }
  }
  return cur;
}

/**
 * Applies one op to `doc` in place and returns the (possibly new) root.
 * Throws on a path that does not fit the document.
 */
export function applyOp(doc, op) {
  const path = op.path ?? [];
  if (op.op === 'merge') {
    const target = walk(doc, path);
    if (target === null || typeof target !== 'object' || Array.isArray(target)) {
      throw new Error('merge needs an object at the path');
    }
    if (op.value === null || typeof op.value !== 'object' || Array.isArray(op.value)) {
      throw new Error('merge needs an object value');
    }
    Object.assign(target, op.value);
    return doc;
  }
  if (path.length === 0) {
    if (op.op === 'set') return op.value;
    throw new Error(`${op.op} with an empty path`);
  }
  const parent = walk(doc, path.slice(0, -1));
  const last = path[path.length - 1];
  let get;
  let put;
  if (Array.isArray(parent)) {
    if (!Number.isInteger(last) || last < 0 || last >= parent.length) {
      throw new Error(`array index ${JSON.stringify(last)} out of range (len ${parent.length})`);
    }
    if (op.op === 'delete') throw new Error('delete needs an object key');
    get = () => parent[last];
    put = (v) => { parent[last] = v; };
  } else if (parent !== null && typeof parent === 'object') {
    if (typeof last !== 'string') throw new Error(`object key ${JSON.stringify(last)} is not a string`);
    get = () => parent[last];
    put = (v) => { parent[last] = v; };
  } else {
    throw new Error(`parent of ${JSON.stringify(path)} is not a container`);
  }
  switch (op.op) {
    case 'set':
      put(op.value);
      break;
    case 'append': {
      const cur = get();
      if (typeof cur !== 'string' || typeof op.value !== 'string') {
        throw new Error('append needs a string at the path and a string value');
      }
      put(cur + op.value);
      break;
    }
    case 'push': {
      const cur = get();
      if (!Array.isArray(cur)) throw new Error('push needs an array at the path');
      cur.push(op.value);
      break;
    }
    case 'delete':
      delete parent[last];
      break;
    default:
      throw new Error(`unknown op ${JSON.stringify(op.op)}`);
  }
  return doc;
}

/** Op names by wire code. */
export const CODES = { s: 'set', a: 'append', p: 'push', d: 'delete', m: 'merge' };

/**
 * Decodes one op as sent on the wire, [code, path, value] ([code, path] for
 * delete), into {op, path, value}. Throws on anything else.
 */
export function decodeOp(wire) {
  if (!Array.isArray(wire) || wire.length < 2) {
    throw new Error(`an op is an array [code, path, value], got ${JSON.stringify(wire)}`);
  }
  const op = CODES[wire[0]];
  if (!op) throw new Error(`unknown op code ${JSON.stringify(wire[0])}`);
  const want = op === 'delete' ? 2 : 3;
  if (wire.length !== want) throw new Error(`op ${JSON.stringify(wire[0])} needs ${want} elements, got ${wire.length}`);
  if (!Array.isArray(wire[1])) throw new Error(`op path is not an array: ${JSON.stringify(wire[1])}`);
  return want === 3 ? { op, path: wire[1], value: wire[2] } : { op, path: wire[1] };
}

/** Applies ops in order; the error names the failing op. */
export function applyOps(doc, ops) {
  ops.forEach((op, i) => {
    try {
      doc = applyOp(doc, op);
    } catch (err) {
      throw new Error(`op ${i} (${op.op} ${JSON.stringify(op.path)}): ${err.message}`);
    }
  });
  return doc;
}

/**
 * DisplayMirror keeps the client's copy of the DisplayState. Feed it every
 * `display/state` notification with onFrame. On a version gap (or a frame
 * that does not apply) it asks `snapshot()` — a function returning the
 * `display/snapshot` result — and replaces its copy; frames that arrive while
 * the snapshot is in flight are kept and applied after it when newer.
 * It emits 'change' after every frame or resync and 'error' never: the
 * first failure is kept in `error` for tests to assert on.
 */
export class DisplayMirror extends EventEmitter {
  constructor(snapshot) {
    super();
    this.snapshot = snapshot;
    this.version = 0;
    this.stream = ''; // the display stream of the held state
    this.outOfSync = false; // a gap or a new stream: waiting for a snapshot
    this.state = null;
    this.frames = 0;
    this.gaps = 0;
    this.resyncs = 0;
    this.opCounts = { set: 0, append: 0, push: 0, delete: 0 };
    this.error = null;
    this.resyncing = null; // promise of the resync in flight
    this.stash = [];
    this.dropNext = 0; // test hook: pretend the next n frames were lost
  }

  /** Folds one display/state notification's params. */
  onFrame(params) {
    this.frames++;
    if (this.dropNext > 0) {
      this.dropNext--;
      return;
    }
    if (this.resyncing) {
      this.stash.push(params);
      return;
    }
    this.#fold(params);
    this.emit('change', this);
  }

  #fold(params) {
    const r = this.applyFrame(params);
    if (r === 'gap') {
      this.gaps++;
      this.resync();
      this.stash.push(params);
    } else if (r === 'error') {
      this.resync();
    }
  }

  /**
   * Folds one frame by the sync rules of docs/protocol.md "Display streams"
   * (testdata/display-sync checks them) and returns what it did: 'reset',
   * 'applied', 'stale', 'gap' (out of sync: ask display/snapshot) or 'error'.
   */
  applyFrame(params) {
    const fs = params.stream ?? '';
    if (this.stream && fs && fs !== this.stream) {
      // A new stream: its versions do not compare with the held ones; what
      // is held is discarded and a full state is the truth.
      this.stream = fs;
      this.version = 0;
      if (params.state === undefined) {
        this.outOfSync = true;
        return 'gap';
      }
    }
    if (!this.stream) this.stream = fs;
    if (params.version <= this.version) return 'stale'; // older than what is held
    if (params.state !== undefined) {
      this.state = params.state;
      this.version = params.version;
      this.outOfSync = false;
      return 'reset';
    }
    if (this.state === null || this.outOfSync || params.version !== this.version + 1) {
      this.outOfSync = true;
      return 'gap';
    }
    try {
      const ops = (params.ops ?? []).map(decodeOp);
      for (const op of ops) this.opCounts[op.op] = (this.opCounts[op.op] ?? 0) + 1;
      this.state = applyOps(this.state, ops);
      this.version = params.version;
      return 'applied';
    } catch (err) {
      this.error ??= new Error(`display/state version ${params.version}: ${err.message}`);
      this.outOfSync = true;
      return 'error';
    }
  }

  /**
   * Takes a display/snapshot answer to a request sent while the mirror held
   * stream `asked`; false when dropped (older than a state in sync, or of
   * another stream while the held stream changed since the request).
   */
  takeSnapshot(snap, asked) {
    const ss = snap.stream ?? '';
    if (ss && this.stream && ss !== this.stream) {
      if (this.stream !== asked) return false;
    } else if (!this.outOfSync && this.state !== null && snap.version < this.version) {
      return false;
    }
    this.state = snap.state;
    this.version = snap.version;
    if (ss) this.stream = ss;
    this.outOfSync = false;
    return true;
  }

  /** Whether the mirror holds a state in sync with its stream. */
  get synced() {
    return this.state !== null && !this.outOfSync;
  }

  /** Replaces the copy with display/snapshot; returns when done. */
  resync() {
    if (this.resyncing) return this.resyncing;
    this.resyncs++;
    this.resyncing = (async () => {
      try {
        for (let tries = 0; tries < 5; tries++) {
          const asked = this.stream;
          const snap = await this.snapshot();
          if (this.takeSnapshot(snap, asked) || this.synced) break;
        }
      } catch (err) {
        this.error ??= new Error(`display/snapshot: ${err.message}`);
      }
      const stash = this.stash;
      this.stash = [];
      this.resyncing = null;
      for (const p of stash) {
        if (this.resyncing) this.stash.push(p);
        else this.#fold(p);
      }
      this.emit('change', this);
    })();
    return this.resyncing;
  }

  /** Resolves when pred(state) holds, rejects after timeoutMs. */
  waitFor(what, pred, timeoutMs = 15000) {
    return new Promise((resolve, reject) => {
      const check = () => {
        let ok = false;
        try {
          ok = this.synced && !this.resyncing && pred(this.state);
        } catch {
          ok = false;
        }
        if (ok) {
          clearTimeout(timer);
          this.off('change', check);
          resolve(this.state);
        }
      };
      const timer = setTimeout(() => {
        this.off('change', check);
        reject(new Error(`timed out waiting for ${what}; display: ${JSON.stringify(this.state)?.slice(0, 2000)}`));
      }, timeoutMs);
      this.on('change', check);
      check();
    });
  }
}
