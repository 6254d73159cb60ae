local t = ...
local H = dofile('tests/helpers.lua')

t.test(':PiTasks renders the live task list', function()
  local tasks = {
    { content = 'Write tests', status = 'completed', activeForm = 'Writing tests' },
    { content = 'Run tests', status = 'in_progress', activeForm = 'Running tests' },
    { content = 'Ship', status = 'pending', activeForm = 'Shipping' },
  }
  local c = H.start(t, {
    { toolCalls = { { id = 't1', name = 'task_write', arguments = vim.json.encode({ tasks = tasks }) } } },
    { text = 'Tasks set.' },
  })
  require('pi_lsp').chat('plan the work')
  H.wait_answer(t, c, 'Tasks set.')
  vim.cmd('PiTasks')
  local view = require('pi_lsp.tasks').last
  t.wait(function()
    return vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)[1] == '[x] Write tests'
  end, 5000, function()
    return 'tasks: ' .. table.concat(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false), '\n')
  end)
  t.eq({ '[x] Write tests', '[~] Running tests', '[ ] Ship' }, vim.api.nvim_buf_get_lines(view.buf, 0, -1, false))
end)

t.test(':PiModel, :PiMode, :PiThinking change the state', function()
  local c = H.start(t, { { text = 'x' } })
  H.stub(t, 'select', function(items, opts, cb)
    if opts.kind == 'pi_lsp.mode' then
      for i, m in ipairs(items) do
        if m.id == 'plan' then
          return cb(m, i)
        end
      end
    end
    cb(items[1], 1)
  end)
  vim.cmd('PiThinking high')
  t.wait(function()
    return c:display().thinkingLevel == 'high'
  end, 5000, 'thinking level')
  -- The fake model has no reasoning: the plugin says the level has no effect.
  t.wait(function()
    return t.notified('does not reason')
  end, 5000, 'the no-reasoning warning')
  vim.cmd('PiMode')
  t.wait(function()
    return type(c:display().mode) == 'table' and c:display().mode.id == 'plan'
  end, 5000, 'mode plan')
  vim.cmd('PiModel')
  t.wait(function()
    return t.notified('model fake/fake-model')
  end, 5000, 'model set')
  t.ok(require('pi_lsp').statusline():find('think:high', 1, true), require('pi_lsp').statusline())
end)

t.test(':PiSessions lists the sessions of this directory and resumes one', function()
  local c = H.start(t, { { text = 'answer one' }, { text = 'answer two' } })
  require('pi_lsp').chat('the first session')
  H.wait_answer(t, c, 'answer one')
  local first = c:display().session.path
  local err = c:request_sync('session/new', { cwd = c.cwd }, 5000)
  t.eq(nil, err)
  require('pi_lsp.chat').prompt(c, 'the second session')
  H.wait_answer(t, c, 'answer two')
  t.ok(c:display().session.path ~= first, 'a new session')
  local labels
  H.switch_session(t, c, function(s, opts, items)
    labels = vim.tbl_map(opts.format_item, items)
    return s.path == first
  end)
  t.eq(2, #labels)
  t.has(labels, 'the first session')
  t.wait(function()
    return H.items(c, 'assistant')[1] and H.items(c, 'assistant')[1].text == 'answer one'
  end, 5000, 'resumed transcript')
end)

t.test(':checkhealth pi_lsp reports OK', function()
  H.start(t, { { text = 'x' } })
  vim.cmd('checkhealth pi_lsp')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local text = table.concat(lines, '\n')
  for _, what in ipairs({ 'binary:', 'server: pi-lsp', 'model(s) configured', 'auth: credentials found for fake/fake-model' }) do
    local i = t.has(lines, what)
    t.ok(lines[i]:find('OK', 1, true), 'not OK: ' .. lines[i])
  end
  t.ok(not text:find('ERROR', 1, true), 'errors reported:\n' .. text)
  vim.cmd('bwipeout!')
end)

t.test('a crashed server is restarted with a message', function()
  local before = {}
  for _, p in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    before[p] = true
  end
  local c = H.start(t, { { text = 'after restart' } })
  local pid = c.rpc.pid -- vim.lsp.rpc before 0.10 tells it
  if not pid then
    for _, p in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
      local info = vim.api.nvim_get_proc(p)
      if not before[p] and info and tostring(info.name):find('pi%-lsp') then
        pid = p
      end
    end
  end
  t.ok(pid, 'pi-lsp process not found')
  local gen = c.gen
  vim.loop.kill(pid, 'sigkill')
  t.wait(function()
    return t.notified('restarting')
  end, 5000, 'restart message')
  t.wait(function()
    return c.ready and c:display() ~= nil and c.gen > gen
  end, 10000, 'restarted')
  require('pi_lsp').chat('still there?')
  H.wait_answer(t, c, 'after restart')
end)

t.test(':checkhealth pi_lsp starts a temporary server when none runs, and reports a missing binary', function()
  local llm = H.fakellm(t, { { text = 'x' } })
  local dir = H.tmpdir()
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  t.cleanup(function()
    H.reset_windows()
  end)
  require('pi_lsp').setup({ cmd = { vim.env.PI_LSP_BIN }, model = 'fake/fake-model', env = { PI_LSP_MODELS = llm.models, PI_LSP_SESSIONS = dir } })
  t.eq(nil, require('pi_lsp.client').get(dir, false))
  vim.cmd('checkhealth pi_lsp')
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local i = t.has(lines, 'server: pi-lsp')
  t.ok(lines[i]:find('OK', 1, true), lines[i])
  t.eq(nil, require('pi_lsp.client').get(dir, false), 'the temporary server is not kept')
  vim.cmd('bwipeout!')

  require('pi_lsp').setup({ cmd = { dir .. '/no-such-pi-lsp' } })
  vim.cmd('checkhealth pi_lsp')
  lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  i = t.has(lines, 'pi-lsp binary not found')
  t.ok(lines[i]:find('ERROR', 1, true), lines[i])
  vim.cmd('bwipeout!')
end)

t.test('one pi-lsp process per working directory', function()
  local a = H.start(t, { { text = 'x' } })
  local other = H.tmpdir()
  vim.cmd('cd ' .. vim.fn.fnameescape(other))
  local pi = require('pi_lsp')
  local b = pi.client()
  t.cleanup(function()
    require('pi_lsp.client').remove(other)
  end)
  t.ok(a ~= b, 'a second directory gets its own client')
  t.eq(b, pi.client(), 'the same directory reuses its client')
  t.wait(function()
    return b.ready and b:display() ~= nil
  end, 10000, 'second server ready')
  t.eq(other, b:display().session.cwd)
  t.eq(a.cwd, a:display().session.cwd)
  t.ok(a.ready, 'first server still running')
end)

t.test('stopping a client shuts the server down cleanly (shutdown, exit)', function()
  local c = H.start(t, { { text = 'x' } })
  c:stop()
  t.wait(function()
    return c.status == 'stopped'
  end, 5000, 'stopped')
  t.eq(0, c.exit_code)
  t.eq(0, c.exit_signal, 'the server had to be killed')
  t.eq(nil, t.notified('restarting'))
end)
