-- Issue 33, Missing 5 and 6 against the real binary: R retries after a provider error
-- (agent/retry), :PiQueue edits a queued follow-up before the run takes it (agent/editQueue).
local t = ...
local H = dofile('tests/helpers.lua')

t.test('R on a provider error runs again, with no new user message', function()
  local c = H.start(t, { { status = 400, error = 'bad request: try again' }, { text = 'worked' } })
  local view = require('pi_lsp').chat('hello')
  t.wait(function()
    return #H.items(c, 'error') > 0 and H.idle(c)
  end, 15000, 'the error arrived')
  t.has(H.transcript(c), '> _x dismisses_, _R retries_')
  vim.api.nvim_set_current_win(H.win_of(view.tbuf))
  t.keys('R')
  H.wait_answer(t, c, 'worked')
  t.eq(1, #H.items(c, 'user'))
end)

t.test(':PiQueue edits a queued follow-up before the run takes it', function()
  local c, _, llm = H.start(t, {
    { toolCalls = { { id = 'b1', name = 'bash', arguments = vim.json.encode({ command = 'echo hi' }) } } },
    { text = 'first done' },
    { text = 'follow-up done' },
  })
  local approve
  H.stub(t, 'select', function(items, opts, cb)
    if opts.kind == 'pi_lsp.queue' then
      return cb(items[1], 1)
    elseif opts.kind == 'pi_lsp.queue_action' then
      return cb('Edit', 1)
    end
    approve = function()
      cb(items[1], 1)
    end
  end)
  H.stub(t, 'input', function(opts, cb)
    t.eq('then run the tests', opts.default)
    cb('then run the unit tests')
  end)
  require('pi_lsp').chat('start')
  t.wait(function()
    return approve ~= nil
  end, 10000, 'approval asked')
  require('pi_lsp.chat').prompt(c, 'then run the tests', 'followUp')
  t.wait(function()
    local q = (c:display() or {}).queue or {}
    return type(q.followUp) == 'table' and #q.followUp == 1
  end, 5000, 'queued')
  vim.cmd('PiQueue')
  t.wait(function()
    local f = ((c:display() or {}).queue or {}).followUp or {}
    local m = f[1]
    return m and (type(m) == 'table' and m.text or m) == 'then run the unit tests'
  end, 5000, 'the queued message changed')
  approve()
  H.wait_answer(t, c, 'follow-up done', 20000)
  local reqs = vim.json.decode(vim.fn.system({ 'curl', '-s', llm.url .. '/requests' }))
  local last = vim.json.encode(reqs[#reqs])
  t.ok(last:find('then run the unit tests', 1, true), last)
  t.eq(nil, last:find('then run the tests"', 1, true))
end)

t.test(':PiSessions tells apart two sessions that began alike by their last prompt', function()
  local c = H.start(t, { { text = 'I am pi' }, { text = 'ok parser' }, { text = 'I am pi' }, { text = 'ok docs' } })
  require('pi_lsp').chat('hi, who are you?')
  H.wait_answer(t, c, 'I am pi')
  require('pi_lsp.chat').prompt(c, 'fix the parser')
  H.wait_answer(t, c, 'ok parser')
  t.eq(nil, (c:request_sync('session/new', { cwd = c.cwd }, 5000)))
  require('pi_lsp.chat').prompt(c, 'hi, who are you?')
  H.wait_answer(t, c, 'I am pi')
  require('pi_lsp.chat').prompt(c, 'write the docs')
  H.wait_answer(t, c, 'ok docs')
  local labels
  H.stub(t, 'select', function(items, opts, cb)
    labels = vim.tbl_map(opts.format_item, items)
    cb(nil)
  end)
  vim.cmd('PiSessions')
  t.wait(function()
    return labels ~= nil
  end, 5000, 'the session list')
  t.eq(2, #labels, vim.inspect(labels))
  local text = table.concat(labels, '\n')
  t.ok(text:find('last: fix the parser', 1, true) and text:find('last: write the docs', 1, true), text)
end)
