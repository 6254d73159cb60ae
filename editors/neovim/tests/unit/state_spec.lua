local t = ...
local state = require('pi_lsp.state')

local function base()
  return {
    version = 1,
    state = {
      status = 'idle',
      items = { { id = 'a1', kind = 'user', text = 'hi' } },
      pending = {},
      tasks = {},
    },
  }
end

t.test('first frame with state replaces the store', function()
  local s = state.new()
  t.eq('ok', s:apply(base()))
  t.eq(1, s.version)
  t.eq('hi', s.state.items[1].text)
end)

t.test('ops apply in order: push, append, set, delete', function()
  local s = state.new()
  s:apply(base())
  t.eq('ok', s:apply({
    version = 2,
    ops = {
      { op = 'push', path = { 'items' }, value = { id = 'a2', kind = 'assistant', text = '' } },
      { op = 'append', path = { 'items', 1, 'text' }, value = 'Hel' },
      { op = 'append', path = { 'items', 1, 'text' }, value = 'lo' },
      { op = 'set', path = { 'status' }, value = 'running' },
      { op = 'set', path = { 'pending', 'approval' }, value = { toolName = 'write' } },
      { op = 'set', path = { 'items', 0, 'text' }, value = 'hi there' },
    },
  }))
  t.eq('Hello', s.state.items[2].text)
  t.eq('hi there', s.state.items[1].text)
  t.eq('running', s.state.status)
  t.eq('write', s.state.pending.approval.toolName)
  t.eq('ok', s:apply({ version = 3, ops = { { op = 'delete', path = { 'pending', 'approval' } } } }))
  t.eq(nil, s.state.pending.approval)
  t.eq(3, s.version)
end)

t.test('set with a JSON null clears the key', function()
  local s = state.new()
  s:apply(base())
  s.state.retry = { attempt = 1 }
  t.eq('ok', s:apply({ version = 2, ops = { { op = 'set', path = { 'retry' }, value = vim.NIL } } }))
  t.eq(nil, s.state.retry)
end)

t.test('a version gap asks for a resync; an old frame is ignored', function()
  local s = state.new()
  s:apply(base())
  t.eq('resync', s:apply({ version = 3, ops = {} }))
  t.eq(1, s.version)
  t.eq('stale', s:apply({ version = 1, ops = { { op = 'set', path = { 'status' }, value = 'x' } } }))
  t.eq('idle', s.state.status)
end)

t.test('ops before any state, bad ops and bad frames ask for a resync', function()
  local s = state.new()
  t.eq('resync', s:apply({ version = 5, ops = {} }))
  t.eq('resync', s:apply(nil))
  t.eq('resync', s:apply({ ops = {} }))
  s:apply(base())
  t.eq('resync', s:apply({ version = 2, ops = { { op = 'frobnicate', path = { 'x' } } } }))
  t.eq('resync', s:apply({ version = 2, ops = { { op = 'append', path = { 'items' }, value = 'x' } } }))
  t.eq('resync', s:apply({ version = 2, ops = { { op = 'set', path = {}, value = 1 } } }))
end)

t.test('reset takes a snapshot', function()
  local s = state.new()
  s:reset({ version = 42, state = { status = 'idle', items = {} } })
  t.eq(42, s.version)
  t.eq('ok', s:apply({ version = 43, ops = { { op = 'set', path = { 'model' }, value = 'fake/m1' } } }))
  t.eq('fake/m1', s.state.model)
end)

t.test('delete of an array index removes the element', function()
  local root = { items = { 'a', 'b', 'c' } }
  t.eq(nil, state.apply_op(root, { op = 'delete', path = { 'items', 1 } }))
  t.eq({ 'a', 'c' }, root.items)
end)

t.test('a snapshot older than the store, or without a state, is ignored', function()
  local s = state.new()
  t.eq(false, s:reset({}))
  t.eq(nil, s.state)
  s:apply({ version = 5, state = { status = 'idle' } })
  t.eq(false, s:reset({ version = 4, state = { status = 'old' } }))
  t.eq('idle', s.state.status)
  t.eq(true, s:reset({ version = 5, state = { status = 'same' } }))
  t.eq('same', s.state.status)
end)
