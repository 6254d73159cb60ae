local t = ...
local H = dofile('tests/helpers.lua')

local ANSWER = 'Hello from the fake model. It streams in small pieces, chunk after chunk.\nSecond line of the answer.'

t.test('a prompt typed in the input streams into the chat buffer', function()
  local c = H.start(t, { { text = ANSWER, chunkDelayMs = 40, chunkSize = 6 } })
  local view = require('pi_lsp').chat()
  local partial = false
  c:subscribe(function(ev)
    if ev == 'state' then
      local a = H.items(c, 'assistant')
      local n = a[1] and #(a[1].text or '') or 0
      if n > 0 and n < #ANSWER then
        partial = true
      end
    end
  end)
  local iwin = H.win_of(view.ibuf)
  t.ok(iwin, 'input window open')
  vim.api.nvim_set_current_win(iwin)
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { 'say hello' })
  t.keys('<CR>')
  H.wait_answer(t, c, ANSWER)
  t.eq({
    '## You',
    'say hello',
    '',
    '## Assistant',
    'Hello from the fake model. It streams in small pieces, chunk after chunk.',
    'Second line of the answer.',
  }, H.transcript(c))
  t.ok(partial, 'no partial answer was ever shown: the answer did not stream')
  t.eq({ '' }, vim.api.nvim_buf_get_lines(view.ibuf, 0, -1, false))
  local sl = require('pi_lsp').statusline()
  t.ok(sl:find('fake/fake-model', 1, true) and sl:find('idle', 1, true), sl)
end)

t.test('<C-f> queues a follow-up that runs after the current answer', function()
  local c = H.start(t, {
    { text = 'first answer is slow to arrive, word by word, word by word.', chunkDelayMs = 80, chunkSize = 4 },
    { text = 'follow-up answer' },
  })
  local view = require('pi_lsp').chat('start')
  t.wait(function()
    return not H.idle(c)
  end, 10000, 'run started')
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { 'and then this' })
  t.keys('<C-f>')
  H.wait_answer(t, c, 'follow-up answer', 20000)
  local users = vim.tbl_map(function(i)
    return i.text
  end, H.items(c, 'user'))
  t.eq({ 'start', 'and then this' }, users)
  local lines = H.transcript(c)
  t.eq('follow-up answer', lines[#lines])
end)

t.test('slash commands complete from commands/list', function()
  local c = H.start(t, { { text = 'x' } }, {
    files = {
      ['.pi/prompts/review.md'] = '---\ndescription: Review the code\n---\nReview $@\n',
      ['.pi/skills/hello/SKILL.md'] = '---\nname: hello\ndescription: Says hello politely.\n---\nSay hello.\n',
    },
  })
  t.wait(function()
    return c.commands and #c.commands >= 2
  end, 10000, function()
    return 'commands: ' .. vim.inspect(c.commands)
  end)
  local view = require('pi_lsp').chat()
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { '/re' })
  vim.api.nvim_win_set_cursor(0, { 1, 3 })
  local complete = require('pi_lsp.complete')
  t.eq(0, complete.omnifunc(1, ''))
  local words = vim.tbl_map(function(m)
    return m.word
  end, complete.omnifunc(0, '/'))
  t.ok(vim.tbl_contains(words, '/review'), vim.inspect(words))
  t.ok(vim.tbl_contains(words, '/skill:hello'), vim.inspect(words))
  t.eq({ '/review' }, vim.tbl_map(function(m)
    return m.word
  end, complete.omnifunc(0, '/re')))

  -- Typing '/' at the start of the input opens the menu by itself.
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { '' })
  local menu
  local timer = vim.loop.new_timer()
  local seen = false
  timer:start(30, 30, vim.schedule_wrap(function()
    -- Under load several ticks queue up before the first runs: only the first closes the timer.
    if not seen and vim.fn.pumvisible() == 1 then
      seen = true
      timer:stop()
      timer:close()
      menu = vim.fn.complete_info({ 'items' }).items
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-e><Esc>', true, false, true), 'n', false)
    end
  end))
  vim.defer_fn(function()
    if menu == nil then
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'n', false)
    end
  end, 3000)
  vim.api.nvim_feedkeys('i/sk', 'mx!', false)
  t.ok(menu, 'no completion menu while typing /sk')
  t.eq({ '/skill:hello' }, vim.tbl_map(function(m)
    return m.word
  end, menu))
end)

t.test('tool calls are folded even when the answer streamed during Insert mode', function()
  local c = H.start(t, { { text = 'ok', toolCalls = { { id = 'l1', name = 'ls', arguments = { path = '.' } } }, chunkDelayMs = 20 }, { text = 'done' } })
  local view = require('pi_lsp').chat()
  local twin = H.win_of(view.tbuf)
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { 'list' })
  local in_insert
  local timer = vim.loop.new_timer()
  local seen = false
  timer:start(50, 50, vim.schedule_wrap(function()
    local a = H.items(c, 'assistant')
    if not seen and H.idle(c) and a[#a] and a[#a].text == 'done' then
      seen = true -- several ticks may have queued up under load
      timer:stop()
      timer:close()
      in_insert = vim.api.nvim_get_mode().mode
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'n', false)
    end
  end))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('A<CR>', true, false, true), 'mx!', false)
  t.eq('i', in_insert)
  local lines = H.transcript(c)
  local h = t.has(lines, '**ls**')
  vim.api.nvim_win_call(twin, function()
    t.eq(h, vim.fn.foldclosed(h), 'tool call folded')
  end)
end)

t.test('<CR> during a run steers it: the message reaches the next model call', function()
  local c = H.start(t, {
    { text = 'Looking at the files first, one moment please.', toolCalls = { { id = 'l1', name = 'ls', arguments = { path = '.' } } }, chunkDelayMs = 80, chunkSize = 4 },
    { match = 'use the other API', text = 'steered answer' },
    { text = 'answer without the steer' },
  })
  local view = require('pi_lsp').chat('look around')
  t.wait(function()
    local a = H.items(c, 'assistant')
    return a[1] and #(a[1].text or '') > 0
  end, 10000, 'streaming started')
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { 'use the other API' })
  t.keys('<CR>')
  H.wait_answer(t, c, 'steered answer', 20000)
  t.eq({ 'look around', 'use the other API' }, vim.tbl_map(function(i)
    return i.text
  end, H.items(c, 'user')))
end)

t.test(':PiCompact compacts the context', function()
  -- About 30k tokens in the first turn, more than the 20k kept verbatim.
  local long = string.rep('A long first answer with many words. ', 3200)
  local c = H.start(t, {
    { text = long, chunkSize = 8000 },
    { text = 'short second answer' },
    { text = '## Goal\nSummary of the conversation so far.' },
  })
  require('pi_lsp').chat('first')
  H.wait_answer(t, c, long)
  require('pi_lsp.chat').prompt(c, 'second')
  H.wait_answer(t, c, 'short second answer')
  vim.cmd('PiCompact keep the goal')
  t.wait(function()
    return t.notified('compacted (') or t.notified('compaction/run:')
  end, 15000, 'compaction finished')
  local i = t.notified('compaction/run:')
  t.ok(not i, i and t.messages[i].msg)
  t.wait(function()
    return #H.items(c, 'summary') > 0
  end, 5000, 'summary shown in the chat')
  t.has(H.transcript(c), '### Summary')
  t.eq(nil, c.progress, 'progress ended')
end)

t.test('without a usable model the prompt fails with the hint and the input is kept', function()
  local c, proj = H.start(t, { { text = 'never' } }, { setup = { model = 'fake/no-such-model' } })
  local empty = proj .. '/../empty-models.json'
  H.write(empty, '{"providers": {}}')
  require('pi_lsp').setup({ cmd = c.cfg.cmd, env = { PI_LSP_MODELS = empty, PI_LSP_SESSIONS = c.cfg.env.PI_LSP_SESSIONS, HOME = c.cfg.env.HOME, OPENAI_API_KEY = '', OPENROUTER_API_KEY = '', DEEPSEEK_API_KEY = '', GROQ_API_KEY = '', GEMINI_API_KEY = '' } })
  c.cfg = require('pi_lsp').config()
  c:restart()
  t.wait(function()
    return c.ready and c:display() ~= nil
  end, 10000, 'restarted without models')
  local view = require('pi_lsp').chat()
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { 'hello?' })
  t.keys('<CR>')
  t.wait(function()
    return t.notified('pi-lsp: ') ~= nil
  end, 5000, 'an error was shown')
  local msg = t.messages[t.notified('pi-lsp: ')].msg
  t.ok(msg:find('no usable model', 1, true) and msg:find('PI_LSP_MODELS', 1, true), 'no hint in: ' .. msg)
  t.wait(function()
    return vim.api.nvim_buf_get_lines(view.ibuf, 0, -1, false)[1] == 'hello?'
  end, 2000, 'the input was given back')
end)
