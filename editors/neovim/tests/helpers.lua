-- Integration helpers: temp projects, the scripted fake LLM (cmd/fakellm), and a pi_lsp
-- setup pointed at the real pi-lsp binary ($PI_LSP_BIN) with $PI_LSP_MODELS/$PI_LSP_SESSIONS.
local H = {}
-- The generated schema, loaded once (the tests cd into their projects).
local schema = dofile(vim.fn.getcwd() .. '/tests/schema.lua')

function H.tmpdir()
  local d = vim.fn.tempname()
  vim.fn.mkdir(d, 'p')
  return vim.fn.resolve(d)
end

function H.write(path, text)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

function H.read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

local function need_env(name)
  local v = vim.env[name]
  if not v or v == '' or vim.fn.executable(v) ~= 1 then
    error(name .. ' must point at an executable (run through the Makefile)')
  end
  return v
end

--- Starts fakellm with `script` (a list of responses). Returns {url, models, job}.
function H.fakellm(t, script)
  local bin = need_env('FAKELLM_BIN')
  local dir = H.tmpdir()
  H.write(dir .. '/script.json', vim.json.encode(script))
  local url
  local errlines = {}
  local job = vim.fn.jobstart({ bin, '--script', dir .. '/script.json', '--models-json', dir .. '/models.json' }, {
    on_stdout = function(_, data)
      for _, l in ipairs(data) do
        local u = l:match('^FAKELLM_URL=(%S+)')
        if u then
          url = u
        end
      end
    end,
    on_stderr = function(_, data)
      vim.list_extend(errlines, data)
    end,
  })
  t.ok(job > 0, 'could not start fakellm')
  t.cleanup(function()
    vim.fn.jobstop(job)
  end)
  t.wait(function()
    return url ~= nil
  end, 15000, function()
    return 'fakellm did not start: ' .. table.concat(errlines, '\n')
  end)
  return { url = url, models = dir .. '/models.json', job = job }
end

--- Closes every float and extra window and tab.
function H.reset_windows()
  vim.cmd('stopinsert')
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      pcall(vim.api.nvim_win_close, win, true)
    end
  end
  vim.cmd('silent! tabonly!')
  vim.cmd('silent! only!')
  vim.cmd('enew!')
end

--- Starts the fake LLM and a pi_lsp client in a fresh project holding `opts.files`.
--- Returns client, project dir, fakellm.
function H.start(t, script, opts)
  opts = opts or {}
  local bin = need_env('PI_LSP_BIN')
  local llm = H.fakellm(t, script)
  local proj = H.tmpdir()
  for name, text in pairs(opts.files or {}) do
    H.write(proj .. '/' .. name, text)
  end
  local sessions = H.tmpdir()
  vim.cmd('cd ' .. vim.fn.fnameescape(proj))
  local pi = require('pi_lsp')
  pi.setup(vim.tbl_deep_extend('force', {
    cmd = { bin },
    model = 'fake/fake-model',
    env = { PI_LSP_MODELS = llm.models, PI_LSP_SESSIONS = sessions, HOME = sessions },
    -- The older specs answer approvals through vim.ui.select; review_spec turns the diff on.
    review = false,
  }, opts.setup or {}))
  local c = pi.client()
  -- Every display frame and server request is checked against the generated schema
  -- (protocol/protocol.schema.json); the test fails at cleanup on a mismatch.
  local errors = {}
  local function checked(name, params)
    for _, e in ipairs(schema.validate(name, params)) do
      if #errors < 20 then
        errors[#errors + 1] = e
      end
    end
  end
  local notif, req = c.on_notification, c.on_server_request
  c.on_notification = function(self, method, params)
    if method == 'display/state' then
      checked('DisplayFrame', params)
    end
    return notif(self, method, params)
  end
  c.on_server_request = function(self, method, params)
    local names = { ['ui/requestApproval'] = 'ApprovalParams', ['ui/askQuestion'] = 'QuestionParams', ['ui/approvePlan'] = 'PlanParams' }
    if names[method] then
      checked(names[method], params)
    end
    return req(self, method, params)
  end
  t.cleanup(function()
    if #errors > 0 then
      error('messages that do not fit protocol.schema.json:\n' .. table.concat(errors, '\n'))
    end
  end)
  t.cleanup(function()
    H.reset_windows()
    require('pi_lsp.chat').forget(c.cwd)
    require('pi_lsp.client').remove(c.cwd)
  end)
  t.wait(function()
    return c.ready and c:display() ~= nil
  end, 15000, function()
    return 'pi-lsp did not become ready: status=' .. tostring(c.status) .. ' error=' .. tostring(c.error)
  end)
  return c, proj, llm, sessions
end

--- The transcript lines of the client's chat.
function H.transcript(c)
  local view = require('pi_lsp.chat').view(c)
  return vim.api.nvim_buf_get_lines(view.tbuf, 0, -1, false)
end

--- The first window showing `buf`.
function H.win_of(buf)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      return w
    end
  end
end

function H.idle(c)
  local st = c:display()
  return type(st) == 'table' and st.status ~= 'running' and (st.phase == nil or st.phase == 'idle')
end

--- Items of the display state of kind `kind`.
function H.items(c, kind)
  local out = {}
  local st = c:display() or {}
  for _, it in ipairs(st.items or {}) do
    if it.kind == kind then
      out[#out + 1] = it
    end
  end
  return out
end

--- Waits for the run to finish with an assistant message whose text is `text`.
function H.wait_answer(t, c, text, timeout)
  t.wait(function()
    local a = H.items(c, 'assistant')
    return H.idle(c) and a[#a] and a[#a].text == text
  end, timeout or 15000, function()
    return 'answer ' .. vim.inspect(text) .. ' never arrived; state: ' .. vim.inspect(c:display())
  end)
end

--- Replaces vim.ui[name] for the current test.
function H.stub(t, name, fn)
  local orig = vim.ui[name]
  vim.ui[name] = fn
  t.cleanup(function()
    vim.ui[name] = orig
  end)
end

return H
