-- Transport: starts pi-lsp through vim.lsp.rpc on Neovim 0.7 and on current releases.
--
-- Two differences are bridged here:
--  * `vim.lsp.rpc.start` takes (cmd, args, dispatchers, extra) before 0.10 and
--    (cmd_list, dispatchers, extra) from 0.10 on;
--  * server requests must be answered after the user decides, without blocking the editor.
--    From 0.10 on, vim.lsp.rpc runs `server_request` inside a coroutine, so the dispatcher yields
--    until the answer is known. Older releases call it on the main thread; for those, a private
--    instance of the same runtime module is loaded whose `vim.schedule` wraps the scheduled
--    function in a coroutine, which gives them the 0.10 behaviour. vim.lsp.rpc offers no other
--    way to send a response later, which is why this is not done by hand.
local M = {}

local cache = {}

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- Returns the vim.lsp.rpc module to use, and whether server requests may yield.
function M.rpc()
  if cache.rpc then
    return cache.rpc, cache.async
  end
  local stock = require('vim.lsp.rpc')
  if vim.fn.has('nvim-0.10') == 1 then
    cache.rpc, cache.async = stock, true
    return cache.rpc, cache.async
  end
  -- Before 0.10 (an extra coroutine is harmless where a release already had one).
  local path = vim.api.nvim_get_runtime_file('lua/vim/lsp/rpc.lua', false)[1]
  local src = path and read_file(path)
  if not src then
    cache.rpc, cache.async = stock, false
    return cache.rpc, cache.async
  end
  local chunk = (loadstring or load)(src, '@' .. path)
  local ok, mod = false, nil
  if chunk and setfenv then
    local proxy = setmetatable({
      schedule = function(fn)
        return vim.schedule(coroutine.wrap(fn))
      end,
    }, { __index = vim })
    setfenv(chunk, setmetatable({ vim = proxy }, { __index = _G }))
    ok, mod = pcall(chunk)
  end
  if ok and type(mod) == 'table' and type(mod.start) == 'function' then
    cache.rpc, cache.async = mod, true
  else
    cache.rpc, cache.async = stock, false
  end
  return cache.rpc, cache.async
end

--- Starts `cmd` (a list) with `dispatchers` {notification, server_request, on_exit, on_error}.
--- Returns a handle {request(method, params, cb), notify(method, params), terminate(), pid}
--- or nil and an error message.
---@param cmd string[]
---@param dispatchers table
---@param opts table {cwd=, env=}
function M.start(cmd, dispatchers, opts)
  local rpc = M.rpc()
  local extra = { cwd = opts.cwd, env = opts.env }
  local ok, client
  local before = {}
  for _, p in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    before[p] = true
  end
  if vim.fn.has('nvim-0.10') == 1 then
    ok, client = pcall(rpc.start, cmd, dispatchers, extra)
  else
    ok, client = pcall(rpc.start, cmd[1], vim.list_slice(cmd, 2), dispatchers, extra)
  end
  if not ok then
    return nil, tostring(client)
  end
  if not client then
    return nil, 'could not start ' .. table.concat(cmd, ' ')
  end
  local handle = client.handle
  local pid = client.pid
  if not pid then
    -- vim.lsp.rpc from 0.10 does not tell the pid: it is the one new child process.
    local new = vim.tbl_filter(function(p)
      return not before[p]
    end, vim.api.nvim_get_proc_children(vim.fn.getpid()))
    pid = #new == 1 and new[1] or nil
  end
  return {
    pid = pid,
    request = client.request,
    notify = client.notify,
    terminate = function()
      if client.terminate then
        pcall(client.terminate)
      elseif handle and not handle:is_closing() then
        pcall(handle.kill, handle, 15)
      end
    end,
  }
end

--- A JSON-RPC error object in the form vim.lsp.rpc accepts as a server_request answer.
function M.error(code, message)
  local rpc = M.rpc()
  return rpc.rpc_response_error(code, message)
end

return M
