-- Built-in slash commands typed in the chat input (/new, /compact, /model, /mode, /tree,
-- /name): the editor runs them itself through the protocol method `commands/list` names
-- (docs/protocol.md); they are never sent to the model as a prompt.
local M = {}

-- The built-ins when `commands/list` has not answered yet (its `kind: "builtin"` entries win).
local fallback = {
  new = 'session/new',
  compact = 'compaction/run',
  model = 'model/set',
  mode = 'mode/set',
  tree = 'session/tree',
  name = 'session/setName',
}

--- The method of built-in `name` for `client`, or nil when it is not a built-in.
function M.method(client, name)
  local listed = false
  for _, c in ipairs(type(client.commands) == 'table' and client.commands or {}) do
    if type(c) == 'table' and c.kind == 'builtin' then
      listed = true
      if c.name == name and type(c.method) == 'string' then
        return c.method
      end
    end
  end
  if not listed then
    return fallback[name]
  end
end

--- Splits "/name args" into name and trimmed args; nil when text is not a slash command.
function M.parse(text)
  local name, rest = (text or ''):match('^/([%w_%-]+)%s*(.-)%s*$')
  if not name then
    return nil
  end
  return name, rest
end

local function report(what, err)
  vim.notify('pi-lsp: ' .. what .. ': ' .. tostring(err.message or vim.inspect(err)), vim.log.levels.ERROR)
end

local function set_name(client, name, cb)
  client:request('session/setName', { name = name }, function(err)
    if err then
      report('/name', err)
    else
      vim.notify('pi-lsp: session named ' .. name, vim.log.levels.INFO)
      client:emit('status')
    end
    cb(err)
  end)
end

-- What each method does; `args` is the text after the command name ('' when none).
local actions = {
  ['session/new'] = function(client, _, cb)
    client:request('session/new', { cwd = client.cwd }, function(err, r)
      if err then
        report('/new', err)
      else
        vim.notify('pi-lsp: new session ' .. tostring(r and r.path), vim.log.levels.INFO)
      end
      cb(err)
    end)
  end,
  ['compaction/run'] = function(client, args, cb)
    require('pi_lsp.pickers').compact(client, args)
    cb(nil)
  end,
  ['model/set'] = function(client, args, cb)
    require('pi_lsp.pickers').model(client, args ~= '' and args or nil)
    cb(nil)
  end,
  ['mode/set'] = function(client, args, cb)
    require('pi_lsp.pickers').mode(client, args ~= '' and args or nil)
    cb(nil)
  end,
  ['session/tree'] = function(client, _, cb)
    require('pi_lsp.tree').open(client)
    cb(nil)
  end,
  ['session/setName'] = function(client, args, cb)
    if args ~= '' then
      return set_name(client, args, cb)
    end
    vim.ui.input({ prompt = 'Session name: ' }, function(name)
      if name and vim.trim(name) ~= '' then
        set_name(client, vim.trim(name), cb)
      else
        cb(nil)
      end
    end)
  end,
}

--- Runs `text` if it is a built-in command; returns true when it was one. cb(err) follows.
function M.run(client, text, cb)
  local name, args = M.parse(text)
  local method = name and M.method(client, name)
  local action = method and actions[method]
  if not action then
    return false
  end
  action(client, args, cb or function() end)
  return true
end

return M
