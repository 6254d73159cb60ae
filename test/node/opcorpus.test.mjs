// The op corpus of testdata/display-ops (Go's display.Patch is the
// specification), folded by the client of lib/display.mjs: a state at a
// version, the frames that follow, and what the client ends with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DisplayMirror } from './lib/display.mjs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'testdata', 'display-ops');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

test('the corpus is there', () => assert.ok(files.length >= 30, `${files.length} files`));

for (const f of files) {
  const c = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  test(`${f}: ${c.description}`, () => {
    // A snapshot that never answers: the state stays what the frames made it.
    const m = new DisplayMirror(() => new Promise(() => {}));
    m.state = c.state;
    m.version = c.version;
    for (const fr of c.frames) {
      m.onFrame(fr);
      if (m.resyncing) break;
    }
    const got = m.error ? 'error' : m.gaps > 0 ? 'gap' : 'applied';
    assert.equal(got, c.result, String(m.error));
    if (got === 'applied') {
      assert.equal(m.version, c.wantVersion);
      assert.deepEqual(m.state, c.wantState);
    }
  });
}
