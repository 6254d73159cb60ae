// Goals in the chat: `/goal <text> [--check "cmd"] [--max-turns N] [--max-cost USD]` runs
// goal/set (not a prompt), `/goal clear` runs goal/clear; the header and the status bar show
// the goal. Pure: used by the extension host and the webview page.
import type { Goal, GoalSetParams } from './protocol.gen';

export type GoalCommand =
  | { action: 'set'; params: GoalSetParams }
  | { action: 'clear' }
  | { action: 'error'; message: string };

interface Word {
  text: string;
  quoted: boolean;
}

/** Splits s at blanks, keeping "…" and '…' together. */
function words(s: string): Word[] | string {
  const out: Word[] = [];
  let cur = '';
  let quote = '';
  let inWord = false;
  let quoted = false;
  const flush = (): void => {
    if (inWord) out.push({ text: cur, quoted });
    cur = '';
    inWord = false;
    quoted = false;
  };
  for (const c of s) {
    if (quote) {
      if (c === quote) quote = '';
      else cur += c;
    } else if (c === '"' || c === "'") {
      quoted = quoted || cur === '';
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      flush();
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) return `unterminated ${quote} quote`;
  flush();
  return out;
}

/** Parses the chat input: undefined when it is not a /goal command. */
export function parseGoalCommand(input: string): GoalCommand | undefined {
  const m = /^\s*\/goal(?:\s+([\s\S]*))?$/.exec(input);
  if (!m) return undefined;
  const rest = (m[1] ?? '').trim();
  if (rest === 'clear' || rest === 'stop') return { action: 'clear' };
  if (rest === '') return { action: 'error', message: 'the goal text is missing: /goal <text> [--check "cmd"] [--max-turns N]' };
  const ws = words(rest);
  if (typeof ws === 'string') return { action: 'error', message: ws };
  const params: GoalSetParams = { text: '' };
  const text: string[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i];
    if (w.quoted || !w.text.startsWith('--')) {
      text.push(w.text);
      continue;
    }
    let [name, val] = [w.text, undefined as string | undefined];
    const eq = w.text.indexOf('=');
    if (eq > 0) [name, val] = [w.text.slice(0, eq), w.text.slice(eq + 1)];
    else {
      if (i + 1 >= ws.length) return { action: 'error', message: `${name} needs a value` };
      val = ws[++i].text;
    }
    if (name === '--check') params.check = val;
    else if (name === '--max-turns') {
      const n = Number(val);
      if (!Number.isInteger(n) || n < 1) return { action: 'error', message: `--max-turns ${val}: want a whole number of runs, at least 1` };
      params.maxTurns = n;
    } else if (name === '--max-cost') {
      const n = Number(val);
      if (!(n > 0)) return { action: 'error', message: `--max-cost ${val}: want a cost in USD, more than 0` };
      params.maxCostUsd = n;
    } else return { action: 'error', message: `unknown option ${name} (want --check, --max-turns or --max-cost)` };
  }
  params.text = text.join(' ');
  if (!params.text) return { action: 'error', message: 'the goal text is missing: /goal <text> [--check "cmd"] [--max-turns N]' };
  return { action: 'set', params };
}

/** One line for the chat header: status, runs and text ('' for no goal). */
export function goalLine(g: Partial<Goal> | null | undefined): string {
  if (!g || typeof g.text !== 'string') return '';
  let s = `Goal (${g.status ?? '?'}, run ${g.turns ?? 0}/${g.maxTurns ?? 0}`;
  if (g.costUsd) s += `, $${g.costUsd.toFixed(2)}`;
  s += `): ${g.text}`;
  if (g.reason) s += ` — ${g.reason}`;
  return s;
}

/** The status bar part: only while a goal is active. */
export function goalStatus(g: Partial<Goal> | null | undefined): string {
  return g && g.status === 'active' ? `$(target) goal ${g.turns ?? 0}/${g.maxTurns ?? 0}` : '';
}
