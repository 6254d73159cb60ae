// Readable views of a tool call's arguments (issue 33, bug 6): a bash command as text, a write
// or an edit as a diff, anything else as "key: value" lines with strings as they are (no JSON
// escapes). Pure functions of the arguments; the DOM is built by the callers.
import { argsOf } from '../protocol';

/** What to show for a call's arguments. */
export type ArgsView = { kind: 'command'; text: string } | { kind: 'diff'; diff: string } | { kind: 'lines'; text: string } | { kind: 'none' };

function lines(s: string): string[] {
  return s.replace(/\n$/, '').split('\n');
}

/** A unified diff of replacing `oldText` with `newText` in path (one hunk, no line numbers). */
function replaceDiff(oldText: string, newText: string): string[] {
  const out = ['@@'];
  if (oldText) for (const l of lines(oldText)) out.push(`-${l}`);
  if (newText) for (const l of lines(newText)) out.push(`+${l}`);
  return out;
}

/** The view of a tool call's arguments. */
export function argsView(toolName: string | undefined, args: unknown): ArgsView {
  const a = argsOf(args);
  if (toolName === 'bash' && typeof a.command === 'string') return { kind: 'command', text: a.command };
  const path = typeof a.path === 'string' ? a.path : typeof a.file_path === 'string' ? a.file_path : '';
  if (toolName === 'write' && typeof a.content === 'string') {
    return { kind: 'diff', diff: [`--- /dev/null`, `+++ b/${path}`, ...replaceDiff('', a.content)].join('\n') };
  }
  if (toolName === 'edit') {
    const edits: Array<{ oldText?: unknown; newText?: unknown }> = Array.isArray(a.edits)
      ? (a.edits as Array<{ oldText?: unknown; newText?: unknown }>)
      : typeof a.oldText === 'string' || typeof a.newText === 'string'
        ? [{ oldText: a.oldText, newText: a.newText }]
        : [];
    if (edits.length) {
      const out = [`--- a/${path}`, `+++ b/${path}`];
      for (const e of edits) out.push(...replaceDiff(typeof e.oldText === 'string' ? e.oldText : '', typeof e.newText === 'string' ? e.newText : ''));
      return { kind: 'diff', diff: out.join('\n') };
    }
  }
  const keys = Object.keys(a);
  if (!keys.length) return { kind: 'none' };
  const text = keys
    .map((k) => {
      const v = a[k];
      const s = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
      return s.includes('\n') ? `${k}:\n${s}` : `${k}: ${s}`;
    })
    .join('\n');
  return { kind: 'lines', text };
}
