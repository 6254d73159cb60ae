import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DisplayModel } from '../../src/displayState';
import type { DisplayFrame, DisplayState } from '../../src/protocol';

// The op corpus of testdata/display-ops, shared by every applier (Go's display.Patch is the
// specification): a state at a version, the frames that follow, and what the client ends with.
function corpusDir(): string {
  for (let d = __dirname; d !== dirname(d); d = dirname(d)) {
    const c = join(d, 'testdata', 'display-ops');
    if (existsSync(c)) return c;
  }
  throw new Error('testdata/display-ops not found above ' + __dirname);
}

interface OpCase {
  description: string;
  version: number;
  state: DisplayState;
  frames: DisplayFrame[];
  result: 'applied' | 'error' | 'gap';
  wantVersion?: number;
  wantState?: DisplayState;
}

describe('display-ops corpus', () => {
  const dir = corpusDir();
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  it('has the corpus', () => assert.ok(files.length >= 30, `${files.length} files`));
  for (const f of files) {
    const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as OpCase;
    it(`${f}: ${c.description}`, () => {
      const m = new DisplayModel();
      m.reset(c.version, c.state);
      let got: 'applied' | 'error' | 'gap' = 'applied';
      for (const fr of c.frames) {
        const r = m.apply(fr);
        if (r.kind === 'gap') {
          got = fr.state === undefined && fr.version !== m.version + 1 ? 'gap' : 'error';
          break;
        }
      }
      assert.equal(got, c.result);
      if (got === 'applied') {
        assert.equal(m.version, c.wantVersion);
        assert.deepEqual(m.state, c.wantState);
      }
    });
  }
});
