-- Issue 33 bug 13: "Always allow tool bash", granted through the approval prompt, is not asked
-- again after the user leaves the session and comes back: by :PiNew and :PiSessions, after
-- going back in the tree to before the grant, and after restarting the editor on the same
-- sessions directory.
local t = ...
local H = dofile('tests/helpers.lua')

local function bash(id, command)
  return { toolCalls = { { id = id, name = 'bash', arguments = vim.json.encode({ command = command }) } } }
end

-- Starts a client on `script` whose first turn runs `echo one` and answers "ran one". Approvals
-- are answered "Always allow tool" as a user picks it; each prompt is recorded in `asked`.
-- Returns the client, the asked list, the first session's id and H.start's other results.
local function granted(t, script, opts)
  local c, proj, llm, sessions = H.start(t, vim.list_extend({ bash('b1', 'echo one'), { text = 'ran one' } }, script), opts)
  local asked = {}
  H.stub(t, 'select', function(items, o, cb)
    asked[#asked + 1] = o.prompt
    for i, it in ipairs(items) do
      if type(it) == 'table' and it.decision == 'alwaysAllowTool' then
        return cb(it, i)
      end
    end
  end)
  require('pi_lsp').chat('run one')
  H.wait_answer(t, c, 'ran one')
  t.eq(1, #asked)
  return c, asked, c:display().session.id, proj, sessions
end

local function back_to(t, c, id)
  H.switch_session(t, c, function(s)
    return s.id == id
  end)
end

t.test('bug 13: the grant holds after :PiNew, a prompt there, and :PiSessions back', function()
  local c, asked, first = granted(t, { bash('b2', 'echo other'), { text = 'ran other' }, bash('b3', 'echo two'), { text = 'ran two' } })
  H.new_session(t, c)
  -- The new session has no grant: it asks (and is granted there too).
  require('pi_lsp.chat').prompt(c, 'run other')
  H.wait_answer(t, c, 'ran other')
  t.eq(2, #asked)
  back_to(t, c, first)
  require('pi_lsp.chat').prompt(c, 'run two')
  H.wait_answer(t, c, 'ran two')
  t.eq(2, #asked, vim.inspect(asked))
end)

t.test('bug 13: the grant holds after restarting the editor and resuming the session', function()
  local c, asked, first, proj, sessions = granted(t, {})
  -- The editor goes away (its server with it) and a new one starts on the same sessions.
  H.reset_windows()
  require('pi_lsp.chat').forget(c.cwd)
  require('pi_lsp.client').remove(c.cwd)
  local c2 = H.start(t, { bash('b2', 'echo two'), { text = 'ran two' } }, { project = proj, sessions = sessions })
  t.ok(c2 ~= c, 'a new client')
  back_to(t, c2, first)
  require('pi_lsp').chat('run two')
  H.wait_answer(t, c2, 'ran two')
  t.eq(1, #asked, vim.inspect(asked))
end)

t.test('bug 13: the grant holds after a navigate before it, another session and back', function()
  local c, asked, first = granted(t, { bash('b2', 'echo two'), { text = 'ran two' } })
  -- Back to before the first prompt (the tree's "go here" on the session's first entry): the
  -- grant was recorded on the branch left behind. This failed before the server restored
  -- grants from the whole file.
  local err, tree = c:request_sync('session/tree', nil, 5000)
  t.eq(nil, err)
  t.eq('', tree.nodes[1].parentId)
  t.eq(nil, (c:request_sync('session/navigate', { targetId = tree.nodes[1].id }, 5000)))
  H.new_session(t, c)
  back_to(t, c, first)
  require('pi_lsp.chat').prompt(c, 'run two')
  H.wait_answer(t, c, 'ran two')
  t.eq(1, #asked, vim.inspect(asked))
end)
