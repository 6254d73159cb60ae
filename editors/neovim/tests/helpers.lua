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
--- `opts.project` and `opts.sessions` reuse a project and sessions directory (a restarted
--- editor); `opts.cost` ({input = 3, output = 15}, per million tokens) prices the fake model.
--- Returns client, project dir, fakellm, sessions dir.
function H.start(t, script, opts)
  opts = opts or {}
  local bin = need_env('PI_LSP_BIN')
  local llm = H.fakellm(t, script)
  if opts.cost then
    -- A price per million tokens on the fake model, so that turns cost something.
    local doc = vim.json.decode(H.read(llm.models))
    for _, m in ipairs(doc.providers.fake.models) do
      m.cost = vim.tbl_extend('force', { input = 0, output = 0, cacheRead = 0, cacheWrite = 0 }, opts.cost)
    end
    H.write(llm.models, vim.json.encode(doc))
  end
  local proj = opts.project or H.tmpdir()
  for name, text in pairs(opts.files or {}) do
    H.write(proj .. '/' .. name, text)
  end
  local sessions = opts.sessions or H.tmpdir()
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

--- Marks saved every modified buffer but the quit guard's (buffers other specs left modified),
--- so that only the guard can stop a quit.
function H.only_guard_modified()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[b].modified and not vim.api.nvim_buf_get_name(b):find('a turn is running', 1, true) then
      vim.bo[b].modified = false
    end
  end
end

--- The first window showing `buf`.
function H.win_of(buf)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      return w
    end
  end
end

--- Line `lnum` of `buf` as the user sees it: concealed text replaced by its conceal character.
--- Works for both highlighters the transcript uses (lua/pi_lsp/markdown.lua): Vim syntax
--- (0.7/0.8, read with synconcealed() in a window showing buf) and treesitter (0.9+, read from
--- the captures' conceal metadata).
function H.shown(buf, lnum)
  local text = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1]
  local out, last = {}, nil
  local ts = vim.treesitter and vim.treesitter.highlighter and vim.treesitter.highlighter.active[buf]
  if ts then
    vim.treesitter.get_parser(buf):parse(true)
  end
  local function conceal_at(col) -- 1-based col: concealed, replacement, region
    if ts then
      for _, c in ipairs(vim.treesitter.get_captures_at_pos(buf, lnum - 1, col - 1)) do
        if c.metadata and c.metadata.conceal then
          return 1, c.metadata.conceal, c.capture .. c.metadata.conceal
        end
      end
      return 0
    end
    local cc
    vim.api.nvim_win_call(assert(H.win_of(buf), 'buffer not in a window'), function()
      cc = vim.fn.synconcealed(lnum, col)
    end)
    return cc[1], cc[2], cc[3]
  end
  for col = 1, #text do
    local on, repl, region = conceal_at(col)
    if on == 0 then
      out[#out + 1] = text:sub(col, col)
      last = nil
    elseif region ~= last then
      out[#out + 1] = repl
      last = region
    end
  end
  return table.concat(out)
end

--- What colours (lnum, col) of `buf` (1-based): syntax group names ("goDeclaration"), or
--- treesitter captures as "lang:capture" ("lua:keyword") where treesitter highlights buf.
function H.highlights(buf, lnum, col)
  local names = {}
  if vim.treesitter and vim.treesitter.highlighter and vim.treesitter.highlighter.active[buf] then
    vim.treesitter.get_parser(buf):parse(true)
    for _, c in ipairs(vim.treesitter.get_captures_at_pos(buf, lnum - 1, col - 1)) do
      names[#names + 1] = c.lang .. ':' .. c.capture
    end
    return names
  end
  vim.api.nvim_win_call(assert(H.win_of(buf), 'buffer not in a window'), function()
    for _, id in ipairs(vim.fn.synstack(lnum, col)) do
      names[#names + 1] = vim.fn.synIDattr(id, 'name')
    end
  end)
  return names
end

--- Whether the transcript buffer is highlighted by treesitter (0.9+ with the markdown parser).
function H.treesitter(buf)
  return vim.treesitter ~= nil and vim.treesitter.highlighter ~= nil and vim.treesitter.highlighter.active[buf] ~= nil
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

--- Sends `prompt` with an approval picker that stays open (as telescope or dressing do) and
--- waits until the approval is asked. Returns `answer(i)`, which picks choice i (default 1:
--- Approve), and the choices offered.
function H.hold_approval(t, prompt)
  local answer, choices
  H.stub(t, 'select', function(items, _, cb)
    choices = items
    answer = function(i)
      i = i or 1
      cb(items[i], i)
    end
  end)
  require('pi_lsp').chat(prompt)
  t.wait(function()
    return answer ~= nil
  end, 10000, 'approval asked')
  return answer, choices
end

--- Picks in :PiSessions the session for which `pick(item, opts, items)` is true, and waits until the
--- client shows it. Other vim.ui.select calls go to the stub in place before.
function H.switch_session(t, c, pick)
  local before = vim.ui.select
  local chosen
  vim.ui.select = function(items, opts, cb)
    if opts.kind ~= 'pi_lsp.session' then
      return before(items, opts, cb)
    end
    vim.ui.select = before
    for i, s in ipairs(items) do
      if pick(s, opts, items) then
        chosen = s
        return cb(s, i)
      end
    end
    cb(nil)
  end
  vim.cmd('PiSessions')
  t.wait(function()
    local cur = c:display().session
    return chosen ~= nil and (cur.id == chosen.id or cur.path == chosen.path)
  end, 5000, 'switched sessions')
  vim.ui.select = before
  return chosen
end

--- :PiNew, then waits until the client shows a session other than the current one.
function H.new_session(t, c)
  local old = c:display().session.id
  vim.cmd('PiNew')
  t.wait(function()
    return c:display().session.id ~= old
  end, 5000, 'a new session')
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
