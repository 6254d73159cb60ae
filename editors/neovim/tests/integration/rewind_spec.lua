local t = ...
local H = dofile('tests/helpers.lua')

local function write_call(id, path, content)
  return { toolCalls = { { id = id, name = 'write', arguments = vim.json.encode({ path = path, content = content }) } } }
end

t.test(':PiRewind picks a user message, previews the files, restores them and reloads the buffer', function()
  local c, proj = H.start(t, {
    write_call('w1', 'a.txt', 'one\n'),
    { text = 'first done' },
    write_call('w2', 'a.txt', 'two\n'),
    { text = 'second done' },
  }, { files = { ['a.txt'] = 'zero\n' }, setup = { cmd = { os.getenv('PI_LSP_BIN'), '--yolo' } } })
  require('pi_lsp').chat('first question')
  H.wait_answer(t, c, 'first done')
  require('pi_lsp.chat').prompt(c, 'second question')
  H.wait_answer(t, c, 'second done')
  t.eq('two\n', H.read(proj .. '/a.txt'))
  -- The file is open in a buffer, which must follow the restore.
  vim.cmd('edit ' .. vim.fn.fnameescape(proj .. '/a.txt'))
  local buf = vim.api.nvim_get_current_buf()
  t.eq({ 'two' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))

  local prompts = {}
  H.stub(t, 'select', function(items, opts, on_choice)
    prompts[#prompts + 1] = opts.prompt
    if #prompts == 1 then
      -- The user messages of the branch: pick the second.
      t.eq(2, #items)
      t.eq('second question', opts.format_item(items[2]))
      on_choice(items[2])
    else
      t.eq('Restore code and conversation', opts.format_item(items[1]))
      on_choice(items[1])
    end
  end)
  local done
  require('pi_lsp.rewind').pick(c, function(res)
    done = res
  end)
  t.wait(function()
    return done ~= nil
  end, 10000, 'rewound')
  local last = require('pi_lsp.rewind').last
  t.eq(1, #last.files)
  t.eq('a.txt', last.files[1].path)
  t.eq('modified', last.files[1].change)
  t.ok(last.files[1].diff:find('+one', 1, true), last.files[1].diff)
  t.ok(prompts[2]:find('modified a.txt', 1, true), prompts[2])
  t.eq(1, done.files.restored)
  t.eq('one\n', H.read(proj .. '/a.txt'))
  t.eq({ 'one' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  t.eq('second question', require('pi_lsp.chat').input(c))
end)

t.test(':PiRewind restores and reloads a file of an extra workspace root (--root): absolute path', function()
  local lib = H.tmpdir() -- resolved, as the server names roots
  H.write(lib .. '/x.txt', 'zero\n')
  local c = H.start(t, {
    write_call('w1', lib .. '/x.txt', 'one\n'),
    { text = 'first done' },
    write_call('w2', lib .. '/x.txt', 'two\n'),
    { text = 'second done' },
  }, { setup = { cmd = { os.getenv('PI_LSP_BIN'), '--yolo', '--root', lib } } })
  require('pi_lsp').chat('first question')
  H.wait_answer(t, c, 'first done')
  require('pi_lsp.chat').prompt(c, 'second question')
  H.wait_answer(t, c, 'second done')
  t.eq('two\n', H.read(lib .. '/x.txt'))
  vim.cmd('edit ' .. vim.fn.fnameescape(lib .. '/x.txt'))
  local buf = vim.api.nvim_get_current_buf()
  t.eq({ 'two' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  local n = 0
  H.stub(t, 'select', function(items, opts, on_choice)
    n = n + 1
    if n == 1 then
      on_choice(items[2]) -- the second question
    else
      on_choice(items[3]) -- code only
    end
  end)
  local done
  require('pi_lsp.rewind').pick(c, function(res)
    done = res
  end)
  t.wait(function()
    return done ~= nil
  end, 10000, 'rewound')
  local last = require('pi_lsp.rewind').last
  t.eq(1, #last.files)
  t.eq(lib .. '/x.txt', last.files[1].path)
  t.eq({ lib .. '/x.txt' }, done.files.paths)
  t.eq('one\n', H.read(lib .. '/x.txt'))
  t.eq({ 'one' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
end)
