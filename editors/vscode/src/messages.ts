// Messages between the extension host and the chat webview (both directions). Types only.
import type { ApprovalDecision, ApprovalRequest, CommandInfo, ContextItem, DisplayItem, DisplayOp, DisplayState, FileMatch, PlanRequest, QuestionRequest } from './protocol';
import type { QuestionAnswer } from './replies';

/** A server → client request waiting for the user, shown as a card in the chat. */
export type PendingUi =
  | { key: string; kind: 'approval'; req: ApprovalRequest }
  | { key: string; kind: 'question'; req: QuestionRequest }
  | { key: string; kind: 'plan'; req: PlanRequest };

export type ServerStatus = 'stopped' | 'starting' | 'ready' | 'crashed' | 'failed';

export type ToWebview =
  | { type: 'snapshot'; version: number; state: DisplayState }
  | { type: 'ops'; version: number; ops: DisplayOp[] }
  | { type: 'pending'; items: PendingUi[] }
  | { type: 'commands'; commands: CommandInfo[] }
  | { type: 'server'; status: ServerStatus; message?: string }
  | { type: 'editorText'; text: string }
  | { type: 'files'; query: string; files: FileMatch[] }
  | { type: 'addContext'; item: ContextItem }
  | { type: 'history'; items: DisplayItem[]; before: string | null }
  | { type: 'error'; message: string }
  /** A prompt that could not be sent: its text and context go back into the input. */
  | { type: 'sendFailed'; text: string; context?: ContextItem[]; message: string }
  /** Retry of a failed send: send what the input holds. */
  | { type: 'resend'; behavior: 'steer' | 'followUp' }
  /** The answer to a FromWebview image: the picture (session/image), or no data when it is gone. */
  | { type: 'image'; entry: string; index: number; mimeType?: string; data?: string };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'resync' }
  | { type: 'send'; text: string; behavior: 'steer' | 'followUp'; context?: ContextItem[] }
  | { type: 'abort' }
  | { type: 'goalStop' }
  | { type: 'approval'; key: string; decision: ApprovalDecision; feedback?: string }
  | { type: 'review'; key: string }
  | { type: 'searchFiles'; query: string }
  | { type: 'openFile'; path: string; line?: number }
  | { type: 'copy'; text: string }
  | { type: 'insert'; text: string }
  | { type: 'answer'; key: string; answer: QuestionAnswer }
  | { type: 'plan'; key: string; approved: boolean; feedback?: string }
  | { type: 'commands' }
  | { type: 'runCommand'; command: string }
  | { type: 'openLink'; href: string }
  | { type: 'older'; before: string }
  /** Retry after a provider error (agent/retry). */
  | { type: 'retry' }
  /** Edit (text) or remove (no text) a queued message that still reads `expect` (agent/editQueue). */
  | { type: 'editQueue'; queue: 'steering' | 'followUp'; index: number; expect: string; text?: string }
  | { type: 'openSession'; path: string }
  /** The picture of an image the session keeps (an attachment's image ref). */
  | { type: 'image'; entry: string; index: number }
  | { type: 'rewind'; itemId: string };
