// Subagents: the child's tool calls are tool calls tagged with the parent's
// subagent call in _meta["pi-lsp"].parentToolCallId; the child's text
// streams as the parent call's content, not as the agent's own message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { world, startAgent, answerText, ofKind } from './lib/acp.mjs';

test('a subagent call nests the child activity under its tool call', async () => {
  const w = await world([
    { toolCalls: [{ id: 'sa1', name: 'subagent', arguments: { agent: 'general', task: 'inspect notes.txt please' } }] },
    { match: 'inspect notes.txt please', toolCalls: [{ id: 'cr1', name: 'read', arguments: { path: 'notes.txt' } }] },
    { match: 'child-notes-content', text: 'child summary of the notes' },
    { match: 'child summary of the notes', text: 'parent done' },
  ]);
  w.write('notes.txt', 'child-notes-content\n');
  const a = await startAgent(w, { args: ['--yolo'] });
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    const r = await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'delegate' }] });
    assert.equal(r.stopReason, 'end_turn');
    const calls = ofKind(a.updates, 'tool_call');
    const parent = calls.find((c) => c.toolCallId === 'sa1');
    assert.ok(parent, 'the subagent call');
    const child = calls.find((c) => c.toolCallId === 'sa1/cr1');
    assert.ok(child, `the child's read: ${JSON.stringify(calls.map((c) => c.toolCallId))}`);
    assert.equal(child.kind, 'read');
    assert.deepEqual(child._meta, { 'pi-lsp': { parentToolCallId: 'sa1', subagent: 'general' } });
    const childEnd = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'sa1/cr1' && u.status === 'completed');
    assert.equal(childEnd._meta['pi-lsp'].parentToolCallId, 'sa1');
    assert.equal(answerText(a.updates), 'parent done', "the child's text is not the agent's message");
    assert.ok(ofKind(a.updates, 'tool_call_update').some((u) => u.toolCallId === 'sa1' && JSON.stringify(u.content ?? '').includes('child summary of the notes')));
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});
