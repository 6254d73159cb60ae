local t = ...

t.test('config merge keeps defaults and replaces cmd lists', function()
  local config = require('pi_lsp.config')
  local c = config.merge({ cmd = { '/x/pi-lsp' }, keymaps = { send = '<C-s>' }, chat = { position = 'bottom' } })
  t.eq({ '/x/pi-lsp' }, c.cmd)
  t.eq('<C-s>', c.keymaps.send)
  t.eq('<C-f>', c.keymaps.follow_up)
  t.eq('bottom', c.chat.position)
  t.eq(4, c.chat.input_height)
  t.eq({ 'pi-lsp' }, config.merge(nil).cmd)
  t.eq({ 'pi' }, config.merge({ cmd = 'pi' }).cmd)
end)

t.test('statusline text: observational memory', function()
  local s = require('pi_lsp.statusline')
  t.eq('pi · fake/m1 · idle · mem 2.5k observing', s.text({
    model = 'fake/m1',
    status = 'idle',
    phase = 'idle',
    memory = { mode = 'observational', observationTokens = 2480, observing = true },
  }, 'running'))
  t.eq('pi · fake/m1 · idle', s.text({ model = 'fake/m1', status = 'idle', phase = 'idle', memory = { mode = 'compaction' } }, 'running'))
end)

t.test('statusline text: model, mode, running, context %', function()
  local s = require('pi_lsp.statusline')
  t.eq('pi · fake/m1 · Build · running · ctx 13%', s.text({
    model = 'fake/m1',
    mode = { id = 'build', name = 'Build' },
    status = 'running',
    phase = 'turn',
    tokens = { contextTokens = 16384, contextWindow = 128000 },
  }, 'running'))
  t.eq('pi · fake/m1 · Plan · YOLO · think:high · idle', s.text({
    model = 'fake/m1',
    mode = { id = 'plan', name = 'Plan' },
    yolo = true,
    thinkingLevel = 'high',
    status = 'idle',
    phase = 'idle',
  }, 'running'))
  t.eq('pi · fake/m1 · Plan · sandbox:ro · idle', s.text({ model = 'fake/m1', mode = { name = 'Plan' }, sandbox = 'read-only', status = 'idle', phase = 'idle' }, 'running'))
  t.eq('pi · Build · no-sandbox · idle', s.text({ mode = { name = 'Build' }, sandbox = 'unavailable', status = 'idle', phase = 'idle' }, 'running'))
  t.eq('pi · Compacting context 40%', s.text({ status = 'idle', phase = 'compaction' }, 'running', { title = 'Compacting context', percentage = 40 }))
  t.eq('pi · idle · ctx 10% · ↑12.3k ↓800 $0.042', s.text({
    status = 'idle',
    phase = 'idle',
    tokens = { input = 12345, output = 800, contextTokens = 12800, contextWindow = 128000, cost = { total = 0.0421 } },
  }, 'running'))
  t.eq('pi: starting', s.text(nil, 'starting'))
  t.eq('', s.text(nil, 'stopped'))
end)

t.test('slash completion matches commands by prefix', function()
  local c = require('pi_lsp.complete')
  local cmds = {
    { name = 'skill:pdf', description = 'PDF tools\nmore', kind = 'skill' },
    { name = 'review', description = 'Review code', kind = 'template' },
    { name = 'skill:sql', kind = 'skill' },
  }
  local m = c.matches(cmds, '/skill:')
  t.eq({ '/skill:pdf', '/skill:sql' }, vim.tbl_map(function(x)
    return x.word
  end, m))
  t.eq('[skill] PDF tools', m[1].menu)
  t.eq(3, #c.matches(cmds, '/'))
  t.eq('/rev', c.slash_word('/rev', 4, 1))
  t.eq(nil, c.slash_word('/rev', 4, 2))
  t.eq(nil, c.slash_word('fix /rev', 8, 1))
end)

t.test('the rpc transport can answer server requests later', function()
  local _, async = require('pi_lsp.transport').rpc()
  t.ok(async, 'vim.lsp.rpc of this Neovim could not be made asynchronous')
end)

t.test('session and model labels', function()
  local p = require('pi_lsp.pickers')
  t.eq('  2026-01-02 10:11:12  fix the test  (12 entries)', p.session_label({
    firstMessage = 'fix the test',
    modified = '2026-01-02T10:11:12.345Z',
    entryCount = 12,
  }))
  t.eq('  2026-01-02 10:11:12  Refactor  (3 entries)', p.session_label({ name = 'Refactor', modified = '2026-01-02T10:11:12Z', entryCount = 3 }))
  t.eq('* ⑂ 2026-01-02 10:11:12  Short title  (3 entries)', p.session_label({ title = 'Short title', current = true, fork = true, modified = '2026-01-02T10:11:12Z', entryCount = 3 }))
  t.eq('fake/m1  M1  128k  (no auth)  (current)', p.model_label({ provider = 'fake', id = 'm1', name = 'M1', contextWindow = 128000, authenticated = false }, 'fake/m1'))
  -- Issue 33: a 400-token window is "400", not "0k"; sessions that began alike differ by their last prompt.
  t.eq('fake/tiny  400', p.model_label({ provider = 'fake', id = 'tiny', contextWindow = 400 }))
  t.eq('fake/big  1M', p.model_label({ provider = 'fake', id = 'big', contextWindow = 1000000 }))
  t.eq('  2026-01-02 10:11:12  hi, who are you?  (8 entries)  last: fix the parser', p.session_label({
    firstMessage = 'hi, who are you?', lastMessage = 'fix the parser', modified = '2026-01-02T10:11:12Z', entryCount = 8 }))
end)

t.test('a float leaves Insert mode and follows a resize', function()
  local util = require('pi_lsp.util')
  local buf = util.scratch(nil, 'markdown')
  util.set_lines(buf, { 'one', 'two' })
  local cols = vim.o.columns
  local win = util.float(buf, { 'one', 'two' }, { width = 40 })
  t.ok(vim.api.nvim_win_is_valid(win))
  local before = vim.api.nvim_win_get_config(win)
  vim.o.columns = cols + 40
  vim.cmd('doautocmd VimResized')
  local after = vim.api.nvim_win_get_config(win)
  local col = function(c)
    return type(c.col) == 'table' and c.col[false] or c.col
  end
  t.ok(col(after) > col(before), string.format('col %s -> %s', vim.inspect(before.col), vim.inspect(after.col)))
  vim.o.columns = cols
  util.close_win(win)
end)
