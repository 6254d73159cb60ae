-- Statusline text: model, mode, running state and context use.
local M = {}

--- Pure: the text for a DisplayState, the client status and a $/progress value.
function M.text(st, status, progress)
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
  if status == 'restarting' then
    parts[#parts + 1] = 'restarting'
  end
  return table.concat(parts, ' · ')
end

--- The statusline for the client of the current directory ('' when there is none).
function M.get()
  local c = require('pi_lsp.client').get(nil, false)
  if not c then
    return ''
  end
  return M.text(c:display(), c.status, c.progress)
end

return M
