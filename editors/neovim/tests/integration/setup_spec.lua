-- :PiSetup (issue 33, Missing 2) against the real binary: the key lands in auth.json, a server
-- of your own in models.json, both 0600; pi-lsp restarts and the model picked is set.
local t = ...
local H = dofile('tests/helpers.lua')

local function mode(path)
  return string.format('%o', (vim.loop.fs_stat(path) or {}).mode % 512)
end

-- Runs :PiSetup's wizard on `c` with `secret` typed at the key prompt; returns the model it
-- set once it is set.
local function run_wizard(t, c, secret)
  local wiz = require('pi_lsp.setup_wizard')
  local orig = wiz.read_secret
  wiz.read_secret = function(_, cb)
    cb(secret)
  end
  t.cleanup(function()
    wiz.read_secret = orig
  end)
  local set
  wiz.run(c, function(m)
    set = m
  end)
  t.wait(function()
    return set ~= nil
  end, 15000, 'the model was set')
  return set
end

t.test(':PiSetup with a built-in provider writes auth.json 0600 and sets its model', function()
  local c, _, _, sessions = H.start(t, { { text = 'unused' } })
  local models
  H.stub(t, 'select', function(items, opts, cb)
    if opts.kind == 'pi_lsp.provider' then
      return cb(items[1], 1) -- OpenAI
    end
    models = items
    cb(items[1], 1)
  end)
  local set = run_wizard(t, c, 'sk-setup-test')
  local auth = sessions .. '/.pi/agent/auth.json'
  t.eq('600', mode(auth))
  t.eq({ openai = { type = 'api_key', key = 'sk-setup-test' } }, vim.json.decode(H.read(auth)))
  t.ok(#models > 0, 'openai models offered')
  for _, m in ipairs(models) do
    t.eq('openai', m.provider)
    -- The server read the key after the restart.
    t.eq(true, m.authenticated)
  end
  t.eq('openai/' .. models[1].id, set)
  t.wait(function()
    return (c:display() or {}).model == set
  end, 5000, 'the display shows the model')
end)

t.test(':PiSetup with a server of your own merges it into models.json and answers from it', function()
  local c, _, llm = H.start(t, { { text = 'hello from custom' } })
  H.stub(t, 'select', function(items, _, cb)
    cb(items[#items], #items)
  end)
  local answers = { llm.url .. '/v1', 'fake-model' }
  H.stub(t, 'input', function(_, cb)
    cb(table.remove(answers, 1))
  end)
  local set = run_wizard(t, c, '')
  t.eq('custom/fake-model', set)
  local models = vim.json.decode(H.read(llm.models))
  t.ok(models.providers.fake, 'the fake provider is kept')
  t.eq(llm.url .. '/v1', models.providers.custom.baseUrl)
  t.eq('600', mode(llm.models))
  require('pi_lsp.chat').prompt(c, 'hi')
  H.wait_answer(t, c, 'hello from custom')
end)
