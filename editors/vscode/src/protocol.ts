// Types of the pi-lsp native protocol (docs/protocol.md is the reference). The wire types are
// generated from the Go package protocol into protocol.gen.ts (`go generate ./protocol`); this file
// names them as the extension uses them and adds the client's own (decoded ops, context items,
// the tree it builds).
import type * as gen from './protocol.gen';

export type * from './protocol.gen';
export type { PathElem } from './protocol.gen';
import type { PathElem } from './protocol.gen';


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
/** A wire value as the client may hold it: every member may be missing until the server sent it. */
export type DeepPartial<T> = T extends (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** One `display/state` notification: either a full state or ops on the previous version. */
export interface DisplayFrame {
  /** The display stream the version counts in (docs/protocol.md, "Display streams"); absent from old servers. */
  stream?: gen.DisplayFrame['stream'];
  version: gen.DisplayFrame['version'];
  state?: DisplayState;
  /** Ops in their wire form, decoded (and checked) by `decodeOp`. */
  ops?: WireOp[];
}

export interface DisplaySnapshot {
  stream?: gen.DisplaySnapshot['stream'];
  version: gen.DisplaySnapshot['version'];
  state: DisplayState;
}

export type ItemKind = gen.ItemKind;
export type ToolStatus = 'pending' | 'awaiting_approval' | 'running' | 'done' | 'error' | 'declined';

/** A transcript item: the members of its kind (protocol.gen.ts's UserItem, ToolItem, …). */
export type DisplayItem = gen.Item;

/** A subagent's session, agent, status, its own items and its tokens, on the parent's tool item. */
export type DisplayChild = Omit<DeepPartial<gen.Child>, 'items'> & { items?: DisplayItem[] };

/** A tool call's arguments as an object (the wire sends a JSON object; anything else reads as none). */
export function argsOf(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

export type Task = gen.Task;

/** A background job (DisplayState.jobs, jobs/list). */
export type Job = gen.Job;

/**
 * The client's copy of the display state (protocol.gen.ts's DisplayState), built from frames:
 * members may be missing until the first full state arrived.
 */
export type DisplayState = {
  [K in keyof gen.DisplayState]?: K extends 'items' ? DisplayItem[] : K extends 'tasks' ? Task[] : K extends 'jobs' ? Job[] : DeepPartial<gen.DisplayState[K]>;
};

/** The display state's memory field: observational memory's status (docs/memory.md). */
export type MemoryStatus = gen.MemoryStatus;

export type ApprovalRequest = gen.ApprovalParams;
export type ApprovalPreview = gen.Preview;
export type ApprovalDecision = gen.Decision;

export interface ApprovalReply {
  decision: ApprovalDecision;
  /** The whole file as the user accepted it (some hunks rejected, or edited). */
  content?: string;
  /** With decline: the user's reason, for the model. */
  feedback?: string;
}

/** One files/search result. */
export type FileMatch = gen.FileMatch;

/** One agent/prompt context item. */
export type ContextItem =
  | { type: 'file'; path: string; range?: { startLine: number; endLine: number }; text?: string }
  | { type: 'selection'; path: string; range: { startLine: number; endLine: number }; text: string }
  | { type: 'image'; mimeType: string; data: string };

export type QuestionRequest = gen.QuestionParams;

export type QuestionReply = { answer: string } | { answers: string[] } | { cancelled: true };

export type PlanRequest = gen.PlanParams;

export interface PlanReply {
  approved: boolean;
  feedback?: string;
}

// --- attach (issue 17): two clients on one session --------------------------------------------

/** Fields of the `initialize` and `session/open` results when another pi-lsp process owns the session. */
export type AttachInfo = Pick<gen.InitializeResult, 'attached' | 'ownerPid'>;

/** Notification `ui/resolved`: another client answered a prompt first (kind: approval | question | plan). */
export type UiResolved = gen.ResolvedParams;

/** Notification `session/owner`: the session's owner changed (reason: handover | takeover). */
export type SessionOwner = gen.OwnerParams;

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
  chain?: gen.TreeChain | null;
  children?: TreeNode[];
}

/** The tree as the Session view draws it (built from session/tree's flat pages by treeLoad.ts). */
export interface SessionTree {
  leafId: string;
  roots: TreeNode[];
}

/** One node of a session/tree answer (docs/protocol.md): flat, `chain` for a linear run. */
export type FlatTreeNode = gen.TreeNode;

/** A session/tree answer. */
export type FlatTreePage = gen.TreeResult;

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
