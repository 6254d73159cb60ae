local t = ...
local H = dofile('tests/helpers.lua')

t.test(':PiJobs lists a background job, its buffer follows the output, x kills it', function()
  local cmd = 'echo alpha; while [ ! -e gate ]; do sleep 0.05; done; echo beta; sleep 300'
  local c = H.start(t, {
    { toolCalls = { { id = 'b1', name = 'bash', arguments = vim.json.encode({ command = cmd, background = true }) } } },
    { text = 'Started it.' },
  }, { setup = { yolo = true } })
  c:request_sync('permissions/set', { yolo = true }, 5000)
  require('pi_lsp').chat('start the watcher')
  H.wait_answer(t, c, 'Started it.')
  t.wait(function()
    local st = c:display()
    return type(st.jobs) == 'table' and #st.jobs == 1 and st.jobs[1].status == 'running'
  end, 10000, 'the job in the display state')
  t.ok(require('pi_lsp').statusline():find('jobs:1', 1, true), require('pi_lsp').statusline())

  vim.cmd('PiJobs')
  local view = require('pi_lsp.jobs').last
  t.wait(function()
    local l = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)[1] or ''
    return l:find('job%-1') ~= nil and l:find('running', 1, true) ~= nil
  end, 5000, function()
    return 'list: ' .. table.concat(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false), '\n')
  end)
  vim.api.nvim_set_current_win(view.win)
  vim.api.nvim_win_set_cursor(view.win, { 1, 0 })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  local jb = require('pi_lsp.jobs').bufs['job-1']
  t.ok(jb ~= nil, 'a buffer for job-1')
  local function text()
    return table.concat(vim.api.nvim_buf_get_lines(jb.buf, 0, -1, false), '\n')
  end
  t.wait(function()
    return text():find('\nalpha', 1, true) ~= nil
  end, 10000, function()
    return 'job buffer: ' .. text()
  end)
  -- It follows: output written later appears.
  H.write(c.cwd .. '/gate', '')
  t.wait(function()
    return text():find('\nalpha\nbeta', 1, true) ~= nil
  end, 10000, function()
    return 'job buffer after the gate: ' .. text()
  end)
  vim.api.nvim_set_current_buf(jb.buf)
  vim.api.nvim_feedkeys('x', 'x', false)
  t.wait(function()
    local st = c:display()
    return st.jobs[1].status == 'killed'
  end, 15000, 'the job killed')
  t.wait(function()
    return (vim.api.nvim_buf_get_lines(jb.buf, 0, 1, false)[1] or ''):find('killed', 1, true) ~= nil
  end, 5000, function()
    return 'header: ' .. text()
  end)
  t.ok(not require('pi_lsp').statusline():find('jobs:', 1, true), require('pi_lsp').statusline())
end)
