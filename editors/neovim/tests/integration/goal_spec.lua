local t = ...
local H = dofile('tests/helpers.lua')

local function goal(c)
  local st = c:display()
  return type(st) == 'table' and type(st.goal) == 'table' and st.goal or nil
end

local function send_input(view, text)
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { text })
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  t.keys('<CR>')
end

t.test('/goal in the chat input runs goal/set; the goal heads the transcript until it is met', function()
  local c, proj = H.start(t, { { text = 'working on it', ['repeat'] = true } })
  local view = require('pi_lsp').chat()
  local check = "c=$(cat n 2>/dev/null || echo 0); c=$((c+1)); echo $c > n; [ $c -ge 2 ]"
  send_input(view, "/goal ship the feature --check '" .. check .. "' --max-turns 3")
  t.wait(function()
    local g = goal(c)
    return g and g.status == 'met' and H.idle(c)
  end, 30000, function()
    return 'goal never met: ' .. vim.inspect(c:display() and c:display().goal)
  end)
  local g = goal(c)
  t.eq(2, g.turns)
  t.eq('2\n', H.read(proj .. '/n'))
  -- The input was not sent as a prompt: the first user message is the goal's prompt.
  local users = H.items(c, 'user')
  t.ok(users[1].text:find('^Goal: ship the feature') ~= nil, users[1].text)
  t.ok(users[2].text:find('Continue working toward the goal: ship the feature', 1, true) ~= nil, users[2].text)
  t.eq('**Goal (met, run 2/3): ship the feature — check passed: ' .. check .. '**', H.transcript(c)[1])
  t.eq({ '' }, vim.api.nvim_buf_get_lines(view.ibuf, 0, -1, false))
end)

t.test('the stop key (gS) stops a goal; the statusline shows it while active', function()
  local c, proj = H.start(t, { { text = 'trying', ['repeat'] = true } })
  local view = require('pi_lsp').chat()
  send_input(view, '/goal wait forever --check "touch started; sleep 60"')
  t.wait(function()
    return vim.loop.fs_stat(proj .. '/started') ~= nil
  end, 20000, 'the check never started')
  local sl = require('pi_lsp').statusline()
  t.ok(sl:find('goal 1/20', 1, true), sl)
  vim.api.nvim_set_current_win(H.win_of(view.tbuf))
  t.keys('gS')
  t.wait(function()
    local g = goal(c)
    return g and g.status == 'stopped' and H.idle(c)
  end, 20000, function()
    return 'goal not stopped: ' .. vim.inspect(c:display() and c:display().goal)
  end)
  t.eq(1, goal(c).turns)
  t.eq(1, #H.items(c, 'user'))
  t.ok(not require('pi_lsp').statusline():find('goal', 1, true))
end)
