-- Slash-command completion in the chat input, from `commands/list` (skills as /skill:name,
-- prompt templates as /name).
local M = {}

--- Completion items for `base` (which starts with '/'), sorted by name.
---@param commands table[] {name, description, kind}
---@param base string
function M.matches(commands, base)
  local prefix = (base or ''):gsub('^/', '')
  local out = {}
  for _, c in ipairs(type(commands) == 'table' and commands or {}) do
    if type(c) == 'table' and type(c.name) == 'string' and c.name:sub(1, #prefix) == prefix then
      local desc = c.description
      if desc == nil or desc == vim.NIL then
        desc = ''
      end
      out[#out + 1] = {
        word = '/' .. c.name,
        abbr = '/' .. c.name,
        menu = '[' .. tostring(c.kind or 'command') .. '] ' .. tostring(desc):gsub('\n.*', ''),
        info = tostring(desc),
        icase = 0,
        dup = 0,
      }
    end
  end
  table.sort(out, function(a, b)
    return a.word < b.word
  end)
  return out
end

--- The slash word before the cursor on the first line of the input, or nil.
function M.slash_word(line, col, lnum)
  if lnum ~= 1 then
    return nil
  end
  local before = line:sub(1, col)
  return before:match('^(/[%w:_%-%.]*)$')
end

local function commands_for(buf)
  local ok, cwd = pcall(vim.api.nvim_buf_get_var, buf, 'pi_lsp_cwd')
  if not ok then
    return {}
  end
  local c = require('pi_lsp.client').get(cwd, false)
  return c and c.commands or {}
end

local function client_for(buf)
  local ok, cwd = pcall(vim.api.nvim_buf_get_var, buf, 'pi_lsp_cwd')
  return ok and require('pi_lsp.client').get(cwd, false) or nil
end

--- 'omnifunc' of the chat input (<C-x><C-o>): /commands on the first word, @files (from
--- files/search) and #buffers anywhere.
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local lnum, col = unpack(vim.api.nvim_win_get_cursor(0))
    local line = vim.api.nvim_get_current_line()
    local sigil, _, start = require('pi_lsp.context').mention_word(line, col)
    if sigil then
      return start
    end
    local word = M.slash_word(line, col, lnum)
    if not word then
      return -3
    end
    return 0
  end
  local sigil = base:sub(1, 1)
  if sigil == '@' or sigil == '#' then
    return require('pi_lsp.context').complete(client_for(vim.api.nvim_get_current_buf()), sigil, base:sub(2))
  end
  return M.matches(commands_for(vim.api.nvim_get_current_buf()), base)
end

--- TextChangedI handler: opens the menu while the first word is a slash command.
function M.auto(buf)
  if vim.fn.pumvisible() == 1 then
    return
  end
  local lnum, col = unpack(vim.api.nvim_win_get_cursor(0))
  local word = M.slash_word(vim.api.nvim_get_current_line(), col, lnum)
  if not word then
    return
  end
  local items = M.matches(commands_for(buf), word)
  if #items > 0 then
    vim.fn.complete(1, items)
  end
end

return M
