-- :PiSetup: the first run with vim.ui prompts. Pick a provider, give its key, pick a model.
-- The key goes to pi's `~/.pi/agent/auth.json` ($PI_LSP_AUTH), an OpenAI-compatible server of
-- your own to `~/.pi/agent/models.json` ($PI_LSP_MODELS), both written with mode 0600 and
-- merged with what they hold (docs/models.md). pi-lsp restarts to read them, and the model
-- picked is set with model/set.
local M = {}

-- Built-in providers (docs/models.md): name, key variable, a sample model.
M.providers = {
  { id = 'openai', label = 'OpenAI', env = 'OPENAI_API_KEY' },
  { id = 'openrouter', label = 'OpenRouter', env = 'OPENROUTER_API_KEY' },
  { id = 'deepseek', label = 'DeepSeek', env = 'DEEPSEEK_API_KEY' },
  { id = 'groq', label = 'Groq', env = 'GROQ_API_KEY' },
  { id = 'gemini', label = 'Google Gemini', env = 'GEMINI_API_KEY' },
  { id = 'ollama', label = 'Ollama (local, no key)' },
  { id = '', label = 'Another OpenAI-compatible server (URL)…', custom = true },
}

local uv = vim.uv or vim.loop

--- Reads a key without echoing it (replaced in tests).
function M.read_secret(prompt, cb)
  local ok, key = pcall(vim.fn.inputsecret, prompt)
  cb(ok and key or nil)
end

-- The environment pi-lsp runs with: the plugin's `env` over Neovim's.
local function env_of(cfg, name)
  local e = type(cfg.env) == 'table' and cfg.env[name] or nil
  if e ~= nil and e ~= '' then
    return e
  end
  local v = vim.env[name]
  return (v ~= nil and v ~= '') and v or nil
end

--- The paths of auth.json and models.json pi-lsp reads for `cfg`.
function M.paths(cfg)
  local home = env_of(cfg, 'HOME') or vim.fn.expand('~')
  local dir = home .. '/.pi/agent'
  return env_of(cfg, 'PI_LSP_AUTH') or (dir .. '/auth.json'), env_of(cfg, 'PI_LSP_MODELS') or (dir .. '/models.json')
end

local function read_json(path)
  local f = io.open(path, 'r')
  if not f then
    return {}
  end
  local text = f:read('*a')
  f:close()
  if vim.trim(text) == '' then
    return {}
  end
  local ok, v = pcall(vim.json.decode, text)
  if not ok or type(v) ~= 'table' then
    return nil, path .. ' is not plain JSON (comments?); edit it by hand (docs/models.md)'
  end
  return v
end

--- Writes `value` as JSON to `path` with mode 0600 (the directory 0700 when it is made).
function M.write_json(path, value)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p', 448)
  local fd, err = uv.fs_open(path, 'w', 384)
  if not fd then
    return nil, err
  end
  uv.fs_write(fd, vim.json.encode(value) .. '\n', -1)
  uv.fs_close(fd)
  uv.fs_chmod(path, 384)
  return true
end

--- Merges the key of `provider` into auth.json (pi's format).
function M.save_key(cfg, provider, key)
  local auth = M.paths(cfg)
  local cur, err = read_json(auth)
  if not cur then
    return nil, err
  end
  cur[provider] = { type = 'api_key', key = key }
  return M.write_json(auth, cur)
end

--- Merges a custom provider {baseUrl, apiKey?, models = {{id}}} into models.json.
function M.save_provider(cfg, name, provider)
  local _, models = M.paths(cfg)
  local cur, err = read_json(models)
  if not cur then
    return nil, err
  end
  cur.providers = type(cur.providers) == 'table' and cur.providers or {}
  cur.providers[name] = provider
  return M.write_json(models, cur)
end

local function fail(msg)
  vim.notify('pi-lsp: :PiSetup: ' .. tostring(msg), vim.log.levels.ERROR)
end

-- After the files are written: restart pi-lsp (it reads keys at start), then pick the model.
local function choose_model(client, provider, model, done)
  client:restart()
  local tries = 0
  local function when_ready()
    tries = tries + 1
    if not client.ready then
      if tries > 150 then
        return fail('pi-lsp did not restart')
      end
      return vim.defer_fn(when_ready, 100)
    end
    local function set(id)
      client:request('model/set', { model = id }, function(err, r)
        if err then
          return fail('model/set: ' .. (err.message or vim.inspect(err)))
        end
        vim.notify('pi-lsp: set up; model ' .. tostring(r and r.model or id), vim.log.levels.INFO)
        if done then
          done(r and r.model or id)
        end
      end)
    end
    if model then
      return set(model)
    end
    client:request('model/list', nil, function(err, r)
      if err then
        return fail('model/list: ' .. (err.message or vim.inspect(err)))
      end
      local mine = vim.tbl_filter(function(m)
        return m.provider == provider
      end, r.models or {})
      if #mine == 0 then
        return fail('no models of ' .. provider .. ' (see :PiModel)')
      end
      vim.ui.select(mine, {
        prompt = 'Model',
        kind = 'pi_lsp.model',
        format_item = function(m)
          return require('pi_lsp.pickers').model_label(m)
        end,
      }, function(m)
        if m then
          set(m.provider .. '/' .. m.id)
        end
      end)
    end)
  end
  vim.defer_fn(when_ready, 100)
end

--- :PiSetup. `done(model)` runs once the model is set (for tests).
function M.run(client, done)
  vim.ui.select(M.providers, {
    prompt = 'pi-lsp: provider',
    kind = 'pi_lsp.provider',
    format_item = function(p)
      return p.label
    end,
  }, function(p)
    if not p then
      return
    end
    if p.id == 'ollama' then
      return choose_model(client, 'ollama', nil, done)
    end
    if p.custom then
      vim.ui.input({ prompt = 'Base URL (…/v1): ' }, function(url)
        if not url or vim.trim(url) == '' then
          return
        end
        vim.ui.input({ prompt = 'Model id: ' }, function(model)
          if not model or vim.trim(model) == '' then
            return
          end
          M.read_secret('API key (empty: none): ', function(key)
            if key == nil then
              return
            end
            local prov = { baseUrl = vim.trim(url), models = { { id = vim.trim(model) } } }
            local ok, err = M.save_provider(client.cfg, 'custom', prov)
            if ok and vim.trim(key) ~= '' then
              ok, err = M.save_key(client.cfg, 'custom', vim.trim(key))
            end
            if not ok then
              return fail(err)
            end
            choose_model(client, 'custom', 'custom/' .. vim.trim(model), done)
          end)
        end)
      end)
      return
    end
    M.read_secret(p.label .. ' API key: ', function(key)
      if key == nil or vim.trim(key) == '' then
        return
      end
      local ok, err = M.save_key(client.cfg, p.id, vim.trim(key))
      if not ok then
        return fail(err)
      end
      choose_model(client, p.id, nil, done)
    end)
  end)
end

return M
