local t = ...
local H = dofile('tests/helpers.lua')

local function line_of(lines, needle)
  for i, l in ipairs(lines) do
    if l:find(needle, 1, true) then
      return i
    end
  end
end

local function two_turns(t)
  local c, proj, llm, sessions = H.start(t, { { text = 'first answer' }, { text = 'second answer' }, { text = 'The branch asked a second question.' } })
  local pi = require('pi_lsp')
  pi.chat('first question')
  H.wait_answer(t, c, 'first answer')
  require('pi_lsp.chat').prompt(c, 'second question')
  H.wait_answer(t, c, 'second answer')
  return c, proj, llm, sessions
end

local function open_tree(t, c)
  local view = require('pi_lsp').tree()
  t.wait(function()
    return view.tree ~= nil
  end, 5000, 'tree loaded')
  return view
end

local function lines_of(view)
  return vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
end

t.test('the tree lists the branch; <CR> on a user message moves the leaf and gives its text back', function()
  local c = two_turns(t)
  local view = open_tree(t, c)
  local lines = lines_of(view)
  local q1 = t.has(lines, 'You: first question')
  local a1 = t.has(lines, 'Assistant: first answer')
  local q2 = t.has(lines, 'You: second question')
  local a2 = t.has(lines, 'Assistant: second answer')
  t.ok(q1 < a1 and a1 < q2 and q2 < a2, 'branch order:\n' .. table.concat(lines, '\n'))
  t.eq('>', lines[a2]:sub(1, 1), 'leaf marked')
  t.eq('*', lines[q1]:sub(1, 1), 'branch marked')
  local old_leaf = view.tree.leafId

  vim.api.nvim_set_current_win(view.win)
  vim.api.nvim_win_set_cursor(view.win, { q2, 0 })
  t.keys('<CR>')
  t.wait(function()
    return view.tree.leafId ~= old_leaf
  end, 5000, 'leaf moved')
  -- The leaf is now the parent of the second question: the first answer (or a bookkeeping
  -- entry after it, which the tree hides).
  lines = lines_of(view)
  t.eq('>', lines[line_of(lines, 'Assistant: first answer')]:sub(1, 1), table.concat(lines, '\n'))
  t.eq(nil, line_of(lines, '> You: second question'))
  t.eq('second question', require('pi_lsp.chat').input(c))
  local err, tree = c:request_sync('session/tree', nil, 5000)
  t.eq(nil, err)
  t.eq(view.tree.leafId, tree.leafId)
  -- A new prompt continues from there: the second question becomes a sibling branch.
  require('pi_lsp.chat').prompt(c, 'another question')
  H.wait_answer(t, c, 'The branch asked a second question.')
  view.refresh()
  t.wait(function()
    return line_of(lines_of(view), 'You: another question') ~= nil
  end, 5000, 'new branch in the tree')
  lines = lines_of(view)
  t.has(lines, '├ You: second question')
  t.has(lines, '├ You: another question')
end)

t.test('L labels an entry; s navigates with a summary', function()
  local c = two_turns(t)
  local view = open_tree(t, c)
  local q1 = t.has(lines_of(view), 'You: first question')
  H.stub(t, 'input', function(opts, cb)
    if opts.prompt:find('Label', 1, true) then
      cb('checkpoint')
    else
      cb('')
    end
  end)
  vim.api.nvim_set_current_win(view.win)
  vim.api.nvim_win_set_cursor(view.win, { q1, 0 })
  t.keys('L')
  t.wait(function()
    return line_of(lines_of(view), '[checkpoint]') ~= nil
  end, 5000, 'label shown')
  t.has(lines_of(view), 'You: first question  [checkpoint]')

  local a1 = t.has(lines_of(view), 'Assistant: first answer')
  local leaf = view.tree.leafId
  vim.api.nvim_win_set_cursor(view.win, { a1, 0 })
  t.keys('s')
  t.wait(function()
    return view.tree.leafId ~= leaf
  end, 15000, 'navigated with summary')
  t.has(lines_of(view), 'branch_summary')
end)

t.test('f forks a new session before a user message', function()
  local c = two_turns(t)
  local view = open_tree(t, c)
  local q2 = t.has(lines_of(view), 'You: second question')
  local old_path = c:display().session.path
  vim.api.nvim_set_current_win(view.win)
  vim.api.nvim_win_set_cursor(view.win, { q2, 0 })
  t.keys('f')
  t.wait(function()
    local s = c:display().session
    return s.path ~= old_path
  end, 5000, 'new session')
  t.wait(function()
    return require('pi_lsp.chat').input(c) == 'second question'
  end, 5000, 'the forked message is back in the input')
  t.wait(function()
    return line_of(lines_of(view), 'You: second question') == nil and line_of(lines_of(view), 'Assistant: first answer') ~= nil
  end, 5000, 'forked tree shows the branch up to the first answer')
end)

t.test('a subagent renders folded under its tool line and S in the tree opens its session', function()
  local call = { id = 'sa1', name = 'subagent', arguments = vim.json.encode({ agent = 'explore', task = 'NVIM-TASK: list files' }) }
  local c = H.start(t, {
    { match = 'delegate it', toolCalls = { call } },
    { match = 'NVIM-TASK', text = 'NVIM-CHILD-ANSWER: two files.' },
    { match = 'NVIM-CHILD-ANSWER', text = 'The explorer answered.' },
  })
  require('pi_lsp').chat('delegate it')
  H.wait_answer(t, c, 'The explorer answered.')
  local lines
  t.wait(function()
    lines = H.transcript(c)
    for _, l in ipairs(lines) do
      if l:find('↳ ✓ **explore** subagent — done', 1, true) then
        return true
      end
    end
  end, 5000, function()
    return 'no child block:\n' .. table.concat(lines or {}, '\n')
  end)
  t.has(lines, '  │ NVIM-CHILD-ANSWER: two files.')
  local parent_path = c:display().session.path
  local seen
  H.stub(t, 'select', function(items, opts, cb)
    seen = vim.tbl_map(opts.format_item, items)
    cb(items[1], 1)
  end)
  local view = require('pi_lsp').tree()
  t.wait(function()
    return view.tree ~= nil
  end, 5000, 'tree loaded')
  vim.api.nvim_set_current_win(view.win)
  t.keys('S')
  t.wait(function()
    local d = c:display()
    return d and d.session and d.session.path ~= parent_path
  end, 5000, 'the child session opened')
  t.eq(1, #seen)
  t.ok(seen[1]:find('NVIM-TASK: list files', 1, true), seen[1])
  local path = c:display().session.path
  t.ok(path:find('/subagents/', 1, true), path)
  local head = H.read(path):match('^[^\n]*')
  t.eq(parent_path, vim.json.decode(head).parentSession)
end)
