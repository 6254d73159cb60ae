-- Statusline text: model, mode, running state and context use.
local M = {}

--- Pure: the text for a DisplayState, the client status and a $/progress value.
function M.text(st, status, progress, attached)
  if type(st) ~= 'table' then
    if status == 'starting' or status == 'restarting' then
      return 'pi: ' .. status
    elseif status == 'failed' then
      return 'pi: failed'
    end
    return ''
  end
  local parts = { 'pi' }
  if type(st.model) == 'string' and st.model ~= '' then
    parts[#parts + 1] = st.model
  end
  if type(st.mode) == 'table' and (st.mode.name or st.mode.id) then
    parts[#parts + 1] = tostring(st.mode.name or st.mode.id)
  end
  if st.yolo == true then
    parts[#parts + 1] = 'YOLO'
  end
  if st.sandbox == 'off' or st.sandbox == 'unavailable' then
    parts[#parts + 1] = 'no-sandbox'
  elseif st.sandbox == 'read-only' then
    parts[#parts + 1] = 'sandbox:ro'
  end
  if type(st.thinkingLevel) == 'string' and st.thinkingLevel ~= '' and st.thinkingLevel ~= 'off' then
    parts[#parts + 1] = 'think:' .. st.thinkingLevel
  end
  if type(progress) == 'table' then
    local p = tostring(progress.title or progress.message or 'working')
    if type(progress.percentage) == 'number' then
      p = p .. string.format(' %d%%', progress.percentage)
    end
    parts[#parts + 1] = p
  elseif st.status == 'running' or (type(st.phase) == 'string' and st.phase ~= 'idle') then
    local phase = type(st.phase) == 'string' and st.phase ~= 'idle' and st.phase or 'running'
    parts[#parts + 1] = phase == 'turn' and 'running' or phase
  else
    parts[#parts + 1] = 'idle'
  end
  local t = st.tokens
  if type(t) == 'table' and type(t.contextTokens) == 'number' and type(t.contextWindow) == 'number' and t.contextWindow > 0 then
    parts[#parts + 1] = string.format('ctx %d%%', math.floor(t.contextTokens * 100 / t.contextWindow + 0.5))
  end
  if type(t) == 'table' and (type(t.input) == 'number' or type(t.output) == 'number') and ((t.input or 0) + (t.output or 0)) > 0 then
    parts[#parts + 1] = M.tokens(t)
  end
  local g = require('pi_lsp.goal').status(st.goal)
  if g ~= '' then
    parts[#parts + 1] = g
  end
  local m = st.memory
  if type(m) == 'table' and m.mode == 'observational' then
    local n = tonumber(m.observationTokens) or 0
    local s = n >= 1000 and string.format('mem %.1fk', n / 1000) or string.format('mem %d', n)
    if m.reflecting == true then
      s = s .. ' reflecting'
    elseif m.observing == true then
      s = s .. ' observing'
    end
    parts[#parts + 1] = s
  end
  local tk = M.tasks(st.tasks)
  if tk ~= '' then
    parts[#parts + 1] = tk
  end
  local running = require('pi_lsp.jobs').running(st)
  if running > 0 then
    parts[#parts + 1] = 'jobs:' .. running
  end
  local a = require('pi_lsp.attach').label(attached)
  if a ~= '' then
    parts[#parts + 1] = a
  end
  if status == 'restarting' then
    parts[#parts + 1] = 'restarting'
  end
  return table.concat(parts, ' · ')
end

--- Pure: the task list's progress, `tasks 1/3: Running tests` (the task in progress), or ''
--- when there are no tasks.
function M.tasks(tasks)
  if type(tasks) ~= 'table' or #tasks == 0 then
    return ''
  end
  local done, current = 0, nil
  for _, t in ipairs(tasks) do
    if type(t) == 'table' then
      if t.status == 'completed' or t.status == 'done' or t.status == 'cancelled' then
        done = done + 1
      elseif t.status == 'in_progress' and not current then
        current = (type(t.activeForm) == 'string' and t.activeForm ~= '') and t.activeForm or t.content
      end
    end
  end
  local s = string.format('tasks %d/%d', done, #tasks)
  if current then
    s = s .. ': ' .. tostring(current)
  end
  return s
end

local function short(n)
  if n >= 1e6 then
    return string.format('%.1fM', n / 1e6)
  elseif n >= 1e3 then
    return string.format('%.1fk', n / 1e3)
  end
  return tostring(n)
end

--- Pure: tokens in/out and the session cost, compact: `↑12.3k ↓1.2k $0.042`.
function M.tokens(t)
  local s = string.format('↑%s ↓%s', short(t.input or 0), short(t.output or 0))
  local cost = type(t.cost) == 'table' and t.cost.total or nil
  if type(cost) == 'number' and cost > 0 then
    s = s .. string.format(cost >= 1 and ' $%.2f' or ' $%.3f', cost)
  end
  return s
end

--- The statusline for the client of the current directory ('' when there is none).
function M.get()
  local c = require('pi_lsp.client').get(nil, false)
  if not c then
    return ''
  end
  return M.text(c:display(), c.status, c.progress, c.attached)
end

return M
