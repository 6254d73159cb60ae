-- layout: the chat's two windows, the transcript above the input, as a split pair
-- (right/left/bottom/tab/current) or a float pair ('float'). The pair keeps its share of the
-- editor when the terminal is resized (VimResized), and closing either window (`:q` on the
-- transcript) closes the other.
local M = {}

-- Open pairs: {twin, iwin, cfg, set_options}.
local pairs_open = {}

local function valid(win)
  return win and vim.api.nvim_win_is_valid(win)
end

--- `size` below 1 is a fraction of `total`; otherwise a count of cells.
function M.cells(size, total)
  if size < 1 then
    return math.max(1, math.floor(total * size))
  end
  return math.max(1, math.floor(size))
end

--- The window configs {transcript, input} of the float pair in the editor's current size:
--- one box of `float.width` x `float.height` (fractions or cells), centred, the input's
--- `input_height` lines at its bottom.
function M.float_configs(cfg)
  local f = cfg.float or {}
  local cols = vim.o.columns
  local rows = vim.o.lines - vim.o.cmdheight - 1
  -- Each float has a one-cell border all round.
  local w = math.max(20, math.min(M.cells(f.width or 0.8, cols), cols - 2))
  local h = math.max(6, math.min(M.cells(f.height or 0.8, rows), rows))
  local ih = math.max(1, math.min(cfg.input_height or 4, h - 5))
  local th = math.max(1, h - ih - 4)
  local row = math.max(0, math.floor((rows - (th + ih + 4)) / 2))
  local col = math.max(0, math.floor((cols - w - 2) / 2))
  local base = { relative = 'editor', style = 'minimal', border = 'rounded', width = w, col = col }
  local t = vim.tbl_extend('force', base, { row = row, height = th })
  local i = vim.tbl_extend('force', base, { row = row + th + 2, height = ih })
  if vim.fn.has('nvim-0.9') == 1 then
    t.title, t.title_pos = ' pi-lsp ', 'center'
  end
  return t, i
end

local function track(pair)
  pairs_open[#pairs_open + 1] = pair
  return pair
end

--- The open pair showing `tbuf` and `ibuf` in the current tab, if any.
function M.find(tbuf, ibuf)
  local tab = vim.api.nvim_get_current_tabpage()
  for _, p in ipairs(pairs_open) do
    if valid(p.twin) and valid(p.iwin) and vim.api.nvim_win_get_buf(p.twin) == tbuf
      and vim.api.nvim_win_get_buf(p.iwin) == ibuf and vim.api.nvim_win_get_tabpage(p.twin) == tab then
      return p
    end
  end
end

--- Pairs an existing transcript window with an existing input window (closing one closes
--- the other). Returns the pair.
function M.pair(twin, iwin, cfg)
  return track({ twin = twin, iwin = iwin, cfg = cfg, kind = 'split' })
end

--- Opens the pair for buffers `tbuf` and `ibuf` as `cfg.position` says. `set_options(win)`
--- sets the transcript window's options. The input window is current afterwards.
function M.open(tbuf, ibuf, cfg, set_options)
  local pos = cfg.position or 'right'
  if pos == 'float' then
    vim.cmd('stopinsert')
    local tc, ic = M.float_configs(cfg)
    local twin = vim.api.nvim_open_win(tbuf, false, tc)
    set_options(twin)
    local iwin = vim.api.nvim_open_win(ibuf, true, ic)
    vim.wo[iwin].wrap = true
    return track({ twin = twin, iwin = iwin, cfg = cfg, kind = 'float' })
  end
  local size = cfg.size or 0.4
  if pos == 'tab' then
    vim.cmd('tabnew')
  elseif pos == 'current' then
    -- The current window becomes the transcript.
  elseif pos == 'bottom' then
    vim.cmd('botright ' .. M.cells(size, vim.o.lines) .. 'split')
  else
    vim.cmd((pos == 'left' and 'topleft ' or 'botright ') .. M.cells(size, vim.o.columns) .. 'vsplit')
  end
  local twin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(twin, tbuf)
  set_options(twin)
  vim.cmd('belowright ' .. (cfg.input_height or 4) .. 'split')
  local iwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(iwin, ibuf)
  vim.wo[iwin].winfixheight = true
  vim.wo[iwin].number = false
  vim.wo[iwin].relativenumber = false
  vim.wo[iwin].foldenable = false
  return track({ twin = twin, iwin = iwin, cfg = cfg, kind = 'split' })
end

--- Gives the pair its share of the editor's current size again.
function M.resize(p)
  if not (valid(p.twin) and valid(p.iwin)) then
    return
  end
  local cfg = p.cfg or {}
  if p.kind == 'float' then
    local tc, ic = M.float_configs(cfg)
    tc.title, tc.title_pos = nil, nil
    pcall(vim.api.nvim_win_set_config, p.twin, tc)
    pcall(vim.api.nvim_win_set_config, p.iwin, ic)
    return
  end
  local pos, size = cfg.position or 'right', cfg.size or 0.4
  local ih = cfg.input_height or 4
  if pos == 'right' or pos == 'left' then
    pcall(vim.api.nvim_win_set_width, p.twin, M.cells(size, vim.o.columns))
  elseif pos == 'bottom' then
    pcall(vim.api.nvim_win_set_height, p.twin, math.max(1, M.cells(size, vim.o.lines) - ih - 1))
  end
  pcall(vim.api.nvim_win_set_height, p.iwin, ih)
end

--- Closes both windows of `p`. A window that is the last one of the editor stays.
function M.close(p)
  for _, win in ipairs({ p.iwin, p.twin }) do
    if valid(win) then
      pcall(vim.api.nvim_win_close, win, false)
    end
  end
end

--- Closes the pair showing `tbuf`/`ibuf` in the current tab; true when there was one.
function M.hide(tbuf, ibuf)
  local p = M.find(tbuf, ibuf)
  if p then
    M.close(p)
    return true
  end
  return false
end

local group = vim.api.nvim_create_augroup('pi_lsp_layout', { clear = true })

vim.api.nvim_create_autocmd('VimResized', {
  group = group,
  callback = function()
    for _, p in ipairs(pairs_open) do
      M.resize(p)
    end
  end,
})

vim.api.nvim_create_autocmd('WinClosed', {
  group = group,
  callback = function(args)
    local closed = tonumber(args.match)
    local keep = {}
    for _, p in ipairs(pairs_open) do
      if p.twin == closed or p.iwin == closed then
        -- Windows cannot be closed while one is being closed: the partner goes next.
        local other = p.twin == closed and p.iwin or p.twin
        vim.schedule(function()
          if valid(other) then
            pcall(vim.api.nvim_win_close, other, false)
          end
        end)
      elseif valid(p.twin) or valid(p.iwin) then
        keep[#keep + 1] = p
      end
    end
    pairs_open = keep
  end,
})

return M
