-- The quit guard's warning (a turn running) comes only when Neovim would quit: `:q` of the last
-- window, `:qa`, `:x`; not on `:q` of a split, a window of another tab, or `:close`.
local t = ...
local H = dofile('tests/helpers.lua')

local function call(id, name, args)
  return { toolCalls = { { id = id, name = name, arguments = vim.json.encode(args) } } }
end

local function warned(c)
  return t.notified('a turn is running in ' .. c.cwd)
end

t.test('the quit warning fires when Neovim would quit, not when a split closes', function()
  local c = H.start(t, { call('b1', 'bash', { command = 'echo hi' }), { text = 'done' } })
  local answer = H.hold_approval(t, 'run it')
  H.only_guard_modified()
  vim.cmd('only')
  vim.cmd('enew')
  t.messages = {}
  -- A split closes: Neovim is not quitting, nothing to warn about.
  vim.cmd('split')
  t.eq(true, (pcall(vim.cmd, 'quit')))
  vim.cmd('vsplit')
  t.eq(true, (pcall(vim.cmd, 'quit')))
  vim.cmd('tabnew')
  t.eq(true, (pcall(vim.cmd, 'quit')))
  t.eq(1, #vim.api.nvim_list_wins())
  t.eq(nil, warned(c), vim.inspect(t.messages))
  -- `:q` of the last window would quit: it stops at the guard, with the warning.
  local ok, err = pcall(vim.cmd, 'quit')
  t.eq(false, ok)
  t.ok(tostring(err):find('E37', 1, true) or tostring(err):find('E162', 1, true), tostring(err))
  t.ok(warned(c), vim.inspect(t.messages))
  -- `:qa` with several windows open quits them all: warned too.
  vim.cmd('enew')
  vim.cmd('split')
  t.messages = {}
  ok = pcall(vim.cmd, 'qa')
  t.eq(false, ok)
  t.ok(warned(c), vim.inspect(t.messages))
  vim.cmd('only')
  vim.cmd('enew')
  answer()
  H.wait_answer(t, c, 'done')
end)
