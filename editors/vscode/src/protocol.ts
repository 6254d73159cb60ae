// Types of the pi-lsp native protocol (docs/protocol.md is the reference).
// Only the fields the extension reads are typed; everything else passes through untouched.

export type PathElem = string | number;

/** An op as the extension handles it (decoded from its wire form by `decodeOp`). */
export interface DisplayOp {
  op: 'set' | 'append' | 'push' | 'delete' | 'merge';
  path: PathElem[];
  value?: unknown;
}

/**
 * An op as sent on the wire: `[code, path, value]`, or `[code, path]` for delete, with codes
 * `s` set, `a` append, `p` push, `d` delete, `m` merge (set each key of an object).
 */
export type WireOp = unknown[];

/** One `display/state` notification: either a full state or ops on the previous version. */
export interface DisplayFrame {
  version: number;
  state?: DisplayState;
  ops?: WireOp[];
}

export interface DisplaySnapshot {
  version: number;
  state: DisplayState;
}

export type ItemKind = 'user' | 'assistant' | 'tool' | 'bash' | 'summary' | 'error' | 'info';
export type ToolStatus = 'pending' | 'awaiting_approval' | 'running' | 'done' | 'error' | 'declined';

export interface DisplayItem {
  id: string;
  kind: ItemKind | string;
  text?: string;
  thinking?: string;
  streaming?: boolean;
  toolName?: string;
  args?: Record<string, unknown>;
  status?: ToolStatus | string;
  output?: string;
  diff?: string;
  path?: string;
  isError?: boolean;
  command?: string;
  exitCode?: number;
  /** A subagent tool item: the child's live activity (docs/subagents.md). */
  child?: DisplayChild;
  [key: string]: unknown;
}

/** A subagent's session, agent, status, its own items and its tokens, on the parent's tool item. */
export interface DisplayChild {
  session: string;
  sessionId?: string;
  agent: string;
  fork?: boolean;
  model?: string;
  status: 'running' | 'done' | 'error' | 'aborted' | string;
  items: DisplayItem[];
  /** Items dropped from the front of `items` (the state keeps the latest ~100). */
  older?: number;
  tokens?: { input?: number; output?: number; total?: number; [k: string]: unknown };
}

export interface Task {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | string;
  activeForm?: string;
}

export interface QueuedMessage {
  text?: string;
  [key: string]: unknown;
}

export interface DisplayState {
  session?: { id?: string; path?: string; name?: string; cwd?: string };
  status?: string;
  phase?: string;
  mode?: { id?: string; name?: string; color?: string };
  yolo?: boolean;
  /** Sandbox of commands: workspace-write | read-only | off | unavailable. */
  sandbox?: string;
  model?: string;
  thinkingLevel?: string;
  items?: DisplayItem[];
  /** Older items than the state holds (the state is bounded): display/history's first cursor. */
  history?: { older: number; before: string } | null;
  pending?: { approval?: unknown; question?: unknown; plan?: unknown };
  tasks?: Task[];
  queue?: { steering?: Array<string | QueuedMessage>; followUp?: Array<string | QueuedMessage> };
  tokens?: { contextTokens?: number; contextWindow?: number; compactions?: number; [k: string]: unknown };
  modifiedFiles?: unknown[];
  errors?: Array<string | { message?: string; [k: string]: unknown }>;
  retry?: { attempt?: number; maxAttempts?: number; delayMs?: number; message?: string; error?: string; [k: string]: unknown } | null;
  compaction?: unknown;
  memory?: MemoryStatus | null;
  [key: string]: unknown;
}

/** The display state's memory field: observational memory's status (docs/memory.md). */
export interface MemoryStatus {
  mode?: string;
  observedMessages?: number;
  observationTokens?: number;
  bufferedChunks?: number;
  bufferedTokens?: number;
  unobservedTokens?: number;
  observeTokens?: number;
  reflectTokens?: number;
  observing?: boolean;
  reflecting?: boolean;
  lastReflection?: { tokensBefore?: number; tokens?: number; level?: number; at?: number } | null;
  lastError?: string;
}

export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  category?: string;
  args?: Record<string, unknown>;
  display?: string;
  /** The call reads or writes resolvedPath (links resolved) outside the workspace roots. */
  outsideWorkspace?: boolean;
  resolvedPath?: string;
  access?: 'read' | 'write';
  /** Set when a subagent's call asks: the agent and the parent's subagent tool call. */
  subagent?: { agent: string; toolCallId: string; session?: string };
  /** For edit and write: the change the call would make (docs/protocol.md). */
  preview?: ApprovalPreview;
}

export interface ApprovalPreview {
  path: string;
  before: string;
  after: string;
  diff: string;
  newFile?: boolean;
  /** before/after left out (too large, or a secret): answer with a decision only. */
  cut?: boolean;
  cutReason?: string;
}

export type ApprovalDecision = 'approve' | 'decline' | 'alwaysAllowTool' | 'alwaysAllowCategory' | 'alwaysAllowPath';

export interface ApprovalReply {
  decision: ApprovalDecision;
  /** The whole file as the user accepted it (some hunks rejected, or edited). */
  content?: string;
  /** With decline: the user's reason, for the model. */
  feedback?: string;
}

/** One files/search result. */
export interface FileMatch {
  path: string;
  abs: string;
  score: number;
  positions: number[];
}

/** One agent/prompt context item. */
export type ContextItem =
  | { type: 'file'; path: string; range?: { startLine: number; endLine: number }; text?: string }
  | { type: 'selection'; path: string; range: { startLine: number; endLine: number }; text: string }
  | { type: 'image'; mimeType: string; data: string };

export interface QuestionRequest {
  id: string;
  question: string;
  options?: string[];
  selectionMode?: 'single' | 'multi' | string;
}

export type QuestionReply = { answer: string } | { answers: string[] } | { cancelled: true };

export interface PlanRequest {
  id: string;
  title?: string;
  plan: string;
}

export interface PlanReply {
  approved: boolean;
  feedback?: string;
}

// --- attach (issue 17): two clients on one session --------------------------------------------

/** Fields of the `initialize` and `session/open` results when another pi-lsp process owns the session. */
export interface AttachInfo {
  attached?: boolean;
  ownerPid?: number;
}

/** Notification `ui/resolved`: another client answered a prompt first. */
export interface UiResolved {
  /** The approval's toolCallId, or the question's or plan's id. */
  requestId: string;
  kind: 'approval' | 'question' | 'plan';
  /** The decision or answer, as the answering client sent it. */
  outcome: unknown;
  /** The answering client's clientInfo.name. */
  by: string;
}

/** Notification `session/owner`: the session's owner changed. */
export interface SessionOwner {
  pid: number;
  reason: 'handover' | 'takeover';
}

export interface SessionInfo {
  id: string;
  path: string;
  cwd?: string;
  name?: string;
  firstMessage?: string;
  created?: string;
  modified?: string;
  entryCount?: number;
  parentSession?: string;
  /** session/list: a short title (the name, else the first prompt's first line). */
  title?: string;
  fork?: boolean;
  current?: boolean;
}

export interface TreeNode {
  id: string;
  parentId?: string;
  type?: string;
  role?: string;
  preview?: string;
  label?: string;
  timestamp?: string;
  onBranch?: boolean;
  /** session/tree: the number of the node's own children. */
  childCount?: number;
  /** session/tree: set on the first node of a linear run. */
  chain?: { length: number; lastId: string; lastChildCount: number };
  children?: TreeNode[];
}

/** The tree as the Session view draws it (built from session/tree's flat pages by treeLoad.ts). */
export interface SessionTree {
  leafId: string;
  roots: TreeNode[];
}

/** One node of a session/tree answer (docs/protocol.md): flat, `chain` for a linear run. */
export interface FlatTreeNode {
  id: string;
  parentId: string;
  type: string;
  role?: string;
  preview: string;
  label?: string;
  timestamp: string;
  onBranch: boolean;
  childCount: number;
  chain?: { length: number; lastId: string; lastChildCount: number };
}

/** A session/tree answer. */
export interface FlatTreePage {
  nodes: FlatTreeNode[];
  leafId: string;
  next: string | null;
}

export interface ModelInfo {
  provider: string;
  id: string;
  name?: string;
  contextWindow?: number;
  maxTokens?: number;
  reasoning?: boolean;
  authenticated?: boolean;
}

export interface ModeInfo {
  id: string;
  name?: string;
  color?: string;
  model?: string;
}

export interface CommandInfo {
  name: string;
  description?: string;
  kind?: string;
}

/** JSON-RPC error codes of docs/protocol.md. */
export const ErrorCodes = {
  ServerNotInitialized: -32002,
  Busy: -32001,
  NoModel: -32003,
  SessionLocked: -32004,
  NotFound: -32005,
  RequestCancelled: -32800,
} as const;

export const THINKING_LEVELS = ['off', 'low', 'medium', 'high', 'xhigh'] as const;
