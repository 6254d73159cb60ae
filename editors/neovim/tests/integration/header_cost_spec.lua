-- Issue 27: after a navigate the statusline shows the branch's tokens and the session's cost,
-- as the display state has them, not the numbers from before the navigate.
local t = ...
local H = dofile('tests/helpers.lua')

local function parts()
  local s = require('pi_lsp').statusline()
  return s:match('↑%S+ ↓%S+'), s:match('%$[%d.]+'), s
end

t.test('after :PiTree navigates to the first answer, the statusline shows that branch', function()
  local c = H.start(t, {
    { text = 'first answer', usage = { prompt = 1200, completion = 300 } },
    { text = 'second answer', usage = { prompt = 2500, completion = 80 } },
  }, { cost = { input = 3, output = 15 } })
  require('pi_lsp').chat('first question')
  H.wait_answer(t, c, 'first answer')
  local tok1, cost1, line1 = parts()
  require('pi_lsp.chat').prompt(c, 'second question')
  H.wait_answer(t, c, 'second answer')
  local tok2, cost2, line2 = parts()
  t.eq('↑1.2k ↓300', tok1, line1)
  t.eq('$0.008', cost1, line1) -- 1200 × $3/M + 300 × $15/M
  t.ok(tok2 ~= tok1 and cost2 == '$0.017', line2) -- both turns: $0.0081 + $0.0087

  local view = require('pi_lsp').tree()
  t.wait(function()
    return view.tree ~= nil
  end, 5000, 'tree loaded')
  local lines = vim.api.nvim_buf_get_lines(view.buf, 0, -1, false)
  local a1
  for i, l in ipairs(lines) do
    if l:find('Assistant: first answer', 1, true) then
      a1 = i
    end
  end
  t.ok(a1, table.concat(lines, '\n'))
  local old_leaf = view.tree.leafId
  vim.api.nvim_set_current_win(view.win)
  vim.api.nvim_win_set_cursor(view.win, { a1, 0 })
  t.keys('<CR>')
  t.wait(function()
    return view.tree.leafId ~= old_leaf and H.items(c, 'assistant')[2] == nil
  end, 5000, 'navigated to the first answer')
  -- The branch is the first turn: its tokens; the cost stays the session's (both turns).
  t.wait(function()
    return (parts()) == tok1
  end, 5000, function()
    return 'statusline after navigate: ' .. select(3, parts()) .. ' (display tokens ' .. vim.inspect(c:display().tokens) .. ')'
  end)
  local tok, cost, line = parts()
  t.eq(tok1, tok, line)
  t.eq(cost2, cost, line)
end)
