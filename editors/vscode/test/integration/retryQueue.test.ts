// Issue 33, Missing 5 and 6, from the chat against the real pi-lsp: Retry after a provider error
// (agent/retry) runs the turn again without a new message, and a queued follow-up is edited and
// another removed (agent/editQueue) before they are delivered.
import '../stub/register';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import { FakeLlm, FakeWebviewView, waitFor } from './helpers';
import { useExtensionWithFakeModel } from './start';

describe('Retry and the queue from the chat', () => {
  let llm: FakeLlm;
  let api: PiLspApi;
  let view: FakeWebviewView;

  useExtensionWithFakeModel({
    prefix: 'retryq',
    until: 'nothing',
    script: [
      { status: 400, error: 'the provider is having a bad day' },
      { match: 'please answer', text: 'here is the answer' },
      { match: 'write one', toolCalls: [{ id: 'w1', name: 'write', arguments: { path: 'one.txt', content: '1\n' } }] },
      { match: 'w1', text: 'wrote one' },
      { match: 'EDITED first', text: 'did the edited one' },
    ],
  }, (s) => ({ llm, api, view } = s));

  it('Retry runs the failed turn again, without a second prompt', async () => {
    view.receive({ type: 'send', text: 'please answer', behavior: 'steer' });
    await waitFor('the provider error', () => view.mirror.status === 'idle' && view.mirror.items?.some((i) => i.kind === 'error' && /bad day/.test(i.text ?? '')), 60000);
    view.receive({ type: 'retry' });
    await waitFor('the retried answer', () => view.mirror.status === 'idle' && view.mirror.items?.some((i) => i.kind === 'assistant' && i.text === 'here is the answer'), 60000);
    assert.deepEqual(view.mirror.items?.filter((i) => i.kind === 'user').map((i) => i.text), ['please answer'], 'no new user message');
    assert.equal((await llm.requests()).length, 2);
    assert.equal(view.posted.filter((m) => m.type === 'error').length, 0, 'no error from the retry itself');
  });

  it('edits one queued follow-up and removes another before they are delivered', async () => {
    view.receive({ type: 'send', text: 'write one', behavior: 'steer' });
    const a = api.manager.current();
    const card = await waitFor('the approval', () => a.pending.find((p) => p.kind === 'approval'), 60000);
    view.receive({ type: 'send', text: 'first follow-up', behavior: 'followUp' });
    view.receive({ type: 'send', text: 'second follow-up', behavior: 'followUp' });
    const queued = () => (view.mirror.queue?.followUp ?? []).map((m) => (typeof m === 'string' ? m : (m as { text?: string }).text));
    await waitFor('two follow-ups queued', () => queued().length === 2, 30000);
    view.receive({ type: 'editQueue', queue: 'followUp', index: 0, expect: 'first follow-up', text: 'EDITED first' });
    view.receive({ type: 'editQueue', queue: 'followUp', index: 1, expect: 'second follow-up' });
    await waitFor('the edited queue', () => queued().join('|') === 'EDITED first', 30000);
    a.answerApproval(card.key, { decision: 'approve' });
    await waitFor('the edited follow-up answered', () => view.mirror.items?.some((i) => i.kind === 'assistant' && i.text === 'did the edited one'), 60000);
    const users = view.mirror.items?.filter((i) => i.kind === 'user').map((i) => i.text) ?? [];
    assert.ok(users.includes('EDITED first') && !users.includes('first follow-up') && !users.includes('second follow-up'), users.join(' | '));
    // A stale edit (delivered meanwhile) is refused and said so, nothing else changes.
    view.receive({ type: 'editQueue', queue: 'followUp', index: 0, expect: 'EDITED first', text: 'too late' });
    await waitFor('the refusal', () => view.posted.find((m) => m.type === 'error'), 30000);
  });
});
