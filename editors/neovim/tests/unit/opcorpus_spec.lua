local t = ...
local state = require('pi_lsp.state')

-- The op corpus of testdata/display-ops (Go's display.Patch is the specification): a state at a
-- version, the frames that follow, and what the client ends with. A JSON null is nil in the
-- store, so the expected state's null object values are dropped before comparing.
local function corpus_dir()
  local dir = vim.fn.getcwd()
  while dir ~= '/' do
    local c = dir .. '/testdata/display-ops'
    if vim.fn.isdirectory(c) == 1 then
      return c
    end
    dir = vim.fn.fnamemodify(dir, ':h')
  end
  error('testdata/display-ops not found above ' .. vim.fn.getcwd())
end

local function drop_nulls(v)
  if type(v) ~= 'table' then
    return v
  end
  local out = {}
  for k, x in pairs(v) do
    if not (type(k) == 'string' and x == vim.NIL) then
      out[k] = drop_nulls(x)
    end
  end
  return out
end

local function read(path)
  local f = assert(io.open(path, 'r'))
  local s = f:read('*a')
  f:close()
  return vim.json.decode(s)
end

local dir = corpus_dir()
local files = vim.fn.glob(dir .. '/*.json', false, true)
table.sort(files)

t.test('the corpus is there', function()
  t.ok(#files >= 30, #files .. ' files')
end)

for _, path in ipairs(files) do
  local name = vim.fn.fnamemodify(path, ':t')
  local c = read(path)
  t.test(name .. ': ' .. c.description, function()
    local s = state.new()
    t.ok(s:reset({ version = c.version, state = c.state }))
    local got = 'applied'
    for _, fr in ipairs(c.frames) do
      if fr.state == vim.NIL then
        fr.state = nil
      end
      local r = s:apply(fr)
      if r == 'resync' then
        got = 'resync'
        break
      end
    end
    if c.result == 'applied' then
      t.eq('applied', got, c.description)
      t.eq(c.wantVersion, s.version)
      t.eq(drop_nulls(c.wantState), drop_nulls(s.state))
    else
      t.eq('resync', got, c.description .. ' (' .. c.result .. ')')
    end
  end)
end
