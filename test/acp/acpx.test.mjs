// One run of acpx 0.19.1, a headless ACP client CLI: `acpx --agent
// "pi-lsp acp" exec "prompt"` gets the answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { world } from './lib/acp.mjs';
import { piLspBin } from '../node/lib/fakellm.mjs';

const run = promisify(execFile);
const acpx = join(dirname(fileURLToPath(import.meta.url)), 'node_modules', '.bin', 'acpx');

test('acpx exec sends a prompt to pi-lsp acp and prints the answer', async () => {
  const w = await world([{ text: 'Hello from pi-lsp over ACP.' }]);
  try {
    const bin = await piLspBin();
    const { stdout } = await run(acpx, ['--agent', `${bin} acp --sessions-dir ${w.sessions}`, '--cwd', w.project,
      '--approve-all', '--format', 'text', '--timeout', '30', 'exec', 'say hello'], {
      cwd: w.project,
      env: { ...process.env, HOME: w.home, PI_LSP_MODELS: w.models },
      timeout: 60000,
    });
    assert.match(stdout, /Hello from pi-lsp over ACP\./);
    const reqs = await w.llm.requests();
    assert.equal(reqs.length, 1);
    assert.match(JSON.stringify(reqs[0]), /say hello/);
  } finally {
    await w.close();
  }
});
