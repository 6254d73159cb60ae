local t = ...
local render = require('pi_lsp.render')

local function find(lines, s)
  for i, l in ipairs(lines) do
    if l == s then
      return i
    end
  end
end

t.test('no state yet shows a connecting line', function()
  local lines, folds = render.render(nil)
  t.eq({ '_Connecting to pi-lsp..._' }, lines)
  t.eq({ '0' }, folds)
end)

t.test('empty idle state invites typing', function()
  local lines = render.render({ status = 'idle', phase = 'idle', items = {} })
  t.has(lines, 'New session')
end)

t.test('user and assistant messages render as markdown sections', function()
  local lines, folds = render.render({
    status = 'idle',
    phase = 'idle',
    items = {
      { id = 'a1', kind = 'user', text = 'fix the test' },
      { id = 'a2', kind = 'assistant', text = 'Line one\nLine two', thinking = 'hmm' },
    },
  })
  t.eq({ '## You', 'fix the test', '', '## Assistant', '> _Thinking_', '> hmm', '', 'Line one', 'Line two' }, lines)
  t.eq({ '0', '0', '0', '0', '>1', '1', '1', '0', '0' }, folds)
  local no_thinking = render.render({ items = { { kind = 'assistant', text = 'x', thinking = 'hmm' } } }, { show_thinking = false })
  t.eq({ '## Assistant', 'x' }, no_thinking)
end)

t.test('an assistant turn with only tool calls has no empty section', function()
  local lines = render.render({ items = { { kind = 'assistant', text = '' }, { kind = 'tool', toolName = 'ls', args = {}, status = 'done' } } })
  t.eq({ '✓ **ls** — done' }, lines)
  t.eq({ '## Assistant', '...' }, (render.render({ items = { { kind = 'assistant', text = '', streaming = true } } })))
end)

t.test('a tool call is a fold: header, diff, output', function()
  local lines, folds = render.render({
    status = 'idle',
    items = {
      {
        id = 'call_1',
        kind = 'tool',
        toolName = 'edit',
        args = { path = 'a.go' },
        status = 'done',
        diff = '--- a/a.go\n+++ b/a.go\n-x\n+y',
        output = 'Edited a.go',
      },
    },
  })
  local h = find(lines, '✓ **edit** `a.go` — done')
  t.ok(h, 'header missing:\n' .. table.concat(lines, '\n'))
  t.eq('>1', folds[h])
  t.eq('```diff', lines[h + 1])
  t.eq('+y', lines[h + 5])
  t.has(lines, 'Edited a.go')
  for i = h + 1, #lines do
    t.eq('1', folds[i], 'line ' .. i .. ' is inside the fold')
  end
end)

t.test('a tool without a diff shows its args; long output is cut', function()
  local out = {}
  for i = 1, 10 do
    out[i] = 'line ' .. i
  end
  local lines = render.render({
    items = {
      { kind = 'tool', toolName = 'bash', args = { command = 'make test', timeout = 5 }, status = 'running', output = table.concat(out, '\n') },
    },
  }, { max_output_lines = 3 })
  t.has(lines, '… **bash** `make test` — running')
  t.has(lines, 'command: make test')
  t.has(lines, 'timeout: 5')
  t.has(lines, '… (7 earlier lines)')
  t.has(lines, 'line 10')
  t.eq(nil, vim.tbl_contains(lines, 'line 7') or nil)
end)

t.test('footer: pending approval, queue, errors and the running state', function()
  local lines = render.render({
    status = 'running',
    phase = 'turn',
    items = { { kind = 'user', text = 'go' } },
    queue = { steering = { 'use the other API' }, followUp = { { text = 'then test' } } },
    pending = { approval = { toolName = 'write', display = 'write a.txt (1 lines)' } },
    errors = { { message = 'boom' }, 'plain error' },
    retry = { attempt = 2, delayMs = 1500, error = '429 Too Many Requests' },
    compaction = { reason = 'threshold' },
  })
  t.has(lines, '_Retrying (attempt 2) in 1.5 s..._ 429 Too Many Requests')
  t.has(lines, '_Compacting context (threshold)..._')
  t.has(lines, '---')
  t.has(lines, '_Queued (steer):_ use the other API')
  t.has(lines, '_Queued (follow-up):_ then test')
  t.has(lines, '**Approval needed:** write a.txt (1 lines)')
  t.has(lines, '_Working (turn)..._')
  -- state.errors repeats the error items: the footer does not draw them (issue 33 bug 8).
  for _, l in ipairs(lines) do
    t.eq(nil, l:find('boom', 1, true), l)
    t.eq(nil, l:find('plain error', 1, true), l)
  end
end)

t.test('other item kinds', function()
  local lines = render.render({
    items = {
      { kind = 'bash', command = 'ls', output = 'a\nb', exitCode = 2 },
      { kind = 'summary', text = 'We did things', summaryKind = 'branch' },
      { kind = 'error', text = 'rate limited' },
      { kind = 'info', text = 'model changed' },
    },
  })
  t.has(lines, '$ ls  (exit 2)')
  t.has(lines, '### Summary (branch)')
  t.has(lines, '> **Error:** rate limited')
  t.has(lines, '> model changed')
end)

t.test('tasks render with status marks', function()
  t.eq({ '[x] Write tests', '[~] Running tests', '[ ] Ship' }, render.tasks({
    { id = '1', content = 'Write tests', status = 'completed' },
    { id = '2', content = 'Run tests', status = 'in_progress', activeForm = 'Running tests' },
    { id = '3', content = 'Ship', status = 'pending' },
  }))
  t.eq({ 'No tasks.' }, render.tasks({}))
end)

t.test('a subagent is a folded block under its tool line, from the recorded frames', function()
  -- The frames the real pi-lsp sent for a general subagent that wrote a file (testdata/display).
  local path = '../../testdata/display/subagent-frames.json'
  local f = assert(io.open(path, 'r'))
  local frames = vim.json.decode(f:read('*a'))
  f:close()
  local st = require('pi_lsp.state').new()
  for _, fr in ipairs(frames) do
    t.eq('ok', (st:apply(fr)))
  end
  local lines, folds = render.render(st.state)
  local tool = t.has(lines, '**subagent**')
  local head = t.has(lines, '↳ ✓ **general** subagent — done · ')
  t.ok(tool < head, 'the block is under the tool line:\n' .. table.concat(lines, '\n'))
  t.eq('>1', folds[tool])
  t.eq('>1', folds[head])
  local want = {
    '  │ Task: WRITE-TASK: create child.txt',
    '  │ Writing now.',
    '  │ ✓ **write** `child.txt` — done',
    '  │ CHILD-STREAMED-TEXT: child.txt is written.',
  }
  for i, w in ipairs(want) do
    t.eq(w, lines[head + i])
    t.eq('1', folds[head + i])
  end
  t.ok(lines[head + 5]:find('│ session: .*/subagents/.*%.jsonl$'), lines[head + 5])
  -- The child's lines are not top-level sections.
  local sections = 0
  for _, l in ipairs(lines) do
    if l == '## Assistant' then
      sections = sections + 1
    end
  end
  t.eq(1, sections)
end)

t.test('display facts come from the state: outcome, reason, verdict, end reason, note, banners', function()
  local handover = 'The plan "Add cache" was approved. You are now in Build mode with all tools: implement it step by step.'
  local lines = render.render({
    status = 'idle',
    items = {
      { id = 'u1', kind = 'user', text = 'rename it' },
      { id = 'e1', kind = 'tool', toolName = 'edit', args = {}, status = 'declined', outcome = 'declined', reason = 'keep the old name' },
      { id = 'p1', kind = 'tool', toolName = 'submit_plan', args = {}, status = 'done', verdict = 'rejected' },
      { id = 'p2', kind = 'tool', toolName = 'submit_plan', args = {}, status = 'done', verdict = 'approved' },
      { id = 'b1', kind = 'tool', toolName = 'bash', args = {}, status = 'error', outcome = 'interrupted', reason = 'client_gone' },
      -- The title comes from planTitle, not from the text (which names another plan here).
      { id = 'u2', kind = 'user', text = handover, note = 'plan_handover', planTitle = 'Add LRU cache' },
      { id = 'a1', kind = 'assistant', text = 'half', status = 'interrupted', endReason = 'client_gone' },
      { id = 'a2', kind = 'assistant', text = 'cut', status = 'interrupted', endReason = 'aborted' },
    },
    errors = { { text = 'gave up after 3 retries', itemId = 'u1' } },
    retry = { attempt = 3, delayMs = 4000, error = '503', itemId = 'u1' },
  })
  for _, want in ipairs({
    '⊘ **edit** — declined: keep the old name',
    '✗ **submit_plan** — rejected',
    '✓ **submit_plan** — approved',
    '⊘ **bash** — interrupted: the client went away',
    '> _Plan approved: Add LRU cache — building in Build mode_',
    '_⊘ interrupted: the client went away_',
    '_⊘ interrupted by Stop_',
  }) do
    t.ok(find(lines, want), 'missing ' .. want .. ' in:\n' .. table.concat(lines, '\n'))
  end
  -- state.errors repeats the error items of the transcript (issue 33 bug 8): the banner list is
  -- not drawn a second time.
  t.ok(not find(lines, '**Error:** gave up after 3 retries'), 'an error banner drawn twice')
  -- The hand-over is a note, not the user's section; its text is not shown as a bubble.
  local you = 0
  for _, l in ipairs(lines) do
    if l == '## You' then
      you = you + 1
    end
    t.ok(l ~= handover, 'the hand-over shown as the user text')
  end
  t.eq(1, you)
  -- Banners the server cleared are gone: nothing is kept between renders.
  local cleared = render.render({ status = 'idle', items = {}, errors = {}, retry = vim.NIL })
  for _, l in ipairs(cleared) do
    t.ok(not l:find('Retrying', 1, true) and not l:find('Error', 1, true), 'a cleared banner stayed: ' .. l)
  end
end)
