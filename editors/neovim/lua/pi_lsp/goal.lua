-- Goals: `/goal <text> [--check "cmd"] [--max-turns N] [--max-cost USD]` in the chat input runs
-- goal/set (not a prompt); `/goal clear` and :PiGoalStop run goal/clear. See docs/neovim.md.
local M = {}

--- Splits s at blanks, keeping "..." and '...' together. Returns the words (each
--- { text, quoted }) or nil and an error.
local function words(s)
  local out, cur, quote, quoted, inword = {}, {}, nil, false, false
  local function flush()
    if inword then
      out[#out + 1] = { text = table.concat(cur), quoted = quoted }
    end
    cur, inword, quoted = {}, false, false
  end
  for i = 1, #s do
    local c = s:sub(i, i)
    if quote then
      if c == quote then
        quote = nil
      else
        cur[#cur + 1] = c
      end
    elseif c == '"' or c == "'" then
      quoted = quoted or #cur == 0
      quote, inword = c, true
    elseif c:match('%s') then
      flush()
    else
      cur[#cur + 1] = c
      inword = true
    end
  end
  if quote then
    return nil, 'unterminated ' .. quote .. ' quote'
  end
  flush()
  return out
end

--- Pure: parses the input. Returns nil when it is not a /goal command; else the action
--- ('set', 'clear' or 'show'), goal/set's params (for 'set') and an error message.
function M.parse(input)
  local rest = type(input) == 'string' and input:match('^%s*/goal(.*)$') or nil
  if rest == nil or (rest ~= '' and not rest:match('^%s')) then
    return nil
  end
  rest = vim.trim(rest)
  if rest == '' then
    return 'show'
  elseif rest == 'clear' or rest == 'stop' then
    return 'clear'
  end
  local ws, err = words(rest)
  if not ws then
    return 'set', nil, err
  end
  local params, text = {}, {}
  local i = 1
  while i <= #ws do
    local w = ws[i]
    local name, val = w.text:match('^(%-%-[%w-]+)=(.*)$')
    if not name and not w.quoted and w.text:match('^%-%-') then
      name = w.text
      i = i + 1
      if i > #ws then
        return 'set', nil, name .. ' needs a value'
      end
      val = ws[i].text
    end
    if not name or w.quoted then
      text[#text + 1] = w.text
    elseif name == '--check' then
      params.check = val
    elseif name == '--max-turns' then
      local n = tonumber(val)
      if not n or n < 1 or n ~= math.floor(n) then
        return 'set', nil, '--max-turns ' .. val .. ': want a whole number of runs, at least 1'
      end
      params.maxTurns = n
    elseif name == '--max-cost' then
      local n = tonumber(val)
      if not n or n <= 0 then
        return 'set', nil, '--max-cost ' .. val .. ': want a cost in USD, more than 0'
      end
      params.maxCostUsd = n
    else
      return 'set', nil, 'unknown option ' .. name .. ' (want --check, --max-turns or --max-cost)'
    end
    i = i + 1
  end
  params.text = table.concat(text, ' ')
  if params.text == '' then
    return 'set', nil, 'the goal text is missing: /goal <text> [--check "cmd"] [--max-turns N]'
  end
  return 'set', params
end

--- Pure: one line for a goal (the display state's `goal`), '' for none.
function M.line(g)
  if type(g) ~= 'table' or type(g.text) ~= 'string' then
    return ''
  end
  local s = string.format('Goal (%s, run %d/%d', tostring(g.status), tonumber(g.turns) or 0, tonumber(g.maxTurns) or 0)
  if type(g.costUsd) == 'number' and g.costUsd > 0 then
    s = s .. string.format(', $%.2f', g.costUsd)
  end
  s = s .. '): ' .. g.text
  if type(g.reason) == 'string' and g.reason ~= '' then
    s = s .. ' — ' .. g.reason
  end
  return s
end

--- Pure: the statusline part for a goal ('' when none is active).
function M.status(g)
  if type(g) ~= 'table' or g.status ~= 'active' then
    return ''
  end
  return string.format('goal %d/%d', tonumber(g.turns) or 0, tonumber(g.maxTurns) or 0)
end

local function report(err)
  if err then
    vim.notify('pi-lsp: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
  end
end

--- Runs input if it is a /goal command; returns true when it was one. cb(err) follows.
function M.run(client, input, cb)
  local action, params, perr = M.parse(input)
  if action == nil then
    return false
  end
  cb = cb or function() end
  if perr then
    vim.notify('pi-lsp: /goal: ' .. perr, vim.log.levels.ERROR)
    cb({ message = perr })
    return true
  end
  if action == 'show' then
    local line = M.line(type(client.display) == 'function' and client:display() and client:display().goal or nil)
    vim.notify('pi-lsp: ' .. (line ~= '' and line or 'no goal'), vim.log.levels.INFO)
    cb(nil)
  elseif action == 'clear' then
    M.stop(client, cb)
  else
    client:request('goal/set', params, function(err)
      report(err)
      cb(err)
    end)
  end
  return true
end

--- Stops the goal (goal/clear).
function M.stop(client, cb)
  client:request('goal/clear', vim.empty_dict(), function(err)
    report(err)
    if cb then
      cb(err)
    end
  end)
end

return M
