// A tool's output in the chat (issue 33, bug 7). The server keeps the END of a long output (the
// last 8 KB, cut at a byte, so its first line may be a fragment) and appends where the full
// output was saved. Here the block opens at its end, never starts with a fragment line, and the
// saved file is a link that opens it.

/** The server's truncation note: "[Showing lines …. Full output: /path]" and the like. */
const NOTE = /\n*\[(?:Showing [^\n\]]*|Output truncated[^\n\]]*)\.\s*(?:Full output: ([^\n\]]+?)|Full output could not be saved|The full output was not saved\.)\]\s*$/;

/** The display state keeps this many bytes of an output (display.keptOutput). */
export const KEPT_OUTPUT = 8 << 10;

export interface OutputView {
  /** The lines to show, without a leading fragment and without the note. */
  text: string;
  /** Whether earlier output is not shown (cut by the tool or by the display state). */
  cut: boolean;
  /** The file with the whole output, when the server saved one. */
  fullPath?: string;
  /** The server's note, as text ("Showing lines 199001-200000 of 200000."). */
  note?: string;
}

/** Splits an output into what the block shows, the cut and the full-output file. */
export function outputView(output: string): OutputView {
  let text = output;
  let fullPath: string | undefined;
  let note: string | undefined;
  const m = NOTE.exec(text);
  if (m) {
    fullPath = m[1]?.trim();
    note = m[0].trim().replace(/^\[|\]$/g, '');
    text = text.slice(0, m.index);
  }
  // Kept at its limit: the state cut the front at a byte, so the first line is a fragment.
  const cutByState = new TextEncoder().encode(output).length >= KEPT_OUTPUT - 4;
  const cut = !!m || cutByState;
  if (cutByState) {
    const nl = text.indexOf('\n');
    text = nl >= 0 ? text.slice(nl + 1) : text;
  }
  return { text, cut, fullPath, note };
}

function span(cls: string, text: string): HTMLSpanElement {
  const e = document.createElement('span');
  e.className = cls;
  e.textContent = text;
  return e;
}

/** The output block: scrolled to its end (a reversed flex column starts at the bottom). */
export function renderOutput(output: string, isError: boolean): { block: HTMLElement; full?: HTMLElement } {
  const v = outputView(output);
  const pre = document.createElement('pre');
  pre.className = `output${isError ? ' is-error' : ''}${v.cut ? ' tail' : ''}`;
  if (v.cut) {
    const inner = document.createElement('div');
    inner.append(span('output-cut', '… earlier output not shown\n'), document.createTextNode(v.text));
    pre.append(inner);
  } else pre.textContent = v.text;
  if (!v.cut) return { block: pre };
  const full = document.createElement('div');
  full.className = 'full-output';
  if (v.fullPath) {
    full.append(span('', 'Full output: '));
    const link = span('file-link full-output-link', v.fullPath);
    link.dataset.path = v.fullPath;
    link.title = `Open ${v.fullPath}`;
    full.append(link);
  } else full.textContent = v.note ?? 'Only the end of the output is shown.';
  return { block: pre, full };
}
