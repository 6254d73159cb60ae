// Attach (issue 17), the pure parts: whether a result says the session is owned by another
// pi-lsp process, and the notices for `ui/resolved` and `session/owner` (docs/protocol.md).
import type { AttachInfo, SessionOwner, UiResolved } from './protocol';

/** The owner this client is attached to, or undefined when its own server owns the session. */
export function attachOf(result: unknown): { ownerPid?: number } | undefined {
  const r = result as AttachInfo | null | undefined;
  if (!r || typeof r !== 'object' || r.attached !== true) return undefined;
  return { ownerPid: typeof r.ownerPid === 'number' ? r.ownerPid : undefined };
}

/** "attached to pid N" ('' when not attached). */
export function attachLabel(a: { ownerPid?: number } | undefined): string {
  if (!a) return '';
  return a.ownerPid !== undefined ? `attached to pid ${a.ownerPid}` : 'attached';
}

/** A short text for an outcome: the decision, the answer(s), approved or rejected. */
export function outcomeText(kind: UiResolved['kind'], outcome: unknown): string {
  if (outcome === null || outcome === undefined) return '';
  if (typeof outcome !== 'object') return String(outcome);
  const o = outcome as { decision?: string; approved?: boolean; cancelled?: boolean; answer?: unknown; answers?: unknown[] };
  if (kind === 'approval') return o.decision ?? '';
  if (kind === 'plan') return o.approved ? 'approved' : 'rejected';
  if (o.cancelled) return 'cancelled';
  if (Array.isArray(o.answers)) return o.answers.map(String).join(', ');
  return o.answer !== undefined ? String(o.answer) : '';
}

/** "pi-lsp: approval (write a.txt) answered by neovim: approve". */
export function resolvedText(p: UiResolved, what?: string): string {
  const out = outcomeText(p.kind, p.outcome);
  return `pi-lsp: ${p.kind}${what ? ` (${what})` : ''} answered by ${p.by || 'another client'}${out ? `: ${out}` : ''}`;
}

/** The notice for a change of owner; `self` when this window's own server became the owner. */
export function ownerText(p: SessionOwner, self: boolean): string {
  const why = p.reason === 'takeover' ? 'the previous owner died' : 'the previous owner exited';
  return self
    ? `pi-lsp: this window now owns the session (pid ${p.pid}; ${why})`
    : `pi-lsp: the session is now owned by pid ${p.pid} (${why}); attached to pid ${p.pid}`;
}
