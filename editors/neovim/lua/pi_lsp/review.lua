-- Review before apply, and writes through the editor.
--
-- A pending edit or write with a preview opens in a new tab as a diff: the file as it is (left,
-- read-only) against the agent's version (right, editable). In either window:
--   gr  reject the hunk under the cursor (the right side takes the old lines: :diffget)
--   ga  accept: the right side, as it is now, is what gets written (only the hunks kept)
--   gA  accept all of the agent's change, as proposed
--   gx  decline, with a reason typed in (sent to the model)
--   q   leave it pending (answer later with :PiPending)
-- Editing the right side by hand works too; `ga` sends what it holds.
--
-- fs/writeTextFile: an edit of a file loaded in a buffer lands in the buffer as one undoable
-- change (saved when the buffer had no unsaved changes, so there is no W12); other files are
-- written to the disk.
local M = {}

--- Whether params (ui/requestApproval) can be reviewed as a diff.
function M.reviewable(params)
  local p = type(params) == 'table' and params.preview or nil
  return type(p) == 'table' and p.cut ~= true and type(p.before) == 'string' and type(p.after) == 'string'
end

--- Splits text into buffer lines; the second result says the text ended with a newline.
function M.split(text)
  local eol = text:sub(-1) == '\n'
  if eol then
    text = text:sub(1, -2)
  end
  return vim.split(text, '\n', { plain = true }), eol or text == ''
end

local function join(lines, eol)
  local s = table.concat(lines, '\n')
  if eol and not (#lines == 1 and lines[1] == '') then
    s = s .. '\n'
  end
  return s
end

local function scratch(name, lines, ft, modifiable)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  if ft and ft ~= '' then
    vim.bo[buf].filetype = ft
  end
  vim.bo[buf].modifiable = modifiable
  vim.bo[buf].modified = false
  return buf
end

--- The reply for the right side's lines against the proposal.
function M.reply_for(after, lines, eol, decision)
  decision = decision or 'approve'
  local text = join(lines, eol)
  if text == after then
    return { decision = decision }
  end
  return { decision = decision, content = text }
end

--- Detects the filetype of `path` and sets it on `buf` (a review buffer); returns it ('' when
--- unknown). Never touches the current buffer: 0.7's vim.filetype.match(name, bufnr) sets the
--- filetype of bufnr itself (and returns nothing), so it gets the review buffer, not 0.
function M.detect_filetype(path, buf)
  if not (vim.filetype and vim.filetype.match) then
    return ''
  end
  -- 0.8+ takes {filename = …} and returns the filetype; 0.7 fails on a table.
  local ok, r = pcall(vim.filetype.match, { filename = path })
  if ok and type(r) == 'string' and r ~= '' then
    vim.bo[buf].filetype = r
    return r
  end
  if vim.fn.has('nvim-0.8') == 0 then
    pcall(vim.filetype.match, path, buf)
    return vim.bo[buf].filetype
  end
  return ''
end

--- Opens the review of `entry` (a prompts.lua entry); `finish(answer)` answers, `park()` leaves
--- it pending. Returns the state (buffers, tab) for tests.
function M.open(entry, finish, park)
  local p = entry.params.preview
  local name = vim.fn.fnamemodify(p.path, ':t')
  local before_lines = M.split(p.before)
  local after_lines, after_eol = M.split(p.after)
  vim.cmd('stopinsert')
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local lwin = vim.api.nvim_get_current_win()
  local n = (entry.params.toolCallId or tostring(os.time()))
  local lbuf = scratch('pi-lsp://before/' .. n .. '/' .. name, before_lines, nil, false)
  local ft = M.detect_filetype(p.path, lbuf)
  vim.api.nvim_win_set_buf(lwin, lbuf)
  vim.cmd('diffthis')
  vim.cmd('rightbelow vsplit')
  local rwin = vim.api.nvim_get_current_win()
  local rbuf = scratch('pi-lsp://proposed/' .. n .. '/' .. name, after_lines, ft, true)
  vim.api.nvim_win_set_buf(rwin, rbuf)
  vim.cmd('diffthis')
  local st = { tab = tab, lbuf = lbuf, rbuf = rbuf, lwin = lwin, rwin = rwin, entry = entry }
  local function close()
    if vim.api.nvim_tabpage_is_valid(tab) then
      for _, b in ipairs({ lbuf, rbuf }) do
        if vim.api.nvim_buf_is_valid(b) then
          vim.bo[b].modified = false
          pcall(vim.api.nvim_buf_delete, b, { force = true })
        end
      end
    end
  end
  entry.close = close
  st.accept = function()
    finish(M.reply_for(p.after, vim.api.nvim_buf_get_lines(rbuf, 0, -1, false), after_eol))
  end
  st.accept_all = function()
    finish({ decision = 'approve' })
  end
  -- Outside the workspace (issue 16): the warning is shown with the diff, and gP accepts
  -- (kept hunks) and grants the path's directory for the session.
  local prompts = require('pi_lsp.prompts')
  local warning = prompts.outside_warning(entry.params)
  st.warning = warning ~= '' and warning or nil
  if st.warning then
    st.accept_path = function()
      finish(M.reply_for(p.after, vim.api.nvim_buf_get_lines(rbuf, 0, -1, false), after_eol, 'alwaysAllowPath'))
    end
    vim.notify('pi-lsp: ' .. warning .. ' (' .. tostring(entry.params.toolName) .. ')', vim.log.levels.WARN)
    if vim.fn.exists('+winbar') == 1 then
      for _, w in ipairs({ lwin, rwin }) do
        vim.wo[w].winbar = '%#WarningMsg#!! ' .. warning:gsub('%%', '%%%%') .. ' !!'
      end
    end
  end
  st.reject_hunk = function()
    local cur = vim.api.nvim_get_current_win()
    if cur ~= rwin and cur ~= lwin then
      return
    end
    local line = vim.api.nvim_win_get_cursor(cur)[1]
    vim.api.nvim_set_current_win(rwin)
    if cur == lwin then
      -- The same place on the right: diff mode keeps the windows' cursors bound (scrollbind).
      pcall(vim.api.nvim_win_set_cursor, rwin, { math.min(line, vim.api.nvim_buf_line_count(rbuf)), 0 })
    end
    vim.cmd('diffget')
    vim.cmd('diffupdate')
  end
  st.decline = function(reason)
    local function send(text)
      if text == nil then
        return
      end
      local a = { decision = 'decline' }
      if vim.trim(text) ~= '' then
        a.feedback = vim.trim(text)
      end
      finish(a)
    end
    if reason ~= nil then
      return send(reason)
    end
    vim.ui.input({ prompt = 'Decline — why? (sent to the agent) ' }, send)
  end
  st.park = function()
    close()
    park()
  end
  for _, b in ipairs({ lbuf, rbuf }) do
    local o = { buffer = b, nowait = true, silent = true }
    vim.keymap.set('n', 'ga', st.accept, vim.tbl_extend('force', o, { desc = 'pi-lsp: accept the right side' }))
    vim.keymap.set('n', 'gA', st.accept_all, vim.tbl_extend('force', o, { desc = 'pi-lsp: accept all as proposed' }))
    vim.keymap.set('n', 'gr', st.reject_hunk, vim.tbl_extend('force', o, { desc = 'pi-lsp: reject this hunk' }))
    vim.keymap.set('n', 'gx', function()
      st.decline()
    end, vim.tbl_extend('force', o, { desc = 'pi-lsp: decline with a reason' }))
    vim.keymap.set('n', 'q', st.park, vim.tbl_extend('force', o, { desc = 'pi-lsp: leave pending' }))
    if st.accept_path then
      local dir = prompts.granted_dir(entry.params)
      vim.keymap.set('n', 'gP', st.accept_path, vim.tbl_extend('force', o, { desc = 'pi-lsp: accept and always allow ' .. dir }))
    end
  end
  -- The keys stay in the review windows' statuslines (window-local, works on 0.7); the echo
  -- below is gone after the next message.
  local hint = 'gr reject hunk · ga accept (kept hunks) · gA accept all · gx decline with reason · q later'
    .. (st.warning and ' · gP accept + always allow this directory' or '')
  vim.wo[lwin].statusline = ' pi-lsp: the file now (read-only)  —  ' .. hint:gsub('%%', '%%%%')
  vim.wo[rwin].statusline = ' pi-lsp: proposed (editable)  —  ' .. hint:gsub('%%', '%%%%')
  local echo = {}
  if st.warning then
    table.insert(echo, { '!! ' .. st.warning .. ' !! ', 'WarningMsg' })
  end
  table.insert(echo, { string.format('pi-lsp: %s — ', entry.params.display or name), 'Title' })
  table.insert(echo, {
    'gr reject hunk · ga accept (kept hunks) · gA accept all · gx decline with reason · q later'
      .. (st.warning and ' · gP accept + always allow this directory' or ''),
    'Comment',
  })
  vim.api.nvim_echo(echo, false, {})
  M.current = st
  return st
end

--- fs/writeTextFile {path, text}: into the loaded buffer (undoable), else to the disk.
function M.write(params)
  local path = type(params) == 'table' and params.path or nil
  local text = type(params) == 'table' and (params.content or params.text) or nil
  if type(path) ~= 'string' or type(text) ~= 'string' then
    return nil, { code = -32602, message = 'fs/writeTextFile needs path and content' }
  end
  local buf = vim.fn.bufnr(path)
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
    local was_modified = vim.bo[buf].modified
    local lines, eol = M.split(text)
    local cur = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    if not vim.deep_equal(cur, lines) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    end
    if not eol then
      vim.bo[buf].eol, vim.bo[buf].fixeol = false, false
    end
    if not was_modified then
      vim.api.nvim_buf_call(buf, function()
        vim.cmd('silent noautocmd write!')
      end)
    end
    return vim.NIL
  end
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  local f, err = io.open(path, 'wb')
  if not f then
    return nil, { code = -32603, message = 'cannot write ' .. path .. ': ' .. tostring(err) }
  end
  f:write(text)
  f:close()
  return vim.NIL
end

return M
