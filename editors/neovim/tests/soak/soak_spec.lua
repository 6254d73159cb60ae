local t = ...
local H = dofile('tests/helpers.lua')

-- Convergence soak (issue 27): a seeded random mix of prompts, aborts, navigates, forks,
-- session switches, server restarts and one kill -9, against the real binary. After each step,
-- once the server is idle, the client's display state (items, tasks, session, tokens, retry,
-- errors) must equal a fresh display/snapshot. PI_SOAK_SEED replays a run; PI_SOAK_MS bounds it
-- (default 120 s). The seed is in every failure message.

local function drop_nulls(v)
  if type(v) ~= 'table' then
    return v
  end
  local out = {}
  for k, x in pairs(v) do
    if x ~= vim.NIL then
      out[k] = drop_nulls(x)
    end
  end
  return out
end

local KEYS = { 'items', 'tasks', 'session', 'tokens', 'retry', 'errors' }
local function facts(st)
  local out = {}
  for _, k in ipairs(KEYS) do
    out[k] = drop_nulls(type(st) == 'table' and st[k] or nil)
  end
  return out
end

t.test('converges after every step', function()
  local seed = tonumber(os.getenv('PI_SOAK_SEED') or '') or (os.time() % 1000000)
  local budget = tonumber(os.getenv('PI_SOAK_MS') or '') or 120000
  math.randomseed(seed)
  local long = {}
  for i = 0, 120 do
    long[#long + 1] = 'w' .. i
  end
  local c = H.start(t, { { text = table.concat(long, ' '), chunkSize = 8, chunkDelayMs = 8, ['repeat'] = true } })
  local log, n, killed, sessions = {}, 0, false, {}
  local function fail(msg)
    error(string.format('seed %d: step %d (%s): %s', seed, n, table.concat(log, ' '), msg))
  end
  local function req(method, params)
    local err, res = c:request_sync(method, params or vim.empty_dict(), 15000)
    if err then
      fail(method .. ': ' .. vim.inspect(err))
    end
    return res
  end
  local function ready()
    return c.ready and c.store:synced()
  end
  local function user_nodes()
    local out = {}
    local function below(root)
      local page = req('session/tree', { root = root, limit = 1000 })
      for _, node in ipairs(page.nodes or {}) do
        if type(node.chain) == 'table' then
          local run = req('session/tree', { chain = node.id, limit = 1000 })
          vim.list_extend(out, run.nodes or {})
          if node.chain.lastChildCount > 0 then
            below(node.chain.lastId)
          end
        else
          out[#out + 1] = node
          if node.childCount > 0 then
            below(node.id)
          end
        end
      end
    end
    below(nil)
    return vim.tbl_filter(function(x)
      return x.type == 'message' and x.role == 'user'
    end, out)
  end
  local steps = {
    prompt = function()
      req('agent/prompt', { text = 'prompt ' .. n })
      t.wait(function()
        local items = (c:display() or {}).items or {}
        return ready() and H.idle(c) and #items > 0 and items[#items].kind == 'assistant' and items[#items].text:sub(-4) == 'w120'
      end, 30000, function()
        return string.format('seed %d: the answer of step %d never arrived', seed, n)
      end)
    end,
    abort = function()
      req('agent/prompt', { text = 'long ' .. n })
      t.sleep(math.random(50, 400))
      req('agent/abort')
    end,
    new = function()
      req('session/new')
    end,
    switch = function()
      if #sessions > 0 then
        req('session/open', { path = sessions[math.random(#sessions)] })
      end
    end,
    fork = function()
      local users = user_nodes()
      if #users > 0 then
        req('session/fork', { entryId = users[math.random(#users)].id, at = false })
      end
    end,
    navigate = function()
      local users = user_nodes()
      if #users > 0 then
        req('session/navigate', { targetId = users[math.random(#users)].id })
      end
    end,
    restart = function()
      c:restart()
    end,
    kill = function()
      if killed or not c.rpc or not c.rpc.pid then
        return
      end
      killed = true
      vim.loop.kill(c.rpc.pid, 9)
      t.sleep(300)
      t.wait(function()
        return c.ready
      end, 30000, string.format('seed %d: no restart after the kill', seed))
    end,
  }
  local weights = { { 'prompt', 5 }, { 'abort', 2 }, { 'new', 1 }, { 'switch', 2 }, { 'fork', 2 }, { 'navigate', 2 }, { 'restart', 1 }, { 'kill', 1 } }
  local total = 0
  for _, w in ipairs(weights) do
    total = total + w[2]
  end
  local function pick()
    local r = math.random() * total
    for _, w in ipairs(weights) do
      r = r - w[2]
      if r < 0 then
        return w[1]
      end
    end
    return 'prompt'
  end
  local function converge()
    t.wait(function()
      return ready() and H.idle(c)
    end, 30000, function()
      return string.format('seed %d: not idle after step %d (%s)', seed, n, table.concat(log, ' '))
    end)
    t.sleep(700) -- the last batch leaves within 500 ms
    local last
    for _ = 1, 20 do
      local snap = req('display/snapshot')
      t.sleep(100)
      local a, b = facts(c:display()), facts(snap.state)
      if ready() and H.idle(c) and vim.deep_equal(a, b) then
        return
      end
      last = vim.inspect({ client = a, server = b }):sub(1, 3000)
      t.sleep(400)
    end
    fail('the display did not converge: ' .. tostring(last))
  end

  local start = vim.loop.now()
  steps.prompt()
  while vim.loop.now() - start < budget and n < 200 do
    n = n + 1
    local step = pick()
    log[#log + 1] = step
    steps[step]()
    converge()
    local st = c:display() or {}
    local p = type(st.session) == 'table' and st.session.path or nil
    if type(p) == 'string' and p ~= '' and not vim.tbl_contains(sessions, p) then
      sessions[#sessions + 1] = p
    end
  end
  print(string.format('soak seed %d: %d steps in %d s: %s', seed, n, (vim.loop.now() - start) / 1000, table.concat(log, ' ')))
end)
