-- Issue 22: review before apply, editor context, writes into buffers, drafts back after abort.
local t = ...
local H = dofile('tests/helpers.lua')

local BEFORE = 'package calc\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n\n'
  .. string.rep('// filler\n', 8)
  .. '\n// Mul returns a*b.\nfunc Mul(a, b int) int { return a * b }\n'
local EDIT = vim.json.encode({
  path = 'calc.go',
  edits = {
    { oldText = '// Add returns a+b.', newText = '// Add returns the sum.' },
    { oldText = '// Mul returns a*b.', newText = '// Mul returns the product.' },
  },
})

local function review_setup()
  return { setup = { review = true }, files = { ['calc.go'] = BEFORE } }
end

local function wait_review(t)
  t.wait(function()
    local r = require('pi_lsp.review').current
    return r and vim.api.nvim_tabpage_is_valid(r.tab) and vim.api.nvim_buf_is_valid(r.rbuf)
  end, 10000, 'the diff review opened')
  return require('pi_lsp.review').current
end

t.test('diff review: one hunk rejected, the file holds the other, the model hears of the drop', function()
  local c, proj = H.start(t, {
    { toolCalls = { { id = 'e1', name = 'edit', arguments = EDIT } } },
    { match = 'Dropped hunks', text = 'Understood: only Add changed.' },
  }, review_setup())
  require('pi_lsp').chat('document calc')
  local r = wait_review(t)
  t.eq(true, vim.wo[r.rwin].diff)
  t.eq(true, vim.wo[r.lwin].diff)
  t.eq(false, vim.bo[r.lbuf].modifiable)
  -- Never escaped JSON: the right side is the file as the agent would leave it.
  t.has(vim.api.nvim_buf_get_lines(r.rbuf, 0, -1, false), '// Mul returns the product.')
  -- Cursor on the Mul hunk of the right side, then `gr` (the buffer-local mapping).
  vim.api.nvim_set_current_win(r.rwin)
  local lines = vim.api.nvim_buf_get_lines(r.rbuf, 0, -1, false)
  for i, l in ipairs(lines) do
    if l == '// Mul returns the product.' then
      vim.api.nvim_win_set_cursor(r.rwin, { i, 0 })
    end
  end
  vim.cmd('normal gr')
  t.has(vim.api.nvim_buf_get_lines(r.rbuf, 0, -1, false), '// Mul returns a*b.')
  vim.cmd('normal ga')
  H.wait_answer(t, c, 'Understood: only Add changed.')
  t.eq(BEFORE:gsub('// Add returns a%+b%.', '// Add returns the sum.'), H.read(proj .. '/calc.go'))
  t.eq(false, vim.api.nvim_tabpage_is_valid(r.tab), 'the review tab closed')
end)

t.test('decline with a reason reaches the model', function()
  local c, proj = H.start(t, {
    { toolCalls = { { id = 'e1', name = 'edit', arguments = EDIT } } },
    { match = 'keep the short comments', text = 'OK, keeping them.' },
  }, review_setup())
  H.stub(t, 'input', function(_, cb)
    cb('keep the short comments')
  end)
  require('pi_lsp').chat('document calc')
  local r = wait_review(t)
  vim.api.nvim_set_current_win(r.lwin)
  vim.cmd('normal gx')
  H.wait_answer(t, c, 'OK, keeping them.')
  t.eq(BEFORE, H.read(proj .. '/calc.go'))
  t.eq('declined', H.items(c, 'tool')[1].status)
end)

t.test('a range prompt carries the selection', function()
  local c, proj = H.start(t, { { match = 'editor-context type=\\"selection\\"', text = 'That is Add.' } }, { files = { ['calc.go'] = BEFORE } })
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/calc.go'))
  vim.cmd('3,4PiChat what does this do?')
  H.wait_answer(t, c, 'That is Add.')
  local user = H.items(c, 'user')[1]
  t.eq('what does this do?', user.text)
  t.eq('selection', user.attachments[1].type)
  t.eq('3-4', user.attachments[1].lines)
end)

t.test('an edit of a modified buffer lands in the buffer, with undo, and no W12', function()
  local c, proj = H.start(t, {
    { toolCalls = { { id = 'e1', name = 'edit', arguments = vim.json.encode({ path = 'calc.go', edits = { { oldText = '// Mul returns a*b.', newText = '// Mul multiplies.' } } }) } } },
    { match = 'Successfully', text = 'Edited the buffer.' },
  }, { files = { ['calc.go'] = BEFORE }, setup = { yolo = true } })
  c:request_sync('permissions/set', { yolo = true }, 5000)
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/calc.go'))
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, 1, false, { 'package calc // unsaved' })
  t.eq(true, vim.bo[buf].modified)
  local messages = {}
  H.stub(t, 'notify', function(m)
    messages[#messages + 1] = m
  end)
  require('pi_lsp').chat('edit the buffer')
  H.wait_answer(t, c, 'Edited the buffer.')
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  t.eq('package calc // unsaved', lines[1], 'the unsaved change is kept')
  t.has(lines, '// Mul multiplies.')
  t.eq(BEFORE, H.read(proj .. '/calc.go'), 'the disk is untouched while the buffer has unsaved changes')
  vim.cmd('checktime')
  t.eq(true, vim.bo[buf].modified)
  for _, m in ipairs(messages) do
    t.ok(not tostring(m):find('W12'), 'W12: ' .. tostring(m))
  end
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent undo')
  end)
  t.has(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '// Mul returns a*b.', 'undo takes the agent edit back')
end)

t.test('abort puts the queued messages back into the input', function()
  local c = H.start(t, { { text = string.rep('long answer ', 200), chunkDelayMs = 60, chunkSize = 10 } })
  local view = require('pi_lsp').chat('tell me a long story')
  t.wait(function()
    local a = H.items(c, 'assistant')
    return a[1] and #(a[1].text or '') > 0
  end, 10000, 'streaming started')
  local err = c:request_sync('agent/followUp', { text = 'then summarize it' }, 5000)
  t.eq(nil, err)
  require('pi_lsp').abort()
  t.wait(function()
    return require('pi_lsp.chat').input(c) == 'then summarize it'
  end, 5000, function()
    return 'input: ' .. vim.inspect(require('pi_lsp.chat').input(c))
  end)
  t.wait(function()
    return H.idle(c)
  end, 5000, 'run stopped')
  t.eq('interrupted', H.items(c, 'assistant')[1].status)
  local _ = view
end)

t.test('the transcript conceals markdown, highlights fenced code and marks role headers', function()
  local answer = '## Overview\n\nUse **bold** and `code`:\n\n```go\nfunc Add(a, b int) int { return a + b }\n```\n'
  vim.cmd('syntax on') -- the runner starts with -u NONE
  t.cleanup(function()
    vim.cmd('syntax off')
  end)
  local c = H.start(t, { { text = answer } })
  local view = require('pi_lsp').chat('explain')
  H.wait_answer(t, c, answer)
  t.wait(function()
    return vim.tbl_contains(vim.api.nvim_buf_get_lines(view.tbuf, 0, -1, false), '## Overview')
  end, 5000, 'rendered')
  local win = H.win_of(view.tbuf)
  t.eq(2, vim.wo[win].conceallevel)
  local lines = vim.api.nvim_buf_get_lines(view.tbuf, 0, -1, false)
  local marked = {}
  for _, m in ipairs(require('pi_lsp.markdown').roles(view.tbuf)) do
    marked[#marked + 1] = lines[m[1]]
  end
  t.eq({ '## You', '## Assistant' }, marked, 'only the role headers are marked, not ## Overview')
  local code
  for i, l in ipairs(lines) do
    if l:find('^func Add') then
      code = i
    end
  end
  t.ok(code, 'code line')
  local names = table.concat(H.highlights(view.tbuf, code, 1), ',')
  if H.treesitter(view.tbuf) and not pcall(vim.treesitter.language.add, 'go') then
    -- 0.9+ without a Go parser: the fence is a code block, uncoloured (docs/neovim.md).
    t.ok(names:find('markup.raw.block', 1, true), 'fenced code block: ' .. names)
  else
    t.ok(names:find('go', 1, true), 'fenced go syntax: ' .. names)
  end
  t.eq('Use bold and code:', H.shown(view.tbuf, code - 3))
end)

t.test('an edit outside the workspace: the review shows the warning, gP accepts and grants the directory', function()
  local other = vim.fn.resolve(H.tmpdir())
  H.write(other .. '/calc.go', BEFORE)
  local edit = vim.json.encode({
    path = other .. '/calc.go',
    edits = { { oldText = '// Add returns a+b.', newText = '// Add returns the sum.' } },
  })
  local c = H.start(t, {
    { toolCalls = { { id = 'o1', name = 'edit', arguments = edit } } },
    { text = 'Edited the outside file.' },
  }, review_setup())
  require('pi_lsp').chat('document the outside calc')
  local r = wait_review(t)
  t.eq('OUTSIDE THE WORKSPACE: writes ' .. other .. '/calc.go', r.warning)
  t.ok(r.accept_path ~= nil, 'gP is offered')
  if vim.fn.exists('+winbar') == 1 then
    t.ok(vim.wo[r.rwin].winbar:find('OUTSIDE THE WORKSPACE', 1, true), vim.wo[r.rwin].winbar)
  end
  t.has(vim.api.nvim_buf_get_lines(r.rbuf, 0, -1, false), '// Add returns the sum.')
  vim.api.nvim_set_current_win(r.rwin)
  vim.cmd('normal gP')
  H.wait_answer(t, c, 'Edited the outside file.')
  t.eq(BEFORE:gsub('// Add returns a%+b%.', '// Add returns the sum.'), H.read(other .. '/calc.go'))
  t.eq(false, vim.api.nvim_tabpage_is_valid(r.tab), 'the review tab closed')
end)
