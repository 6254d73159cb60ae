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
      { 'p', { 'items' }, { id = 'a2', kind = 'assistant', text = '' } },
      { 'a', { 'items', 1, 'text' }, 'Hel' },
      { 'a', { 'items', 1, 'text' }, 'lo' },
      { 's', { 'status' }, 'running' },
      { 's', { 'pending', 'approval' }, { toolName = 'write' } },
      { 's', { 'items', 0, 'text' }, 'hi there' },
    },
  }))
  t.eq('Hello', s.state.items[2].text)
  t.eq('hi there', s.state.items[1].text)
  t.eq('running', s.state.status)
  t.eq('write', s.state.pending.approval.toolName)
  t.eq('ok', s:apply({ version = 3, ops = { { 'd', { 'pending', 'approval' } } } }))
  t.eq(nil, s.state.pending.approval)
  t.eq(3, s.version)
end)

t.test('set with a JSON null clears the key', function()
  local s = state.new()
  s:apply(base())
  s.state.retry = { attempt = 1 }
  t.eq('ok', s:apply({ version = 2, ops = { { 's', { 'retry' }, vim.NIL } } }))
  t.eq(nil, s.state.retry)
end)

t.test('a version gap asks for a resync; an old frame is ignored', function()
  local s = state.new()
  s:apply(base())
  t.eq('resync', s:apply({ version = 3, ops = {} }))
  t.eq(1, s.version)
  t.eq('stale', s:apply({ version = 1, ops = { { 's', { 'status' }, 'x' } } }))
  t.eq('idle', s.state.status)
end)

t.test('ops before any state, bad ops and bad frames ask for a resync', function()
  local s = state.new()
  t.eq('resync', s:apply({ version = 5, ops = {} }))
  t.eq('resync', s:apply(nil))
  t.eq('resync', s:apply({ ops = {} }))
  s:apply(base())
  t.eq('resync', s:apply({ version = 2, ops = { { 'frobnicate', { 'x' } } } }))
  t.eq('resync', s:apply({ version = 2, ops = { { 'a', { 'items' }, 'x' } } }))
  t.eq('resync', s:apply({ version = 2, ops = { { 's', {}, 1 } } }))
end)

t.test('an op whose path does not fit the state asks for a resync and creates nothing', function()
  for _, bad in ipairs({
    { 'a', { 'items', 5, 'text' }, 'x' },
    { 's', { 'items', 0, 'text', 'x' }, 1 },
    { 'd', { 'nope', 'deep', 'k' } },
    { 'p', { 'nope', 'list' }, 1 },
  }) do
    local s = state.new()
    s:apply(base())
    t.eq('resync', s:apply({ version = 2, ops = { bad } }))
    t.eq(nil, s.state.nope)
    t.eq(1, #s.state.items)
    t.eq('hi', s.state.items[1].text)
  end
end)

t.test('decode_op reads the wire form and rejects anything else', function()
  local op = state.decode_op({ 'a', { 'items', 0, 'text' }, 'x' })
  t.eq('append', op.op)
  t.eq('x', op.value)
  t.eq('delete', state.decode_op({ 'd', { 'retry' } }).op)
  t.eq('set', state.decode_op({ 's', { 'retry' }, vim.NIL }).op)
  for _, bad in ipairs({
    { op = 'set', path = { 'status' }, value = 'x' },
    { 'x', { 'status' }, 1 },
    { 's', { 'status' } },
    { 'd', { 'retry' }, 1 },
    { 'a', 'items.0.text', 'x' },
    'set',
  }) do
    local got, err = state.decode_op(bad)
    t.eq(nil, got)
    t.ok(type(err) == 'string', 'no error for a bad op')
  end
end)

t.test('apply reports the top-level keys a frame touched', function()
  local s = state.new()
  local r, touched = s:apply(base())
  t.eq('ok', r)
  t.eq(nil, touched)
  s.state.tokens = { input = 1 }
  r, touched = s:apply({ version = 2, ops = {
    { 'a', { 'items', 0, 'text' }, '!' },
    { 'm', { 'tokens' }, { input = 2 } },
    { 'm', {}, { status = 'running', phase = 'turn' } },
  } })
  t.eq('ok', r)
  t.eq({ items = true, tokens = true, status = true, phase = true }, touched)
  r, touched = s:apply({ version = 3, ops = { { 'p', { 'tasks' }, { id = 't1' } } } })
  t.eq('ok', r)
  t.eq({ tasks = true }, touched)
end)

t.test('merge sets keys of an object, or of the root', function()
  local s = state.new()
  s:apply(base())
  s.state.tokens = { input = 1, output = 2 }
  t.eq('ok', s:apply({ version = 2, ops = {
    { 'm', {}, { status = 'running', phase = 'turn' } },
    { 'm', { 'tokens' }, { output = 9 } },
    { 'm', { 'items', 0 }, { text = 'hey', retry = vim.NIL } },
  } }))
  t.eq('running', s.state.status)
  t.eq('turn', s.state.phase)
  t.eq(1, s.state.tokens.input)
  t.eq(9, s.state.tokens.output)
  t.eq('hey', s.state.items[1].text)
  t.eq('resync', s:apply({ version = 3, ops = { { 'm', { 'status' }, { x = 1 } } } }))
  t.eq('resync', s:apply({ version = 3, ops = { { 'm', { 'nope', 'x' }, { x = 1 } } } }))
  t.eq('resync', s:apply({ version = 3, ops = { { 'm', {}, 'x' } } }))
end)

t.test('reset takes a snapshot', function()
  local s = state.new()
  s:reset({ version = 42, state = { status = 'idle', items = {} } })
  t.eq(42, s.version)
  t.eq('ok', s:apply({ version = 43, ops = { { 's', { 'model' }, 'fake/m1' } } }))
  t.eq('fake/m1', s.state.model)
end)

t.test('delete of an array index is refused (display.Patch: delete names object keys)', function()
  local root = { items = { 'a', 'b', 'c' } }
  t.ok(state.apply_op(root, { op = 'delete', path = { 'items', 1 } }))
  t.eq({ 'a', 'b', 'c' }, root.items)
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
