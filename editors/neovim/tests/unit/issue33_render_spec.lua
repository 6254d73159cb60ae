-- Issue 33 (Neovim rendering): approvals and declined edits as text, the end of huge output,
-- errors once and dismissable, task lists, fold lines without markdown, attachments, the
-- interrupted mark.
local t = ...
local render = require('pi_lsp.render')
local prompts = require('pi_lsp.prompts')

local function joined(lines)
  return table.concat(lines, '\n')
end

t.test('bug 6: a bash approval reads as the command, other tools as key: value text', function()
  local p = { toolName = 'bash', display = '$ go vet ./... && echo vet-ok', args = { command = 'go vet ./... && echo vet-ok' } }
  t.eq('$ go vet ./... && echo vet-ok', prompts.approval_text(p))
  -- The server's fallback display (`name {json}`) is replaced by text.
  local q = { toolName = 'fetch', display = 'fetch {"url":"https:\\/\\/x.dev\\/a"}', args = { url = 'https://x.dev/a', n = { 1 } } }
  t.eq('fetch — n: [1]  url: https://x.dev/a', prompts.approval_text(q))
  t.eq('cmd: a (+2 lines)', prompts.format_args({ cmd = 'a\nb\nc' }))
end)

t.test('bug 6: a declined edit or write shows a diff, not escaped JSON', function()
  local lines = render.render({
    items = {
      { kind = 'tool', toolName = 'edit', status = 'declined', diff = '', output = 'declined',
        args = { path = 'clamp.go', edits = { { oldText = '\tif v < 0 {', newText = '\tif v < lo {\n\t\treturn lo' } } } },
      { kind = 'tool', toolName = 'write', status = 'declined', diff = '', output = 'declined',
        args = { path = 'a/b.txt', content = 'one\ntwo' } },
    },
  })
  local text = joined(lines)
  t.eq(nil, text:find('newText', 1, true), text)
  t.eq(nil, text:find('\\n', 1, true), text)
  t.has(lines, '```diff')
  t.has(lines, '-\tif v < 0 {')
  t.has(lines, '+\tif v < lo {')
  t.has(lines, '+\t\treturn lo')
  t.has(lines, '+++ a/b.txt')
  t.has(lines, '+two')
end)

t.test('bug 7: long output shows its end and the Full output path on its own line', function()
  local out = {}
  for i = 199001, 200000 do
    out[#out + 1] = tostring(i)
  end
  out[#out + 1] = ''
  out[#out + 1] = '[Showing lines 197953-200000 of 200000. Full output: /tmp/pi-bash-1.log]'
  local lines = render.render({
    items = { { kind = 'tool', toolName = 'bash', status = 'done', args = { command = 'seq 1 200000' }, output = table.concat(out, '\n') } },
  }, { max_output_lines = 50 })
  t.has(lines, '200000')
  t.has(lines, '[Showing lines 197953-200000 of 200000. Full output: /tmp/pi-bash-1.log]')
  t.has(lines, 'Full output: /tmp/pi-bash-1.log')
  t.has(lines, '… (952 earlier lines)')
  t.eq(nil, vim.tbl_contains(lines, '199001') or nil)
end)

t.test('bug 8: an error shows once, and not at all once dismissed', function()
  local st = {
    status = 'idle',
    items = {
      { id = 'u1', kind = 'user', text = 'hi' },
      { id = 'e1', kind = 'error', text = '401 invalid key' },
      { id = 'u2', kind = 'user', text = 'again' },
      { id = 'a2', kind = 'assistant', text = 'fine now' },
    },
    errors = { '401 invalid key' },
  }
  local n = 0
  for _, l in ipairs(render.render(st)) do
    if l:find('401 invalid key', 1, true) then
      n = n + 1
    end
  end
  t.eq(1, n)
  -- A later turn succeeded: the error is one line, marked earlier, without its details.
  st.items[2].text = '401 invalid key\nrequest id abc'
  local shrunk = render.render(st)
  t.has(shrunk, '> **Error:** 401 invalid key  (earlier; x dismisses)')
  t.eq(nil, joined(shrunk):find('request id abc', 1, true))
  local lines = render.render(st, { dismissed = { e1 = true } })
  t.eq(nil, joined(lines):find('401', 1, true))
  t.has(lines, 'fine now')
end)

t.test('bug 13: task_write shows the task list; fold lines show no markdown marks', function()
  local lines = render.render({
    items = { { kind = 'tool', toolName = 'task_write', status = 'done', output = '{"tasks":[]}', args = { tasks = {
      { content = 'Write tests', status = 'completed' },
      { content = 'Ship', status = 'pending' },
    } } } },
  })
  t.has(lines, '  [x] Write tests')
  t.has(lines, '  [ ] Ship')
  t.eq(nil, joined(lines):find('"content"', 1, true))
  local chat = require('pi_lsp.chat')
  t.eq('✓ edit main.go — done', chat.plain('✓ **edit** `main.go` — done'))
  t.eq('Thinking', chat.plain('> _Thinking_'))
end)

t.test('bug 15: attachments under the user message; an interrupted answer is marked', function()
  local lines = render.render({
    items = {
      { kind = 'user', text = 'explain', attachments = { { type = 'selection', path = 'main.go', lines = '3-9' }, { type = 'image', path = 'shot.png' } } },
      { kind = 'assistant', text = 'It does', status = 'interrupted' },
    },
  })
  t.has(lines, '_📎 selection_ main.go:3-9')
  t.has(lines, '_📎 image_ shot.png')
  t.has(lines, '_⊘ interrupted by Stop_')
end)

t.test('missing 8: the task list in the chat footer and the statusline while tasks are open', function()
  local tasks = {
    { content = 'Write tests', status = 'completed' },
    { content = 'Run tests', status = 'in_progress', activeForm = 'Running tests' },
    { content = 'Ship', status = 'pending' },
  }
  local lines = render.render({ items = { { kind = 'user', text = 'go' } }, tasks = tasks })
  t.has(lines, '_Tasks:_')
  t.has(lines, '  [~] Running tests')
  t.has(lines, '  [ ] Ship')
  local sl = require('pi_lsp.statusline')
  t.eq('tasks 1/3: Running tests', sl.tasks(tasks))
  t.ok(sl.text({ status = 'idle', tasks = tasks }):find('tasks 1/3: Running tests', 1, true))
  -- All done: neither shows a list.
  local done = { { content = 'Ship', status = 'completed' } }
  t.eq(nil, vim.tbl_contains(render.render({ items = { { kind = 'user', text = 'go' } }, tasks = done }), '_Tasks:_') or nil)
  t.eq('tasks 1/1', sl.tasks(done))
end)

t.test('missing 4: context chips name a selection, a file (unsaved when sent with its text), an image', function()
  local ic = require('pi_lsp.input_context')
  t.eq('main.go:3-9', ic.chip({ type = 'selection', path = '/p/main.go', range = { startLine = 3, endLine = 9 } }, '/p'))
  t.eq('README.md', ic.chip({ type = 'file', path = '/p/README.md' }, '/p'))
  t.eq('a.go (unsaved)', ic.chip({ type = 'file', path = '/p/a.go', text = 'x' }, '/p'))
  t.eq('/elsewhere/b.go', ic.chip({ type = 'file', path = '/elsewhere/b.go' }, '/p'))
  t.eq('image shot.png', ic.chip({ type = 'image', path = 'shot.png' }, '/p'))
end)
