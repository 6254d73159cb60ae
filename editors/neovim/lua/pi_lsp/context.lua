-- Editor context for prompts (agent/prompt's `context`): the visual selection of :'<,'>PiChat,
-- `@path` (a workspace file, read by the server) and `#buffer` (a loaded buffer, with its
-- unsaved text) in the input, and their completion (@ from files/search and MCP resources as
-- @server:uri, # from the buffers).
local M = {}

--- The selection context of lines l1..l2 (1-based) of buf.
function M.selection(buf, l1, l2)
  local lines = vim.api.nvim_buf_get_lines(buf, l1 - 1, l2, false)
  return {
    type = 'selection',
    path = vim.api.nvim_buf_get_name(buf),
    range = { startLine = l1, endLine = l2 },
    text = table.concat(lines, '\n'),
  }
end

local function loaded_buffer(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' then
      local full = vim.api.nvim_buf_get_name(b)
      if full ~= '' and (full == name or vim.fn.fnamemodify(full, ':t') == name or vim.fn.fnamemodify(full, ':.') == name) then
        return b, full
      end
    end
  end
end

--- The context items the input text names: `@path` of an existing file under cwd (or
--- absolute), `#name` of a loaded buffer (its unsaved text when it is modified, else the
--- file).
function M.from_text(cwd, text)
  local out, seen = {}, {}
  for pre, sigil, word in (' ' .. text):gmatch('(%s)([@#])([%w%._/%-]+)') do
    local _ = pre
    word = word:gsub('[%.,;:]+$', '')
    if sigil == '@' then
      local abs = word:sub(1, 1) == '/' and word or (cwd .. '/' .. word)
      if not seen[abs] and vim.fn.filereadable(abs) == 1 then
        seen[abs] = true
        out[#out + 1] = { type = 'file', path = abs }
      end
    else
      local b, full = loaded_buffer(word)
      if b and not seen[full] then
        seen[full] = true
        if vim.bo[b].modified then
          -- Unsaved changes: the buffer's text is sent (the model sees unsaved="true").
          local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
          out[#out + 1] = { type = 'file', path = full, text = table.concat(lines, '\n') .. '\n' }
        else
          -- Saved: the server reads the file, which is what the buffer shows.
          out[#out + 1] = { type = 'file', path = full }
        end
      end
    end
  end
  return out
end

--- The @ or # word before the cursor: sigil, the word, and its 0-based start column.
function M.mention_word(line, col)
  local before = line:sub(1, col)
  local s, sigil, word = before:match('()([@#])([%w%._/%-:]*)$')
  if not s or (s > 1 and not before:sub(s - 1, s - 1):match('%s')) then
    return nil
  end
  return sigil, word, s - 1
end

--- Completion items for @word (files/search, synchronous, short timeout) or #word (buffers).
function M.complete(client, sigil, word)
  local items = {}
  if sigil == '#' then
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      local name = vim.api.nvim_buf_get_name(b)
      if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' and name ~= '' then
        local rel = vim.fn.fnamemodify(name, ':.')
        if rel:find(word, 1, true) then
          items[#items + 1] = { word = '#' .. rel, menu = vim.bo[b].modified and '[buffer, modified]' or '[buffer]' }
        end
      end
    end
    return items
  end
  if not client then
    return items
  end
  local err, r = client:request_sync('files/search', { query = word, limit = 20 }, 1500)
  if err or type(r) ~= 'table' then
    return items
  end
  for _, f in ipairs(r.files or {}) do
    items[#items + 1] = { word = '@' .. f.path, menu = '[file]' }
  end
  -- MCP resources: @server:uri attaches the resource (mcp/resources).
  local rerr, rr = client:request_sync('mcp/resources', {}, 1000)
  if not rerr and type(rr) == 'table' then
    for _, srv in ipairs(rr.servers or {}) do
      for _, res in ipairs(srv.resources or {}) do
        local cand = srv.server .. ':' .. res.uri
        if word == '' or cand:find(word, 1, true) then
          items[#items + 1] = { word = '@' .. cand, menu = '[mcp ' .. srv.server .. ']', info = res.description }
        end
      end
    end
  end
  return items
end

return M
