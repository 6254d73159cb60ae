-- Issue 33 bug 13: "Always allow tool bash", granted through the approval prompt, is not asked
-- again after the user leaves the session and comes back: by :PiNew and :PiSessions, and
-- after restarting the editor on the same sessions directory.
local t = ...
local H = dofile('tests/helpers.lua')

local function call(id, name, args)
  return { toolCalls = { { id = id, name = name, arguments = vim.json.encode(args) } } }
end

-- Answers approvals with "Always allow tool" (recording each prompt) and the session picker
-- with the session whose id is `want()`.
local function answer_like_a_user(t, asked, want)
  H.stub(t, 'select', function(items, opts, cb)
    if opts.kind == 'pi_lsp.session' then
      for i, s in ipairs(items) do
        if s.id == want() then
          return cb(s, i)
        end
      end
      return cb(nil)
    end
    asked[#asked + 1] = opts.prompt
    for i, it in ipairs(items) do
      if type(it) == 'table' and it.decision == 'alwaysAllowTool' then
        return cb(it, i)
      end
    end
  end)
end

t.test('bug 13: the grant holds after :PiNew, a prompt there, and :PiSessions back', function()
  local c = H.start(t, {
    call('b1', 'bash', { command = 'echo one' }),
    { text = 'ran one' },
    call('b2', 'bash', { command = 'echo other' }),
    { text = 'ran other' },
    call('b3', 'bash', { command = 'echo two' }),
    { text = 'ran two' },
  })
  local asked, first = {}, nil
  answer_like_a_user(t, asked, function()
    return first
  end)
  require('pi_lsp').chat('run one')
  H.wait_answer(t, c, 'ran one')
  t.eq(1, #asked)
  first = c:display().session.id
  vim.cmd('PiNew')
  t.wait(function()
    return c:display().session.id ~= first
  end, 5000, 'a new session')
  -- The new session has no grant: it asks (and is granted there too).
  require('pi_lsp.chat').prompt(c, 'run other')
  H.wait_answer(t, c, 'ran other')
  t.eq(2, #asked)
  vim.cmd('PiSessions')
  t.wait(function()
    return c:display().session.id == first
  end, 5000, 'switched back')
  require('pi_lsp.chat').prompt(c, 'run two')
  H.wait_answer(t, c, 'ran two')
  t.eq(2, #asked, vim.inspect(asked))
end)

t.test('bug 13: the grant holds after restarting the editor and resuming the session', function()
  local c, proj, _, sessions = H.start(t, {
    call('b1', 'bash', { command = 'echo one' }),
    { text = 'ran one' },
  })
  local asked, first = {}, nil
  answer_like_a_user(t, asked, function()
    return first
  end)
  require('pi_lsp').chat('run one')
  H.wait_answer(t, c, 'ran one')
  t.eq(1, #asked)
  first = c:display().session.id
  -- The editor goes away (its server with it) and a new one starts on the same sessions.
  H.reset_windows()
  require('pi_lsp.chat').forget(c.cwd)
  require('pi_lsp.client').remove(c.cwd)
  local c2 = H.start(t, {
    call('b2', 'bash', { command = 'echo two' }),
    { text = 'ran two' },
  }, { project = proj, sessions = sessions })
  t.ok(c2 ~= c, 'a new client')
  vim.cmd('PiSessions')
  t.wait(function()
    return c2:display().session.id == first
  end, 5000, 'resumed the first session')
  require('pi_lsp').chat('run two')
  H.wait_answer(t, c2, 'ran two')
  t.eq(1, #asked, vim.inspect(asked))
end)

t.test('bug 13: the grant holds after a navigate before it, another session and back', function()
  local c = H.start(t, {
    call('b1', 'bash', { command = 'echo one' }),
    { text = 'ran one' },
    call('b2', 'bash', { command = 'echo two' }),
    { text = 'ran two' },
  })
  local asked, first = {}, nil
  answer_like_a_user(t, asked, function()
    return first
  end)
  require('pi_lsp').chat('run one')
  H.wait_answer(t, c, 'ran one')
  t.eq(1, #asked)
  first = c:display().session.id
  -- Back to before the first prompt (the tree's "go here" on it): the grant was given on the
  -- branch left behind.
  local err, tree = c:request_sync('session/tree', nil, 5000)
  t.eq(nil, err)
  -- The root entry (the session's first, before any prompt): one linear chain here.
  local target = tree.nodes[1].id
  t.eq('', tree.nodes[1].parentId)
  t.eq(nil, (c:request_sync('session/navigate', { targetId = target }, 5000)))
  vim.cmd('PiNew')
  t.wait(function()
    return c:display().session.id ~= first
  end, 5000, 'a new session')
  vim.cmd('PiSessions')
  t.wait(function()
    return c:display().session.id == first
  end, 5000, 'switched back')
  require('pi_lsp.chat').prompt(c, 'run two')
  H.wait_answer(t, c, 'ran two')
  t.eq(1, #asked, vim.inspect(asked))
end)
