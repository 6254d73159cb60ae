// Wire cost of one streamed answer: the bytes of every display/state
// notification (LSP framed, headers included) pi-lsp sends during a run that
// streams a 200-word answer, against the answer's length, and the
// notifications per second while it streams. With PI_BIN set, the same
// answer through `pi --mode rpc`, counting the bytes of its stdout events.
//
//   node bench/wire.mjs [--runs 5] [--chunk-size 4] [--chunk-delay-ms 7] [--ttft-ms 0]
//                       [--sweep 0,7,10,14] [--json out.json]
//
// --ttft-ms delays the model's first chunk (time to first token). --sweep
// also measures pi-lsp at each listed chunk delay (ms between 4-character
// chunks), to show how the ratio depends on the stream's speed.
//
// Env: PI_LSP_BIN (else built), FAKELLM_BIN (else built), PI_BIN (optional).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newWorld, itemsOf } from '../lib/pilsp.mjs';
import { startFakellm } from '../lib/fakellm.mjs';

const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'chunk-size': { type: 'string', default: '4' },
    'chunk-delay-ms': { type: 'string', default: '7' },
    'ttft-ms': { type: 'string', default: '0' },
    sweep: { type: 'string', default: '' },
    words: { type: 'string', default: '200' },
    json: { type: 'string' },
  },
});
const RUNS = Number(opt.runs);
const CHUNK = Number(opt['chunk-size']);
const DELAY = Number(opt['chunk-delay-ms']);
const TTFT = Number(opt['ttft-ms']);

// A 200-word answer of the kind a coding agent streams (1,082 bytes).
const ANSWER_200 =
  'The failing test comes from a race between the reader goroutine and the writer that flushes display frames. ' +
  'When the client closes its end of the pipe, the reader returns io.EOF and cancels the server context, but the ' +
  'scheduler may still hold a frame that it tries to write after the connection is gone. The write fails, the ' +
  'error is logged, and the test sees an unexpected line on stderr, which the assertion treats as a failure. To ' +
  'fix it, I changed the writer loop so that it checks the context before each write and returns when the ' +
  'context is done. I also made the shutdown path wait for the writer to finish, so no frame is written after ' +
  'exit. The test now passes reliably, and I ran it 200 times with the race detector enabled to make sure the ' +
  'flake is gone. There are two smaller changes in the same commit: the debounce timer is stopped when the ' +
  'scheduler closes, and the frame queue is drained instead of dropped. Both were found while reading the code ' +
  'around the bug. Let me know if you would rather have them in separate commits, and I will split them before ' +
  'you review.';

/** The answer, repeated or cut to n words. */
function answer(n) {
  const w = ANSWER_200.split(' ');
  return Array.from({ length: n }, (_, i) => w[i % w.length]).join(' ');
}

const ANSWER = answer(Number(opt.words));
const ANSWER_BYTES = Buffer.byteLength(ANSWER);
const response = (delay) => ({ match: 'BENCH-RUN', text: ANSWER, chunkSize: CHUNK, chunkDelayMs: delay, stallMs: TTFT });
const RESPONSE = response(DELAY);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One pi-lsp run: bytes and rate of display/state during the prompt. */
async function piLspRun(resp = RESPONSE) {
  const world = await newWorld([resp]);
  try {
    const s = await world.start();
    await s.initialize();
    const ns = await s.request('session/new', {});
    // Let the frames of initialize and session/new go by: only the run counts.
    await s.display.waitFor('the new session', (d) => d.session?.id === ns.sessionId);
    await new Promise((r) => setTimeout(r, 600));
    const t0 = performance.now();
    await s.request('agent/prompt', { text: 'BENCH-RUN: answer at length' });
    await s.display.waitFor('answer done', (d) => d.status === 'idle' && itemsOf(d, 'assistant').at(-1)?.text === ANSWER, 30000);
    const t1 = performance.now();
    const frames = s.meter.records.filter((r) => r.method === 'display/state' && r.at >= t0 && r.at <= t1);
    const appends = frames.filter((r) => r.hasAppend);
    const streamMs = appends.length > 1 ? appends.at(-1).at - appends[0].at : 0;
    const inStream = streamMs > 0 ? frames.filter((r) => r.at >= appends[0].at && r.at <= appends.at(-1).at).length : 0;
    const res = {
      displayBytes: frames.reduce((n, r) => n + r.bytes, 0),
      frames: frames.length,
      streamMs: Math.round(streamMs),
      perSecond: streamMs > 0 ? (inStream - 1) / (streamMs / 1000) : 0,
      runMs: Math.round(t1 - t0),
      gaps: s.display.gaps,
      appendedTextBytes: frames.reduce((n, r) => n + r.appendBytes, 0),
      perFrame: frames.map((r) => ({ bytes: r.bytes, appendBytes: r.appendBytes, ops: r.ops })),
    };
    res.ratio = res.displayBytes / ANSWER_BYTES;
    await s.shutdown();
    return res;
  } finally {
    await world.close();
  }
}

/** One pi run over --mode rpc: bytes of its stdout JSONL from the prompt to agent_end. */
async function piRun(piBin) {
  const base = mkdtempSync(join(tmpdir(), 'pi-lsp-bench-pi-'));
  const home = join(base, 'home');
  const work = join(base, 'work');
  mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
  mkdirSync(work);
  const fake = await startFakellm([RESPONSE], join(home, '.pi', 'agent', 'models.json'));
  const proc = spawn(piBin, ['--mode', 'rpc', '--no-session', '--provider', 'fake', '--model', 'fake-model'], {
    cwd: work,
    env: { ...process.env, HOME: home, PI_OFFLINE: '1', OPENAI_API_KEY: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`pi: no agent_end in 60 s; stderr: ${stderr.slice(-1000)}`)), 60000);
      let buf = Buffer.alloc(0);
      let t0 = 0;
      let bytes = 0;
      let events = 0;
      let updateBytes = 0;
      const deltas = [];
      proc.stdout.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
          const line = buf.subarray(0, nl + 1);
          buf = buf.subarray(nl + 1);
          const ev = JSON.parse(line.toString('utf8'));
          bytes += line.length;
          events++;
          if (ev.type === 'message_update') {
            updateBytes += line.length;
            if (ev.assistantMessageEvent?.type === 'text_delta') deltas.push(performance.now());
          }
          if (ev.type === 'agent_end') {
            clearTimeout(timer);
            const streamMs = deltas.length > 1 ? deltas.at(-1) - deltas[0] : 0;
            resolve({
              stdoutBytes: bytes,
              messageUpdateBytes: updateBytes,
              events,
              streamMs: Math.round(streamMs),
              perSecond: streamMs > 0 ? (deltas.length - 1) / (streamMs / 1000) : 0,
              runMs: Math.round(performance.now() - t0),
              ratio: bytes / ANSWER_BYTES,
            });
          }
        }
      });
      proc.on('exit', (code) => reject(new Error(`pi exited with ${code}; stderr: ${stderr.slice(-1000)}`)));
      t0 = performance.now();
      proc.stdin.write(`${JSON.stringify({ id: 'bench', type: 'prompt', message: 'BENCH-RUN: answer at length' })}\n`);
    });
  } finally {
    proc.kill('SIGKILL');
    await fake.close();
    rmSync(base, { recursive: true, force: true });
  }
}

const out = {
  answer: { words: Number(opt.words), bytes: ANSWER_BYTES, chunkSize: CHUNK, chunkDelayMs: DELAY, chunks: Math.ceil([...ANSWER].length / CHUNK) },
  piLsp: [],
  pi: null,
};
for (let i = 0; i < RUNS; i++) out.piLsp.push(await piLspRun());
const pl = out.piLsp;
console.log(`answer: ${out.answer.words} words, ${ANSWER_BYTES} bytes, ${out.answer.chunks} chunks of ${CHUNK} chars every ${DELAY} ms` +
  (TTFT ? `, first chunk after ${TTFT} ms` : ''));
console.log(`pi-lsp display/state (${RUNS} runs): bytes ${pl.map((r) => r.displayBytes).join(', ')}; ` +
  `median ${median(pl.map((r) => r.displayBytes))} = ${median(pl.map((r) => r.ratio)).toFixed(2)}x the answer; ` +
  `frames ${median(pl.map((r) => r.frames))} per run; ${median(pl.map((r) => r.perSecond)).toFixed(1)} notifications/s over ` +
  `${median(pl.map((r) => r.streamMs))} ms of streaming`);
const mid = [...pl].sort((a, b) => a.displayBytes - b.displayBytes)[Math.floor(pl.length / 2)];
console.log(`  frames of the median run (${mid.frames} frames, ${mid.appendedTextBytes} B of appended text):`);
for (const f of mid.perFrame) {
  console.log(`  frame ${String(f.bytes).padStart(5)} B (text ${String(f.appendBytes).padStart(4)} B): ${f.ops.join(', ')}`);
}

if (opt.sweep) {
  out.sweep = [];
  console.log(`sweep (${RUNS} runs each, median): chunk delay -> scripted speed, bytes, ratio, frames`);
  for (const d of opt.sweep.split(',').map(Number)) {
    const rs = [];
    for (let i = 0; i < RUNS; i++) rs.push(await piLspRun(response(d)));
    const m = [...rs].sort((a, b) => a.displayBytes - b.displayBytes)[Math.floor(rs.length / 2)];
    const speed = d > 0 ? Math.round((CHUNK * 1000) / d) : Infinity; // as scripted
    out.sweep.push({ chunkDelayMs: d, charsPerSecond: speed, displayBytes: m.displayBytes, ratio: m.ratio, frames: m.frames, streamMs: m.streamMs });
    console.log(`  ${String(d).padStart(3)} ms -> ${speed === Infinity ? 'burst' : `${speed} chars/s`}: ${m.displayBytes} B = ${m.ratio.toFixed(2)}x, ${m.frames} frames over ${m.streamMs} ms`);
  }
}

if (process.env.PI_BIN) {
  out.pi = [];
  for (let i = 0; i < Math.min(RUNS, 2); i++) out.pi.push(await piRun(process.env.PI_BIN));
  const p = out.pi;
  console.log(`pi --mode rpc stdout (${p.length} runs): bytes ${p.map((r) => r.stdoutBytes).join(', ')} ` +
    `(message_update ${median(p.map((r) => r.messageUpdateBytes))}) = ${median(p.map((r) => r.ratio)).toFixed(1)}x the answer; ` +
    `${median(p.map((r) => r.events))} events; ${median(p.map((r) => r.perSecond)).toFixed(1)} text_delta events/s over ` +
    `${median(p.map((r) => r.streamMs))} ms of streaming`);
} else {
  console.log('pi: skipped (PI_BIN not set)');
}
if (opt.json) writeFileSync(opt.json, `${JSON.stringify(out, null, 2)}\n`);
