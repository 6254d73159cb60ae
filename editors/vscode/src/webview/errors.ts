// The chat's bottom error block (issue 33, bug 8). An error the transcript shows as an item is
// not repeated there, and one that a later prompt followed is no longer news.
import type { DisplayState } from '../protocol';
import { errorText } from './render';

/**
 * The state's errors for the bottom block: not dismissed, not already an error item in the
 * transcript, and not older than the last prompt (an error is shown while it is the last word).
 */
export function liveErrors(s: DisplayState, dismissed: ReadonlySet<string>): string[] {
  const items = s.items ?? [];
  const inline = new Set(items.filter((it) => it.kind === 'error').map((it) => it.text ?? ''));
  const last = items[items.length - 1];
  const succeeded = last?.kind === 'assistant' && !!last.text && !last.streaming && last.status !== 'interrupted';
  return (s.errors ?? []).map(errorText).filter((m) => !dismissed.has(m) && !inline.has(m) && !succeeded);
}

/** The Retry (server errors after a run, when Retry applies) and dismiss buttons of a banner. */
export function errorActions(canRetry: boolean, retry: () => void, dismiss: () => void): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (canRetry) {
    const b = document.createElement('button');
    b.className = 'error-retry-run';
    b.textContent = 'Retry';
    b.title = 'Run again from here (agent/retry)';
    b.addEventListener('click', retry);
    out.push(b);
  }
  const x = document.createElement('button');
  x.className = 'error-close';
  x.textContent = '×';
  x.title = 'Dismiss';
  x.addEventListener('click', dismiss);
  out.push(x);
  return out;
}
