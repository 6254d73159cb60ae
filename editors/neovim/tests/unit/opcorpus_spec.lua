local t = ...
local state = require('pi_lsp.state')

-- The op corpus of testdata/display-ops (Go's display.Patch is the specification): a state at a
-- version, the frames that follow, and what the client ends with. A JSON null is nil in the
-- store, so the expected state's null object values are dropped before comparing.
local C = dofile('tests/corpus.lua')
local drop_nulls, read = C.drop_nulls, C.read
local files = C.files('display-ops')

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
