// Issue 17, "one test with real Neovim and a vscode-jsonrpc client on the same session": this
// process's vscode-jsonrpc client owns a session through the real pi-lsp binary; headless
// Neovim with the plugin (editors/neovim) opens the same session file, so its own pi-lsp
// attaches to the owner's socket. A prompt typed in Neovim's chat input runs once, in the
// owner, and streams to both: the answer is in Neovim's transcript buffer and in this
// client's display state, and the user message is written to the file once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newWorld, itemsOf } from './lib/pilsp.mjs';
import { piLspBin, repoRoot } from './lib/fakellm.mjs';

const PROMPT = 'asked from neovim';
const ANSWER = 'Both editors follow this answer as it streams, chunk by chunk.';
const hasNvim = spawnSync('nvim', ['--version']).status === 0;

async function until(what, ms, cond) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a prompt typed in Neovim attached to a vscode-jsonrpc owner streams in both', { skip: !hasNvim && !process.env.CI && 'nvim is not installed' }, async (t) => {
  const world = await newWorld([
    { text: 'The session exists.' },
    { match: PROMPT, text: ANSWER, chunkSize: 4, chunkDelayMs: 20 },
  ]);
  t.after(() => world.close());
  // A short runtime directory of the test's own: the attach socket lives there.
  const rt = mkdtempSync(join(tmpdir(), 'rt'));
  t.after(() => rmSync(rt, { recursive: true, force: true }));
  const env = { XDG_RUNTIME_DIR: rt };

  const owner = await world.start({ env });
  await owner.initialize();
  await owner.request('session/new', {});
  await owner.request('agent/prompt', { text: 'make the session' });
  const { path } = await owner.waitIdle();
  assert.ok(existsSync(path), path);

  const out = join(world.base, 'nvim-out.json');
  const nvimLog = join(world.base, 'nvim');
  const bin = await piLspBin();
  const nvim = spawn('nvim', ['--headless', '-u', 'NONE', '-i', 'NONE', '-n',
    '--cmd', `set rtp^=${join(repoRoot, 'editors', 'neovim')}`,
    '-c', 'runtime plugin/pi_lsp.lua', '-c', `luafile ${join(repoRoot, 'test', 'node', 'nvim', 'attach_follow.lua')}`], {
    cwd: world.work,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env, ...env,
      HOME: world.home, XDG_CACHE_HOME: nvimLog, XDG_STATE_HOME: nvimLog,
      PI_LSP_BIN: bin, PI_LSP_MODELS: world.models, PI_LSP_SESSIONS: world.sessions,
      PI_WORK: world.work, PI_SESSION: path, PI_PROMPT: PROMPT, PI_ANSWER: ANSWER, PI_OUT: out,
      OPENAI_API_KEY: '', OPENROUTER_API_KEY: '',
    },
  });
  let nvimErr = '';
  nvim.stderr.on('data', (d) => { nvimErr += d.toString(); });
  const exited = new Promise((res) => nvim.on('exit', (code) => res(code)));
  t.after(() => { if (nvim.exitCode === null) nvim.kill('SIGKILL'); });

  // Neovim's pi-lsp attached to the owner's process.
  const ready = await until('Neovim to attach', 20000, () => existsSync(`${out}.ready`) && JSON.parse(readFileSync(`${out}.ready`, 'utf8')));
  assert.equal(ready.ownerPid, owner.proc.pid);

  // The prompt typed in Neovim streams into this client's display.
  const st = await owner.display.waitFor('the answer to the prompt typed in Neovim', (d) => {
    const a = itemsOf(d, 'assistant');
    return d.status === 'idle' && a.at(-1)?.text === ANSWER;
  }, 30000);
  assert.equal(owner.display.error, null);
  assert.deepEqual(itemsOf(st, 'user').map((u) => u.text), ['make the session', PROMPT]);

  const code = await exited;
  const seen = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(seen.error, undefined, `${seen.error}\nnvim stderr:\n${nvimErr}`);
  assert.equal(code, 0);
  const transcript = seen.transcript.join('\n');
  assert.ok(transcript.includes(PROMPT) && transcript.includes(ANSWER), transcript);
  assert.ok(seen.statusline.includes(`attached to pid ${owner.proc.pid}`), seen.statusline);

  // The owner wrote the user message once; the model was asked once for it.
  const users = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => e.message?.role === 'user' && JSON.stringify(e.message.content).includes(PROMPT));
  assert.equal(users.length, 1);
  await owner.shutdown();
});
