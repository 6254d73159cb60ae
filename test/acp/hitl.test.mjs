// Tools that wait for a human: ask_user's options and submit_plan become
// session/request_permission; attached files reach the model; a write
// without the client's fs carries a diff with no oldText.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { world, startAgent, ofKind } from './lib/acp.mjs';

test('ask_user options and submit_plan go through session/request_permission', async () => {
  const w = await world([
    { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: { question: 'Which color?', options: ['red', 'blue'] } }] },
    { match: 'blue', toolCalls: [{ id: 'p1', name: 'submit_plan', arguments: { title: 'Paint it', plan: '1. paint blue' } }] },
    { match: 'approved', text: 'Building now.' },
  ]);
  const asked = [];
  const a = await startAgent(w, {
    handlers: {
      'session/request_permission': ({ params }) => {
        asked.push(params);
        const opt = params.options.find((o) => o.name === 'blue') ?? params.options.find((o) => o.optionId === 'approve');
        return { outcome: { outcome: 'selected', optionId: opt.optionId } };
      },
    },
  });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    await a.ctx.request('session/set_mode', { sessionId, modeId: 'plan' });
    const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'paint' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.equal(asked.length, 2);
    assert.equal(asked[0].toolCall.kind, 'think');
    assert.equal(asked[0].toolCall.toolCallId, 'q1', 'the question names its tool call');
    assert.equal(asked[1].toolCall.toolCallId, 'p1');
    assert.deepEqual(asked[0].options.map((o) => o.name).slice(0, 2), ['red', 'blue']);
    assert.equal(asked[1].toolCall.kind, 'switch_mode');
    assert.match(JSON.stringify(asked[1].toolCall.content), /paint blue/);
    const q = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'q1' && u.status === 'completed');
    assert.match(JSON.stringify(q.content), /blue/);
    await a.until((us) => ofKind(us, 'current_mode_update').some((u) => u.currentModeId === 'build'));
    // Chunks append: the egress may send the last word in a chunk of its own.
    await a.until((us) => us.filter((u) => u.update.sessionUpdate === 'agent_message_chunk').map((u) => u.update.content.text).join('').includes('Building now.'));
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('attached files and links reach the model; a write without client fs goes to disk with a diff', async () => {
  const w = await world([
    { toolCalls: [{ id: 'wr1', name: 'write', arguments: { path: 'new.txt', content: 'fresh\n' } }] },
    { match: 'wr1', text: 'written' },
  ]);
  const a = await startAgent(w, { args: ['--yolo'] });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    await a.ctx.request('session/prompt', {
      sessionId, prompt: [
        { type: 'text', text: 'look at these' },
        { type: 'resource_link', name: 'main.go', uri: `file://${w.project}/main.go` },
        { type: 'resource', resource: { uri: `file://${w.project}/cfg.yaml`, text: 'attached-contents-42' } },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    });
    const body = JSON.stringify((await w.llm.requests())[0]);
    assert.match(body, /attached-contents-42/);
    assert.ok(body.includes(`@${w.project}/main.go`));
    // fakellm's model takes text only: the image is left out with a note.
    assert.match(body, /1 attached image\(s\) left out: fake\/fake-model does not take images/);
    assert.ok(!body.includes('iVBORw0KGgo='));
    assert.equal(readFileSync(join(w.project, 'new.txt'), 'utf8'), 'fresh\n');
    const end = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'wr1' && u.status === 'completed');
    assert.deepEqual(end.content.find((c) => c.type === 'diff'), { type: 'diff', path: join(w.project, 'new.txt'), newText: 'fresh\n' });
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});
