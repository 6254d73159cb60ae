// Mapping what the user clicked (in the chat card or a notification) to the replies of
// ui/requestApproval, ui/askQuestion and ui/approvePlan (docs/protocol.md). No dependencies.
import type { ApprovalDecision, ApprovalReply, PlanReply, QuestionReply, QuestionRequest } from './protocol';

/** The four buttons of an approval card, in the order they are shown. */
export const APPROVAL_BUTTONS: ReadonlyArray<{ choice: ApprovalDecision; label: string }> = [
  { choice: 'approve', label: 'Approve' },
  { choice: 'decline', label: 'Decline' },
  { choice: 'alwaysAllowTool', label: 'Always this tool' },
  { choice: 'alwaysAllowCategory', label: 'Always this category' },
];

const DECISIONS = new Set<string>(APPROVAL_BUTTONS.map((b) => b.choice));

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
 * question has no options, or cancelled. Choices not among the options are dropped; an empty
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
  if (req.selectionMode === 'multi') {
    return picked.length ? { answers: picked } : { cancelled: true };
  }
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

/** The reply for a decline, with the user's reason when one was typed. */
export function declineReply(feedback?: string): ApprovalReply {
  const fb = (feedback ?? '').trim();
  return fb ? { decision: 'decline', feedback: fb } : { decision: 'decline' };
}
