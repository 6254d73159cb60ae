local t = ...
local H = dofile('tests/helpers.lua')

local function write_call(content)
  return { toolCalls = { { id = 'call_w1', name = 'write', arguments = vim.json.encode({ path = 'a.txt', content = content }) } } }
end

t.test('an approval answered through vim.ui.select changes the file', function()
  local c, proj = H.start(t, { write_call('changed\n'), { text = 'Wrote the file.' } }, { files = { ['a.txt'] = 'original\n' } })
  local seen
  H.stub(t, 'select', function(items, opts, cb)
    seen = { items = vim.tbl_map(opts.format_item or tostring, items), prompt = opts.prompt }
    cb(items[1], 1)
  end)
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/a.txt'))
  local buf = vim.api.nvim_get_current_buf()
  t.eq({ 'original' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  require('pi_lsp').chat('write a.txt')
  H.wait_answer(t, c, 'Wrote the file.')
  t.eq('changed\n', H.read(proj .. '/a.txt'))
  t.wait(function()
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)[1] == 'changed'
  end, 5000, 'the open buffer was reloaded')
  t.ok(seen, 'vim.ui.select was not called')
  t.eq({ 'Approve', 'Decline', 'Always allow tool write', 'Always allow category edit', 'Decline with a reason…' }, seen.items)
  t.ok(seen.prompt:find('write a.txt', 1, true) and not seen.prompt:find('content=', 1, true), 'prompt: ' .. seen.prompt)
  local tool = H.items(c, 'tool')[1]
  t.eq('done', tool.status)
  t.has(H.transcript(c), '✓ **write** `a.txt` — done')
end)

t.test('a declined call leaves the file alone', function()
  local c, proj = H.start(t, { write_call('changed\n'), { text = 'Not written.' } }, { files = { ['a.txt'] = 'original\n' } })
  H.stub(t, 'select', function(items, _, cb)
    cb(items[2], 2)
  end)
  require('pi_lsp').chat('write a.txt')
  H.wait_answer(t, c, 'Not written.')
  t.eq('original\n', H.read(proj .. '/a.txt'))
  t.eq('declined', H.items(c, 'tool')[1].status)
end)

t.test('an unanswered approval does not block the editor; answering later works', function()
  local c, proj = H.start(t, { write_call('later\n'), { text = 'Done later.' } }, { files = { ['a.txt'] = 'original\n' } })
  local answer = H.hold_approval(t, 'write a.txt')
  -- The editor keeps running: timers fire, buffers can be edited, requests are answered.
  local fired = false
  vim.defer_fn(function()
    fired = true
  end, 50)
  t.wait(function()
    return fired
  end, 2000, 'timer')
  local err, st = c:request_sync('session/state', nil, 5000)
  t.eq(nil, err)
  t.eq(true, st.isRunning)
  t.wait(function()
    local s = c:display()
    return s.pending and s.pending.approval ~= nil
  end, 5000, 'pending approval in the display state')
  t.has(H.transcript(c), '**Approval needed:**')
  t.eq('original\n', H.read(proj .. '/a.txt'))
  answer()
  H.wait_answer(t, c, 'Done later.')
  t.eq('later\n', H.read(proj .. '/a.txt'))
end)

t.test('"always allow tool" is not asked again', function()
  local c, proj = H.start(t, {
    write_call('one\n'),
    { toolCalls = { { id = 'call_w2', name = 'write', arguments = vim.json.encode({ path = 'b.txt', content = 'two\n' }) } } },
    { text = 'Both written.' },
  })
  local asked = 0
  H.stub(t, 'select', function(items, _, cb)
    asked = asked + 1
    cb(items[3], 3)
  end)
  require('pi_lsp').chat('write two files')
  H.wait_answer(t, c, 'Both written.')
  t.eq('one\n', H.read(proj .. '/a.txt'))
  t.eq('two\n', H.read(proj .. '/b.txt'))
  t.eq(1, asked)
end)

t.test('ask_user and submit_plan are answered from the editor', function()
  local c = H.start(t, {
    { toolCalls = { { id = 'q1', name = 'ask_user', arguments = vim.json.encode({ question = 'Which database?', options = { 'sqlite', 'postgres' } }) } } },
    { toolCalls = { { id = 'p1', name = 'submit_plan', arguments = vim.json.encode({ title = 'Add caching', plan = '1. Cache\n2. Test' }) } } },
    { text = 'Plan accepted.' },
  })
  H.stub(t, 'select', function(items, _, cb)
    cb(items[2], 2)
  end)
  require('pi_lsp').chat('plan it')
  local plan = require('pi_lsp.plan')
  plan.last = nil
  t.wait(function()
    return plan.last and vim.api.nvim_win_is_valid(plan.last.win)
  end, 15000, 'plan float')
  t.eq('# Add caching', vim.api.nvim_buf_get_lines(plan.last.buf, 0, 1, false)[1])
  vim.api.nvim_set_current_win(plan.last.win)
  t.keys('a')
  H.wait_answer(t, c, 'Plan accepted.')
  local tools = H.items(c, 'tool')
  t.ok(tools[1].output:find('postgres', 1, true), 'answer not in the tool output: ' .. tostring(tools[1].output))
end)

t.test('the server reads unsaved buffers through fs/readTextFile', function()
  local c, proj = H.start(t, {
    { toolCalls = { { id = 'r1', name = 'read', arguments = vim.json.encode({ path = 'notes.txt' }) } } },
    { text = 'Read it.' },
  }, { files = { ['notes.txt'] = 'saved text\n' } })
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/notes.txt'))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'unsaved text in the editor' })
  require('pi_lsp').chat('read notes.txt')
  H.wait_answer(t, c, 'Read it.')
  local out = H.items(c, 'tool')[1].output
  t.ok(out:find('unsaved text in the editor', 1, true), 'tool output: ' .. out)
  t.eq('saved text\n', H.read(proj .. '/notes.txt'))
end)
