-- The chat layout: the float pair and the splits keep their share of the editor after a
-- terminal resize, :q on the transcript closes the pair, :PiToggle hides and shows it, and the
-- tree float closes on a session change. Against the real pi-lsp binary.
--
-- Headless Neovim has no terminal, so nothing fires VimResized by itself: the tests set
-- 'columns' and 'lines' as a terminal resize does and then run the VimResized autocommands.
local t = ...
local H = dofile('tests/helpers.lua')

local function resize(t, cols, rows)
  local oc, ol = vim.o.columns, vim.o.lines
  t.cleanup(function()
    vim.o.columns, vim.o.lines = oc, ol
  end)
  vim.o.columns, vim.o.lines = cols, rows
  vim.cmd('doautocmd VimResized')
end

local function is_float(win)
  return vim.api.nvim_win_get_config(win).relative ~= ''
end

local function chat_wins(c)
  local view = require('pi_lsp.chat').view(c)
  return H.win_of(view.tbuf), H.win_of(view.ibuf), view
end

local function wait_closed(t, wins, what)
  t.wait(function()
    for _, w in ipairs(wins) do
      if vim.api.nvim_win_is_valid(w) then
        return false
      end
    end
    return true
  end, 3000, what)
end

t.test('the float layout follows a terminal resize and the input stays below the transcript', function()
  local c = H.start(t, { { text = 'float answer' } }, { setup = { chat = { position = 'float', input_height = 3 } } })
  require('pi_lsp').chat('in a float')
  H.wait_answer(t, c, 'float answer')
  local twin, iwin = chat_wins(c)
  t.ok(twin and iwin, 'both windows open')
  t.ok(is_float(twin) and is_float(iwin), 'both are floats')
  t.eq(iwin, vim.api.nvim_get_current_win(), 'the input has the focus')
  t.has(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(twin), 0, -1, false), 'float answer')

  for _, size in ipairs({ { 160, 50 }, { 60, 20 } }) do
    resize(t, size[1], size[2])
    local rows = vim.o.lines - vim.o.cmdheight - 1
    local tw, th = vim.api.nvim_win_get_width(twin), vim.api.nvim_win_get_height(twin)
    local iw, ih = vim.api.nvim_win_get_width(iwin), vim.api.nvim_win_get_height(iwin)
    local want_w = math.min(math.floor(size[1] * 0.8), size[1] - 2)
    t.eq(want_w, tw, 'transcript width at ' .. size[1] .. ' columns')
    t.eq(want_w, iw, 'input width at ' .. size[1] .. ' columns')
    t.eq(3, ih, 'input height')
    t.eq(math.floor(rows * 0.8) - 3 - 4, th, 'transcript height at ' .. size[2] .. ' lines')
    local tpos, ipos = vim.api.nvim_win_get_position(twin), vim.api.nvim_win_get_position(iwin)
    t.ok(ipos[1] >= tpos[1] + th + 2, string.format('input row %d overlaps the transcript (row %d, %d high)', ipos[1], tpos[1], th))
    t.ok(ipos[1] + ih <= rows, 'the input fits on the screen')
    t.ok(tpos[2] + tw + 2 <= size[1], 'the pair fits across the screen')
  end
end)

t.test('the right split keeps its fraction of the columns after a resize', function()
  local c = H.start(t, { { text = 'x' } }, { setup = { chat = { position = 'right', size = 0.4 } } })
  require('pi_lsp').chat()
  local twin, iwin = chat_wins(c)
  resize(t, 150, 40)
  t.eq(60, vim.api.nvim_win_get_width(twin))
  t.eq(4, vim.api.nvim_win_get_height(iwin), 'the input keeps its height')
  resize(t, 100, 30)
  t.eq(40, vim.api.nvim_win_get_width(twin))
end)

t.test(':q on the transcript closes the input too (split and float)', function()
  for _, pos in ipairs({ 'right', 'float' }) do
    local c = H.start(t, { { text = 'x' } }, { setup = { chat = { position = pos } } })
    require('pi_lsp').chat()
    local twin, iwin = chat_wins(c)
    t.ok(twin and iwin, pos .. ': both windows open')
    vim.api.nvim_set_current_win(twin)
    vim.cmd('quit')
    wait_closed(t, { twin, iwin }, pos .. ': the input window closed with the transcript')
    -- The editor's own window is still there, and the chat opens again.
    t.eq(1, #vim.api.nvim_list_wins(), pos .. ': only the editor window is left')
    require('pi_lsp').chat()
    twin, iwin = chat_wins(c)
    t.ok(twin and iwin, pos .. ': the chat opens again')
    -- And :q on the input closes the transcript.
    vim.api.nvim_set_current_win(iwin)
    vim.cmd('quit')
    wait_closed(t, { twin, iwin }, pos .. ': the transcript closed with the input')
    H.reset_windows()
    require('pi_lsp.chat').forget(c.cwd)
    require('pi_lsp.client').remove(c.cwd)
  end
end)

t.test(':PiToggle hides the pair and shows it again with the transcript kept', function()
  local c = H.start(t, { { text = 'kept answer' } }, { setup = { chat = { position = 'float' } } })
  require('pi_lsp').chat('toggle me')
  H.wait_answer(t, c, 'kept answer')
  local twin, iwin, view = chat_wins(c)
  vim.cmd('PiToggle')
  wait_closed(t, { twin, iwin }, 'toggle hides both windows')
  t.ok(vim.api.nvim_buf_is_valid(view.tbuf), 'the transcript buffer is kept')
  vim.cmd('PiToggle')
  twin, iwin = chat_wins(c)
  t.ok(twin and iwin and is_float(twin), 'toggle shows the floats again')
  t.has(vim.api.nvim_buf_get_lines(view.tbuf, 0, -1, false), 'kept answer')
end)

t.test('the tree float closes when the session changes, and stays for its own fork', function()
  local c = H.start(t, { { text = 'first answer' } })
  require('pi_lsp').chat('first question')
  H.wait_answer(t, c, 'first answer')
  local view = require('pi_lsp').tree()
  t.wait(function()
    return view.tree ~= nil
  end, 5000, 'tree loaded')
  -- A fork from the tree switches the session and keeps the float.
  local q = t.has(vim.api.nvim_buf_get_lines(view.buf, 0, -1, false), 'You: first question')
  local before = c:display().session.id
  vim.api.nvim_set_current_win(view.win)
  vim.api.nvim_win_set_cursor(view.win, { q, 0 })
  t.keys('f')
  t.wait(function()
    return c:display().session.id ~= before
  end, 5000, 'forked into a new session')
  t.sleep(200)
  t.ok(vim.api.nvim_win_is_valid(view.win), 'the fork from the tree kept the tree open')
  -- :PiNew is a session change from outside the tree: the float closes.
  local forked = c:display().session.id
  vim.cmd('PiNew')
  t.wait(function()
    return c:display().session.id ~= forked
  end, 5000, 'a new session')
  wait_closed(t, { view.win }, 'the tree float closed on the session change')
  t.ok(t.notified('the session changed'), 'the user is told why')
end)
