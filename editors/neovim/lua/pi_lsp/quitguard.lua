-- A confirmation before `:qa` kills a running turn. While a turn runs, a hidden buffer named
-- for it is 'modified' (buftype=acwrite): `:qa` and `:q` of the last window stop with E37/E162
-- naming the running turn (with 'confirm' set, Vim asks instead), `:qa!` quits. Writing the
-- buffer (`:wa`) aborts nothing: it only clears the mark. Works on 0.7, where QuitPre cannot
-- cancel a quit. A warning still says why: Neovim 0.10 stops `:qa` with E37 without showing the
-- guard buffer (0.7 switches to it), so the reason comes as a warning on every version. It is
-- given on ExitPre, which (unlike QuitPre) comes only when the command would quit Neovim: `:q`
-- or `:x` of the last window, `:qa`; not `:q` of a split or of a tab's window. `:wqa` and
-- `:xa` write the guard buffer (clearing the mark) and quit without either event on 0.7.
local M = {}

-- The guard buffer by client cwd.
local bufs = {}

local NAME = 'pi-lsp: a turn is running (:qa! ends it)'

local function running(st)
  return type(st) == 'table' and (st.status == 'running' or (type(st.phase) == 'string' and st.phase ~= 'idle'))
end

local function warn_on_quit()
  local group = vim.api.nvim_create_augroup('pi_lsp_quitguard', { clear = true })
  vim.api.nvim_create_autocmd('ExitPre', {
    group = group,
    callback = function()
      for cwd, b in pairs(bufs) do
        if vim.api.nvim_buf_is_valid(b) and vim.bo[b].modified then
          vim.notify('pi-lsp: a turn is running in ' .. cwd .. ' — :qa! quits and ends it, :PiAbort stops it first', vim.log.levels.WARN)
          return
        end
      end
    end,
  })
end

local function guard_buf(cwd)
  local b = bufs[cwd]
  if b and vim.api.nvim_buf_is_valid(b) then
    return b
  end
  b = vim.api.nvim_create_buf(false, false)
  local n = vim.tbl_count(bufs)
  pcall(vim.api.nvim_buf_set_name, b, n == 0 and NAME or (NAME .. ' ' .. cwd))
  vim.bo[b].buftype = 'acwrite'
  -- `:qa` shows this buffer with E37: it says what to do.
  vim.api.nvim_buf_set_lines(b, 0, -1, false, {
    'A pi-lsp turn is running in ' .. cwd .. '.',
    ':qa! quits and ends it; :PiAbort stops it first; :b# goes back.',
  })
  vim.bo[b].bufhidden = 'hide'
  vim.bo[b].swapfile = false
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = b,
    callback = function()
      vim.bo[b].modified = false
    end,
  })
  bufs[cwd] = b
  warn_on_quit()
  return b
end

--- Marks (or clears) the guard of `client` from its display state. Returns whether it is set.
function M.update(client)
  local on = client.status == 'running' and running(client:display()) and client.cfg.confirm_quit ~= false
  local b = bufs[client.cwd]
  if not on then
    if b and vim.api.nvim_buf_is_valid(b) then
      vim.bo[b].modified = false
    end
    return false
  end
  b = guard_buf(client.cwd)
  vim.bo[b].modified = true
  return true
end

--- Drops the guard of `cwd` (its client was removed).
function M.forget(cwd)
  local b = bufs[cwd]
  bufs[cwd] = nil
  if b and vim.api.nvim_buf_is_valid(b) then
    vim.bo[b].modified = false
    pcall(vim.api.nvim_buf_delete, b, { force = true })
  end
end

return M
