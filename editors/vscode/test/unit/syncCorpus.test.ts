import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { DisplayModel } from '../../src/displayState';
import type { DisplayFrame, DisplaySnapshot, DisplayState } from '../../src/protocol';

// The sync corpus of testdata/display-sync, shared by every client (docs/protocol.md, "Display
// streams"): frames and snapshot answers in the order a client receives them, and what it holds
// after them.
function corpusDir(): string {
  for (let d = __dirname; d !== dirname(d); d = dirname(d)) {
    const c = join(d, 'testdata', 'display-sync');
    if (existsSync(c)) return c;
  }
  throw new Error('testdata/display-sync not found above ' + __dirname);
}

interface SyncCase {
  description: string;
  steps: Array<{ frame?: DisplayFrame; ask?: string; answer?: string; snapshot?: DisplaySnapshot }>;
  want: { stream: string; version?: number; synced: boolean; state?: DisplayState };
}

describe('display-sync corpus', () => {
  const dir = corpusDir();
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  it('has the cases', () => assert.ok(files.length >= 10, `${files.length} files`));
  for (const f of files) {
    it(f, () => {
      const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as SyncCase;
      const m = new DisplayModel();
      const asked = new Map<string, string>();
      for (const s of c.steps) {
        if (s.frame) m.apply(s.frame);
        else if (s.ask) asked.set(s.ask, m.stream);
        else if (s.answer && s.snapshot) {
          assert.ok(asked.has(s.answer), `answer to ${s.answer}, never asked`);
          m.snapshot(s.snapshot, asked.get(s.answer)!);
        } else assert.fail(`bad step ${JSON.stringify(s)}`);
      }
      assert.equal(m.stream, c.want.stream, c.description);
      assert.equal(m.synced, c.want.synced, c.description);
      if (c.want.synced) {
        assert.equal(m.version, c.want.version, c.description);
        assert.deepEqual(m.state, c.want.state, c.description);
      }
    });
  }
});
