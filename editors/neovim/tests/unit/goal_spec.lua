local t = ...

t.test('/goal parsing', function()
  local g = require('pi_lsp.goal')
  t.eq(nil, g.parse('make the tests pass'))
  t.eq(nil, g.parse('/goals are nice'))
  t.eq('clear', (g.parse('/goal clear')))
  t.eq('show', (g.parse('/goal')))
  local action, p, err = g.parse('/goal make the tests pass --check "go test ./..." --max-turns 5')
  t.eq('set', action)
  t.eq(nil, err)
  t.eq({ text = 'make the tests pass', check = 'go test ./...', maxTurns = 5 }, p)
  _, p = g.parse("/goal --check='make lint' fix \"--all\" lint --max-cost 2.5")
  t.eq({ text = 'fix --all lint', check = 'make lint', maxCostUsd = 2.5 }, p)
  for _, bad in ipairs({ '/goal x --max-turns 0', '/goal x --max-turns', '/goal x --check "open', '/goal --check true', '/goal x --bogus 1' }) do
    local a, params, e = g.parse(bad)
    t.eq('set', a)
    t.eq(nil, params)
    t.ok(type(e) == 'string' and e ~= '', bad)
  end
end)

t.test('goal line and statusline', function()
  local g = require('pi_lsp.goal')
  local goal = { text = 'ship it', check = 'true', turns = 2, maxTurns = 5, costUsd = 0, status = 'active' }
  t.eq('Goal (active, run 2/5): ship it', g.line(goal))
  t.eq('pi · fake/m1 · running · goal 2/5', require('pi_lsp.statusline').text({ model = 'fake/m1', status = 'running', phase = 'turn', goal = goal }, 'running'))
  goal.status, goal.reason = 'met', 'check passed: true'
  t.eq('Goal (met, run 2/5): ship it — check passed: true', g.line(goal))
  t.eq('', g.status(goal))
  t.eq('', g.line(vim.NIL))
end)
