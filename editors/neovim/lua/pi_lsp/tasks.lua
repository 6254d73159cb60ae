-- :PiTasks: a float with the live task list (display state `tasks`, else `tasks/list`).
local render = require('pi_lsp.render')
local util = require('pi_lsp.util')

local M = {}

local function current_tasks(client, cb)
  local st = client:display()
  if type(st) == 'table' and type(st.tasks) == 'table' then
    cb(st.tasks)
    return
  end
  client:request('tasks/list', nil, function(err, result)
    cb((not err and type(result) == 'table' and result.tasks) or {})
  end)
end

--- Opens the task float of `client`; it follows the display state until closed.
function M.open(client)
  local buf = util.scratch(nil, 'markdown')
  local lines = { 'Loading tasks...' }
  util.set_lines(buf, lines)
  vim.bo[buf].modifiable = false
  local win = util.float(buf, { string.rep(' ', 50), '', '', '' }, { title = 'Tasks', height = 8 })
  local function refresh()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    current_tasks(client, function(tasks)
      if not vim.api.nvim_buf_is_valid(buf) then
        return
      end
      local out = render.tasks(tasks)
      util.set_lines(buf, out)
      if vim.api.nvim_win_is_valid(win) then
        local rows = math.floor((vim.o.lines - 4) * 0.8)
        pcall(vim.api.nvim_win_set_height, win, math.max(1, math.min(#out, rows)))
      end
    end)
  end
  local unsub = client:subscribe(function(event, _, touched)
    if event == 'state' and (touched == nil or touched.tasks) then
      refresh()
    end
  end)
  vim.api.nvim_create_autocmd('BufWipeout', { buffer = buf, once = true, callback = unsub })
  util.map(buf, 'n', client.cfg.keymaps.close, function()
    util.close_win(win)
  end, 'Close')
  util.map(buf, 'n', '<Esc>', function()
    util.close_win(win)
  end, 'Close')
  refresh()
  M.last = { buf = buf, win = win }
  return buf, win
end

return M
