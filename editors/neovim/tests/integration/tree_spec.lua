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

-- A pi session file of `turns` turns of 4 entries (user, assistant tool call, tool result,
-- answer) after a model change and a thinking level change, a label every 60 turns: one chain
-- of 4*turns+2+turns/60 entries (300 turns: 1,207, the issue's session).
-- Every `branch_every` turns (if set) the last turn is abandoned: the next one starts from
-- the turn before it.
local function write_chain(path, turns, branch_every)
  local lines = { vim.json.encode({ type = 'session', version = 3, id = '0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    timestamp = '2025-03-01T09:00:00.000Z', cwd = vim.fn.getcwd() }) }
  local n, leaf, entries = 0, vim.NIL, 0
  local function entry(e)
    n = n + 1
    e.id = string.format('%08x', n)
    e.parentId = leaf
    e.timestamp = '2025-03-01T09:00:00.000Z'
    lines[#lines + 1] = vim.json.encode(e)
    leaf = e.id
    entries = entries + 1
    return e.id
  end
  entry({ type = 'model_change', provider = 'fake', modelId = 'fake-model' })
  entry({ type = 'thinking_level_change', thinkingLevel = 'off' })
  local before_turn = {}
  for i = 1, turns do
    before_turn[i] = leaf
    if branch_every and i > 2 and i % branch_every == 0 then
      leaf = before_turn[i - 1]
    end
    entry({ type = 'message', message = { role = 'user', content = { { type = 'text', text = 'question ' .. i } }, timestamp = i } })
    entry({ type = 'message', message = { role = 'assistant', content = { { type = 'toolCall', id = 'call_' .. i, name = 'bash',
      arguments = { command = 'seq 1 20' } } }, api = 'openai-completions', provider = 'fake', model = 'fake-model',
      usage = { input = 100, output = 10, cacheRead = 0, cacheWrite = 0, totalTokens = 110 }, stopReason = 'toolUse', timestamp = i } })
    entry({ type = 'message', message = { role = 'toolResult', toolCallId = 'call_' .. i, toolName = 'bash',
      content = { { type = 'text', text = '1\n2\n3' } }, isError = false, timestamp = i } })
    entry({ type = 'message', message = { role = 'assistant', content = { { type = 'text', text = 'answer ' .. i } },
      api = 'openai-completions', provider = 'fake', model = 'fake-model',
      usage = { input = 120, output = 10, cacheRead = 0, cacheWrite = 0, totalTokens = 130 }, stopReason = 'stop', timestamp = i } })
    if i % 60 == 0 then
      entry({ type = 'label', targetId = leaf, label = 'turn ' .. i })
    end
  end
  H.write(path, table.concat(lines, '\n') .. '\n')
  return entries, leaf
end

t.test('the tree of a 300-turn chain (1,207 entries) decodes in vim.json and :PiTree draws it', function()
  local c, proj = H.start(t, {})
  local path = proj .. '/long.jsonl'
  local entries, leaf = write_chain(path, 300)
  t.eq(1207, entries)
  local err = c:request_sync('session/open', { path = path }, 10000)
  t.eq(nil, err)
  -- The answer went through vim.json.decode (the client's decoder); the old nested shape was
  -- 2,400 levels deep and failed there.
  local err2, tree = c:request_sync('session/tree', {}, 10000)
  t.eq(nil, err2)
  t.eq(1, #tree.nodes)
  t.eq(entries, tree.nodes[1].chain.length)
  t.eq(leaf, tree.nodes[1].chain.lastId)
  t.eq(leaf, tree.leafId)
  local raw = vim.json.encode(tree)
  t.ok(vim.json.decode(raw) ~= nil, 'round trip')

  local view = open_tree(t, c)
  local lines = lines_of(view)
  local gap = t.has(lines, string.format('%d more entries', entries - 1))
  t.eq('>', lines[gap]:sub(1, 1), table.concat(lines, '\n'))
end)

t.test(':PiTree on a session with 100 branches lists every branch', function()
  local c, proj = H.start(t, {})
  local path = proj .. '/branches.jsonl'
  write_chain(path, 300, 3)
  t.eq(nil, (c:request_sync('session/open', { path = path }, 10000)))
  local view = open_tree(t, c)
  local lines = lines_of(view)
  local questions = 0
  for _, l in ipairs(lines) do
    if l:find('You: question', 1, true) then
      questions = questions + 1
    end
  end
  t.eq(300, questions, table.concat(lines, '\n', 1, math.min(#lines, 40)))
  local branches = 0
  for _, l in ipairs(lines) do
    if l:find('├ You: question', 1, true) then
      branches = branches + 1
    end
  end
  t.ok(branches >= 200, 'branch points shown: ' .. branches)
end)

t.test(':PiOlder pages earlier items into the transcript without moving the cursor', function()
  local c, proj = H.start(t, {})
  local path = proj .. '/long.jsonl'
  write_chain(path, 300)
  t.eq(nil, (c:request_sync('session/open', { path = path }, 10000)))
  t.wait(function()
    local st = c:display()
    return st and type(st.history) == 'table' and (st.session or {}).path == path
  end, 5000, 'bounded state with a history marker')
  local chat = require('pi_lsp.chat')
  local view = chat.open(c)
  local function tlines()
    return vim.api.nvim_buf_get_lines(view.tbuf, 0, -1, false)
  end
  local function count(needle)
    local n = 0
    for _, l in ipairs(tlines()) do
      if l:find(needle, 1, false) then
        n = n + 1
      end
    end
    return n
  end
  local shown = count('^question %d+$')
  t.ok(shown > 0 and shown < 300, 'the state holds the newest turns only: ' .. shown)
  t.eq(0, count('^question 1$'))
  local twin = H.win_of(view.tbuf)
  local target = line_of(tlines(), 'answer 290')
  vim.api.nvim_win_set_cursor(twin, { target, 0 })
  local done, loaded = false, 0
  chat.older(c, function(err, n)
    t.eq(nil, err)
    done, loaded = true, n
  end)
  t.wait(function()
    return done
  end, 5000, 'older page loaded')
  t.ok(loaded > 0, 'items loaded')
  local row = vim.api.nvim_win_get_cursor(twin)[1]
  t.ok(tlines()[row]:find('answer 290', 1, true) ~= nil, 'the cursor stays on the same line: ' .. tostring(tlines()[row]))
  -- Page back to the first item: every question shown exactly once.
  for _ = 1, 10 do
    done = false
    chat.older(c, function()
      done = true
    end)
    t.wait(function()
      return done
    end, 5000, 'page')
  end
  t.eq(300, count('^question %d+$'))
  t.eq(1, count('^question 1$'))
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
