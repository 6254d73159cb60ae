-- The ui/approvePlan float: the plan in markdown, with keys to approve, reject with feedback,
-- or close (the plan stays pending; :PiPending shows it again).
local util = require('pi_lsp.util')

local M = {}

--- Lines shown in the float.
function M.lines(params, keys)
  local out = {}
  local title = params.title
  if title ~= nil and title ~= vim.NIL and title ~= '' then
    out[#out + 1] = '# ' .. tostring(title)
    out[#out + 1] = ''
  end
  vim.list_extend(out, util.lines(params.plan))
  out[#out + 1] = ''
  out[#out + 1] = string.format(
    '---  %s approve · %s reject with feedback · %s later (:PiPending)',
    keys.plan_approve or '',
    keys.plan_reject or '',
    keys.close or ''
  )
  return out
end

---@param client table
---@param params table {id, title, plan}
---@param cb table {finish(answer), park(), set_close(fn)}
function M.open(client, params, cb)
  local keys = (client and client.cfg and client.cfg.keymaps) or require('pi_lsp.config').defaults.keymaps
  local lines = M.lines(params, keys)
  local buf = util.scratch(nil, 'markdown')
  util.set_lines(buf, lines)
  vim.bo[buf].modifiable = false
  local win = util.float(buf, lines, { title = 'Plan', width = 90 })
  local closed = false
  local function close()
    closed = true
    util.close_win(win)
  end
  cb.set_close(close)
  util.map(buf, 'n', keys.plan_approve, function()
    cb.finish({ approved = true })
  end, 'Approve the plan')
  util.map(buf, 'n', keys.plan_reject, function()
    vim.ui.input({ prompt = 'Feedback for the agent: ' }, function(text)
      if text == nil then
        return
      end
      cb.finish({ approved = false, feedback = text })
    end)
  end, 'Reject the plan with feedback')
  util.map(buf, 'n', keys.close, function()
    close()
    cb.park()
  end, 'Decide later')
  -- Leaving the float by other means also leaves the plan pending.
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      if not closed then
        closed = true
        vim.schedule(cb.park)
      end
    end,
  })
  M.last = { buf = buf, win = win }
  return buf, win
end

return M
