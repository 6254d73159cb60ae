local t = ...
local m = require('pi_lsp.mcp_auth')

t.test('elicit asks field by field and answers accept with the typed values', function()
  local select, input = vim.ui.select, vim.ui.input
  t.cleanup(function()
    vim.ui.select, vim.ui.input = select, input
  end)
  local picks = { 'Answer', 'blue' }
  local inputs = { '', 'Ada' } -- the count is left empty (its default applies), then the name
  vim.ui.select = function(_, _, cb)
    cb(table.remove(picks, 1))
  end
  vim.ui.input = function(_, cb)
    cb(table.remove(inputs, 1))
  end
  local got
  m.elicit({ server = 's', message = 'Who?', requestedSchema = { type = 'object', required = { 'name' }, properties = {
    color = { type = 'string', enum = { 'red', 'blue' } },
    count = { type = 'integer', default = 3 },
    name = { type = 'string' },
  } } }, function(a)
    got = a
  end)
  t.eq({ action = 'accept', content = { color = 'blue', name = 'Ada' } }, got)
end)

t.test('elicit declines and cancels', function()
  local select = vim.ui.select
  t.cleanup(function()
    vim.ui.select = select
  end)
  local got
  vim.ui.select = function(_, _, cb)
    cb('Decline')
  end
  m.elicit({ server = 's', message = 'Who?', requestedSchema = {} }, function(a)
    got = a
  end)
  t.eq({ action = 'decline' }, got)
  vim.ui.select = function(_, _, cb)
    cb(nil)
  end
  m.elicit({ server = 's', message = 'Who?', requestedSchema = {} }, function(a)
    got = a
  end)
  t.eq({ action = 'cancel' }, got)
end)

t.test('check_field', function()
  t.eq('required', m.check_field({ type = 'string' }, '', true))
  t.eq(nil, m.check_field({ type = 'string', default = 'x' }, '', true))
  t.eq('a number', m.check_field({ type = 'number' }, 'abc', false))
  t.eq('a whole number', m.check_field({ type = 'integer' }, '1.5', false))
  t.eq(nil, m.check_field({ type = 'integer' }, '2', false))
end)
