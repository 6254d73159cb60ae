-- :PiChat: a markdown transcript buffer that follows the display state, and an input buffer
-- below it (<CR> send or steer, <C-f> follow-up, <C-c> abort, /command completion).
local render = require('pi_lsp.render')
local util = require('pi_lsp.util')

local M = {}

-- Views by cwd: {client, tbuf, ibuf, folds, unsub}.
local views = {}
-- Fold levels by transcript buffer (read by foldexpr).
local folds_by_buf = {}

function M.foldexpr(lnum)
  local f = folds_by_buf[vim.api.nvim_get_current_buf()]
  return (f and f[lnum]) or '0'
end

--- A line without its markdown marks (`**bold**`, `_em_`, backticks): fold lines show no
--- concealed text, so the marks would show.
function M.plain(line)
  line = line:gsub('%*%*(.-)%*%*', '%1'):gsub('`([^`]*)`', '%1'):gsub('^>%s?', '')
  line = line:gsub('^_(.-)_$', '%1')
  return line
end

function M.foldtext()
  local first = vim.fn.getline(vim.v.foldstart)
  local n = vim.v.foldend - vim.v.foldstart
  return string.format('%s  (%d lines)', M.plain(first), n)
end

local function buf_valid(b)
  return b and vim.api.nvim_buf_is_valid(b)
end

--- Writes the rendering of the client's state to the transcript, changing only the lines
--- that differ, and keeps windows that were at the bottom following the stream.
function M.render_view(view)
  if not buf_valid(view.tbuf) then
    return
  end
  local cfg = view.client.cfg.chat or {}
  local state = M.shown_state(view)
  -- Another session, or the first frame: every window shows the bottom of the new transcript
  -- (and errors dismissed in another session count no more: item ids are per session).
  local sid = type(state) == 'table' and type(state.session) == 'table' and state.session.id or nil
  local switched = sid ~= view.shown_session
  view.shown_session = sid
  if switched then
    view.dismissed = nil
  end
  local lines, folds = render.render(state, {
    show_thinking = cfg.show_thinking,
    max_output_lines = cfg.max_output_lines,
    dismissed = view.dismissed,
    retry_id = M.retry_id(state),
  })
  folds_by_buf[view.tbuf] = folds
  local buf = view.tbuf
  local old = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local first = 1
  while first <= #old and first <= #lines and old[first] == lines[first] do
    first = first + 1
  end
  if first > #old and first > #lines then
    return
  end
  local so, sn = #old, #lines
  while so >= first and sn >= first and old[so] == lines[sn] do
    so, sn = so - 1, sn - 1
  end
  -- Windows at the bottom keep following the stream.
  -- So do all of them when another session is shown, or when lines above a window's top
  -- were removed (a navigate or a reseed replaced what it showed).
  local follow = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      local row = vim.api.nvim_win_get_cursor(win)[1]
      local top = vim.api.nvim_win_call(win, function()
        return vim.fn.line('w0')
      end)
      local replaced = first < top and (so - first) ~= (sn - first)
      if switched or replaced or row >= #old - 1 or win ~= vim.api.nvim_get_current_win() then
        follow[#follow + 1] = win
      end
    end
  end
  util.set_lines(buf, vim.list_slice(lines, first, sn), first - 1, so)
  -- Marks of deleted lines move to the line after them: that line is marked again too (a
  -- stray sign after a session switch otherwise).
  require('pi_lsp.markdown').mark_roles(buf, first, math.max(sn, first) + 1)
  if vim.api.nvim_get_mode().mode:match('^[iR]') then
    -- Vim does not update folds while in Insert mode (typing in the input): redo them on
    -- InsertLeave.
    view.folds_stale = true
  end
  for _, win in ipairs(follow) do
    M.show_bottom(win)
  end
end

--- Puts the cursor of `win` on its buffer's last line with that line at the window's
--- bottom, so the window is full (not only the last line at its top).
function M.show_bottom(win)
  if not (win and vim.api.nvim_win_is_valid(win)) then
    return
  end
  local last = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
  pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
  pcall(vim.api.nvim_win_call, win, function()
    vim.cmd('normal! zb')
  end)
end

--- The id of the error item Retry (agent/retry) applies to: the last item, when it is an
--- error and no run is going; nil otherwise.
function M.retry_id(state)
  if type(state) ~= 'table' or state.status == 'running' then
    return nil
  end
  local items = state.items or {}
  local last = items[#items]
  if type(last) == 'table' and last.kind == 'error' then
    return last.id
  end
end

--- The error item shown at or above line `lnum` of the transcript (nil when none).
function M.error_at(view, lnum)
  local lines = vim.api.nvim_buf_get_lines(view.tbuf, 0, lnum, false)
  local nth, at = 0, nil
  for i, l in ipairs(lines) do
    if l:find('^> %*%*Error:%*%*') then
      nth = nth + 1
      at = i
    end
  end
  if not at then
    return nil
  end
  local st = M.shown_state(view) or {}
  local k = 0
  for _, it in ipairs(st.items or {}) do
    if it.kind == 'error' and not (view.dismissed and view.dismissed[it.id]) then
      k = k + 1
      if k == nth then
        return it
      end
    end
  end
end

--- Hides the error at or above the cursor of the transcript (x). Returns true when one was.
function M.dismiss_error(view, lnum)
  local it = M.error_at(view, lnum)
  if not it then
    return false
  end
  view.dismissed = view.dismissed or {}
  view.dismissed[it.id] = true
  M.render_view(view)
  return true
end

--- The state the transcript shows: the display state, with the older items :PiOlder loaded
--- in front of its items (those the state itself holds again after a reseed are dropped).
function M.shown_state(view)
  local st = view.client:display()
  if type(st) ~= 'table' or not view.older or #view.older == 0 then
    return st
  end
  local have = {}
  for _, it in ipairs(st.items or {}) do
    have[it.id] = true
  end
  local items = {}
  for _, it in ipairs(view.older) do
    if not have[it.id] then
      items[#items + 1] = it
    end
  end
  vim.list_extend(items, st.items or {})
  return setmetatable({ items = items }, { __index = st })
end

--- :PiOlder: loads the page of items before the oldest one shown (display/history) into the
--- transcript. Windows keep showing the same lines (cursor and view move down by the lines
--- added above); folds keep their state. cb(err, n) gets the number of items loaded.
function M.older(client, cb)
  local view = M.ensure(client)
  local st = client:display() or {}
  if view.session ~= (st.session or {}).id then
    view.older, view.before, view.session = {}, nil, (st.session or {}).id
  end
  local before = view.before
  if before == nil then
    local h = st.history
    before = type(h) == 'table' and h.before or false
  end
  if not before or before == vim.NIL then
    vim.notify('pi-lsp: the transcript starts at the first item', vim.log.levels.INFO)
    if cb then
      cb(nil, 0)
    end
    return
  end
  client:request('display/history', { before = before, limit = 200 }, function(err, res)
    if err then
      vim.notify('pi-lsp: display/history: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      if cb then
        cb(err)
      end
      return
    end
    local old_count = buf_valid(view.tbuf) and vim.api.nvim_buf_line_count(view.tbuf) or 0
    local saved = {}
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if buf_valid(view.tbuf) and vim.api.nvim_win_get_buf(win) == view.tbuf then
        saved[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
      end
    end
    local items = vim.list_extend(vim.list_slice(res.items or {}), view.older or {})
    view.older = items
    view.before = (res.before ~= nil and res.before ~= vim.NIL) and res.before or false
    M.render_view(view)
    local added = (buf_valid(view.tbuf) and vim.api.nvim_buf_line_count(view.tbuf) or 0) - old_count
    for win, v in pairs(saved) do
      if vim.api.nvim_win_is_valid(win) then
        v.lnum = v.lnum + added
        v.topline = v.topline + added
        vim.api.nvim_win_call(win, function()
          vim.fn.winrestview(v)
        end)
      end
    end
    if cb then
      cb(nil, #(res.items or {}))
    end
  end)
end

local function get_input(view)
  if not buf_valid(view.ibuf) then
    return ''
  end
  local lines = vim.api.nvim_buf_get_lines(view.ibuf, 0, -1, false)
  return (table.concat(lines, '\n'):gsub('^%s+', ''):gsub('%s+$', ''))
end

--- Replaces the input text (used by the tree view to give back a user message). The chat
--- buffers are created if needed; no window is opened.
function M.set_input(client, text)
  local view = M.ensure(client)
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, util.lines(text or ''))
end

--- The current input text of the client's chat ('' when there is no chat).
function M.input(client)
  local view = views[client.cwd]
  return view and get_input(view) or ''
end

--- Sends the input: `behavior` is 'steer' (default; starts a run when idle) or 'followUp'.
function M.send(view, behavior)
  local text = get_input(view)
  if text == '' then
    return
  end
  local saved = vim.api.nvim_buf_get_lines(view.ibuf, 0, -1, false)
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { '' })
  -- /goal runs goal/set (or goal/clear), not a prompt.
  local is_goal = require('pi_lsp.goal').run(view.client, text, function(err)
    if err and buf_valid(view.ibuf) and get_input(view) == '' then
      vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, saved)
    end
  end)
  if is_goal then
    return
  end
  -- Built-ins (/name, /tree, /new, …) run here, with the method commands/list names.
  local is_builtin = require('pi_lsp.builtins').run(view.client, text, function(err)
    if err and buf_valid(view.ibuf) and get_input(view) == '' then
      vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, saved)
    end
  end)
  if is_builtin then
    return
  end
  local ctx = require('pi_lsp.context').from_text(view.client.cwd, text)
  vim.list_extend(ctx, view.attached or {})
  view.attached = nil
  require('pi_lsp.input_context').show(view)
  M.prompt(view.client, text, behavior, function(err)
    if err and buf_valid(view.ibuf) and get_input(view) == '' then
      vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, saved)
    end
  end, ctx)
end

--- Attaches a context item (a selection) to the next prompt sent from the chat.
function M.attach(client, item)
  local view = M.ensure(client)
  view.attached = view.attached or {}
  table.insert(view.attached, item)
  require('pi_lsp.input_context').show(view)
  vim.notify(string.format('pi-lsp: %s:%d-%d attached to the next prompt', vim.fn.fnamemodify(item.path, ':.'), item.range.startLine, item.range.endLine), vim.log.levels.INFO)
end

--- Sends `text` as agent/prompt; errors (no model: -32003 with a hint) are reported.
function M.prompt(client, text, behavior, cb, context)
  local params = { text = text, streamingBehavior = behavior or 'steer' }
  if context and #context > 0 then
    params.context = context
  end
  client:request('agent/prompt', params, function(err, result)
    if err then
      local msg = err.message or vim.inspect(err)
      local hint = type(err.data) == 'table' and err.data.hint
      if type(hint) == 'string' and not msg:find(hint, 1, true) then
        msg = msg .. ' — ' .. hint
      end
      vim.notify('pi-lsp: ' .. msg, vim.log.levels.ERROR)
    end
    if cb then
      cb(err, result)
    end
  end)
end

--- Aborts the run of `client` and drops its pending prompts.
function M.abort(client)
  require('pi_lsp.prompts').drop(client, 'aborted')
  client:request('agent/abort', nil, function(err, r)
    -- The queued messages the abort dropped go back to the input, after what is there.
    local drafts = not err and type(r) == 'table' and r.returnedDrafts or nil
    if type(drafts) == 'table' and #drafts > 0 then
      local cur = M.input(client)
      local text = table.concat(drafts, '\n\n')
      M.set_input(client, cur ~= '' and (cur .. '\n\n' .. text) or text)
    end
  end)
end

local function setup_transcript(view, buf)
  local keys = view.client.cfg.keymaps
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].modifiable = false
  util.map(buf, 'n', keys.abort, function()
    M.abort(view.client)
  end, 'Abort the run')
  if keys.goal_stop then
    util.map(buf, 'n', keys.goal_stop, function()
      require('pi_lsp.goal').stop(view.client)
    end, 'Stop the goal')
  end
  util.map(buf, 'n', keys.focus_input, function()
    M.focus_input(view)
  end, 'Go to the input')
  util.map(buf, 'n', keys.pending, function()
    require('pi_lsp.prompts').reopen()
  end, 'Show pending prompts')
  util.map(buf, 'n', keys.older, function()
    M.older(view.client)
  end, 'Load earlier items (:PiOlder)')
  util.map(buf, 'n', keys.retry, function()
    require('pi_lsp.queue').retry(view.client)
  end, 'Retry after a provider error')
  util.map(buf, 'n', keys.queue, function()
    require('pi_lsp.queue').pick(view.client)
  end, 'Edit or remove a queued message')
  util.map(buf, 'n', keys.dismiss, function()
    if not M.dismiss_error(view, vim.api.nvim_win_get_cursor(0)[1]) then
      vim.notify('pi-lsp: no error here to dismiss', vim.log.levels.INFO)
    end
  end, 'Dismiss the error under the cursor')
end

local function setup_input(view, buf)
  local keys = view.client.cfg.keymaps
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].omnifunc = "v:lua.require'pi_lsp.complete'.omnifunc"
  vim.api.nvim_buf_set_var(buf, 'pi_lsp_cwd', view.client.cwd)
  -- The attached context and the text's @/# mentions stay listed on the input.
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI', 'InsertLeave' }, {
    buffer = buf,
    callback = function()
      require('pi_lsp.input_context').show(view)
    end,
  })
  util.map(buf, { 'n', 'i' }, keys.send, function()
    if vim.fn.pumvisible() == 1 then
      -- Accept the completion instead of sending.
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-y>', true, false, true), 'n', false)
      return
    end
    M.send(view, 'steer')
  end, 'Send (steers while a run is going)')
  util.map(buf, { 'n', 'i' }, keys.follow_up, function()
    M.send(view, 'followUp')
  end, 'Queue a follow-up')
  util.map(buf, { 'n', 'i' }, keys.abort, function()
    M.abort(view.client)
  end, 'Abort the run')
  if view.client.cfg.chat.auto_complete ~= false then
    -- The menu opens while typing: it must neither insert nor select a match by itself.
    -- 'completeopt' is global before 0.10, so it is swapped while Insert mode is in here.
    local saved_cot
    vim.api.nvim_create_autocmd('InsertEnter', {
      buffer = buf,
      callback = function()
        saved_cot = vim.o.completeopt
        vim.o.completeopt = 'menuone,noselect'
      end,
    })
    vim.api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, {
      buffer = buf,
      callback = function()
        if saved_cot then
          vim.o.completeopt = saved_cot
          saved_cot = nil
        end
      end,
    })
    vim.api.nvim_create_autocmd('TextChangedI', {
      buffer = buf,
      callback = function()
        require('pi_lsp.complete').auto(buf)
      end,
    })
  end
end

local function set_chat_win_options(win)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = 'no'
  vim.wo[win].foldmethod = 'expr'
  vim.wo[win].foldexpr = "v:lua.require'pi_lsp.chat'.foldexpr(v:lnum)"
  vim.wo[win].foldtext = "v:lua.require'pi_lsp.chat'.foldtext()"
  vim.wo[win].foldlevel = 0
  vim.wo[win].foldenable = true
  vim.wo[win].fillchars = 'fold: ,eob: '
  require('pi_lsp.markdown').setup_window(win)
end

local function find_win(buf)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
end

--- Moves to the input window and starts Insert mode at the end of the input.
function M.focus_input(view)
  local win = find_win(view.ibuf)
  if win then
    vim.api.nvim_set_current_win(win)
    M.start_insert(win)
  end
end

--- Starts Insert mode in the input window `win`, at the end of its text. Inside a mapping or
--- a command `startinsert` takes effect once it returns.
function M.start_insert(win)
  local last = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
  pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
  vim.cmd('startinsert!')
end

--- The chat view of `client`, creating its buffers (not windows) when needed.
function M.ensure(client)
  local view = views[client.cwd]
  if view and buf_valid(view.tbuf) and buf_valid(view.ibuf) then
    return view
  end
  if view and view.unsub then
    view.unsub()
  end
  view = { client = client }
  views[client.cwd] = view
  local short = vim.fn.fnamemodify(client.cwd, ':t')
  view.tbuf = util.scratch('pi://chat/' .. short, 'markdown')
  require('pi_lsp.markdown').setup_buffer(view.tbuf)
  view.ibuf = util.scratch('pi://input/' .. short, 'markdown')
  setup_transcript(view, view.tbuf)
  setup_input(view, view.ibuf)
  view.unsub = client:subscribe(function(event)
    if event == 'state' or event == 'status' then
      M.render_view(view)
    end
  end)
  M.render_view(view)
  return view
end

local function open_windows(view, cfg)
  local pair = require('pi_lsp.layout').open(view.tbuf, view.ibuf, cfg, set_chat_win_options)
  M.show_bottom(pair.twin)
  return pair.twin, pair.iwin
end

-- Recomputes the folds of transcripts changed during Insert mode. Setting 'foldmethod' marks
-- the window's folds invalid; open or closed folds that still exist keep their state.
local function refresh_stale_folds()
  for _, view in pairs(views) do
    if view.folds_stale and buf_valid(view.tbuf) then
      view.folds_stale = false
      for _, win in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_buf(win) == view.tbuf then
          vim.wo[win].foldmethod = 'expr'
        end
      end
    end
  end
end

local chat_group = vim.api.nvim_create_augroup('pi_lsp_chat', { clear = true })
vim.api.nvim_create_autocmd('InsertLeave', {
  group = chat_group,
  callback = refresh_stale_folds,
})

-- After a resize (the layout gives the pair its share first), a transcript window whose
-- cursor is on the last line shows the bottom again, full, not just that line.
vim.api.nvim_create_autocmd('VimResized', {
  group = chat_group,
  callback = function()
    vim.schedule(function()
      for _, view in pairs(views) do
        if buf_valid(view.tbuf) then
          local last = vim.api.nvim_buf_line_count(view.tbuf)
          for _, win in ipairs(vim.api.nvim_list_wins()) do
            if vim.api.nvim_win_get_buf(win) == view.tbuf and vim.api.nvim_win_get_cursor(win)[1] >= last - 1 then
              M.show_bottom(win)
            end
          end
        end
      end
    end)
  end,
})

--- Opens (or focuses) the chat of `client` and returns its view.
function M.open(client)
  local view = M.ensure(client)
  local layout = require('pi_lsp.layout')
  local pair = layout.find(view.tbuf, view.ibuf)
  local iwin = pair and pair.iwin or find_win(view.ibuf)
  if iwin then
    vim.api.nvim_set_current_win(iwin)
  else
    local twin = find_win(view.tbuf)
    if twin and vim.api.nvim_win_get_config(twin).relative == '' then
      vim.api.nvim_set_current_win(twin)
      vim.cmd('belowright ' .. (client.cfg.chat.input_height or 4) .. 'split')
      vim.api.nvim_win_set_buf(0, view.ibuf)
      layout.pair(twin, vim.api.nvim_get_current_win(), client.cfg.chat)
    else
      open_windows(view, client.cfg.chat)
    end
  end
  return view
end

--- :PiToggle: hides the chat of `client` when it is shown in this tab, else opens it.
--- Returns true when the chat is shown afterwards.
function M.toggle(client)
  local view = M.ensure(client)
  if require('pi_lsp.layout').hide(view.tbuf, view.ibuf) then
    return false
  end
  M.open(client)
  return true
end

--- The view of `client`, if a chat was opened.
function M.view(client)
  return views[client.cwd]
end

--- Forgets the view of `cwd` (its client was removed).
function M.forget(cwd)
  local view = views[cwd]
  if view and view.unsub then
    view.unsub()
  end
  views[cwd] = nil
end

return M
