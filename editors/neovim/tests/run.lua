-- A tiny test runner for headless Neovim (plenary and mini.test are not available here).
--
--   nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=.' -c 'luafile tests/run.lua'
--
-- Environment: PI_TEST_FILES (space-separated spec files; default tests/unit/*_spec.lua and
-- tests/integration/*_spec.lua), PI_TEST_FILTER (Lua pattern on test names).
-- A spec file is a chunk that receives the runner `t` and calls t.test(name, fn).
-- Exit code: 0 when every test passed, 1 otherwise.
local t = { messages = {} }
local tests = {}
local cleanups = {}

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

function t.test(name, fn)
  tests[#tests + 1] = { name = (t.current_file or '') .. ': ' .. name, fn = fn }
end

function t.cleanup(fn)
  cleanups[#cleanups + 1] = fn
end

local function show(v)
  return type(v) == 'string' and string.format('%q', v) or vim.inspect(v)
end

function t.eq(want, got, msg)
  if not vim.deep_equal(want, got) then
    error(string.format('%s\n  want: %s\n   got: %s', msg or 'not equal', show(want), show(got)), 2)
  end
end

function t.ok(cond, msg)
  if not cond then
    error(msg or 'assertion failed', 2)
  end
  return cond
end

--- Asserts that `list` (strings) has an element containing `needle` (plain); returns its index.
function t.has(list, needle, msg)
  for i, s in ipairs(list) do
    if type(s) == 'string' and s:find(needle, 1, true) then
      return i
    end
  end
  error(string.format('%s: %q not found in\n%s', msg or 'missing', needle, table.concat(list, '\n')), 2)
end

--- Processes events until `cond()` is true; fails after `timeout_ms` with `msg` (a string or a
--- function giving extra context).
function t.wait(cond, timeout_ms, msg)
  local ok = vim.wait(timeout_ms or 10000, function()
    local s, r = pcall(cond)
    return s and r
  end, 20)
  if not ok then
    if type(msg) == 'function' then
      msg = msg()
    end
    error('timed out: ' .. tostring(msg or 'condition'), 2)
  end
end

--- Runs Neovim's event loop for `ms` milliseconds.
function t.sleep(ms)
  vim.wait(ms, function()
    return false
  end, 10)
end

--- Sends keys as typed (mappings apply) and processes them.
function t.keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
end

local function files()
  local env = vim.env.PI_TEST_FILES
  if env and env ~= '' then
    return vim.split(env, '%s+', { trimempty = true })
  end
  local list = vim.fn.glob('tests/unit/*_spec.lua', false, true)
  vim.list_extend(list, vim.fn.glob('tests/integration/*_spec.lua', false, true))
  return list
end

-- Notifications are collected (t.messages) instead of cluttering the output.
vim.notify = function(msg, level)
  t.messages[#t.messages + 1] = { msg = tostring(msg), level = level }
  if vim.env.PI_TEST_VERBOSE then
    out('  notify: ' .. tostring(msg))
  end
end

--- The index of the first notification containing `needle`, or nil.
function t.notified(needle)
  for i, m in ipairs(t.messages) do
    if m.msg:find(needle, 1, true) then
      return i
    end
  end
end

local filter = vim.env.PI_TEST_FILTER
local failed, passed, skipped = 0, 0, 0
local started = vim.loop.hrtime()

for _, file in ipairs(files()) do
  local chunk, err = loadfile(file)
  if not chunk then
    out('FAIL load ' .. file .. ': ' .. tostring(err))
    failed = failed + 1
  else
    t.current_file = vim.fn.fnamemodify(file, ':t:r')
    local ok, lerr = pcall(chunk, t)
    if not ok then
      out('FAIL load ' .. file .. ': ' .. tostring(lerr))
      failed = failed + 1
    end
  end
end

for _, tc in ipairs(tests) do
  if filter and filter ~= '' and not tc.name:find(filter) then
    skipped = skipped + 1
  else
    t.messages = {}
    local t0 = vim.loop.hrtime()
    local ok, err = xpcall(tc.fn, debug.traceback)
    for i = #cleanups, 1, -1 do
      local cok, cerr = pcall(cleanups[i])
      if not cok then
        out('  cleanup error: ' .. tostring(cerr))
        if ok then
          ok, err = false, cerr -- a cleanup's check failed the test
        end
      end
    end
    cleanups = {}
    local ms = (vim.loop.hrtime() - t0) / 1e6
    if ok then
      passed = passed + 1
      out(string.format('ok   %s (%d ms)', tc.name, ms))
    else
      failed = failed + 1
      out(string.format('FAIL %s (%d ms)\n%s', tc.name, ms, tostring(err)))
    end
  end
end

out(string.format('\n%d passed, %d failed, %d skipped in %.1f s', passed, failed, skipped, (vim.loop.hrtime() - started) / 1e9))
if failed > 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end
