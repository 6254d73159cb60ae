-- editor/diagnostics and editor/lsp (docs/protocol.md): pi-lsp asks the language servers
-- attached to Neovim's buffers for the problems of the files the agent changed, and for
-- definitions, references, hovers, symbols and rename previews. Works on Neovim 0.7.2.
local M = {}

-- The buffer of path, loaded (its filetype detected so LSP clients attach) and reloaded from
-- the disk when the file changed under it.
local function load(path)
  local buf = vim.fn.bufadd(path)
  if not vim.api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
    vim.api.nvim_buf_call(buf, function()
      if vim.bo.filetype == '' then
        vim.cmd('silent! filetype detect')
      end
      vim.cmd('silent! doautocmd BufReadPost')
    end)
  else
    vim.api.nvim_buf_call(buf, function()
      vim.cmd('silent! checktime')
    end)
  end
  return buf
end

local function snapshot(bufs)
  local parts = {}
  for _, b in ipairs(bufs) do
    for _, d in ipairs(vim.diagnostic.get(b)) do
      parts[#parts + 1] = string.format('%d:%d:%d:%s', b, d.lnum or 0, d.severity or 0, d.message or '')
    end
  end
  return table.concat(parts, '\n')
end

--- editor/diagnostics {paths, settleMs}: loads each file, lets its LSP clients publish until
--- the diagnostics have been quiet for settleMs (or settleMs + 1 s passed), then answers.
function M.collect(params, done)
  local paths = type(params.paths) == 'table' and params.paths or {}
  local settle = tonumber(params.settleMs) or 1500
  local bufs = {}
  for _, p in ipairs(paths) do
    if type(p) == 'string' and vim.fn.filereadable(p) == 1 then
      bufs[#bufs + 1] = { path = p, buf = load(p) }
    end
  end
  local list = vim.tbl_map(function(x)
    return x.buf
  end, bufs)
  local start = vim.loop.now()
  local last, last_change = snapshot(list), start
  local function answer()
    local files = {}
    for _, x in ipairs(bufs) do
      local ds = {}
      for _, d in ipairs(vim.diagnostic.get(x.buf)) do
        local item = {
          range = {
            start = { line = d.lnum or 0, character = d.col or 0 },
            ['end'] = { line = d.end_lnum or d.lnum or 0, character = d.end_col or d.col or 0 },
          },
          severity = d.severity or 1,
          message = d.message or '',
        }
        if d.source then
          item.source = d.source
        end
        local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
        if type(code) == 'string' or type(code) == 'number' then
          item.code = code
        end
        ds[#ds + 1] = item
      end
      files[#files + 1] = { path = x.path, diagnostics = ds }
    end
    done({ files = files })
  end
  if settle <= 0 or #bufs == 0 then
    return answer()
  end
  local timer = vim.loop.new_timer()
  timer:start(
    50,
    50,
    vim.schedule_wrap(function()
      if timer:is_closing() then
        return
      end
      local now = vim.loop.now()
      local s = snapshot(list)
      if s ~= last then
        last, last_change = s, now
      end
      if now - last_change >= settle or now - start >= settle + 1000 then
        timer:stop()
        timer:close()
        answer()
      end
    end)
  )
end

local function line_text(path, lnum)
  local buf = vim.fn.bufnr(path)
  local l
  if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
    l = vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, false)[1]
  else
    local ok, lines = pcall(vim.fn.readfile, path, '', lnum + 1)
    l = ok and lines[lnum + 1] or nil
  end
  return vim.trim(l or ''):sub(1, 160)
end

local function add_location(out, uri, range, text)
  if not uri or not range then
    return
  end
  local path = vim.uri_to_fname(uri)
  out[#out + 1] = {
    path = path,
    line = range.start.line + 1,
    column = range.start.character + 1,
    endLine = range['end'].line + 1,
    endColumn = range['end'].character + 1,
    text = text or line_text(path, range.start.line),
  }
end

local methods = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  symbols = 'textDocument/documentSymbol',
  rename_preview = 'textDocument/rename',
}

--- editor/lsp {op, path, line, column, query?}: asks the buffer's LSP clients.
function M.lsp(params)
  local method = methods[params.op]
  if not method or type(params.path) ~= 'string' then
    return nil, { code = -32602, message = 'editor/lsp needs a known op and a path' }
  end
  local buf = load(params.path)
  local pos = { line = math.max(0, (tonumber(params.line) or 1) - 1), character = math.max(0, (tonumber(params.column) or 1) - 1) }
  local req = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = pos }
  if params.op == 'references' then
    req.context = { includeDeclaration = true }
  elseif params.op == 'symbols' then
    req = { textDocument = req.textDocument }
    if type(params.query) == 'string' and params.query ~= '' then
      method, req = 'workspace/symbol', { query = params.query }
    end
  elseif params.op == 'rename_preview' then
    req.newName = params.query or ''
  end
  -- Clients attach right after the buffer loads: give them a moment.
  vim.wait(2000, function()
    return next(vim.lsp.buf_get_clients(buf)) ~= nil
  end, 20)
  local answers = vim.lsp.buf_request_sync(buf, method, req, 5000) or {}
  local out, hover = {}, nil
  for _, a in pairs(answers) do
    local r = a.result
    if type(r) == 'table' then
      if params.op == 'hover' then
        local c = r.contents
        hover = type(c) == 'string' and c or (type(c) == 'table' and (c.value or (c[1] and (c[1].value or c[1])))) or nil
      elseif params.op == 'rename_preview' then
        for uri, edits in pairs(r.changes or {}) do
          for _, e in ipairs(edits) do
            add_location(out, uri, e.range, '→ ' .. e.newText)
          end
        end
        for _, dc in ipairs(r.documentChanges or {}) do
          for _, e in ipairs(dc.edits or {}) do
            add_location(out, dc.textDocument.uri, e.range, '→ ' .. e.newText)
          end
        end
      elseif params.op == 'symbols' then
        local function walk(s, parent)
          local name = parent and (parent .. '.' .. s.name) or s.name
          if s.location then
            add_location(out, s.location.uri, s.location.range, name)
          else
            add_location(out, req.textDocument and req.textDocument.uri, s.selectionRange, name)
          end
          for _, ch in ipairs(s.children or {}) do
            walk(ch, name)
          end
        end
        for _, s in ipairs(r) do
          walk(s)
        end
      else
        local list = r.uri and { r } or r
        for _, l in ipairs(list) do
          add_location(out, l.uri or l.targetUri, l.range or l.targetSelectionRange)
        end
      end
    end
  end
  local res = { locations = out }
  if hover and hover ~= '' then
    res.hover = hover
  end
  return res
end

return M
