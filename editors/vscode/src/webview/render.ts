// DOM builders for the chat: transcript items, tasks, queue, errors. Text from the server is set
// with textContent; only markdown goes through renderMarkdown (which emits no raw HTML).
import { queuedText } from '../displayState';
import type { DisplayChild, DisplayItem, DisplayState, Task } from '../protocol';
import { argsOf } from '../protocol';
import { renderMarkdown } from './markdown';
import { argsView } from './argsView';
import { renderOutput } from './output';

/** Remembers which collapsible parts the user opened, across re-renders. */
export type OpenSet = Set<string>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function collapsible(key: string, open: OpenSet, cls: string, summary: Node[], body: Node[], defaultOpen = false): HTMLDetailsElement {
  const d = el('details', cls);
  d.dataset.key = key;
  d.open = open.has(key) || (defaultOpen && !open.has(`!${key}`));
  const s = el('summary');
  s.append(...summary);
  d.append(s, ...body);
  // Opening it here queues a toggle event too: that one is not the user's.
  let initial = d.open;
  d.addEventListener('toggle', () => {
    if (initial && d.open) {
      initial = false;
      return;
    }
    initial = false;
    if (d.open) {
      open.add(key);
      open.delete(`!${key}`);
    } else {
      open.delete(key);
      open.add(`!${key}`);
    }
  });
  return d;
}

const STATUS_ICON: Record<string, string> = {
  pending: '○',
  awaiting_approval: '?',
  running: '◌',
  done: '✓',
  error: '✗',
  declined: '⊘',
};

const STATUS_LABEL: Record<string, string> = {
  pending: 'pending',
  awaiting_approval: 'awaiting approval',
  running: 'running',
  done: 'done',
  error: 'error',
  declined: 'declined',
};

/** The argument that best names a tool call (a path, a command, a pattern…), shortened. */
export function toolSubject(item: DisplayItem): string {
  const a = argsOf(item.args);
  for (const k of ['path', 'file_path', 'command', 'pattern', 'query', 'url', 'name']) {
    const v = a[k];
    if (typeof v === 'string' && v) return shorten(v, 80);
  }
  if (item.path) return shorten(item.path, 80);
  const first = Object.values(a).find((v) => typeof v === 'string');
  return typeof first === 'string' ? shorten(first, 80) : '';
}

function shorten(s: string, n: number): string {
  const line = s.split('\n')[0];
  return line.length > n ? `${line.slice(0, n - 1)}…` : line;
}

/** A unified diff as coloured lines. */
export function renderDiff(diff: string): HTMLElement {
  const pre = el('pre', 'diff');
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    let cls = 'ctx';
    if (line.startsWith('+++') || line.startsWith('---')) cls = 'file';
    else if (line.startsWith('@@')) cls = 'hunk';
    else if (line.startsWith('+')) cls = 'add';
    else if (line.startsWith('-')) cls = 'del';
    pre.append(el('span', `dl ${cls}`, line || ' '));
  }
  return pre;
}

function markdown(text: string, cls: string): HTMLElement {
  const div = el('div', `markdown ${cls}`);
  div.innerHTML = renderMarkdown(text);
  return div;
}

function renderTool(item: DisplayItem, open: OpenSet): HTMLElement {
  const status = String(item.status ?? 'pending');
  const b = toolBadge(item);
  const icon = el('span', `icon ${b.cls}`, b.icon);
  const name = el('span', 'tool-name', item.toolName ?? 'tool');
  const subject = el('span', 'tool-subject', toolSubject(item));
  const filePath = typeof item.path === 'string' && item.path ? item.path : typeof argsOf(item.args).path === 'string' ? (argsOf(item.args).path as string) : '';
  if (filePath && (item.toolName === 'edit' || item.toolName === 'write' || item.toolName === 'read')) {
    // The path opens the file (the click does not toggle the details).
    subject.classList.add('file-link');
    subject.dataset.path = filePath;
    subject.title = `Open ${filePath}`;
  }
  const badge = el('span', `badge ${b.cls}`, b.label);
  if (b.title) badge.title = b.title;
  const body: Node[] = [];
  if (item.outcome === 'declined' && item.reason) body.push(el('div', 'tool-reason', `Declined: ${item.reason}`));
  if (item.outcome === 'interrupted') body.push(el('div', 'tool-reason', endReasonText(item.reason)));
  if (item.diff) body.push(renderDiff(item.diff));
  else body.push(...argsNodes(item.toolName, item.args));
  if (item.output) body.push(renderOutput(item.output, !!item.isError).block);
  const d = collapsible(`${item.id}:tool`, open, `tool status-${status}${item.isError ? ' is-error' : ''}`, [icon, name, subject, badge], body);
  return d;
}

/** A call's arguments as people read them: a command, a diff, or "key: value" lines (bug 6). */
export function argsNodes(toolName: string | undefined, args: unknown): Node[] {
  const v = argsView(toolName, args);
  if (v.kind === 'command') return [el('pre', 'args args-command', `$ ${v.text}`)];
  if (v.kind === 'diff') return [renderDiff(v.diff)];
  if (v.kind === 'lines') return [el('pre', 'args', v.text)];
  return [];
}

/** The "Full output: /path" line of a cut output, shown under the item even when it is folded. */
function fullOutput(item: DisplayItem): HTMLElement | undefined {
  return item.output ? renderOutput(item.output, !!item.isError).full : undefined;
}

/** The new problems a tool's change made, under its item (always visible). */
export function renderDiagnostics(lines: string[]): HTMLElement {
  const box = el('div', 'tool-diagnostics');
  for (const line of lines) {
    const sev = / error: /.test(line) ? 'error' : / warning: /.test(line) ? 'warning' : 'note';
    box.append(el('div', `diagnostic diagnostic-${sev}`, line));
  }
  return box;
}

const CHILD_ICON: Record<string, string> = { running: '◌', done: '✓', error: '✗', aborted: '⊘' };

function tokenText(t: DisplayChild['tokens']): string {
  const input = Number(t?.input ?? 0);
  const output = Number(t?.output ?? 0);
  return input || output ? `${input + output} tokens` : '';
}

/**
 * A subagent's nested card under its tool item: the agent, its status and tokens in the summary,
 * its own transcript inside (open while it runs, collapsed once it is done unless the user opened
 * it), and a button that opens the child's session.
 */
export function renderChild(parent: DisplayItem, child: DisplayChild, open: OpenSet): HTMLElement {
  const status = String(child.status ?? 'running');
  const summary: Node[] = [
    el('span', `icon status-${status}`, CHILD_ICON[status] ?? '•'),
    el('span', 'child-agent', child.agent || 'subagent'),
    el('span', 'child-kind', child.fork ? 'fork' : 'subagent'),
    el('span', `badge status-${status}`, status),
    el('span', 'child-tokens', tokenText(child.tokens)),
  ];
  const items = el('div', 'child-items');
  if (Number(child.older) > 0) items.append(el('div', 'child-older', `… ${child.older} earlier items: open the session to see them`));
  for (const ci of child.items ?? []) {
    // Keys are per parent, so two children's open parts never collide.
    const node = renderItem({ ...ci, id: `${parent.id}/${ci.id}`, child: undefined }, open);
    items.append(node);
  }
  const body: Node[] = [items];
  if (child.session) {
    const btn = el('button', 'open-child', 'Open session');
    btn.title = child.session;
    btn.dataset.session = child.session;
    body.push(btn);
  }
  const card = collapsible(`${parent.id}:child`, open, `subagent-card status-${status}`, summary, body, status === 'running');
  card.dataset.session = child.session ?? '';
  return card;
}

function summaryTitle(item: DisplayItem): string {
  const k = typeof item.summaryKind === 'string' ? item.summaryKind : '';
  if (k === 'compaction') return 'Compaction summary';
  if (k === 'branch_summary' || k === 'branch') return 'Branch summary';
  return k ? `Summary (${k})` : 'Summary';
}

/**
 * The plan title of a user item the server marked as the plan hand-over (`note: "plan_handover"`,
 * the title in `planTitle`), or undefined for any other item. Both come from the state.
 */
export function planHandover(item: DisplayItem): string | undefined {
  if (item.kind !== 'user' || item.note !== 'plan_handover') return undefined;
  return String(item.planTitle ?? '');
}

/** Why a run ended, as a few words after "interrupted" (docs/protocol.md, "Display facts"). */
export function endReasonText(reason: string | undefined): string {
  switch (reason) {
    case 'client_gone':
      return 'interrupted: the client went away';
    case 'error':
      return 'interrupted by an error';
    default:
      return 'interrupted by Stop';
  }
}

/** The badge of a tool item: a plan's verdict, else its outcome, else its status. */
export function toolBadge(item: DisplayItem): { cls: string; icon: string; label: string; title: string } {
  const status = String(item.status ?? 'pending');
  if (item.verdict === 'approved') return { cls: 'verdict-approved', icon: '✓', label: 'approved', title: 'The plan was approved' };
  if (item.verdict === 'rejected') return { cls: 'verdict-rejected', icon: '✗', label: 'rejected', title: 'The plan was rejected' };
  if (item.outcome === 'interrupted') {
    return { cls: 'status-error outcome-interrupted', icon: '⊘', label: 'interrupted', title: endReasonText(item.reason) };
  }
  if (item.outcome === 'declined') {
    return { cls: 'status-declined', icon: STATUS_ICON.declined, label: 'declined', title: item.reason ? `Declined: ${item.reason}` : 'Declined' };
  }
  return { cls: `status-${status}`, icon: STATUS_ICON[status] ?? '•', label: STATUS_LABEL[status] ?? status, title: '' };
}

/** One transcript item. */
export function renderItem(item: DisplayItem, open: OpenSet): HTMLElement {
  const handover = planHandover(item);
  if (handover !== undefined) {
    const note = el('div', 'item kind-info plan-handover');
    note.dataset.id = item.id;
    note.append(el('div', 'info-text', `Plan approved${handover ? `: ${handover}` : ''} — building in Build mode`));
    return note;
  }
  const wrap = el('div', `item kind-${item.kind}`);
  wrap.dataset.id = item.id;
  switch (item.kind) {
    case 'user': {
      wrap.append(el('div', 'user-text', item.text ?? ''));
      const rewind = el('button', 'rewind', 'Rewind to here');
      rewind.title = "Put the files (and the conversation) back as they were before this message";
      rewind.dataset.rewind = item.id;
      wrap.append(rewind);
      const att = Array.isArray(item.attachments) ? (item.attachments as Array<{ type?: string; path?: string; lines?: string; image?: { entry: string; index: number } | null }>) : [];
      if (att.length) {
        const row = el('div', 'attachments');
        for (const a of att) {
          const chip = el('span', `chip chip-${a.type ?? 'file'}`, `${a.type === 'image' ? 'image' : a.type === 'selection' ? 'sel' : 'file'} ${a.path ?? ''}${a.lines ? `:${a.lines}` : ''}`);
          if (a.type !== 'image' && a.path) {
            chip.classList.add('file-link');
            chip.dataset.path = a.path;
            if (a.lines) chip.dataset.line = a.lines.split('-')[0];
          }
          if (a.type === 'image' && a.image) {
            // Kept by the session: the picture is fetched when shown (webview/images.ts).
            chip.dataset.imageEntry = a.image.entry;
            chip.dataset.imageIndex = String(a.image.index);
          }
          row.append(chip);
        }
        wrap.append(row);
      }
      break;
    }
    case 'assistant': {
      if (item.thinking) {
        wrap.append(collapsible(`${item.id}:thinking`, open, 'thinking', [el('span', '', 'Thinking')], [el('div', 'thinking-text', item.thinking)]));
      }
      if (item.text) wrap.append(markdown(item.text, 'answer'));
      if (item.streaming) wrap.append(el('span', 'cursor', '▍'));
      if (item.status === 'interrupted') wrap.append(el('div', 'interrupted', endReasonText(item.endReason)));
      break;
    }
    case 'tool':
      wrap.append(renderTool(item, open));
      {
        const full = fullOutput(item);
        if (full) wrap.append(full);
      }
      if (item.diagnostics?.length) wrap.append(renderDiagnostics(item.diagnostics));
      if (item.child) wrap.append(renderChild(item, item.child, open));
      break;
    case 'bash': {
      const cmd = String(item.command ?? (argsOf(item.args).command as string | undefined) ?? item.text ?? '');
      const body: Node[] = [];
      if (item.output) body.push(renderOutput(item.output, false).block);
      if (typeof item.exitCode === 'number') body.push(el('div', 'exit', `exit code ${item.exitCode}`));
      wrap.append(collapsible(`${item.id}:bash`, open, 'tool bash', [el('span', 'tool-name', '$'), el('span', 'tool-subject', shorten(cmd, 100))], body));
      const full = fullOutput(item);
      if (full) wrap.append(full);
      break;
    }
    case 'summary':
      wrap.append(
        collapsible(`${item.id}:summary`, open, 'summary', [el('span', '', summaryTitle(item))], [markdown(item.text ?? '', 'summary-text')]),
      );
      break;
    case 'error': {
      // Shown once, here (not again in the bottom block), with Retry and a dismiss (bug 8).
      wrap.append(el('div', 'error-text', item.text ?? 'error'));
      const row = el('div', 'error-actions');
      const retry = el('button', 'error-retry', 'Retry');
      retry.title = 'Run again from here (agent/retry)';
      const close = el('button', 'error-dismiss', '×');
      close.title = 'Dismiss';
      retry.dataset.item = item.id;
      close.dataset.item = item.id;
      row.append(retry, close);
      wrap.append(row);
      break;
    }
    default:
      wrap.append(el('div', 'info-text', item.text ?? ''));
  }
  return wrap;
}

/** A turn's "files changed" summary: each file once (a link), with its diffs folded. */
export function renderFilesChanged(files: Map<string, DisplayItem[]>, key: string, open: OpenSet): HTMLElement {
  const rows: Node[] = [];
  for (const [p, tools] of files) {
    const link = el('span', 'file-link', p.split('/').slice(-2).join('/'));
    link.dataset.path = p;
    link.title = `Open ${p}`;
    const adds = tools.reduce((n, t) => n + (t.diff ?? '').split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).length, 0);
    const dels = tools.reduce((n, t) => n + (t.diff ?? '').split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---')).length, 0);
    rows.push(
      collapsible(`${key}:${p}`, open, 'turn-file', [link, el('span', 'diffstat', ` +${adds} −${dels}`)], tools.map((t) => renderDiff(t.diff ?? ''))),
    );
  }
  const n = files.size;
  return collapsible(key, open, 'turn-files', [el('span', '', `${n} file${n === 1 ? '' : 's'} changed`)], rows);
}

const TASK_ICON: Record<string, string> = { pending: '○', in_progress: '◐', completed: '●' };

export function renderTasks(list: HTMLElement, tasks: Task[]): void {
  list.replaceChildren(
    ...tasks.map((t) => {
      const li = el('li', `task task-${t.status}`);
      li.dataset.id = t.id;
      li.append(el('span', 'task-icon', TASK_ICON[t.status] ?? '○'), el('span', 'task-text', t.status === 'in_progress' && t.activeForm ? t.activeForm : t.content));
      return li;
    }),
  );
}

export function renderQueue(box: HTMLElement, state: DisplayState): void {
  const steering = state.queue?.steering ?? [];
  const followUp = state.queue?.followUp ?? [];
  const rows: HTMLElement[] = [];
  steering.forEach((m, i) => rows.push(queueRow('steer', 'steering', i, queuedText(m))));
  followUp.forEach((m, i) => rows.push(queueRow('follow-up', 'followUp', i, queuedText(m))));
  box.replaceChildren(...rows);
  box.classList.toggle('hidden', rows.length === 0);
}

/** One queued message, with Edit and Remove (agent/editQueue, issue 33 Missing 6). */
function queueRow(kind: string, queue: string, index: number, text: string): HTMLElement {
  const r = el('div', `queued queued-${kind}`);
  r.dataset.queue = queue;
  r.dataset.index = String(index);
  r.dataset.text = text;
  const edit = el('button', 'queued-edit', '✎');
  edit.title = 'Edit this message before it is delivered';
  const remove = el('button', 'queued-remove', '×');
  remove.title = 'Remove it from the queue';
  r.append(el('span', 'queued-kind', kind), el('span', 'queued-text', shorten(text, 200)), edit, remove);
  return r;
}

export function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object') {
    const m = (e as { text?: unknown; message?: unknown }).text ?? (e as { message?: unknown }).message;
    if (typeof m === 'string') return m;
  }
  return JSON.stringify(e);
}

export function renderRetry(box: HTMLElement, retry: DisplayState['retry']): void {
  if (!retry) {
    box.classList.add('hidden');
    box.textContent = '';
    return;
  }
  const parts = ['Retrying'];
  if (typeof retry.attempt === 'number') parts.push(`(attempt ${retry.attempt})`);
  if (typeof retry.delayMs === 'number') parts.push(`in ${Math.round(retry.delayMs / 100) / 10}s`);
  const why = retry.error;
  box.textContent = `${parts.join(' ')}${why ? `: ${why}` : '…'}`;
  box.classList.remove('hidden');
}
