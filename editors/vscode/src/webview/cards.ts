// Cards for the server's requests that wait for the user: approval, question, plan.
import type { FromWebview, PendingUi } from '../messages';
import { APPROVAL_BUTTONS } from '../replies';
import { renderMarkdown } from './markdown';
import { el } from './render';

type Post = (m: FromWebview) => void;

function disableAll(card: HTMLElement): void {
  card.classList.add('answered');
  card.querySelectorAll('button, input, textarea').forEach((b) => ((b as HTMLButtonElement).disabled = true));
}

function approvalCard(p: Extract<PendingUi, { kind: 'approval' }>, post: Post): HTMLElement {
  const card = el('div', 'card approval-card');
  card.dataset.key = p.key;
  const title = el('div', 'card-title');
  title.append(el('span', '', 'Allow '), el('strong', 'tool-name', p.req.toolName), el('span', '', '?'));
  if (p.req.category) title.append(el('span', 'badge category', p.req.category));
  card.append(title);
  if (p.req.subagent) card.append(el('div', 'card-subagent', `asked by the ${p.req.subagent.agent} subagent (${p.req.subagent.toolCallId})`));
  if (p.req.display) card.append(el('div', 'card-display', p.req.display));
  if (p.req.args && Object.keys(p.req.args).length) {
    const d = el('details', 'card-args');
    d.append(el('summary', '', 'Arguments'), el('pre', 'args', JSON.stringify(p.req.args, null, 2)));
    card.append(d);
  }
  const row = el('div', 'card-buttons');
  for (const b of APPROVAL_BUTTONS) {
    const btn = el('button', b.choice === 'approve' ? 'primary' : b.choice === 'decline' ? 'danger' : '', b.label);
    btn.dataset.decision = b.choice;
    btn.addEventListener('click', () => {
      disableAll(card);
      post({ type: 'approval', key: p.key, decision: b.choice });
    });
    row.append(btn);
  }
  card.append(row);
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
    const submit = el('button', 'primary', 'Submit');
    submit.addEventListener('click', () => {
      disableAll(card);
      post({ type: 'answer', key: p.key, answer: { selected: boxes.filter((b) => b.checked).map((b) => b.value) } });
    });
    card.append(list);
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
    row.append(cancel);
  }
  card.append(row);
  return card;
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
