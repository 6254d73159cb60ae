// The sync corpus of testdata/display-sync (docs/protocol.md, "Display
// streams"), folded by the client of lib/display.mjs: frames and snapshot
// answers in the order a client receives them, and what it holds after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DisplayMirror } from './lib/display.mjs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'testdata', 'display-sync');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

test('the sync corpus is there', () => assert.ok(files.length >= 10, `${files.length} files`));

for (const f of files) {
  const c = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  test(`${f}: ${c.description}`, () => {
    const m = new DisplayMirror(() => new Promise(() => {}));
    const asked = new Map();
    for (const s of c.steps) {
      if (s.frame) m.applyFrame(s.frame);
      else if (s.ask) asked.set(s.ask, m.stream);
      else if (s.answer && s.snapshot) {
        assert.ok(asked.has(s.answer), `answer to ${s.answer}, never asked`);
        m.takeSnapshot(s.snapshot, asked.get(s.answer));
      } else assert.fail(`bad step ${JSON.stringify(s)}`);
    }
    assert.equal(m.error, null);
    assert.equal(m.stream, c.want.stream);
    assert.equal(m.synced, c.want.synced);
    if (c.want.synced) {
      assert.equal(m.version, c.want.version);
      assert.deepEqual(m.state, c.want.state);
    }
  });
}
