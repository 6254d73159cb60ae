// The chat's bottom error block (issue 33, bug 8). An error the transcript shows as an item is
// not repeated there. Whether an error is still true is the server's call: it clears the state's
// errors after a later successful run and on a model switch (display/facts.go clearBanners).
import type { DisplayState } from '../protocol';
import { errorText } from './render';

/**
 * The state's errors for the bottom block: exactly the state's `errors`, minus the dismissed ones
 * and the ones the transcript already shows as an error item.
 */
export function liveErrors(s: DisplayState, dismissed: ReadonlySet<string>): string[] {
  const inline = new Set((s.items ?? []).filter((it) => it.kind === 'error').map((it) => it.text ?? ''));
  return (s.errors ?? []).map(errorText).filter((m) => !dismissed.has(m) && !inline.has(m));
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
