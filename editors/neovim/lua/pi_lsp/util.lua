-- Small editor helpers shared by the views: scratch buffers, centred floats, buffer-local keys.
local M = {}

--- A scratch buffer (nofile, hidden, not modifiable) named `name` if given.
function M.scratch(name, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  if name then
    pcall(vim.api.nvim_buf_set_name, buf, name)
  end
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  return buf
end

--- Replaces the lines of a (possibly non-modifiable) buffer.
function M.set_lines(buf, lines, first, last)
  local mod = vim.bo[buf].modifiable
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, first or 0, last or -1, false, lines)
  vim.bo[buf].modifiable = mod
end

--- Opens a centred float on `buf` sized to `lines` (within 80% of the editor).
---@param opts table {width=, height=, enter=bool, title=}
function M.float(buf, lines, opts)
  opts = opts or {}
  local cfg = M.float_config(lines, opts)
  if opts.enter ~= false then
    -- A float opened from Insert mode must not take what is typed next.
    vim.cmd('stopinsert')
  end
  local win = vim.api.nvim_open_win(buf, opts.enter ~= false, cfg)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  -- Re-centred and re-sized when the terminal is resized.
  local group = vim.api.nvim_create_augroup('pi_lsp_float_' .. win, { clear = true })
  vim.api.nvim_create_autocmd('VimResized', {
    group = group,
    callback = function()
      if not vim.api.nvim_win_is_valid(win) then
        pcall(vim.api.nvim_del_augroup_by_id, group)
        return true
      end
      local c = M.float_config(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), opts)
      c.title, c.title_pos = nil, nil
      pcall(vim.api.nvim_win_set_config, win, c)
    end,
  })
  return win
end

--- The window config of a centred float for `lines` in the editor's current size.
function M.float_config(lines, opts)
  local cols, rows = vim.o.columns, vim.o.lines - vim.o.cmdheight - 2
  local w = opts.width or 0
  if w == 0 then
    for _, l in ipairs(lines) do
      w = math.max(w, vim.fn.strdisplaywidth(l))
    end
    w = w + 2
  end
  w = math.max(30, math.min(w, math.floor(cols * 0.8)))
  local h = math.max(1, math.min(opts.height or #lines, math.floor(rows * 0.8)))
  local cfg = {
    relative = 'editor',
    width = w,
    height = h,
    row = math.max(0, math.floor((rows - h) / 2)),
    col = math.max(0, math.floor((cols - w) / 2)),
    style = 'minimal',
    border = 'rounded',
  }
  if opts.title and vim.fn.has('nvim-0.9') == 1 then
    cfg.title = ' ' .. opts.title .. ' '
    cfg.title_pos = 'center'
  end
  return cfg
end

--- Maps `lhs` (unless false/nil) in `buf` for `modes` to `fn`.
function M.map(buf, modes, lhs, fn, desc)
  if not lhs or lhs == '' then
    return
  end
  vim.keymap.set(modes, lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
end

--- Closes `win` when it is still valid.
function M.close_win(win)
  if win and vim.api.nvim_win_is_valid(win) then
    pcall(vim.api.nvim_win_close, win, true)
  end
end

--- Splits `text` into lines (CRLF/CR tolerant); nil gives {}.
function M.lines(text)
  if text == nil or text == vim.NIL then
    return {}
  end
  text = tostring(text):gsub('\r\n', '\n'):gsub('\r', '\n')
  return vim.split(text, '\n', { plain = true })
end

return M
