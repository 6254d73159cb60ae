-- :PiJobs: the session's background jobs (display state `jobs`, else `jobs/list`), and a buffer
-- per job that follows its output (`jobs/output` with a cursor). Kill with `x`, open the whole
-- output file with `o`.
local util = require('pi_lsp.util')

local M = { bufs = {} }

local function jobs_of(client, cb)
  local st = client:display()
  if type(st) == 'table' and type(st.jobs) == 'table' then
    cb(st.jobs)
    return
  end
  client:request('jobs/list', {}, function(err, result)
    cb((not err and type(result) == 'table' and result.jobs) or {})
  end)
end

--- Pure: one line per job.
function M.lines(jobs)
  if #jobs == 0 then
    return { 'No background jobs.' }
  end
  local out = {}
  for _, j in ipairs(jobs) do
    local status = tostring(j.status)
    if j.status ~= 'running' and type(j.exitCode) == 'number' then
      status = status .. ' ' .. j.exitCode
    end
    out[#out + 1] = string.format('%-7s %-10s %s', tostring(j.id), status, tostring(j.command):gsub('\n', ' '))
  end
  return out
end

--- Pure: how many jobs of a DisplayState run.
function M.running(st)
  local n = 0
  if type(st) == 'table' and type(st.jobs) == 'table' then
    for _, j in ipairs(st.jobs) do
      if j.status == 'running' then
        n = n + 1
      end
    end
  end
  return n
end

local function find(client, id)
  local st = client:display()
  for _, j in ipairs((type(st) == 'table' and st.jobs) or {}) do
    if j.id == id then
      return j
    end
  end
end

function M.kill(client, id)
  client:request('jobs/kill', { jobId = id }, function(err)
    if err then
      vim.notify('pi: ' .. tostring(err.message or err), vim.log.levels.ERROR)
    end
  end)
end

local function header(j, id)
  if not j then
    return id
  end
  local s = M.lines({ j })[1]
  return s
end

--- Opens (or shows) the buffer of job `id`: its status line, then its output, followed as it grows.
function M.open_job(client, id)
  local existing = M.bufs[id]
  if existing and vim.api.nvim_buf_is_valid(existing.buf) then
    vim.cmd('sbuffer ' .. existing.buf)
    return existing.buf
  end
  local buf = util.scratch('pi://job/' .. id)
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].modifiable = false
  util.set_lines(buf, { header(find(client, id), id) })
  local view = { buf = buf, next = nil, partial = '', busy = false, again = false }
  M.bufs[id] = view
  local function fetch()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    if view.busy then
      view.again = true
      return
    end
    view.busy = true
    client:request('jobs/output', { jobId = id, after = view.next }, function(err, res)
      view.busy = false
      if not vim.api.nvim_buf_is_valid(buf) then
        return
      end
      util.set_lines(buf, { header(find(client, id), id) }, 0, 1)
      if not err and type(res) == 'table' and type(res.output) == 'string' then
        view.next = res.next
        if res.output ~= '' then
          local text = view.partial .. res.output
          local lines = vim.split(text, '\n', { plain = true })
          view.partial = table.remove(lines)
          local count = vim.api.nvim_buf_line_count(buf)
          -- The last line may be a partial one shown before: replace it.
          if view.shown_partial then
            count = count - 1
          end
          if view.partial ~= '' then
            lines[#lines + 1] = view.partial
            view.shown_partial = true
          else
            view.shown_partial = false
          end
          util.set_lines(buf, lines, count, -1)
          for _, win in ipairs(vim.fn.win_findbuf(buf)) do
            pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
          end
        end
      end
      if view.again then
        view.again = false
        fetch()
      end
    end)
  end
  view.fetch = fetch
  local unsub = client:subscribe(function(event, _, touched)
    if event == 'state' and (touched == nil or touched.jobs) then
      fetch()
    end
  end)
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      unsub()
      M.bufs[id] = nil
    end,
  })
  util.map(buf, 'n', 'x', function()
    M.kill(client, id)
  end, 'Kill the job')
  util.map(buf, 'n', 'o', function()
    local j = find(client, id)
    if j and type(j.outputPath) == 'string' and j.outputPath ~= '' then
      vim.cmd('edit ' .. vim.fn.fnameescape(j.outputPath))
    end
  end, 'Open the whole output file')
  vim.cmd('sbuffer ' .. buf)
  fetch()
  return buf
end

--- Opens the job list of `client` in a float; it follows the display state until closed.
function M.open(client)
  local buf = util.scratch(nil)
  util.set_lines(buf, { 'Loading jobs...' })
  vim.bo[buf].modifiable = false
  local win = util.float(buf, { string.rep(' ', 60), '', '', '' }, { title = 'Jobs', height = 8 })
  local shown = {}
  local function refresh()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    jobs_of(client, function(jobs)
      if not vim.api.nvim_buf_is_valid(buf) then
        return
      end
      shown = jobs
      util.set_lines(buf, M.lines(jobs))
    end)
  end
  local function at_cursor()
    if not vim.api.nvim_win_is_valid(win) then
      return nil
    end
    local j = shown[vim.api.nvim_win_get_cursor(win)[1]]
    return j and j.id
  end
  local unsub = client:subscribe(function(event, _, touched)
    if event == 'state' and (touched == nil or touched.jobs) then
      refresh()
    end
  end)
  vim.api.nvim_create_autocmd('BufWipeout', { buffer = buf, once = true, callback = unsub })
  util.map(buf, 'n', '<CR>', function()
    local id = at_cursor()
    if id then
      util.close_win(win)
      M.open_job(client, id)
    end
  end, 'Follow the job')
  util.map(buf, 'n', 'x', function()
    local id = at_cursor()
    if id then
      M.kill(client, id)
    end
  end, 'Kill the job')
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
