// Mapping what the user clicked (in the chat card or a notification) to the replies of
// ui/requestApproval, ui/askQuestion and ui/approvePlan (docs/protocol.md). No dependencies.
import type { ApprovalDecision, ApprovalReply, ApprovalRequest, PlanReply, QuestionReply, QuestionRequest } from './protocol';

/** The four buttons of an approval card, in the order they are shown. */
export const APPROVAL_BUTTONS: ReadonlyArray<{ choice: ApprovalDecision; label: string }> = [
  { choice: 'approve', label: 'Approve' },
  { choice: 'decline', label: 'Decline' },
  { choice: 'alwaysAllowTool', label: 'Always this tool' },
  { choice: 'alwaysAllowCategory', label: 'Always this category' },
];

/** The directory an "always allow" of an outside path grants (the server grants a file's directory). */
export function grantedDir(req: ApprovalRequest): string {
  const p = req.resolvedPath ?? '';
  if (req.toolName === 'ls' || req.toolName === 'grep' || req.toolName === 'find') return p;
  const i = p.lastIndexOf('/');
  return i > 0 ? p.slice(0, i) : p;
}

/**
 * The buttons of one approval card: for a call outside the workspace, Approve, Decline and
 * "Always allow reading/writing <dir>" (a per-path grant); otherwise the four usual ones.
 */
export function approvalButtons(req: ApprovalRequest): ReadonlyArray<{ choice: ApprovalDecision; label: string }> {
  if (!req.outsideWorkspace) return APPROVAL_BUTTONS;
  const verb = req.access === 'write' ? 'writing' : 'reading';
  return [APPROVAL_BUTTONS[0], APPROVAL_BUTTONS[1], { choice: 'alwaysAllowPath', label: `Always allow ${verb} ${grantedDir(req)}` }];
}

/** The warning line of an approval outside the workspace ("" inside it). */
export function outsideWarning(req: ApprovalRequest): string {
  if (!req.outsideWorkspace) return '';
  return `OUTSIDE THE WORKSPACE: ${req.access === 'write' ? 'writes' : 'reads'} ${req.resolvedPath ?? ''}`;
}

/** An edit outside the workspace (issue 16) in the diff editor: the warning shown in its title and the folder its grant allows. */
export interface ReviewOutside {
  /** "OUTSIDE THE WORKSPACE: writes /path" (outsideWarning). */
  warning: string;
  /** The directory "Accept and Allow This Folder" grants (grantedDir). */
  dir: string;
}

/** What the diff editor of req shows about the workspace boundary (undefined inside it). */
export function reviewOutside(req: ApprovalRequest): ReviewOutside | undefined {
  return req.outsideWorkspace ? { warning: outsideWarning(req), dir: grantedDir(req) } : undefined;
}

const DECISIONS = new Set<string>([...APPROVAL_BUTTONS.map((b) => b.choice), 'alwaysAllowPath']);

/**
 * The reply for a clicked approval button (by its choice or its label). Anything unknown,
 * including a dismissed notification (undefined), declines: the protocol treats a missing or odd
 * decision as a decline, and so does the extension, explicitly.
 */
export function approvalReply(clicked: string | undefined): ApprovalReply {
  if (clicked !== undefined) {
    if (DECISIONS.has(clicked)) return { decision: clicked as ApprovalDecision };
    const byLabel = APPROVAL_BUTTONS.find((b) => b.label === clicked);
    if (byLabel) return { decision: byLabel.choice };
    if (clicked.startsWith('Always allow reading ') || clicked.startsWith('Always allow writing ')) return { decision: 'alwaysAllowPath' };
  }
  return { decision: 'decline' };
}

/** What the webview sends back for a question card. */
export interface QuestionAnswer {
  selected?: string[];
  text?: string;
  cancelled?: boolean;
}

/**
 * The reply for a question: a single choice, several choices (multi), free text when the
 * question has no options or the user chose "Other…" (issue 33), or cancelled. Choices not among the options are dropped; an empty
 * answer cancels.
 */
export function questionReply(req: QuestionRequest, ans: QuestionAnswer): QuestionReply {
  if (ans.cancelled) return { cancelled: true };
  const options = req.options ?? [];
  if (options.length === 0) {
    const text = (ans.text ?? '').trim();
    return text ? { answer: text } : { cancelled: true };
  }
  const picked = (ans.selected ?? []).filter((s) => options.includes(s));
  // "Other…": the user's own words, beside (multi) or instead of (single) the options.
  const other = (ans.text ?? '').trim();
  if (req.selectionMode === 'multi') {
    const all = other ? [...picked, other] : picked;
    return all.length ? { answers: all } : { cancelled: true };
  }
  if (other) return { answer: other };
  return picked.length ? { answer: picked[0] } : { cancelled: true };
}

/** The reply for a plan: approved, or rejected with optional feedback. */
export function planReply(approved: boolean, feedback?: string): PlanReply {
  const fb = (feedback ?? '').trim();
  if (approved) return fb ? { approved: true, feedback: fb } : { approved: true };
  return fb ? { approved: false, feedback: fb } : { approved: false };
}

/**
 * The reply for a reviewed edit: `after` is what the agent proposed, `accepted` the text the user
 * ended with in the diff editor (hunks reverted, or edited). The content is only sent when it
 * differs, so an untouched review is a plain approval.
 */
export function reviewReply(after: string, accepted: string): ApprovalReply {
  const norm = accepted.replace(/\r\n/g, '\n');
  return norm === after ? { decision: 'approve' } : { decision: 'approve', content: norm };
}

/**
 * "Accept and Allow This Folder" in the diff editor of an edit outside the workspace: the reviewed
 * text as reviewReply sends it, with the path grant (the server writes `content` and grants the
 * file's directory).
 */
export function reviewGrantReply(after: string, accepted: string): ApprovalReply {
  return { ...reviewReply(after, accepted), decision: 'alwaysAllowPath' };
}

/** The reply for a decline, with the user's reason when one was typed. */
export function declineReply(feedback?: string): ApprovalReply {
  const fb = (feedback ?? '').trim();
  return fb ? { decision: 'decline', feedback: fb } : { decision: 'decline' };
}
