local t = ...
local state = require('pi_lsp.state')

-- The sync corpus of testdata/display-sync (docs/protocol.md, "Display streams"): frames and
-- snapshot answers in the order a client receives them, and what the store holds after them. A
-- JSON null is nil in the store, so null object values are dropped before comparing.
local C = dofile('tests/corpus.lua')
local drop_nulls, read = C.drop_nulls, C.read
local files = C.files('display-sync')

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
