// Sessions: load replays the branch in a new process; list, resume, close;
// available_commands_update lists a project skill; modes and config
// options; the task list as a plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { world, startAgent, answerText, ofKind } from './lib/acp.mjs';

test('session/load in a new process replays user text, thoughts, answer and the tool call; list, resume, close', async () => {
  const w = await world([
    { thinking: 'Reading it first.', toolCalls: [{ id: 'rd1', name: 'read', arguments: { path: 'notes.txt' } }] },
    { match: 'remember-me', text: 'The notes say remember-me.' },
    { toolCalls: [{ id: 'tw1', name: 'task_write', arguments: { tasks: [{ content: 'Write docs', status: 'in_progress', activeForm: 'Writing docs' }, { content: 'Ship', status: 'pending', activeForm: 'Shipping' }] } }] },
    { match: 'Write docs', text: 'Planned.' },
  ]);
  w.write('notes.txt', 'remember-me\nsecond line\n');
  let a = await startAgent(w);
  let sessionId;
  try {
    ({ sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] }));
    await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what do my notes say?' }] });
    const call = ofKind(a.updates, 'tool_call').find((u) => u.toolCallId === 'rd1');
    assert.equal(call.kind, 'read');
    assert.deepEqual(call.locations, [{ path: join(w.project, 'notes.txt') }]);
    await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan it' }] });
    const plan = ofKind(a.updates, 'plan').at(-1);
    assert.deepEqual(plan.entries.map((e) => [e.content, e.status]), [['Writing docs', 'in_progress'], ['Ship', 'pending']]);
    assert.ok(plan.entries.every((e) => e.priority === 'medium'));
  } finally {
    await a.close();
  }

  a = await startAgent(w);
  try {
    const list = await a.ctx.request('session/list', { cwd: w.project });
    assert.equal(list.sessions.length, 1);
    assert.equal(list.sessions[0].sessionId, sessionId);
    assert.equal(list.sessions[0].cwd, w.project);
    assert.equal(list.sessions[0].title, 'what do my notes say?');

    const loaded = await a.ctx.request('session/load', { sessionId, cwd: w.project, mcpServers: [] });
    assert.equal(loaded.modes.currentModeId, 'build');
    const kinds = a.updates.map((u) => u.update.sessionUpdate);
    assert.equal(answerText(a.updates, 'user_message_chunk'), 'what do my notes say?plan it');
    assert.equal(answerText(a.updates, 'agent_thought_chunk'), 'Reading it first.');
    assert.equal(answerText(a.updates), 'The notes say remember-me.Planned.');
    const call = ofKind(a.updates, 'tool_call').find((u) => u.toolCallId === 'rd1');
    assert.equal(call.kind, 'read');
    const end = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'rd1');
    assert.equal(end.status, 'completed');
    assert.match(JSON.stringify(end.content), /remember-me/);
    assert.deepEqual(ofKind(a.updates, 'plan').at(-1).entries.map((e) => e.status), ['in_progress', 'pending']);
    assert.ok(kinds.includes('current_mode_update'));
    assert.ok(kinds.includes('usage_update'));
    // available_commands_update follows the replay.
    assert.equal(kinds.at(-1), 'available_commands_update');
    assert.ok(kinds.indexOf('user_message_chunk') < kinds.indexOf('agent_message_chunk'));

    // Close, then resume (no replay).
    await a.ctx.request('session/close', { sessionId });
    const before = a.updates.length;
    await a.ctx.request('session/resume', { sessionId, cwd: w.project });
    assert.ok(!a.updates.slice(before).some((u) => u.update.sessionUpdate === 'user_message_chunk'), 'resume does not replay');
    await assert.rejects(a.ctx.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] }), (e) => e.code === -32002);
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('available_commands_update lists a project skill and the built-in commands; a new skill on disk updates it', async () => {
  const w = await world([]);
  mkdirSync(join(w.project, '.pi', 'skills', 'deploy-check'), { recursive: true });
  writeFileSync(join(w.project, '.pi', 'skills', 'deploy-check', 'SKILL.md'), '---\nname: deploy-check\ndescription: Check a deploy before it ships\n---\nCheck it.\n');
  const a = await startAgent(w);
  try {
    await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    await a.until((us) => us.some((u) => u.update.sessionUpdate === 'available_commands_update'));
    const cmds = ofKind(a.updates, 'available_commands_update')[0].availableCommands;
    const names = cmds.map((c) => c.name);
    assert.ok(names.includes('skill:deploy-check'), names.join(','));
    assert.equal(cmds.find((c) => c.name === 'skill:deploy-check').description, 'Check a deploy before it ships');
    for (const b of ['compact', 'mode', 'model', 'tree', 'new']) assert.ok(names.includes(b), b);

    mkdirSync(join(w.project, '.pi', 'skills', 'late-skill'), { recursive: true });
    writeFileSync(join(w.project, '.pi', 'skills', 'late-skill', 'SKILL.md'), '---\nname: late-skill\ndescription: Arrived later\n---\nbody\n');
    await a.until((us) => ofKind(us, 'available_commands_update').some((u) => u.availableCommands.some((c) => c.name === 'skill:late-skill')), 15000);
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});

test('set_mode plan refuses a write; current_mode_update; model and thinking are config options', async () => {
  const w = await world([
    { toolCalls: [{ id: 'w1', name: 'write', arguments: { path: 'out.txt', content: 'x' } }] },
    { match: 'w1', text: 'could not write in plan mode' },
  ]);
  const a = await startAgent(w);
  try {
    const { sessionId } = await a.ctx.request('session/new', { cwd: w.project, mcpServers: [] });
    await a.ctx.request('session/set_mode', { sessionId, modeId: 'plan' });
    await a.until((us) => ofKind(us, 'current_mode_update').some((u) => u.currentModeId === 'plan'));
    await a.ctx.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write out.txt' }] });
    const end = ofKind(a.updates, 'tool_call_update').find((u) => u.toolCallId === 'w1' && u.status);
    assert.equal(end.status, 'failed');
    assert.match(JSON.stringify(end.content), /not available in this mode/);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(join(w.project, 'out.txt')), false);

    const r = await a.ctx.request('session/set_config_option', { sessionId, configId: 'thinking', value: 'high' });
    assert.equal(r.configOptions.find((o) => o.id === 'thinking').currentValue, 'high');
    await a.until((us) => ofKind(us, 'config_option_update').some((u) => u.configOptions.some((o) => o.id === 'thinking' && o.currentValue === 'high')));
    await assert.rejects(a.ctx.request('session/set_config_option', { sessionId, configId: 'model', value: 'nope/none' }));
    await assert.rejects(a.ctx.request('session/set_mode', { sessionId, modeId: 'nope' }), (e) => e.code === -32002);
    assert.deepEqual(a.validator.failures, []);
  } finally {
    await a.close();
    await w.close();
  }
});
