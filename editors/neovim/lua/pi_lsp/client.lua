-- Client: one pi-lsp process per working directory. It owns the vim.lsp.rpc transport, the
-- LSP lifecycle, the display state store, restart after a crash, and routes server requests
-- (ui/*, fs/*) to prompts.lua without blocking the editor.
local transport = require('pi_lsp.transport')
local state = require('pi_lsp.state')

local M = {}

local Client = {}
Client.__index = Client
M.Client = Client

local registry = {}

local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }

local function notify(msg, level)
  vim.notify('pi-lsp: ' .. msg, level or vim.log.levels.INFO)
end
M.notify = notify

--- Normalises a directory path (absolute, no trailing slash).
function M.normalize(cwd)
  cwd = vim.fn.fnamemodify(cwd or (vim.uv or vim.loop).cwd(), ':p')
  if #cwd > 1 then
    cwd = cwd:gsub('/$', '')
  end
  return cwd
end

--- Returns the client of `cwd` (default: the current directory), starting it when `create`.
function M.get(cwd, create, cfg)
  cwd = M.normalize(cwd)
  local c = registry[cwd]
  if not c and create then
    c = Client.new(cwd, cfg or require('pi_lsp').config())
    registry[cwd] = c
    c:start()
  end
  return c
end

--- Every live client, keyed by cwd.
function M.all()
  return registry
end

--- Stops every client and forgets it.
function M.stop_all()
  for cwd, c in pairs(registry) do
    c:stop()
    registry[cwd] = nil
  end
end

--- Forgets the client of `cwd` after stopping it.
function M.remove(cwd)
  cwd = M.normalize(cwd)
  local c = registry[cwd]
  if c then
    c:stop()
    registry[cwd] = nil
  end
  require('pi_lsp.quitguard').forget(cwd)
end

function Client.new(cwd, cfg)
  return setmetatable({
    cwd = cwd,
    cfg = cfg,
    store = state.new(),
    listeners = {},
    queue = {},
    pending = {},
    next_req = 0,
    status = 'stopped',
    crashes = {},
    gen = 0,
  }, Client)
end

--- Subscribes `fn(event, client)` to 'state', 'status', 'progress' and 'commands'. Returns an
--- unsubscribe function.
function Client:subscribe(fn)
  self.listeners[fn] = true
  return function()
    self.listeners[fn] = nil
  end
end

--- Calls every listener with (event, client, ...): a 'state' event passes the set of top-level
--- keys that changed, or nil when anything may have.
function Client:emit(event, ...)
  for fn in pairs(self.listeners) do
    local ok, err = pcall(fn, event, self, ...)
    if not ok then
      notify('listener error: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

--- The current DisplayState (or nil before the first frame).
function Client:display()
  return self.store.state
end

function Client:initialize_params()
  local session = self.session_path or self.cfg.session or 'new'
  local opts = { session = session }
  if self.cfg.model then
    opts.model = self.cfg.model
  end
  if self.cfg.log_level then
    opts.logLevel = self.cfg.log_level
  end
  local v = vim.version()
  return {
    processId = vim.fn.getpid(),
    clientInfo = { name = 'neovim', version = string.format('%d.%d.%d', v.major, v.minor, v.patch) },
    rootUri = vim.uri_from_fname(self.cwd),
    capabilities = {
      ui = { approvals = true, questions = true, planApproval = true, elicitation = true },
      fs = { readTextFile = true, writeTextFile = self.cfg.editor_writes ~= false },
      window = { showDocument = { support = true } },
      harnessEvents = false,
      diagnostics = self.cfg.diagnostics ~= false,
    },
    initializationOptions = opts,
  }
end

--- Starts the process and runs `initialize`. Returns false when it could not be spawned.
function Client:start()
  local cmd = vim.deepcopy(self.cfg.cmd)
  if type(cmd) ~= 'table' or not cmd[1] or vim.fn.executable(cmd[1]) ~= 1 then
    self.status = 'failed'
    self.error = string.format('%s is not executable (set cmd in setup{})', tostring(cmd and cmd[1]))
    notify(self.error, vim.log.levels.ERROR)
    self:fail_queue(self.error)
    self:emit('status')
    return false
  end
  self.gen = self.gen + 1
  local gen = self.gen
  local dispatchers
  dispatchers = {
    notification = function(method, params)
      if gen == self.gen then
        self:on_notification(method, params)
      end
    end,
    server_request = function(method, params)
      return self:on_server_request(method, params)
    end,
    on_exit = function(code, signal)
      vim.schedule(function()
        if gen == self.gen then
          self:on_exit(code, signal)
        end
      end)
    end,
    on_error = function(kind, err)
      self.last_rpc_error = tostring(kind) .. ': ' .. vim.inspect(err)
    end,
  }
  -- Kept for tests that deliver a message as the transport does (see attach_spec.lua).
  self.dispatchers = dispatchers
  local rpc, err = transport.start(cmd, dispatchers, { cwd = self.cwd, env = self.cfg.env })
  if not rpc then
    self.status = 'failed'
    self.error = err
    notify(err, vim.log.levels.ERROR)
    self:fail_queue(err)
    self:emit('status')
    return false
  end
  self.rpc = rpc
  self.status = 'starting'
  self.ready = false
  self.stopping = false
  self:emit('status')
  local ok = rpc.request('initialize', self:initialize_params(), function(ierr, result)
    if gen ~= self.gen then
      return
    end
    if ierr then
      self.status = 'failed'
      self.error = 'initialize failed: ' .. (ierr.message or vim.inspect(ierr))
      notify(self.error, vim.log.levels.ERROR)
      self:fail_queue(self.error)
      self:emit('status')
      return
    end
    self.info = result
    self.attached = require('pi_lsp.attach').from_result(result)
    rpc.notify('initialized', vim.empty_dict())
    self.ready = true
    self.status = 'running'
    self:emit('status')
    local q = self.queue
    self.queue = {}
    for _, r in ipairs(q) do
      self:request(r[1], r[2], r[3])
    end
    if not self.store.state then
      self:resync()
    end
    self:refresh_commands()
  end)
  if not ok then
    self.status = 'failed'
    self.error = 'could not send initialize'
    notify(self.error, vim.log.levels.ERROR)
    return false
  end
  return true
end

function Client:fail_queue(msg)
  local q = self.queue
  self.queue = {}
  for _, r in ipairs(q) do
    pcall(r[3], { code = -32603, message = msg })
  end
end

local function is_empty_table(t)
  return type(t) == 'table' and next(t) == nil
end

--- Sends a request; `cb(err, result)` runs on the main loop. Requests made before
--- `initialize` answered (or during a restart) are queued.
function Client:request(method, params, cb)
  cb = cb
    or function(err)
      if err then
        notify(method .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
    end
  if params == nil or is_empty_table(params) then
    params = vim.empty_dict()
  end
  if self.status == 'failed' or self.status == 'stopped' then
    vim.schedule(function()
      cb({ code = -32603, message = 'pi-lsp is not running' .. (self.error and (': ' .. self.error) or '') })
    end)
    return
  end
  if not self.ready then
    self.queue[#self.queue + 1] = { method, params, cb }
    return
  end
  self.next_req = self.next_req + 1
  local key = self.next_req
  self.pending[key] = cb
  local ok = self.rpc.request(method, params, function(err, result)
    if not err and (method == 'session/open' or method == 'session/new') then
      -- An attached open names the owner; any other open or new session is this process's.
      self.attached = require('pi_lsp.attach').from_result(result)
      self:emit('status')
    end
    local f = self.pending[key]
    if f then
      self.pending[key] = nil
      f(err, result)
    end
  end)
  if not ok then
    self.pending[key] = nil
    vim.schedule(function()
      cb({ code = -32603, message = 'pi-lsp is not running' })
    end)
  end
end

--- Sends a request and waits (processing events) up to `timeout_ms`. For health checks and
--- tests; interactive code uses request() with a callback.
function Client:request_sync(method, params, timeout_ms)
  local done, rerr, rres = false, nil, nil
  self:request(method, params, function(err, result)
    done, rerr, rres = true, err, result
  end)
  vim.wait(timeout_ms or 5000, function()
    return done
  end, 10)
  if not done then
    return { code = -32800, message = method .. ' timed out' }, nil
  end
  return rerr, rres
end

--- Sends a notification (when running).
function Client:notify(method, params)
  if self.rpc and self.ready then
    self.rpc.notify(method, params or vim.empty_dict())
  end
end

--- Asks `display/snapshot` and replaces the store.
--- An answer that predates what the store holds (docs/protocol.md, "Display streams") is
--- dropped and asked again while still out of sync. A resync of a server replaced meanwhile
--- does not stand in for this one's.
function Client:resync(tries)
  tries = tries or 0
  if self.resyncing == self.rpc or tries > 4 then
    return
  end
  local rpc = self.rpc
  self.resyncing = rpc
  local store = self.store
  local asked = store.stream
  self:request('display/snapshot', nil, function(err, result)
    if self.resyncing == rpc then
      self.resyncing = nil
    end
    if err or type(result) ~= 'table' or self.rpc ~= rpc or self.store ~= store then
      return
    end
    if store:reset(result, asked) then
      self:after_state()
    elseif not store:synced() then
      self:resync(tries + 1)
    end
  end)
end

function Client:after_state(touched)
  local st = self.store.state
  if type(st) == 'table' and type(st.session) == 'table' then
    local p = st.session.path
    if type(p) == 'string' and p ~= '' then
      self.session_path = p
    end
  end
  local running = type(st) == 'table' and st.status == 'running'
  if self.was_running and not running then
    -- The run ended (finished or aborted): the server waits on no prompt any more.
    require('pi_lsp.prompts').drop(self, 'run ended')
  end
  self.was_running = running
  self:emit('state', touched)
end

function Client:on_notification(method, params)
  if method == 'display/state' then
    local r, touched = self.store:apply(params)
    if r == 'resync' then
      self:resync()
    elseif r == 'ok' then
      self:after_state(touched)
    end
  elseif method == 'window/logMessage' then
    if type(params) == 'table' then
      notify(tostring(params.message), levels[params.type] or vim.log.levels.INFO)
    end
  elseif method == '$/progress' then
    if type(params) == 'table' and type(params.value) == 'table' then
      self.progress = params.value.kind ~= 'end' and params.value or nil
      self:emit('progress')
    end
  elseif method == 'skills/changed' then
    self:refresh_commands()
  elseif method == 'ui/resolved' then
    require('pi_lsp.prompts').resolved(self, params)
  elseif method == 'session/owner' then
    self:on_owner(params)
  end
end

--- session/owner: the session's owner changed (hand-over or takeover). A notice, not an error.
function Client:on_owner(params)
  if type(params) ~= 'table' then
    return
  end
  local pid = tonumber(params.pid)
  local is_self = pid ~= nil and self.rpc ~= nil and self.rpc.pid == pid
  self.attached = (not is_self) and { ownerPid = pid } or nil
  notify(require('pi_lsp.attach').owner_text(params, is_self):gsub('^pi%-lsp: ', ''), vim.log.levels.INFO)
  self:emit('status')
end

--- Reloads the slash commands (`commands/list`).
function Client:refresh_commands(cb)
  self:request('commands/list', nil, function(err, result)
    if not err and type(result) == 'table' then
      self.commands = result.commands or {}
      self:emit('commands')
    end
    if cb then
      cb(self.commands or {})
    end
  end)
end

local function read_buffer(path)
  local full = vim.fn.fnamemodify(path, ':p')
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == full then
      local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
      local text = table.concat(lines, '\n')
      if vim.bo[b].eol then
        text = text .. '\n'
      end
      return { text = text }
    end
  end
  return vim.NIL
end

-- Runs `start(done)` and returns what `done` receives. Inside a coroutine (see transport.lua)
-- it yields, so the editor keeps running while the user decides.
local function await(start)
  local co = coroutine.running()
  local finished, waiting, value = false, false, nil
  start(function(v)
    if finished then
      return
    end
    finished, value = true, v
    if waiting then
      local ok, err = coroutine.resume(co, v)
      if not ok then
        notify('answering the server failed: ' .. tostring(err), vim.log.levels.ERROR)
      end
    end
  end)
  if finished then
    return value
  end
  if co and (not coroutine.isyieldable or coroutine.isyieldable()) then
    waiting = true
    return coroutine.yield()
  end
  -- No coroutine: this Neovim's vim.lsp.rpc could not be made asynchronous.
  vim.wait(24 * 3600 * 1000, function()
    return finished
  end, 20)
  return value
end

function Client:on_server_request(method, params)
  if method == 'fs/readTextFile' then
    return read_buffer(type(params) == 'table' and params.path or '')
  end
  if method == 'fs/writeTextFile' then
    return require('pi_lsp.review').write(params)
  end
  if method == 'editor/diagnostics' then
    return await(function(done)
      require('pi_lsp.diagnostics').collect(type(params) == 'table' and params or {}, done)
    end)
  end
  if method == 'editor/lsp' then
    return require('pi_lsp.diagnostics').lsp(type(params) == 'table' and params or {})
  end
  if method == 'window/showDocument' then
    return require('pi_lsp.mcp_auth').show_document(params or {})
  end
  if method == 'ui/elicit' then
    return await(function(done)
      require('pi_lsp.mcp_auth').elicit(params or {}, done)
    end)
  end
  local prompts = require('pi_lsp.prompts')
  if not prompts.handles(method) then
    return nil, transport.error(-32601, 'method not found: ' .. tostring(method))
  end
  local answer = await(function(done)
    prompts.handle(self, method, params or {}, done)
  end)
  if answer == nil then
    answer = vim.NIL
  end
  return answer
end

function Client:fail_pending(msg)
  local pending = self.pending
  self.pending = {}
  for _, cb in pairs(pending) do
    pcall(cb, { code = -32603, message = msg })
  end
end

function Client:on_exit(code, signal)
  self.exit_code, self.exit_signal = code, signal
  self.ready = false
  self.rpc = nil
  local msg = string.format('exited (code %s, signal %s)', tostring(code), tostring(signal))
  self:fail_pending('pi-lsp ' .. msg)
  require('pi_lsp.prompts').drop(self, 'server exited')
  if self.stopping then
    self.status = 'stopped'
    self:emit('status')
    return
  end
  local now = (vim.uv or vim.loop).now()
  local r = self.cfg.restart or {}
  local recent = {}
  for _, t in ipairs(self.crashes) do
    if now - t < (r.window_ms or 60000) then
      recent[#recent + 1] = t
    end
  end
  recent[#recent + 1] = now
  self.crashes = recent
  if #recent > (r.max or 3) then
    self.status = 'failed'
    self.error = msg
    notify(string.format('%s in %s; not restarting again (:PiRestart)', msg, self.cwd), vim.log.levels.ERROR)
    self:fail_queue(self.error)
    self:emit('status')
    return
  end
  notify(string.format('%s in %s; restarting', msg, self.cwd), vim.log.levels.WARN)
  self.status = 'restarting'
  self.store = state.new()
  self.was_running = false
  self:emit('status')
  vim.defer_fn(function()
    if self.status == 'restarting' then
      self:start()
    end
  end, r.delay_ms or 300)
end

--- Shuts the server down (shutdown, exit, then a kill if it lingers).
function Client:stop()
  self.stopping = true
  local rpc = self.rpc
  if not rpc then
    self.status = 'stopped'
    return
  end
  if self.ready then
    rpc.request('shutdown', nil, function()
      rpc.notify('exit', nil)
    end)
  end
  vim.defer_fn(function()
    rpc.terminate()
  end, 1000)
end

--- Restarts the server by hand (after it gave up, or to pick up a new binary).
function Client:restart()
  self.crashes = {}
  local old = self.rpc
  self.gen = self.gen + 1
  if old then
    old.terminate()
  end
  self.rpc = nil
  self.ready = false
  self:fail_pending('restarted')
  require('pi_lsp.prompts').drop(self, 'restarted')
  self.store = state.new()
  self.was_running = false
  self:start()
end

return M
