// session/new -> session/prompt through the ACP SDK: a bash call asks for
// permission (allow_once), its output streams as tool content, the answer
// streams as agent_message_chunk, the turn ends with end_turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { world, startAgent, answerText, ofKind } from './lib/acp.mjs';

test('new, prompt with an approved bash call, streamed answer, end_turn', async () => {
  const w = await world([
    { toolCalls: [{ id: 'call_b1', name: 'bash', arguments: { command: 'echo hello-from-bash' } }] },
    { match: 'hello-from-bash', thinking: 'The command printed its greeting.', text: 'The command printed hello-from-bash, as asked.' },
  ]);
  const asked = [];
  const a = await startAgent(w, {
    handlers: {
      'session/request_permission': ({ params }) => {
        asked.push(params);
        return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === 'allow_once').optionId } };
      },
    },
  });
  try {
    assert.equal(a.init.protocolVersion, 1);
    assert.equal(a.init.agentCapabilities.loadSession, true);
    assert.equal(a.init.agentCapabilities._meta['pi-lsp'].promptQueueing, true);
    assert.equal(a.init.agentCapabilities._meta['pi-lsp'].steering, true);
    const s = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    assert.match(s.sessionId, /\S/);
    assert.deepEqual(s.modes.availableModes.map((m) => m.id), ['build', 'plan', 'fast']);
    assert.equal(s.modes.currentModeId, 'build');
    assert.ok(s.configOptions.some((o) => o.id === 'model' && o.currentValue === 'fake/fake-model'));
    assert.ok(s.configOptions.some((o) => o.id === 'thinking'));
    // available_commands_update names a session the client already knows.
    await a.until((us) => us.some((u) => u.update.sessionUpdate === 'available_commands_update'));
    const idxNew = a.validator.lines.findIndex((l) => l.includes('"result"') && l.includes(`"sessionId":"${s.sessionId}"`));
    const idxCmds = a.validator.lines.findIndex((l) => l.includes('available_commands_update'));
    assert.ok(idxNew >= 0 && idxNew < idxCmds, `session/new answer (${idxNew}) before available_commands_update (${idxCmds})`);

    const r = await a.ctx.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'run echo' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.ok(r.usage.inputTokens > 0 && r.usage.outputTokens > 0, JSON.stringify(r.usage));
    assert.equal(r.usage.totalTokens, r.usage.inputTokens + r.usage.outputTokens + (r.usage.cachedReadTokens ?? 0));

    assert.equal(asked.length, 1);
    assert.equal(asked[0].toolCall.toolCallId, 'call_b1');
    assert.equal(asked[0].toolCall.kind, 'execute');
    assert.deepEqual(asked[0].options.map((o) => o.kind), ['allow_once', 'allow_always', 'reject_once', 'reject_always']);

    const calls = ofKind(a.updates, 'tool_call');
    assert.equal(calls.length, 1);
    assert.equal(calls[0].toolCallId, 'call_b1');
    assert.equal(calls[0].kind, 'execute');
    assert.equal(calls[0].title, 'echo hello-from-bash');
    const ends = ofKind(a.updates, 'tool_call_update').filter((u) => u.status === 'completed');
    assert.equal(ends.length, 1);
    assert.match(JSON.stringify(ends[0].content), /hello-from-bash/);
    // The tool call was announced before its permission request was answered.
    const idxCall = a.validator.lines.findIndex((l) => l.includes('"tool_call"'));
    const idxAsk = a.validator.lines.findIndex((l) => l.includes('session/request_permission'));
    assert.ok(idxCall >= 0 && idxCall < idxAsk, 'tool_call before request_permission');

    assert.equal(answerText(a.updates), 'The command printed hello-from-bash, as asked.');
    assert.equal(answerText(a.updates, 'agent_thought_chunk'), 'The command printed its greeting.');
    assert.ok(ofKind(a.updates, 'usage_update').length >= 1, 'usage_update');
    assert.ok(ofKind(a.updates, 'session_info_update').some((u) => u.title === 'run echo'));
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});
