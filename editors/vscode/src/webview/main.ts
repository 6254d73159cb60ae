// The chat webview: applies display/state frames forwarded by the extension, draws them, and
// sends the user's input back. Runs in the webview (browser) with no network access.
import { contextPercent, DisplayModel, isRunning as isRunningIn, modeName, touches } from '../displayState';
import { goalLine } from '../goal';
import type { FromWebview, PendingUi, ToWebview } from '../messages';
import type { ContextItem, DisplayItem, DisplayOp, DisplayState } from '../protocol';
import { renderCards } from './cards';
import { renderFilesChanged, renderItem, renderQueue, renderRetry, renderTasks, type OpenSet } from './render';
import { errorActions, liveErrors } from './errors';
import { Completions } from './completions';
import { StoredImages } from './images';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };

const vscode = acquireVsCodeApi();
const post = (m: FromWebview) => vscode.postMessage(m);

function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e;
}

const ui = {
  transcript: $('transcript'),
  mode: $('mode'),
  model: $('model'),
  thinking: $('thinking'),
  phase: $('phase'),
  contextBar: $('context-bar'),
  contextLabel: $('context-label'),
  context: $('context'),
  banner: $('server-banner'),
  tasksPanel: $('tasks-panel'),
  tasks: $('tasks'),
  tasksCount: $('tasks-count'),
  retry: $('retry'),
  compaction: $('compaction'),
  errors: $('errors'),
  pending: $('pending'),
  queue: $('queue'),
  input: $('input') as HTMLTextAreaElement,
  send: $('send') as HTMLButtonElement,
  followup: $('followup') as HTMLButtonElement,
  abort: $('abort') as HTMLButtonElement,
  goal: $('goal'),
  goalText: $('goal-text'),
  goalStop: $('goal-stop') as HTMLButtonElement,
  completions: $('completions'),
  attachments: $('attachments'),
  cost: $('cost'),
};

/** Context attached to the next prompt: selections (Add Selection to pi-lsp) and pasted images. */
const attached: ContextItem[] = [];

function renderAttached(): void {
  ui.attachments.replaceChildren(
    ...attached.map((a, i) => {
      const label = a.type === 'image' ? `image ${a.mimeType}` : `${a.type === 'selection' ? 'sel' : 'file'} ${a.path.split('/').pop()}${a.type === 'selection' ? `:${a.range.startLine}-${a.range.endLine}` : ''}`;
      const chip = document.createElement('span');
      chip.className = `chip chip-${a.type}`;
      chip.textContent = label;
      if (a.type === 'image') chip.prepend(thumbnail(a.mimeType, a.data));
      const x = document.createElement('button');
      x.className = 'chip-remove';
      x.textContent = '×';
      x.title = 'Remove';
      x.addEventListener('click', () => {
        attached.splice(i, 1);
        renderAttached();
      });
      chip.append(x);
      return chip;
    }),
  );
  ui.attachments.classList.toggle('hidden', attached.length === 0);
}

/** A small picture of an image attachment (the chip on the input, and in the sent message). */
function thumbnail(mimeType: string, data: string): HTMLImageElement {
  const img = document.createElement('img');
  img.className = 'thumb';
  img.alt = mimeType;
  if (/^image\/(png|jpeg|gif|webp)$/.test(mimeType)) img.src = `data:${mimeType};base64,${data}`;
  return img;
}

/**
 * The images of prompts sent from this page, oldest first: the state lists an image attachment
 * without its bytes, so the user's message shows the picture kept here (by prompt text).
 */
const sentImages: Array<{ text: string; images: Array<{ mimeType: string; data: string }> }> = [];

/** Images the session keeps (user items read from it, e.g. after a reload). */
const storedImages = new StoredImages(post, thumbnail);

/** Puts thumbnails on the image chips of user messages: sent from this page, or kept by the session. */
function decorateImages(root: ParentNode): void {
  storedImages.decorate(root);
  for (const sent of sentImages) {
    root.querySelectorAll<HTMLElement>('.item.kind-user').forEach((u) => {
      if (u.querySelector('.user-text')?.textContent !== sent.text) return;
      u.querySelectorAll<HTMLElement>('.chip-image').forEach((chip, i) => {
        const img = sent.images[i];
        if (img && !chip.querySelector('img')) chip.prepend(thumbnail(img.mimeType, img.data));
      });
    });
  }
}

const display = new DisplayModel();
const model = {
  get state(): DisplayState {
    return display.state;
  },
  pending: [] as PendingUi[],
  open: new Set<string>() as OpenSet,
  localErrors: [] as string[],
};

function isRunning(): boolean {
  return isRunningIn(model.state);
}

function nearBottom(): boolean {
  const t = ui.transcript;
  return t.scrollHeight - t.scrollTop - t.clientHeight < 40;
}

/**
 * Whether the transcript follows its end (issue 33, bug 10): true until the user scrolls up,
 * and again once they scroll back down. A card, an error or the end of a run that changes the
 * transcript's height keeps the end in view while it follows.
 */
let follow = true;

function scrollDown(): void {
  ui.transcript.scrollTop = ui.transcript.scrollHeight;
}

function keepEnd(): void {
  if (follow) scrollDown();
}

// Any scroll (the user's, or ours to the end) tells whether the end is in view; a change of the
// transcript's own height (a card or an error below it) keeps the end in view while following.
ui.transcript.addEventListener('scroll', () => (follow = nearBottom()), { passive: true });
new ResizeObserver(() => keepEnd()).observe(ui.transcript);

// Older items paged in when the transcript is scrolled to the top (display/history): they live
// in their own box before the state's items, so item indices of ops stay those of the state.
const older = {
  box: (() => {
    const d = document.createElement('div');
    d.id = 'older';
    return d;
  })(),
  /** The cursor of the next older page: undefined = the state's history.before; null = none. */
  before: undefined as string | null | undefined,
  loading: false,
};

function olderCursor(): string | null {
  if (older.before !== undefined) return older.before;
  return model.state.history?.before ?? null;
}

function loadOlder(): void {
  const before = olderCursor();
  if (!before || older.loading) return;
  older.loading = true;
  post({ type: 'older', before });
}

function prependOlder(items: DisplayItem[], before: string | null): void {
  older.loading = false;
  older.before = before;
  const t = ui.transcript;
  const height = t.scrollHeight;
  const have = new Set((model.state.items ?? []).map((it) => it.id));
  older.box.prepend(...items.filter((it) => !have.has(it.id)).map((it) => renderItem(it, model.open)));
  // Keep what the user was looking at in place.
  t.scrollTop += t.scrollHeight - height;
}

function renderTranscript(): void {
  const items = model.state.items ?? [];
  // After each finished turn (the next user message, or the end of the run), the files its
  // edits and writes changed, with their diffs.
  const nodes: Node[] = [];
  let files = new Map<string, DisplayItem[]>();
  let turn = 0;
  const flush = () => {
    if (files.size) nodes.push(renderFilesChanged(files, `turn${turn}:files`, model.open));
    files = new Map();
  };
  for (const it of items) {
    if (it.kind === 'user') {
      flush();
      turn++;
    }
    const node = renderItem(it, model.open);
    if (dismissed.has(`item:${it.id}`)) node.classList.add('hidden');
    // Retry is offered on an error that ended the last run.
    if (it.kind === 'error' && it === items[items.length - 1] && !isRunning()) node.classList.add('retryable');
    nodes.push(node);
    if (it.kind === 'tool' && it.diff && it.path && !it.isError && (it.toolName === 'edit' || it.toolName === 'write')) {
      files.set(it.path, [...(files.get(it.path) ?? []), it]);
    }
  }
  if (!isRunning()) flush();
  const cut = cutOffNote(items);
  if (cut) nodes.push(cut);
  ui.transcript.replaceChildren(older.box, ...nodes);
  decorateImages(ui.transcript);
  if (items.length === 0 && older.box.childElementCount === 0) ui.transcript.append(emptyHint());
}

/** Set when a snapshot showed a run left open (a reload or a stopped server cut it off). */
let cutOff = false;

/** Whether the last item is a turn that never ended: a prompt without an answer, a tool still running. */
function openEnded(items: DisplayItem[]): boolean {
  const last = [...items].reverse().find((it) => it.kind !== 'info');
  if (!last) return false;
  if (last.kind === 'user') return true;
  if (last.kind === 'assistant') return !!last.streaming;
  if (last.kind === 'tool') return ['pending', 'running', 'awaiting_approval'].includes(String(last.status ?? ''));
  return false;
}

/**
 * The mark under a run that was cut off (Missing 1): a snapshot of an idle session whose last
 * turn never ended (a prompt with no answer, a tool still running). An answer that was cut says
 * so itself (its endReason, "client_gone" after a reload).
 */
function cutOffNote(items: DisplayItem[]): HTMLElement | undefined {
  if (isRunning() || !cutOff || !items.length) return undefined;
  const d = document.createElement('div');
  d.className = 'cut-off'; // not an .item: item indices are the state's
  d.textContent = 'This run was cut off (the window reloaded or pi-lsp stopped) before it ended. Send a message to go on.';
  return d;
}

ui.transcript.addEventListener('scroll', () => {
  if (ui.transcript.scrollTop < 40) loadOlder();
});

function emptyHint(): HTMLElement {
  const d = document.createElement('div');
  d.className = 'empty';
  d.textContent = 'Ask pi-lsp to do something in this workspace.';
  return d;
}

function renderItemAt(i: number): void {
  const items = model.state.items ?? [];
  const it = items[i];
  if (!it) return renderTranscript();
  const node = renderItem(it, model.open);
  const children = ui.transcript.querySelectorAll(':scope > .item');
  if (i < children.length) children[i].replaceWith(node);
  else if (i === children.length) {
    ui.transcript.querySelector(':scope > .empty')?.remove();
    ui.transcript.append(node);
  } else renderTranscript();
  if (it.kind === 'user') decorateImages(ui.transcript);
}

function renderHeader(): void {
  const s = model.state;
  ui.mode.textContent = `${modeName(s)}${s.yolo ? ' · yolo' : ''}`;
  if (s.mode?.color && /^#[0-9a-fA-F]{3,8}$/.test(s.mode.color)) ui.mode.style.borderColor = s.mode.color;
  ui.model.textContent = s.model || 'no model';
  ui.thinking.textContent = `thinking: ${s.thinkingLevel ?? 'off'}`;
  ui.phase.textContent = s.status && s.status !== 'idle' ? `${s.status}${s.phase ? ` · ${s.phase}` : ''}` : '';
  ui.phase.className = `phase status-${s.status ?? 'idle'}`;
  const pct = contextPercent(s);
  ui.contextBar.style.width = `${pct ?? 0}%`;
  ui.context.classList.toggle('warn', (pct ?? 0) >= 70);
  ui.context.classList.toggle('full', (pct ?? 0) >= 90);
  const t = s.tokens;
  ui.contextLabel.textContent = pct === undefined ? '' : `${pct}%`;
  ui.context.title = t?.contextWindow ? `Context: ${t.contextTokens ?? 0} / ${t.contextWindow} tokens${t.compactions ? `, ${t.compactions} compactions` : ''}` : 'Context use';
  const cost = (t?.cost as { total?: number } | undefined)?.total;
  const turn = (t?.turnCost as { total?: number } | undefined)?.total;
  ui.cost.textContent = cost ? formatCost(cost) : '';
  ui.cost.title = cost ? `Session cost ${formatCost(cost)}${turn ? `, last turn ${formatCost(turn)}` : ''}; ${t?.input ?? 0} tokens in, ${t?.output ?? 0} out` : '';
  const goal = goalLine(s.goal);
  ui.goal.className = `goal${goal === '' ? ' hidden' : ''} goal-${s.goal?.status ?? 'none'}`;
  ui.goalText.textContent = goal;
  ui.goalStop.hidden = s.goal?.status !== 'active';
  const running = isRunning();
  ui.abort.disabled = !running;
  ui.send.textContent = running ? 'Steer' : 'Send';
  document.body.classList.toggle('running', running);
}

function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : usd >= 0.01 ? `$${usd.toFixed(3)}` : `$${usd.toFixed(4)}`;
}

function renderTaskList(): void {
  const tasks = model.state.tasks ?? [];
  renderTasks(ui.tasks, tasks);
  ui.tasksPanel.classList.toggle('hidden', tasks.length === 0);
  const done = tasks.filter((t) => t.status === 'completed').length;
  // A finished list unpins itself: it folds to its header (and opens again when work starts).
  const finished = tasks.length > 0 && done === tasks.length;
  if (finished !== ui.tasksPanel.classList.contains('finished')) {
    ui.tasksPanel.classList.toggle('finished', finished);
    (ui.tasksPanel as HTMLDetailsElement).open = !finished;
  }
  ui.tasksCount.textContent = tasks.length ? `${done}/${tasks.length}` : '';
}

/** Errors the user dismissed (by text for banners, by item id in the transcript). */
const dismissed = new Set<string>();

/**
 * The bottom error block (issue 33, bug 8): only errors the transcript does not show already,
 * and not once a later prompt was sent; each can be dismissed, a server error has Retry.
 */
function renderErrors(): void {
  const server = liveErrors(model.state, dismissed).map((m) => ({ m, server: true }));
  const local = model.localErrors.filter((m) => !dismissed.has(m)).map((m) => ({ m, server: false }));
  ui.errors.replaceChildren(
    ...[...server, ...local].map(({ m, server }) => {
      const d = document.createElement('div');
      d.className = 'error-banner';
      d.append(Object.assign(document.createElement('span'), { className: 'error-message', textContent: m }));
      d.append(...errorActions(server && !isRunning(), () => post({ type: 'retry' }), () => {
        dismissed.add(m);
        renderErrors();
      }));
      return d;
    }),
  );
}

function renderCompaction(): void {
  const c = model.state.compaction;
  ui.compaction.classList.toggle('hidden', !c);
  const reason = c && typeof c === 'object' && typeof (c as { reason?: unknown }).reason === 'string' ? (c as { reason: string }).reason : '';
  ui.compaction.textContent = c ? `Compacting context${reason ? ` (${reason})` : ''}…` : '';
}

function renderAll(): void {
  follow = true;
  renderHeader();
  renderTranscript();
  renderTaskList();
  renderQueue(ui.queue, model.state);
  renderRetry(ui.retry, model.state.retry);
  renderCompaction();
  renderErrors();
  scrollDown();
}

const SECTION: Record<string, () => void> = {
  tasks: renderTaskList,
  queue: () => renderQueue(ui.queue, model.state),
  retry: () => renderRetry(ui.retry, model.state.retry),
  compaction: renderCompaction,
  errors: renderErrors,
};

/** Re-renders only what the ops touched (the header is cheap and always redrawn). */
function renderOps(ops: DisplayOp[]): void {
  const stick = nearBottom();
  const dirtyItems = new Set<number>();
  const dirtySections = new Set<string>();
  let full = false;
  for (const op of ops) {
    for (const k in SECTION) if (touches(op, k)) dirtySections.add(k);
    // Error items and the run's status decide what the error block shows.
    if (touches(op, 'items') || touches(op, 'status')) dirtySections.add('errors');
    if (op.path.length === 0) {
      // A set or merge at the root: the transcript too when it names the items.
      // A merge that ends the run (status) places the "files changed" summary: redraw all too.
      if (op.op === 'set' || touches(op, 'items') || touches(op, 'status')) full = true;
      continue;
    }
    const [top, idx] = op.path;
    // A run's end or a new turn places a "files changed" summary: redraw all.
    if (top === 'status') full = true;
    if (top === 'items') {
      if (op.path.length === 1) {
        if (op.op === 'push' && (op.value as DisplayItem | undefined)?.kind === 'user') full = true;
        else if (op.op === 'push') dirtyItems.add((model.state.items?.length ?? 1) - 1);
        else full = true;
      } else if (typeof idx === 'number') {
        if (op.op === 'delete' && op.path.length === 2) full = true;
        else dirtyItems.add(idx);
      } else full = true;
    }
  }
  if (full) renderTranscript();
  else [...dirtyItems].sort((a, b) => a - b).forEach(renderItemAt);
  dirtySections.forEach((s) => SECTION[s]());
  renderHeader();
  // A new prompt brings the view back to the end; so does following it.
  if (stick || full) keepEnd();
  if (ops.some((op) => op.op === 'push' && op.path[0] === 'items' && (op.value as DisplayItem | undefined)?.kind === 'user')) {
    cutOff = false;
    follow = true;
    scrollDown();
  }
}

function resync(): void {
  display.synced = false;
  post({ type: 'resync' });
}

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => {
  const m = ev.data;
  if (!m || typeof m !== 'object') return;
  switch (m.type) {
    case 'snapshot':
      display.reset(m.version, m.state ?? {});
      cutOff = !isRunning() && openEnded(model.state.items ?? []);
      // A new state (another session, or the bounded state seeded again): older items are
      // paged in again from its own history marker.
      older.box.replaceChildren();
      older.before = undefined;
      older.loading = false;
      renderAll();
      break;
    case 'history':
      prependOlder(m.items, m.before);
      decorateImages(ui.transcript);
      break;
    case 'image':
      storedImages.arrived(ui.transcript, m.entry, m.index, m.data !== undefined ? { mimeType: m.mimeType ?? '', data: m.data } : undefined);
      break;
    case 'ops': {
      if (!display.synced) return; // a resync is on its way
      const r = display.applyDecoded(m.version, m.ops);
      if (r.kind === 'gap') return resync();
      if (r.kind === 'applied') renderOps(r.ops);
      break;
    }
    case 'pending': {
      // The card takes room from the transcript: its end (the user's prompt, the call) stays in
      // view above the card, and the card's buttons stay in view below it.
      model.pending = m.items;
      renderCards(ui.pending, m.items, post);
      if (m.items.length) follow = true;
      keepEnd();
      break;
    }
    case 'commands':
      completions.setCommands(m.commands);
      break;
    case 'files':
      completions.setFiles(m.query, m.files);
      break;
    case 'addContext':
      attached.push(m.item);
      renderAttached();
      ui.input.focus();
      break;
    case 'server':
      ui.banner.textContent = m.message ?? '';
      ui.banner.className = `banner server-${m.status}${m.message && m.status !== 'ready' ? '' : ' hidden'}`;
      break;
    case 'editorText':
      ui.input.value = m.text;
      ui.input.focus();
      break;
    case 'sendFailed':
      // The prompt was not sent: give it back (unless the user typed something new since).
      if (!ui.input.value.trim()) ui.input.value = m.text;
      for (const c of m.context ?? []) if (c.type !== 'file' || !attached.some((a) => a.type === 'file' && a.path === c.path)) attached.push(c);
      renderAttached();
      model.localErrors = [`Not sent: ${m.message}`];
      renderErrors();
      ui.input.focus();
      break;
    case 'resend':
      send(m.behavior);
      break;
    case 'error':
      model.localErrors = [m.message];
      renderErrors();
      setTimeout(() => {
        model.localErrors = model.localErrors.filter((e) => e !== m.message);
        renderErrors();
      }, 15000);
      break;
  }
});

const completions = new Completions(ui.input, ui.completions, () => post({ type: 'commands' }));
completions.searchFiles = (query) => post({ type: 'searchFiles', query });

function send(behavior: 'steer' | 'followUp'): void {
  const text = ui.input.value.trim();
  if (!text) return;
  const context: ContextItem[] = [...attached];
  for (const p of completions.mentioned) {
    if (text.includes(`@${p}`)) context.push({ type: 'file', path: p });
  }
  completions.mentioned.clear();
  const images = context.flatMap((c) => (c.type === 'image' ? [{ mimeType: c.mimeType, data: c.data }] : []));
  if (images.length) {
    sentImages.push({ text, images });
    if (sentImages.length > 20) sentImages.shift();
  }
  attached.length = 0;
  renderAttached();
  post(context.length ? { type: 'send', text, behavior, context } : { type: 'send', text, behavior });
  ui.input.value = '';
  completions.hide();
  model.localErrors = [];
  renderErrors();
}

ui.input.addEventListener('keydown', (e) => {
  if (completions.handleKey(e)) return;
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send('steer');
  } else if (e.key === 'Escape' && isRunning()) {
    e.preventDefault();
    post({ type: 'abort' });
  }
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && e.target !== ui.input && isRunning()) post({ type: 'abort' });
});
ui.send.addEventListener('click', () => send('steer'));
ui.followup.addEventListener('click', () => send('followUp'));
ui.abort.addEventListener('click', () => post({ type: 'abort' }));
ui.goalStop.addEventListener('click', () => post({ type: 'goalStop' }));
ui.mode.addEventListener('click', () => post({ type: 'runCommand', command: 'piLsp.selectMode' }));
ui.model.addEventListener('click', () => post({ type: 'runCommand', command: 'piLsp.selectModel' }));
ui.thinking.addEventListener('click', () => post({ type: 'runCommand', command: 'piLsp.thinkingLevel' }));
// Images pasted or dropped into the input are attached to the next prompt.
function attachImages(files: FileList | null | undefined): boolean {
  let any = false;
  for (const f of Array.from(files ?? [])) {
    if (!f.type.startsWith('image/')) continue;
    any = true;
    const r = new FileReader();
    r.onload = () => {
      const data = String(r.result).replace(/^data:[^,]*,/, '');
      attached.push({ type: 'image', mimeType: f.type, data });
      renderAttached();
    };
    r.readAsDataURL(f);
  }
  return any;
}
ui.input.addEventListener('paste', (e) => {
  if (attachImages(e.clipboardData?.files)) e.preventDefault();
});
ui.input.addEventListener('drop', (e) => {
  if (attachImages(e.dataTransfer?.files)) e.preventDefault();
});

// A queued message: Remove drops it; Edit turns its row into a box (Enter saves, Esc cancels).
ui.queue.addEventListener('click', (e) => {
  const b = (e.target as Element | null)?.closest?.('button.queued-edit, button.queued-remove') as HTMLElement | null;
  const row = b?.closest('.queued') as HTMLElement | null;
  if (!b || !row) return;
  const at = { queue: row.dataset.queue as 'steering' | 'followUp', index: Number(row.dataset.index), expect: row.dataset.text ?? '' };
  if (b.classList.contains('queued-remove')) return post({ type: 'editQueue', ...at });
  const box = document.createElement('textarea');
  box.className = 'queued-editor';
  box.rows = 2;
  box.value = at.expect;
  box.addEventListener('keydown', (k) => {
    if (k.key === 'Enter' && !k.shiftKey) {
      k.preventDefault();
      if (box.value.trim()) post({ type: 'editQueue', ...at, text: box.value });
      else post({ type: 'editQueue', ...at });
    } else if (k.key === 'Escape') {
      k.preventDefault();
      k.stopPropagation();
      renderQueue(ui.queue, model.state);
    }
  });
  row.replaceChildren(box);
  box.focus();
});

document.addEventListener('click', (e) => {
  const act = (e.target as Element | null)?.closest?.('button.error-retry, button.error-dismiss') as HTMLElement | null;
  if (act?.dataset.item) {
    e.preventDefault();
    if (act.classList.contains('error-retry')) post({ type: 'retry' });
    else {
      dismissed.add(`item:${act.dataset.item}`);
      act.closest('.item')?.classList.add('hidden');
    }
    return;
  }
  const rewind = (e.target as Element | null)?.closest?.('button.rewind') as HTMLElement | null;
  if (rewind?.dataset.rewind) {
    e.preventDefault();
    post({ type: 'rewind', itemId: rewind.dataset.rewind });
    return;
  }
  const open = (e.target as Element | null)?.closest?.('button.open-child') as HTMLElement | null;
  if (open?.dataset.session) {
    e.preventDefault();
    post({ type: 'openSession', path: open.dataset.session });
    return;
  }
  const t = e.target as Element | null;
  const file = t?.closest?.('.file-link') as HTMLElement | null;
  if (file?.dataset.path) {
    e.preventDefault();
    e.stopPropagation();
    const line = Number(file.dataset.line);
    post(line > 0 ? { type: 'openFile', path: file.dataset.path, line } : { type: 'openFile', path: file.dataset.path });
    return;
  }
  const codeBtn = t?.closest?.('.code-copy, .code-insert') as HTMLElement | null;
  if (codeBtn) {
    const code = codeBtn.closest('.code-block')?.querySelector('pre code')?.textContent ?? '';
    post({ type: codeBtn.classList.contains('code-copy') ? 'copy' : 'insert', text: code });
    if (codeBtn.classList.contains('code-copy')) {
      codeBtn.textContent = 'Copied';
      setTimeout(() => (codeBtn.textContent = 'Copy'), 1500);
    }
    return;
  }
  const a = t?.closest?.('a');
  if (!a) return;
  e.preventDefault();
  const href = a.getAttribute('href');
  if (href) post({ type: 'openLink', href });
});

renderAll();
post({ type: 'ready' });
