-- Issue 17, the editor side: "attached to pid N", ui/resolved closing a prompt another client
-- answered, session/owner as a notice. The approvals come from the real pi-lsp binary and the
-- fake model. The server side of attach is not on this branch, so ui/resolved and
-- session/owner (and only they) are fed in as the transport delivers a notification: through
-- the client's own notification dispatcher (client.dispatchers.notification).
local t = ...
local H = dofile('tests/helpers.lua')

local function deliver(c, method, params)
  c.dispatchers.notification(method, params)
end

local function write_call(id)
  return { toolCalls = { { id = id, name = 'write', arguments = vim.json.encode({ path = 'a.txt', content = 'changed\n' }) } } }
end

t.test('ui/resolved closes the pending approval another client answered and says who', function()
  local c, proj = H.start(t, { write_call('call_r1'), { text = 'Handled elsewhere.' } }, { files = { ['a.txt'] = 'original\n' } })
  -- A picker that stays open (as telescope or dressing do) until the test answers it.
  local late = H.hold_approval(t, 'write a.txt')
  t.wait(function()
    return #require('pi_lsp.prompts').pending() == 1
  end, 10000, 'the approval is pending')
  deliver(c, 'ui/resolved', { requestId = 'call_r1', kind = 'approval', outcome = { decision = 'decline' }, by = 'vscode' })
  t.eq(0, #require('pi_lsp.prompts').pending(), 'the prompt is closed')
  local i = t.ok(t.notified('answered by vscode'), 'the user is told who answered')
  t.ok(t.messages[i].msg:find('approval (write a.txt (2 lines)) answered by vscode: decline', 1, true), t.messages[i].msg)
  t.ok(t.messages[i].level ~= vim.log.levels.ERROR, 'a notice, not an error')
  -- The picker answering late sends nothing more: the run goes on as decided.
  late()
  H.wait_answer(t, c, 'Handled elsewhere.')
  t.eq('original\n', H.read(proj .. '/a.txt'))
  t.eq(0, #require('pi_lsp.prompts').pending())
  -- A ui/resolved for a prompt this editor does not have is only a notice.
  t.messages = {}
  t.eq(false, require('pi_lsp.prompts').resolved(c, { requestId = 'nope', kind = 'question', outcome = { answer = 'B' }, by = 'neovim-2' }))
  t.ok(t.notified('question answered by neovim-2: B'))
end)

t.test('ui/resolved closes the diff review tab of a pending edit', function()
  local c = H.start(t, { write_call('call_r2'), { text = 'ok' } }, { setup = { review = true }, files = { ['a.txt'] = 'original\n' } })
  require('pi_lsp').chat('write a.txt')
  t.wait(function()
    local r = require('pi_lsp.review').current
    return r and vim.api.nvim_tabpage_is_valid(r.tab)
  end, 10000, 'the diff review opened')
  local r = require('pi_lsp.review').current
  deliver(c, 'ui/resolved', { requestId = 'call_r2', kind = 'approval', outcome = { decision = 'approve' }, by = 'vscode' })
  t.eq(false, vim.api.nvim_tabpage_is_valid(r.tab), 'the review tab closed')
  t.ok(t.notified('answered by vscode: approve'))
  H.wait_answer(t, c, 'ok')
end)

t.test('ui/resolved closes the plan float', function()
  local plan = vim.json.encode({ plan = '# Plan\n\n1. Do it.', title = 'The plan' })
  local c = H.start(t, { { toolCalls = { { id = 'p1', name = 'submit_plan', arguments = plan } } }, { text = 'planned' } })
  c:request_sync('mode/set', { mode = 'plan' }, 5000)
  require('pi_lsp').chat('make a plan')
  local entry
  t.wait(function()
    entry = require('pi_lsp.prompts').pending()[1]
    return entry ~= nil and entry.method == 'ui/approvePlan'
  end, 10000, 'the plan is asked')
  local floats = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_config(w).relative ~= ''
  end, vim.api.nvim_list_wins())
  t.eq(1, #floats, 'the plan float is open')
  deliver(c, 'ui/resolved', { requestId = entry.params.id, kind = 'plan', outcome = { approved = true }, by = 'vscode' })
  t.eq(false, vim.api.nvim_win_is_valid(floats[1]), 'the plan float closed')
  t.ok(t.notified('plan (The plan) answered by vscode: approved'))
end)

t.test('session/owner is a notice and the statusline says attached to pid N', function()
  local c = H.start(t, { { text = 'x' } })
  t.eq(nil, c.attached, 'the real server owns its session (initialize has no attached)')
  t.ok(not require('pi_lsp').statusline():find('attached', 1, true))
  deliver(c, 'session/owner', { pid = 4242, reason = 'handover' })
  t.eq({ ownerPid = 4242 }, c.attached)
  local line = require('pi_lsp').statusline()
  t.ok(line:find('attached to pid 4242', 1, true), line)
  local i = t.ok(t.notified('owned by pid 4242 (the previous owner exited)'))
  t.ok(t.messages[i].level ~= vim.log.levels.ERROR, 'a notice, not an error')
  deliver(c, 'session/owner', { pid = 4243, reason = 'takeover' })
  t.ok(t.notified('the previous owner died'))
  t.ok(require('pi_lsp').statusline():find('attached to pid 4243', 1, true))
  -- This editor's own server took over: not attached any more.
  deliver(c, 'session/owner', { pid = c.rpc.pid, reason = 'takeover' })
  t.eq(nil, c.attached)
  t.ok(t.notified('this editor now owns the session'))
  -- A session/new answered by the real server (no attached) clears it too.
  deliver(c, 'session/owner', { pid = 4244, reason = 'handover' })
  t.eq(nil, (c:request_sync('session/new', { cwd = c.cwd }, 5000)))
  t.eq(nil, c.attached)
end)

t.test('attach.from_result reads the initialize and session/open results', function()
  local attach = require('pi_lsp.attach')
  t.eq({ ownerPid = 77 }, attach.from_result({ attached = true, ownerPid = 77 }))
  t.eq(nil, attach.from_result({ attached = false, ownerPid = 77 }))
  t.eq(nil, attach.from_result({ sessionId = 'x' }))
  t.eq(nil, attach.from_result(vim.NIL))
  t.eq('attached to pid 77', attach.label({ ownerPid = 77 }))
  t.eq('pi · idle · attached to pid 9', require('pi_lsp.statusline').text({ status = 'idle' }, 'running', nil, { ownerPid = 9 }))
end)
