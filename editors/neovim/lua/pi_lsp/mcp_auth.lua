-- MCP logins and elicitation (docs/mcp.md): window/showDocument opens a login page in the
-- browser, ui/elicit asks a server's form field by field with vim.ui.select / vim.ui.input, and
-- :PiMcpLogin runs mcp/login on a server that shows needs-login. Works on Neovim 0.7.2.
local M = {}

--- The command that opens a URL: vim.ui.open (0.10+), else $BROWSER, xdg-open or open.
local function opener(url)
  if vim.ui.open then
    local ok = pcall(vim.ui.open, url)
    return ok
  end
  local browser = vim.env.BROWSER
  local cmd
  if browser and browser ~= '' then
    cmd = vim.split(browser, '%s+', { trimempty = true })
    local replaced = false
    for i, w in ipairs(cmd) do
      if w:find('%%s') then
        cmd[i] = w:gsub('%%s', url)
        replaced = true
      end
    end
    if not replaced then
      table.insert(cmd, url)
    end
  elseif vim.fn.executable('xdg-open') == 1 then
    cmd = { 'xdg-open', url }
  elseif vim.fn.executable('open') == 1 then
    cmd = { 'open', url }
  else
    return false
  end
  return vim.fn.jobstart(cmd, { detach = true }) > 0
end

--- window/showDocument: {uri, external} → {success}.
function M.show_document(params)
  local uri = type(params) == 'table' and params.uri or ''
  if params.external or uri:match('^https?://') then
    local ok = opener(uri)
    if not ok then
      vim.notify('pi-lsp: open this URL to log in: ' .. uri, vim.log.levels.WARN)
    end
    return { success = ok }
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(uri)))
  return { success = true }
end

--- Checks one typed answer; nil when it fits the field.
function M.check_field(f, text, required)
  if text == '' then
    if required and f.default == nil then
      return 'required'
    end
    return nil
  end
  if f.type == 'number' or f.type == 'integer' then
    local n = tonumber(text)
    if not n then
      return 'a number'
    end
    if f.type == 'integer' and n % 1 ~= 0 then
      return 'a whole number'
    end
  end
  return nil
end

--- ui/elicit: asks each field in turn and calls done({action, content}).
function M.elicit(params, done)
  local schema = type(params.requestedSchema) == 'table' and params.requestedSchema or {}
  local props = type(schema.properties) == 'table' and schema.properties or {}
  local required = {}
  for _, n in ipairs(schema.required or {}) do
    required[n] = true
  end
  local names = vim.tbl_keys(props)
  table.sort(names)
  local content = {}
  local function ask(i)
    if i > #names then
      done({ action = 'accept', content = next(content) and content or vim.empty_dict() })
      return
    end
    local name, f = names[i], props[names[i]]
    local label = string.format('%s: %s%s', params.server or 'MCP', f.title or name, required[name] and '' or ' (optional)')
    if f.enum or f.type == 'boolean' then
      local options = f.enum or { 'true', 'false' }
      vim.ui.select(options, { prompt = label }, function(choice)
        if choice == nil then
          done({ action = 'cancel' })
          return
        end
        content[name] = f.type == 'boolean' and (choice == 'true') or choice
        ask(i + 1)
      end)
      return
    end
    local default = f.default ~= nil and tostring(f.default) or ''
    vim.ui.input({ prompt = label .. ': ', default = default }, function(text)
      if text == nil then
        done({ action = 'cancel' })
        return
      end
      local bad = M.check_field(f, text, required[name])
      if bad then
        vim.notify(string.format('pi-lsp: %s must be %s', name, bad), vim.log.levels.WARN)
        ask(i)
        return
      end
      if text ~= '' then
        content[name] = (f.type == 'number' or f.type == 'integer') and tonumber(text) or text
      end
      ask(i + 1)
    end)
  end
  vim.ui.select({ 'Answer', 'Decline' }, { prompt = string.format('MCP server %s asks: %s', params.server or '?', params.message or '') }, function(choice)
    if choice == 'Answer' then
      ask(1)
    elseif choice == 'Decline' then
      done({ action = 'decline' })
    else
      done({ action = 'cancel' })
    end
  end)
end

--- :PiMcpLogin [server]: logs in to an http or sse server (those needing a login first).
function M.login(client, name)
  local function run(server)
    client:request('mcp/login', { server = server }, function(err, res)
      if err then
        vim.notify('pi-lsp: mcp/login: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif res.server.state == 'ready' then
        vim.notify('pi-lsp: logged in to ' .. server)
      else
        vim.notify('pi-lsp: ' .. server .. ': ' .. tostring(res.server.error or res.server.state), vim.log.levels.ERROR)
      end
    end)
  end
  if name then
    run(name)
    return
  end
  client:request('mcp/list', {}, function(err, res)
    if err then
      return
    end
    local items = {}
    for _, s in ipairs(res.servers or {}) do
      if s.type == 'http' or s.type == 'sse' then
        table.insert(items, s)
      end
    end
    table.sort(items, function(a, b)
      return (a.state == 'needs-login' and 0 or 1) < (b.state == 'needs-login' and 0 or 1)
    end)
    if #items == 0 then
      vim.notify('pi-lsp: no http or sse MCP server is configured')
      return
    end
    vim.ui.select(items, {
      prompt = 'Log in to an MCP server',
      format_item = function(s)
        return string.format('%s (%s)', s.name, s.state)
      end,
    }, function(s)
      if s then
        run(s.name)
      end
    end)
  end)
end

return M
