local t = ...
local H = dofile('tests/helpers.lua')

local LONG = string.rep('This answer goes on and on. ', 40)

t.test('<C-c> aborts a streaming answer', function()
  local c = H.start(t, { { text = LONG, chunkDelayMs = 100, chunkSize = 10 } })
  local view = require('pi_lsp').chat('tell me a long story')
  t.wait(function()
    local a = H.items(c, 'assistant')
    return a[1] and #(a[1].text or '') > 0
  end, 10000, 'streaming started')
  vim.api.nvim_set_current_win(H.win_of(view.ibuf))
  t.keys('<C-c>')
  t.wait(function()
    return H.idle(c)
  end, 5000, 'run stopped')
  local a = H.items(c, 'assistant')
  t.ok(#(a[1].text or '') < #LONG, 'the whole answer arrived: abort did nothing')
  local err, st = c:request_sync('session/state', nil, 5000)
  t.eq(nil, err)
  t.eq(false, st.isRunning)
end)

t.test(':PiAbort while an approval is pending drops the prompt', function()
  local c, proj = H.start(t, {
    { toolCalls = { { id = 'w', name = 'write', arguments = vim.json.encode({ path = 'a.txt', content = 'x' }) } } },
    { text = 'unused' },
  }, { files = { ['a.txt'] = 'original\n' } })
  local asked = false
  H.stub(t, 'select', function()
    asked = true -- never answers
  end)
  require('pi_lsp').chat('write')
  t.wait(function()
    return asked
  end, 10000, 'approval asked')
  t.eq(1, #require('pi_lsp.prompts').pending())
  vim.cmd('PiAbort')
  t.wait(function()
    return H.idle(c)
  end, 5000, 'run stopped')
  t.eq(0, #require('pi_lsp.prompts').pending())
  t.eq('original\n', H.read(proj .. '/a.txt'))
end)
