-- :PiQueue: edit or remove the queued messages one by one (agent/editQueue), and :PiRetry /
-- `R`: run again after a provider error (agent/retry).
local M = {}

local function notify(msg, level)
  vim.notify('pi-lsp: ' .. msg, level or vim.log.levels.INFO)
end

--- The queued messages of a DisplayState as {queue, index (0-based), text}, steering first.
function M.entries(st)
  local out = {}
  local q = type(st) == 'table' and st.queue or nil
  if type(q) ~= 'table' then
    return out
  end
  for _, name in ipairs({ 'steering', 'followUp' }) do
    for i, m in ipairs(type(q[name]) == 'table' and q[name] or {}) do
      local text = type(m) == 'table' and m.text or m
      out[#out + 1] = { queue = name, index = i - 1, text = tostring(text or '') }
    end
  end
  return out
end

--- Sends agent/editQueue for `e` ({queue, index, text}); `text` nil removes it. cb(err).
function M.edit(client, e, text, cb)
  local params = { queue = e.queue, index = e.index, expect = e.text }
  if text ~= nil then
    params.text = text
  end
  client:request('agent/editQueue', params, function(err)
    if err then
      if err.code == -32005 then
        notify('that message was delivered meanwhile; nothing changed', vim.log.levels.WARN)
      else
        notify('agent/editQueue: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
    end
    if cb then
      cb(err)
    end
  end)
end

--- :PiQueue: pick a queued message, then edit (vim.ui.input) or remove it.
function M.pick(client)
  local entries = M.entries(client:display())
  if #entries == 0 then
    return notify('nothing is queued')
  end
  vim.ui.select(entries, {
    prompt = 'Queued message',
    kind = 'pi_lsp.queue',
    format_item = function(e)
      return (e.queue == 'steering' and '[steer] ' or '[follow-up] ') .. (vim.split(e.text, '\n')[1] or '')
    end,
  }, function(e)
    if not e then
      return
    end
    vim.ui.select({ 'Edit', 'Remove' }, { prompt = 'Queued message', kind = 'pi_lsp.queue_action' }, function(action)
      if action == 'Remove' then
        M.edit(client, e, nil)
      elseif action == 'Edit' then
        vim.ui.input({ prompt = 'Message: ', default = e.text }, function(text)
          if text ~= nil and text ~= e.text then
            M.edit(client, e, text)
          end
        end)
      end
    end)
  end)
end

--- Runs again after a provider error (agent/retry). cb(err).
function M.retry(client, cb)
  client:request('agent/retry', {}, function(err)
    if err then
      notify('retry: ' .. (err.message or vim.inspect(err)), err.code == -32602 and vim.log.levels.WARN or vim.log.levels.ERROR)
    end
    if cb then
      cb(err)
    end
  end)
end

return M
