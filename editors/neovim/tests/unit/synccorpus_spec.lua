local t = ...
local state = require('pi_lsp.state')

-- The sync corpus of testdata/display-sync (docs/protocol.md, "Display streams"): frames and
-- snapshot answers in the order a client receives them, and what the store holds after them. A
-- JSON null is nil in the store, so null object values are dropped before comparing.
local function corpus_dir()
  local dir = vim.fn.getcwd()
  while dir ~= '/' do
    local c = dir .. '/testdata/display-sync'
    if vim.fn.isdirectory(c) == 1 then
      return c
    end
    dir = vim.fn.fnamemodify(dir, ':h')
  end
  error('testdata/display-sync not found above ' .. vim.fn.getcwd())
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

t.test('the sync corpus is there', function()
  t.ok(#files >= 10, #files .. ' files')
end)

for _, path in ipairs(files) do
  local name = vim.fn.fnamemodify(path, ':t')
  local c = read(path)
  t.test(name .. ': ' .. c.description, function()
    local s = state.new()
    local asked = {}
    for i, step in ipairs(c.steps) do
      if step.frame then
        s:apply(step.frame)
      elseif step.ask then
        asked[step.ask] = s.stream
      elseif step.answer and step.snapshot then
        t.ok(asked[step.answer] ~= nil, 'step ' .. i .. ': answer to ' .. step.answer .. ', never asked')
        s:reset(step.snapshot, asked[step.answer])
      else
        error('step ' .. i .. ': neither frame, ask nor answer')
      end
    end
    t.eq(c.want.stream, s.stream, c.description)
    t.eq(c.want.synced, s:synced(), c.description)
    if c.want.synced then
      t.eq(c.want.version, s.version)
      t.eq(drop_nulls(c.want.state), drop_nulls(s.state))
    end
  end)
end
