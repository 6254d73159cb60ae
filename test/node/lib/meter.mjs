// FrameMeter is a pass-through stream placed between the server's stdout and
// vscode-jsonrpc's StreamMessageReader. It records the framed size (headers
// included) and arrival time of every message, by method. vscode-jsonrpc
// hands out parsed messages only, so the wire size has to be taken here; this
// is the only LSP framing the tests parse by hand, and it is read-only.
import { Transform } from 'node:stream';
import { CODES } from './display.mjs';

const SEP = Buffer.from('\r\n\r\n');

export class FrameMeter extends Transform {
  constructor() {
    super();
    this.buf = Buffer.alloc(0);
    // {method, bytes, at, version?, ops? ("op path" strings), appendBytes (streamed text), hasAppend}
    this.records = [];
    this.totalBytes = 0;
  }

  _transform(chunk, _enc, cb) {
    this.totalBytes += chunk.length;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const end = this.buf.indexOf(SEP);
      if (end < 0) break;
      const m = /content-length:\s*(\d+)/i.exec(this.buf.subarray(0, end).toString('ascii'));
      if (!m) break; // not a frame we understand; the reader reports it
      const total = end + SEP.length + Number(m[1]);
      if (this.buf.length < total) break;
      const body = this.buf.subarray(end + SEP.length, total).toString('utf8');
      let method = '';
      let version;
      let hasAppend = false;
      let ops;
      let appendBytes = 0;
      try {
        const msg = JSON.parse(body);
        method = msg.method ?? '(response)';
        version = msg.params?.version;
        if (Array.isArray(msg.params?.ops)) {
          // Ops are [code, path, value] (display.mjs decodes them).
          ops = msg.params.ops.map(([code, path]) => `${CODES[code] ?? code} ${path.join('.')}`);
          // Streamed text: appended strings, and the text an assistant item
          // carries when it is pushed (text that arrived with the item's
          // first frame is folded into its push).
          for (const [code, , value] of msg.params.ops) {
            if (code === 'a') appendBytes += Buffer.byteLength(value);
            if (code === 'p' && value?.kind === 'assistant') {
              appendBytes += Buffer.byteLength(value.text ?? '') + Buffer.byteLength(value.thinking ?? '');
            }
          }
          hasAppend = appendBytes > 0;
        } else if (msg.params?.state) {
          ops = ['state'];
        }
      } catch {
        method = '(invalid)';
      }
      this.records.push({ method, bytes: total, at: performance.now(), version, ops, appendBytes, hasAppend });
      this.buf = this.buf.subarray(total);
    }
    cb(null, chunk);
  }

  /** Sums the records of `method` that arrived in [from, to]. */
  sum(method, from = 0, to = Infinity) {
    let bytes = 0;
    let count = 0;
    for (const r of this.records) {
      if (r.method === method && r.at >= from && r.at <= to) {
        bytes += r.bytes;
        count++;
      }
    }
    return { bytes, count };
  }
}
