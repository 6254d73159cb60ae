-- :PiSessions, :PiModel, :PiMode, :PiThinking, :PiCompact: small pickers over vim.ui.select
-- and the matching requests. With an argument, the picker is skipped.
local M = {}

M.thinking_levels = { 'off', 'low', 'medium', 'high', 'xhigh' }

local function report(what, err)
  local msg = err.message or vim.inspect(err)
  local hint = type(err.data) == 'table' and err.data.hint
  if type(hint) == 'string' and not msg:find(hint, 1, true) then
    msg = msg .. ' — ' .. hint
  end
  vim.notify('pi-lsp: ' .. what .. ': ' .. msg, vim.log.levels.ERROR)
end

local function info(msg)
  vim.notify('pi-lsp: ' .. msg, vim.log.levels.INFO)
end

local function present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ''
end

--- One line describing a session of `session/list`.
function M.session_label(s)
  local title = present(s.title) and s.title or present(s.name) and s.name or (present(s.firstMessage) and s.firstMessage or '(empty)')
  title = tostring(title):gsub('[\r\n]+', ' ')
  if #title > 70 then
    title = title:sub(1, 67) .. '...'
  end
  local when = tostring(s.modified or s.created or ''):gsub('T', ' '):gsub('%..*$', ''):gsub('Z$', '')
  -- `*` the current session, `⑂` a fork (session/list's current and fork).
  local mark = (s.current == true and '* ' or '  ') .. (s.fork == true and '⑂ ' or '')
  local out = string.format('%s%s  %s  (%s entries)', mark, when, title, tostring(s.entryCount or '?'))
  -- The last prompt tells apart sessions that began alike (session/list's lastMessage).
  if present(s.lastMessage) and s.lastMessage ~= s.firstMessage then
    local last = tostring(s.lastMessage):gsub('[\r\n]+', ' ')
    if #last > 50 then
      last = last:sub(1, 47) .. '...'
    end
    out = out .. '  last: ' .. last
  end
  return out
end

function M.sessions(client, all)
  client:request('session/list', { cwd = client.cwd, all = all == true }, function(err, result)
    if err then
      return report('session/list', err)
    end
    local list = result.sessions or {}
    if #list == 0 then
      return info('no sessions for ' .. client.cwd)
    end
    vim.ui.select(list, { prompt = 'Resume session', format_item = M.session_label, kind = 'pi_lsp.session' }, function(s)
      if not s then
        return
      end
      client:request('session/open', { path = s.path }, function(oerr, r)
        if oerr then
          return report('session/open', oerr)
        end
        info('opened ' .. tostring(r.path))
      end)
    end)
  end)
end

--- A token count as a short label: 400, 8k, 128k, 1M (never "0k").
function M.tokens_label(n)
  if n < 1000 then
    return tostring(math.floor(n))
  elseif n < 1000000 then
    return string.format('%dk', math.floor(n / 1000))
  end
  local m = n / 1000000
  return (m == math.floor(m)) and string.format('%dM', m) or string.format('%.1fM', m)
end

--- One line describing a model of `model/list`.
function M.model_label(m, current)
  local id = tostring(m.provider) .. '/' .. tostring(m.id)
  local s = id
  if present(m.name) and m.name ~= m.id then
    s = s .. '  ' .. tostring(m.name)
  end
  if type(m.contextWindow) == 'number' then
    s = s .. '  ' .. M.tokens_label(m.contextWindow)
  end
  if m.reasoning == true then
    s = s .. '  reasoning'
  end
  if m.authenticated == false then
    s = s .. '  (no auth)'
  end
  if id == current then
    s = s .. '  (current)'
  end
  return s
end

function M.model(client, name)
  local function set(model)
    client:request('model/set', { model = model }, function(err, r)
      if err then
        return report('model/set', err)
      end
      info('model ' .. tostring(r.model))
    end)
  end
  if name and name ~= '' then
    return set(name)
  end
  client:request('model/list', nil, function(err, result)
    if err then
      return report('model/list', err)
    end
    vim.ui.select(result.models or {}, {
      prompt = 'Model',
      kind = 'pi_lsp.model',
      format_item = function(m)
        --- :PiMemory: the observation log (memory/show) in a scratch buffer.
function M.memory(client)
  client:request('memory/show', {}, function(err, r)
    if err then
      return report('memory/show', err)
    end
    local lines = {}
    if type(r.settings) ~= 'table' or r.settings.mode ~= 'observational' then
      lines = { '# pi-lsp memory', '', 'This session uses compaction.' }
    else
      lines = { '# pi-lsp observations', '' }
      vim.list_extend(lines, vim.split(r.observations ~= '' and r.observations or '(nothing observed yet)', '\n', { plain = true }))
      vim.list_extend(lines, { '', '## Current task', '' })
      vim.list_extend(lines, vim.split(r.currentTask or '', '\n', { plain = true }))
      vim.list_extend(lines, { '', '## Suggested continuation', '' })
      vim.list_extend(lines, vim.split(r.suggestedResponse or '', '\n', { plain = true }))
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.api.nvim_buf_set_option(buf, 'filetype', 'markdown')
    vim.api.nvim_buf_set_option(buf, 'modifiable', false)
    vim.api.nvim_buf_set_name(buf, 'pi-lsp://memory/' .. tostring(buf))
    vim.cmd('split')
    vim.api.nvim_win_set_buf(0, buf)
  end)
end

return M.model_label(m, result.current)
      end,
    }, function(m)
      if m then
        set(m.provider .. '/' .. m.id)
      end
    end)
  end)
end

function M.mode(client, id)
  local function set(mode, yolo)
    client:request('mode/set', { mode = mode, yolo = yolo }, function(err, r)
      if err then
        return report('mode/set', err)
      end
      info('mode ' .. tostring(r.mode) .. (r.yolo and ' (YOLO)' or ''))
    end)
  end
  client:request('mode/list', nil, function(err, result)
    if err then
      return report('mode/list', err)
    end
    if id and id ~= '' then
      return set(id, result.yolo == true)
    end
    vim.ui.select(result.modes or {}, {
      prompt = 'Mode',
      kind = 'pi_lsp.mode',
      format_item = function(m)
        local s = tostring(m.name or m.id)
        if present(m.model) then
          s = s .. '  (' .. tostring(m.model) .. ')'
        end
        if m.id == result.current then
          s = s .. '  (current)'
        end
        return s
      end,
    }, function(m)
      if m then
        set(m.id, result.yolo == true)
      end
    end)
  end)
end

function M.thinking(client, level)
  local function set(l)
    client:request('thinking/set', { level = l }, function(err, r)
      if err then
        return report('thinking/set', err)
      end
      info('thinking ' .. tostring(r.thinkingLevel))
      if l == 'off' then
        return
      end
      -- The level is kept, but a model without reasoning ignores it: say so.
      client:request('model/list', {}, function(lerr, list)
        if lerr or type(list) ~= 'table' then
          return
        end
        for _, m in ipairs(list.models or {}) do
          if (m.provider .. '/' .. m.id) == list.current and m.reasoning ~= true then
            vim.notify(string.format('pi-lsp: %s does not reason; thinking %s has no effect with it', list.current, l), vim.log.levels.WARN)
          end
        end
      end)
    end)
  end
  if level and level ~= '' then
    return set(level)
  end
  vim.ui.select(M.thinking_levels, { prompt = 'Thinking level', kind = 'pi_lsp.thinking' }, function(l)
    if l then
      set(l)
    end
  end)
end

function M.compact(client, instructions)
  local params = {}
  if instructions and instructions ~= '' then
    params.customInstructions = instructions
  end
  info('compacting...')
  client:request('compaction/run', params, function(err, r)
    if err and tostring(err.message or ''):find('nothing to compact', 1, true) then
      -- A short or empty session: not a failure.
      return info('nothing to compact yet (the conversation is too short)')
    end
    if err then
      return report('compaction/run', err)
    end
    info(string.format('compacted (%s tokens before)', tostring(r.tokensBefore)))
  end)
end

return M
