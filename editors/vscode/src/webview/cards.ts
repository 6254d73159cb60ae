// Cards for the server's requests that wait for the user: approval, question, plan.
import type { FromWebview, PendingUi } from '../messages';
import { approvalButtons, outsideWarning } from '../replies';
import { renderMarkdown } from './markdown';
import { el, renderDiff } from './render';
import { argsOf } from '../protocol';
import { argsView } from './argsView';

type Post = (m: FromWebview) => void;

function disableAll(card: HTMLElement): void {
  card.classList.add('answered');
  card.querySelectorAll('button, input, textarea').forEach((b) => ((b as HTMLButtonElement).disabled = true));
}

/** The approval card's readable summary of the arguments (no JSON for edits and writes). */
function argsSummary(req: Extract<PendingUi, { kind: 'approval' }>['req']): HTMLElement | undefined {
  const a = argsOf(req.args);
  if (req.toolName === 'bash' && typeof a.command === 'string') return el('pre', 'card-command', a.command);
  if (req.preview) return undefined;
  const v = argsView(req.toolName, req.args);
  if (v.kind === 'diff') return renderDiff(v.diff);
  if (v.kind !== 'lines') return undefined;
  const d = el('details', 'card-args');
  d.open = true;
  d.append(el('summary', '', 'Arguments'), el('pre', 'args', v.text));
  return d;
}

/** The one line naming what the approval is for; a bash command shows once, in its block. */
function cardDisplay(req: Extract<PendingUi, { kind: 'approval' }>['req']): string {
  if (req.toolName === 'bash' && typeof argsOf(req.args).command === 'string') return '';
  return req.display ?? '';
}

function approvalCard(p: Extract<PendingUi, { kind: 'approval' }>, post: Post): HTMLElement {
  const card = el('div', p.req.outsideWorkspace ? 'card approval-card outside' : 'card approval-card');
  card.dataset.key = p.key;
  const warning = outsideWarning(p.req);
  if (warning) card.append(el('div', 'card-outside', `⚠ ${warning}`));
  const title = el('div', 'card-title');
  title.append(el('span', '', 'Allow '), el('strong', 'tool-name', p.req.toolName), el('span', '', '?'));
  if (p.req.category) title.append(el('span', 'badge category', p.req.category));
  card.append(title);
  if (p.req.subagent) card.append(el('div', 'card-subagent', `asked by the ${p.req.subagent.agent} subagent (${p.req.subagent.toolCallId})`));
  const pv = p.req.preview;
  if (pv?.path) {
    const link = el('a', 'file-link card-path', pv.path);
    link.href = '#';
    link.dataset.path = pv.path;
    card.append(link);
  } else if (cardDisplay(p.req)) card.append(el('div', 'card-display', cardDisplay(p.req)));
  // The diff scrolls inside the card; the buttons stay below it, always in view.
  const body = el('div', 'card-body');
  if (pv?.diff) {
    body.append(renderDiff(pv.diff));
    if (pv.cut) body.append(el('div', 'card-note', `Only the diff is shown: ${pv.cutReason ?? 'the file is large'}.`));
  } else {
    const args = argsSummary(p.req);
    if (args) body.append(args);
  }
  if (body.childNodes.length) card.append(body);
  const reason = el('textarea', 'decline-reason hidden');
  reason.rows = 2;
  reason.placeholder = 'Why? Sent to the agent with the decline (Enter to send)';
  const row = el('div', 'card-buttons');
  const button = (label: string, cls: string, decision: string, onClick: () => void) => {
    const b = el('button', cls, label);
    b.dataset.decision = decision;
    b.addEventListener('click', onClick);
    row.append(b);
    return b;
  };
  const reviewable = !!pv && !pv.cut && typeof pv.before === 'string';
  if (reviewable) button('Review diff', '', 'review', () => post({ type: 'review', key: p.key }));
  for (const b of approvalButtons(p.req)) {
    if (b.choice === 'decline') continue;
    button(b.label, b.choice === 'approve' ? 'primary' : 'secondary', b.choice, () => {
      disableAll(card);
      post({ type: 'approval', key: p.key, decision: b.choice });
    });
  }
  const decline = button('Decline…', 'danger', 'decline', () => {
    if (reason.classList.contains('hidden')) {
      reason.classList.remove('hidden');
      decline.textContent = 'Decline';
      reason.focus();
      return;
    }
    disableAll(card);
    post({ type: 'approval', key: p.key, decision: 'decline', feedback: reason.value });
  });
  reason.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      decline.click();
    }
  });
  card.append(reason, row);
  return card;
}

function questionCard(p: Extract<PendingUi, { kind: 'question' }>, post: Post): HTMLElement {
  const card = el('div', 'card question-card');
  card.dataset.key = p.key;
  card.append(el('div', 'card-title', p.req.question));
  const options = p.req.options ?? [];
  const row = el('div', 'card-buttons');
  const cancel = el('button', '', 'Cancel');
  cancel.addEventListener('click', () => {
    disableAll(card);
    post({ type: 'answer', key: p.key, answer: { cancelled: true } });
  });
  if (options.length === 0) {
    const ta = el('textarea', 'answer-text');
    ta.rows = 2;
    const submit = el('button', 'primary', 'Answer');
    submit.addEventListener('click', () => {
      if (!ta.value.trim()) return;
      disableAll(card);
      post({ type: 'answer', key: p.key, answer: { text: ta.value } });
    });
    ta.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        submit.click();
      }
    });
    card.append(ta);
    row.append(submit, cancel);
  } else if (p.req.selectionMode === 'multi') {
    const list = el('div', 'options');
    const boxes: HTMLInputElement[] = [];
    for (const o of options) {
      const label = el('label', 'option');
      const cb = el('input');
      cb.type = 'checkbox';
      cb.value = o;
      boxes.push(cb);
      label.append(cb, el('span', '', o));
      list.append(label);
    }
    const other = otherInput();
    const submit = el('button', 'primary', 'Submit');
    submit.addEventListener('click', () => {
      disableAll(card);
      const selected = boxes.filter((b) => b.checked).map((b) => b.value);
      post({ type: 'answer', key: p.key, answer: other.value.trim() ? { selected, text: other.value } : { selected } });
    });
    card.append(list, other);
    row.append(submit, cancel);
  } else {
    for (const o of options) {
      const b = el('button', 'option-button', o);
      b.addEventListener('click', () => {
        disableAll(card);
        post({ type: 'answer', key: p.key, answer: { selected: [o] } });
      });
      row.append(b);
    }
    // "Other…" opens a text answer in the user's own words.
    const other = otherInput();
    other.classList.add('hidden');
    const otherBtn = el('button', 'option-other', 'Other…');
    const sendOther = () => {
      if (!other.value.trim()) return;
      disableAll(card);
      post({ type: 'answer', key: p.key, answer: { text: other.value } });
    };
    otherBtn.addEventListener('click', () => {
      if (other.classList.contains('hidden')) {
        other.classList.remove('hidden');
        otherBtn.textContent = 'Send answer';
        other.focus();
      } else sendOther();
    });
    other.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        sendOther();
      }
    });
    row.append(otherBtn, cancel);
    card.append(other);
  }
  card.append(row);
  return card;
}

function otherInput(): HTMLTextAreaElement {
  const ta = el('textarea', 'answer-other');
  ta.rows = 2;
  ta.placeholder = 'Other: answer in your own words';
  return ta;
}

function planCard(p: Extract<PendingUi, { kind: 'plan' }>, post: Post): HTMLElement {
  const card = el('div', 'card plan-card');
  card.dataset.key = p.key;
  card.append(el('div', 'card-title', p.req.title ? `Plan: ${p.req.title}` : 'Plan'));
  const body = el('div', 'markdown plan-text');
  body.innerHTML = renderMarkdown(p.req.plan ?? '');
  card.append(body);
  const feedback = el('textarea', 'plan-feedback');
  feedback.rows = 2;
  feedback.placeholder = 'Feedback (sent with Reject)';
  const row = el('div', 'card-buttons');
  const approve = el('button', 'primary', 'Approve');
  approve.dataset.decision = 'approve';
  approve.addEventListener('click', () => {
    disableAll(card);
    post({ type: 'plan', key: p.key, approved: true });
  });
  const reject = el('button', 'danger', 'Reject');
  reject.dataset.decision = 'reject';
  reject.addEventListener('click', () => {
    disableAll(card);
    post({ type: 'plan', key: p.key, approved: false, feedback: feedback.value });
  });
  row.append(approve, reject);
  card.append(feedback, row);
  return card;
}

/** Replaces the cards in `box`, keeping a card that is still pending (and what was typed in it). */
export function renderCards(box: HTMLElement, items: PendingUi[], post: Post): void {
  const keep = new Map<string, HTMLElement>();
  box.querySelectorAll<HTMLElement>(':scope > .card').forEach((c) => keep.set(c.dataset.key ?? '', c));
  const next = items.map((p) => {
    const old = keep.get(p.key);
    if (old && !old.classList.contains('answered')) return old;
    if (p.kind === 'approval') return approvalCard(p, post);
    if (p.kind === 'question') return questionCard(p, post);
    return planCard(p, post);
  });
  box.replaceChildren(...next);
}
