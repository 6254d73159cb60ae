// Builds and runs the scripted fake OpenAI-compatible server (cmd/fakellm)
// and the pi-lsp binary for the Node tests.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root (test/node/lib/../../..). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const built = new Map();

/** go-builds ./cmd/<name> once per process into a temp dir; returns the path. */
export function goBuild(name) {
  if (!built.has(name)) {
    built.set(name, (async () => {
      const dir = mkdtempSync(join(tmpdir(), `pi-lsp-node-${name}-`));
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
      const out = join(dir, name);
      await run('go', ['build', '-o', out, `./cmd/${name}`], { cwd: repoRoot });
      return out;
    })());
  }
  return built.get(name);
}

/** The fakellm binary: $FAKELLM_BIN or a fresh build. */
export function fakellmBin() {
  return process.env.FAKELLM_BIN ? Promise.resolve(process.env.FAKELLM_BIN) : goBuild('fakellm');
}

/** The pi-lsp binary: $PI_LSP_BIN (set by `make test-node`) or a fresh build. */
export function piLspBin() {
  return process.env.PI_LSP_BIN ? Promise.resolve(process.env.PI_LSP_BIN) : goBuild('pi-lsp');
}

/**
 * Starts fakellm with `script` (an array of responses, llm/llmtest/script.go)
 * and writes its models.json to `modelsPath`. Resolves to a handle with the
 * URL, requests() (the recorded chat request bodies), append() and close().
 */
export async function startFakellm(script, modelsPath) {
  const bin = await fakellmBin();
  const dir = mkdtempSync(join(tmpdir(), 'pi-lsp-node-script-'));
  const scriptPath = join(dir, 'script.json');
  writeFileSync(scriptPath, JSON.stringify(script));
  const proc = spawn(bin, ['--script', scriptPath, '--models-json', modelsPath], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise((res, rej) => {
    let out = '';
    const onData = (d) => {
      out += d.toString();
      const m = /^FAKELLM_URL=(\S+)\n/.exec(out);
      if (m) {
        proc.stdout.off('data', onData);
        proc.stdout.resume();
        res(m[1]);
      }
    };
    proc.stdout.on('data', onData);
    proc.on('error', rej);
    proc.on('exit', (code) => rej(new Error(`fakellm exited with ${code} before its URL: ${out}`)));
  });
  const exited = new Promise((res) => proc.on('exit', res));
  return {
    url,
    async requests() {
      const r = await fetch(`${url}/requests`);
      if (!r.ok) throw new Error(`GET /requests: ${r.status}`);
      return r.json();
    },
    async append(responses) {
      const r = await fetch(`${url}/script`, { method: 'POST', body: JSON.stringify(responses) });
      if (!r.ok) throw new Error(`POST /script: ${r.status} ${await r.text()}`);
    },
    async close() {
      proc.stdin.end(); // fakellm exits when its stdin closes
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
