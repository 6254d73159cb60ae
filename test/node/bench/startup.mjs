// Cold start → first response: spawn the server, write its first request at
// once, and time until the answer's line/frame arrives; read the peak RSS
// (VmHWM in /proc/PID/status) at that moment. Median of --runs runs.
//
//   node bench/startup.mjs [--runs 10] [--json out.json]
//
// Targets (each skipped when its binary is not given):
//   pi-lsp   $PI_LSP_BIN serve, LSP-framed `initialize`         (models.json of fakellm's format)
//   codex    $CODEX_BIN app-server, newline JSON-RPC `initialize` (the native binary, not the npm launcher)
//   pi       $PI_BIN --mode rpc, `{"type":"get_state"}`
//
// "Cold" means a new process with a warm page cache (the caches are shared
// with other users of the machine and are not dropped). Node's spawn adds
// about a millisecond to every figure; scripts/bench-startup.sh cross-checks
// pi-lsp with hyperfine and /usr/bin/time.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, json: { type: 'string' } },
});
const RUNS = Number(opt.runs);

/**
 * The peak resident set (VmHWM) and the private memory (RssAnon: the heap
 * and stacks, without the binary's mapped pages) of pid in KiB, from /proc
 * (0 when it is gone).
 */
function memKiB(pid) {
  try {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(st);
    const anon = /RssAnon:\s+(\d+) kB/.exec(st);
    return { peak: hwm ? Number(hwm[1]) : 0, anon: anon ? Number(anon[1]) : 0 };
  } catch {
    return { peak: 0, anon: 0 };
  }
}

function lspFrame(msg) {
  const body = Buffer.from(JSON.stringify(msg));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

/**
 * One start: spawn cmd, write `input`, wait until `done(stdoutSoFar)`.
 * Returns {ms, rssKiB}.
 */
function once({ cmd, args, env, cwd, input, done }) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const proc = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let finished = false;
    const timer = setTimeout(() => finish(new Error(`${cmd}: no response in 30 s; stdout: ${out.slice(0, 500)}`)), 30000);
    function finish(err, res) {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      proc.kill('SIGKILL');
      if (err) reject(err);
      else resolve(res);
    }
    proc.stdout.on('data', (d) => {
      out += d.toString();
      if (!finished && done(out)) {
        const ms = performance.now() - t0;
        const mem = memKiB(proc.pid);
        finish(null, { ms, rssKiB: mem.peak, anonKiB: mem.anon });
      }
    });
    proc.on('error', (err) => finish(err));
    proc.on('exit', (code) => finish(new Error(`${cmd} exited with ${code} before answering; stdout: ${out.slice(0, 500)}`)));
    proc.stdin.on('error', () => {});
    proc.stdin.write(input);
  });
}

function targets(base) {
  const list = [];
  mkdirSync(join(base, 'work'), { recursive: true });
  if (process.env.PI_LSP_BIN) {
    const home = join(base, 'pilsp-home');
    const work = join(base, 'work');
    mkdirSync(home, { recursive: true });
    mkdirSync(work, { recursive: true });
    const models = join(base, 'models.json');
    writeFileSync(models, JSON.stringify({
      providers: { fake: { baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions', apiKey: 'fake-key', models: [{ id: 'fake-model', contextWindow: 128000, maxTokens: 16384 }] } },
    }));
    list.push({
      name: 'pi-lsp',
      cmd: process.env.PI_LSP_BIN,
      args: ['serve', '--model', 'fake/fake-model'],
      cwd: work,
      env: { HOME: home, PI_LSP_MODELS: models, PI_LSP_SESSIONS: join(base, 'sessions') },
      input: lspFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: process.pid, clientInfo: { name: 'bench' }, rootUri: pathToFileURL(work).href, capabilities: {} } }),
      done: (out) => /Content-Length: (\d+)\r\n\r\n/.test(out) && out.includes('"id":1'),
      what: 'initialize',
    });
  }
  if (process.env.CODEX_BIN) {
    const home = join(base, 'codex-home');
    mkdirSync(home, { recursive: true });
    list.push({
      name: 'codex app-server',
      cmd: process.env.CODEX_BIN,
      args: ['app-server'],
      cwd: base,
      env: { HOME: home, CODEX_HOME: home, RUST_LOG: 'error' },
      input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'bench', version: '1' } } })}\n`,
      done: (out) => out.split('\n').some((l) => l.startsWith('{"id":1,') || l.includes('"id":1,"result"')),
      what: 'initialize',
    });
  }
  if (process.env.PI_BIN) {
    const home = join(base, 'pi-home');
    mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
    writeFileSync(join(home, '.pi', 'agent', 'models.json'), JSON.stringify({
      providers: { fake: { baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions', apiKey: 'fake-key', models: [{ id: 'fake-model', contextWindow: 128000, maxTokens: 16384 }] } },
    }));
    list.push({
      name: 'pi --mode rpc',
      cmd: process.env.PI_BIN,
      args: ['--mode', 'rpc', '--no-session', '--provider', 'fake', '--model', 'fake-model'],
      cwd: join(base, 'work'),
      env: { HOME: home },
      input: `${JSON.stringify({ id: 'b1', type: 'get_state' })}\n`,
      done: (out) => out.includes('"command":"get_state"'),
      what: 'get_state',
    });
  }
  return list;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const base = mkdtempSync(join(tmpdir(), 'pi-lsp-bench-start-'));
const results = {};
try {
  for (const t of targets(base)) {
    await once(t); // warm the page cache once; not counted
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once(t));
    const ms = runs.map((r) => r.ms);
    const mb = runs.map((r) => r.rssKiB / 1024);
    const anon = runs.map((r) => r.anonKiB / 1024);
    results[t.name] = { first: t.what, runs: RUNS, medianMs: median(ms), minMs: Math.min(...ms), maxMs: Math.max(...ms), medianPeakRssMB: median(mb), maxPeakRssMB: Math.max(...mb), medianRssAnonMB: median(anon) };
    const r = results[t.name];
    console.log(`${t.name.padEnd(17)} first response (${t.what}): median ${r.medianMs.toFixed(1)} ms ` +
      `(min ${r.minMs.toFixed(1)}, max ${r.maxMs.toFixed(1)}, ${RUNS} runs); peak RSS median ${r.medianPeakRssMB.toFixed(1)} MB (max ${r.maxPeakRssMB.toFixed(1)}); private (RssAnon) median ${r.medianRssAnonMB.toFixed(1)} MB`);
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
if (opt.json) writeFileSync(opt.json, `${JSON.stringify(results, null, 2)}\n`);
