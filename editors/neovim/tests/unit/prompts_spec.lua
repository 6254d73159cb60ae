local t = ...
local prompts = require('pi_lsp.prompts')
local config = require('pi_lsp.config')

local function fake_client()
  return { cfg = config.merge({}) }
end

local function stub(name, fn)
  local orig = vim.ui[name]
  vim.ui[name] = fn
  t.cleanup(function()
    vim.ui[name] = orig
  end)
end

local function clear(client)
  t.cleanup(function()
    prompts.drop(client, 'test over')
  end)
end

t.test('approval: choices, args shown, decision answered', function()
  local seen
  stub('select', function(items, opts, cb)
    seen = { items = items, opts = opts }
    cb(items[3], 3)
  end)
  local c = fake_client()
  clear(c)
  local answer
  prompts.handle(c, 'ui/requestApproval', {
    toolCallId = 'call_1',
    toolName = 'write',
    category = 'edit',
    args = { path = 'a.txt', content = 'x' },
    display = 'write a.txt (1 lines)',
  }, function(a)
    answer = a
  end)
  t.eq({ decision = 'alwaysAllowTool' }, answer)
  t.eq({ 'Approve', 'Decline', 'Always allow tool write', 'Always allow category edit', 'Decline with a reason…' }, vim.tbl_map(seen.opts.format_item, seen.items))
  t.ok(seen.opts.prompt:find('write a.txt (1 lines)', 1, true), seen.opts.prompt)
  -- An edit's or write's arguments (whole files, escaped JSON) are never shown.
  t.ok(not seen.opts.prompt:find('content=', 1, true), seen.opts.prompt)
  t.eq(0, #prompts.pending())
end)

t.test('a dismissed prompt stays pending, :PiPending shows it again', function()
  local calls = 0
  local choose = nil
  stub('select', function(items, _, cb)
    calls = calls + 1
    if choose then
      cb(items[choose], choose)
    else
      cb(nil, nil)
    end
  end)
  local c = fake_client()
  clear(c)
  local answer
  prompts.handle(c, 'ui/requestApproval', { toolName = 'bash', category = 'execute', args = {} }, function(a)
    answer = a
  end)
  t.eq(nil, answer)
  t.eq(1, #prompts.pending())
  choose = 2
  t.eq(1, prompts.reopen())
  t.eq({ decision = 'decline' }, answer)
  t.eq(2, calls)
end)

t.test('prompts are shown one at a time, in order', function()
  local pending_cbs = {}
  stub('select', function(items, _, cb)
    pending_cbs[#pending_cbs + 1] = function()
      cb(items[1], 1)
    end
  end)
  local c = fake_client()
  clear(c)
  local answers = {}
  for i = 1, 2 do
    prompts.handle(c, 'ui/requestApproval', { toolName = 't' .. i, args = {} }, function(a)
      answers[i] = a
    end)
  end
  t.eq(1, #pending_cbs, 'only the first prompt is shown')
  pending_cbs[1]()
  t.eq({ decision = 'approve' }, answers[1])
  t.wait(function()
    return #pending_cbs == 2
  end, 1000, 'second prompt')
  pending_cbs[2]()
  t.eq({ decision = 'approve' }, answers[2])
end)

t.test('drop answers with a refusal', function()
  stub('select', function() end)
  local c = fake_client()
  local a1, a2
  prompts.handle(c, 'ui/requestApproval', { toolName = 'x', args = {} }, function(a)
    a1 = a
  end)
  prompts.handle(c, 'ui/askQuestion', { question = 'q?', options = { 'a' } }, function(a)
    a2 = a
  end)
  prompts.drop(c, 'aborted')
  t.eq({ decision = 'decline' }, a1)
  t.eq({ cancelled = true }, a2)
  t.eq(0, #prompts.pending())
end)

t.test('questions: single, multi, free text, refuse', function()
  local c = fake_client()
  clear(c)
  local script = {}
  stub('select', function(items, _, cb)
    local pick = table.remove(script, 1)
    cb(items[pick], pick)
  end)
  stub('input', function(_, cb)
    cb('postgres please')
  end)
  local got
  local function ask(params)
    got = nil
    prompts.handle(c, 'ui/askQuestion', params, function(a)
      got = a
    end)
    t.wait(function()
      return got ~= nil
    end, 1000, 'answer')
    return got
  end
  script = { 2 }
  t.eq({ answer = 'postgres' }, ask({ question = 'Which database?', options = { 'sqlite', 'postgres' }, selectionMode = 'single' }))
  script = { 4 }
  t.eq({ cancelled = true }, ask({ question = 'Which database?', options = { 'sqlite', 'postgres' } }))
  -- "Other…" (issue 33): free text instead of the options.
  script = { 3 }
  t.eq({ answer = 'postgres please' }, ask({ question = 'Which database?', options = { 'sqlite', 'postgres' } }))
  -- multi: toggle 1, toggle 3, toggle 1 off, toggle 2, done (index 4).
  script = { 1, 3, 1, 2, 4 }
  t.eq({ answers = { 'b', 'c' } }, ask({ question = 'Which?', options = { 'a', 'b', 'c' }, selectionMode = 'multi' }))
  t.eq({ answer = 'postgres please' }, ask({ question = 'Which database?' }))
end)

t.test('plan float: approve and reject with feedback keys', function()
  local c = fake_client()
  clear(c)
  local answer
  prompts.handle(c, 'ui/approvePlan', { id = 'p1', title = 'Add caching', plan = '1. cache\n2. test' }, function(a)
    answer = a
  end)
  local plan = require('pi_lsp.plan')
  local win = plan.last.win
  t.ok(vim.api.nvim_win_is_valid(win), 'plan float open')
  local lines = vim.api.nvim_buf_get_lines(plan.last.buf, 0, -1, false)
  t.eq('# Add caching', lines[1])
  t.has(lines, '1. cache')
  t.has(lines, 'a approve · r reject with feedback · q later')
  vim.api.nvim_set_current_win(win)
  t.keys('a')
  t.eq({ approved = true }, answer)
  t.ok(not vim.api.nvim_win_is_valid(win), 'float closed')

  answer = nil
  stub('input', function(_, cb)
    cb('also handle eviction')
  end)
  prompts.handle(c, 'ui/approvePlan', { id = 'p2', title = 'Again', plan = 'x' }, function(a)
    answer = a
  end)
  vim.api.nvim_set_current_win(plan.last.win)
  t.keys('r')
  t.eq({ approved = false, feedback = 'also handle eviction' }, answer)

  -- q leaves it pending; :PiPending reopens it.
  answer = nil
  prompts.handle(c, 'ui/approvePlan', { id = 'p3', title = 'Later', plan = 'y' }, function(a)
    answer = a
  end)
  vim.api.nvim_set_current_win(plan.last.win)
  t.keys('q')
  t.eq(nil, answer)
  t.eq(1, #prompts.pending())
  prompts.reopen()
  vim.api.nvim_set_current_win(plan.last.win)
  t.keys('a')
  t.eq({ approved = true }, answer)
end)

t.test('approval outside the workspace: the resolved path first, a per-path grant', function()
  local seen
  stub('select', function(items, opts, cb)
    seen = { items = items, opts = opts }
    cb(items[3], 3)
  end)
  local notified
  local orig_notify = vim.notify
  vim.notify = function(msg)
    notified = msg
  end
  t.cleanup(function()
    vim.notify = orig_notify
  end)
  local c = fake_client()
  clear(c)
  local answer
  prompts.handle(c, 'ui/requestApproval', {
    toolCallId = 'call_2',
    toolName = 'read',
    category = 'read',
    args = { path = '../secret/id_rsa' },
    display = 'read ../secret/id_rsa',
    outsideWorkspace = true,
    resolvedPath = '/home/u/secret/id_rsa',
    access = 'read',
  }, function(a)
    answer = a
  end)
  t.eq({ decision = 'alwaysAllowPath' }, answer)
  t.eq({ 'Approve', 'Decline', 'Always allow reading /home/u/secret', 'Decline with a reason…' }, vim.tbl_map(seen.opts.format_item, seen.items))
  t.ok(seen.opts.prompt:find('^!! OUTSIDE THE WORKSPACE: reads /home/u/secret/id_rsa', 1), seen.opts.prompt)
  t.ok(notified and notified:find('OUTSIDE THE WORKSPACE', 1, true), tostring(notified))
end)

t.test('issue 33: any approval can be declined with a reason the model reads', function()
  stub('select', function(items, _, cb)
    cb(items[#items], #items)
  end)
  stub('input', function(_, cb)
    cb('  use go test instead  ')
  end)
  local c = fake_client()
  clear(c)
  local answer
  prompts.handle(c, 'ui/requestApproval', {
    toolCallId = 'call_9',
    toolName = 'bash',
    category = 'execute',
    args = { command = 'make all' },
    display = '$ make all',
  }, function(a)
    answer = a
  end)
  t.eq({ decision = 'decline', feedback = 'use go test instead' }, answer)
end)
