-- Human in the loop: answers the server's ui/requestApproval, ui/askQuestion and
-- ui/approvePlan requests. One prompt is shown at a time; a prompt the user dismisses stays
-- pending (reopen it with :PiPending) and never blocks the editor. When the run ends or is
-- aborted, pending prompts are dropped.
local M = {}

local queue = {}
local active = nil

local methods = {
  ['ui/requestApproval'] = true,
  ['ui/askQuestion'] = true,
  ['ui/approvePlan'] = true,
}

function M.handles(method)
  return methods[method] == true
end

-- What a dropped prompt answers: the server stopped waiting, so this only closes the request.
local function default_answer(method)
  if method == 'ui/requestApproval' then
    return { decision = 'decline' }
  elseif method == 'ui/askQuestion' then
    return { cancelled = true }
  end
  return { approved = false, feedback = '' }
end

--- One line of tool args as text, sorted by key: `key: value`, strings as they are (a
--- multi-line string shows its first line and how many follow), other values as JSON without
--- escaped slashes. Cut at `max` characters.
function M.format_args(args, max)
  max = max or 400
  if type(args) ~= 'table' then
    return ''
  end
  local keys = vim.tbl_keys(args)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  local parts = {}
  for _, k in ipairs(keys) do
    local v, s = args[k], nil
    if type(v) == 'string' then
      local lines = require('pi_lsp.util').lines(v)
      s = lines[1] or ''
      if #lines > 1 then
        s = s .. string.format(' (+%d lines)', #lines - 1)
      end
    else
      local ok, enc = pcall(vim.json.encode, v)
      s = ok and enc:gsub('\\/', '/') or tostring(v)
    end
    parts[#parts + 1] = tostring(k) .. ': ' .. s
  end
  local s = table.concat(parts, '  ')
  if #s > max then
    s = s:sub(1, max - 3) .. '...'
  end
  return s
end

--- What an approval asks to run, as text: the server's display line when it is text (`$ cmd`
--- for bash, `edit path (n change(s))`), else the tool's name and its arguments as text.
function M.approval_text(p)
  local name = tostring(p.toolName or 'a tool')
  local display = type(p.display) == 'string' and p.display or ''
  -- The server's fallback display is `name {raw JSON}`: shown as text instead.
  if display == '' or display:find('^' .. vim.pesc(name) .. ' [%[{]') then
    local args = M.format_args(p.args)
    return args ~= '' and (name .. ' — ' .. args) or name
  end
  return display
end

--- The directory an "always allow" of an outside path grants (a file's directory).
function M.granted_dir(params)
  local p = tostring(params.resolvedPath or '')
  if params.toolName == 'ls' or params.toolName == 'grep' or params.toolName == 'find' then
    return p
  end
  return (p:match('^(.*)/[^/]*$')) or p
end

--- The warning of an approval outside the workspace ('' inside it).
function M.outside_warning(params)
  if params.outsideWorkspace ~= true then
    return ''
  end
  local verb = params.access == 'write' and 'writes' or 'reads'
  return 'OUTSIDE THE WORKSPACE: ' .. verb .. ' ' .. tostring(params.resolvedPath or '?')
end

--- The choices offered for an approval, in order.
function M.approval_choices(params)
  if params.outsideWorkspace == true then
    local verb = params.access == 'write' and 'writing' or 'reading'
    return {
      { label = 'Approve', decision = 'approve' },
      { label = 'Decline', decision = 'decline' },
      { label = 'Always allow ' .. verb .. ' ' .. M.granted_dir(params), decision = 'alwaysAllowPath' },
    }
  end
  return {
    { label = 'Approve', decision = 'approve' },
    { label = 'Decline', decision = 'decline' },
    { label = 'Always allow tool ' .. tostring(params.toolName or '?'), decision = 'alwaysAllowTool' },
    {
      label = 'Always allow category ' .. tostring(params.category or '?'),
      decision = 'alwaysAllowCategory',
    },
  }
end

local show_next

local function remove(entry)
  for i, e in ipairs(queue) do
    if e == entry then
      table.remove(queue, i)
      return
    end
  end
end

local function finish(entry, answer)
  if entry.finished then
    return
  end
  entry.finished = true
  remove(entry)
  if active == entry then
    active = nil
  end
  if entry.close then
    pcall(entry.close)
  end
  entry.done(answer)
  vim.schedule(show_next)
end

local function park(entry)
  if entry.finished then
    return
  end
  entry.parked = true
  if active == entry then
    active = nil
  end
  vim.notify('pi-lsp: prompt left pending; answer it with :PiPending', vim.log.levels.INFO)
  vim.schedule(show_next)
end

local function ask_approval(entry)
  local p = entry.params
  local review = require('pi_lsp.review')
  local cfg = entry.client and entry.client.cfg or {}
  if cfg.review ~= false and review.reviewable(p) then
    -- A diff to review, never escaped JSON (see review.lua).
    return review.open(entry, function(answer)
      finish(entry, answer)
    end, function()
      park(entry)
    end)
  end
  local choices = M.approval_choices(p)
  choices[#choices + 1] = { label = 'Decline with a reason…', decision = 'decline', reason = true }
  local prompt = 'pi-lsp wants to run ' .. M.approval_text(p):gsub('^OUTSIDE THE WORKSPACE: [^\n]*\n', '')
  local warning = M.outside_warning(p)
  if warning ~= '' then
    -- Prominent: first in the prompt, and echoed as a warning.
    prompt = '!! ' .. warning .. ' !!  ' .. prompt
    vim.notify('pi-lsp: ' .. warning .. ' (' .. tostring(p.toolName) .. ')', vim.log.levels.WARN)
  end
  vim.ui.select(choices, {
    prompt = prompt,
    kind = 'pi_lsp.approval',
    format_item = function(c)
      return c.label
    end,
  }, function(choice)
    if choice == nil then
      park(entry)
    elseif choice.reason then
      vim.ui.input({ prompt = 'Why decline? (the model reads this) ' }, function(text)
        if text == nil then
          park(entry)
        else
          finish(entry, { decision = 'decline', feedback = vim.trim(text) ~= '' and vim.trim(text) or nil })
        end
      end)
    else
      finish(entry, { decision = choice.decision })
    end
  end)
end

local REFUSE = '(refuse to answer)'
local DONE = '(done)'
local OTHER = 'Other… (type an answer)'

local function ask_multi(entry, selected)
  local p = entry.params
  local items = {}
  for _, o in ipairs(p.options) do
    items[#items + 1] = (selected[o] and '[x] ' or '[ ] ') .. tostring(o)
  end
  items[#items + 1] = DONE
  items[#items + 1] = REFUSE
  vim.ui.select(items, { prompt = tostring(p.question or 'Question') .. ' (pick several, then done)', kind = 'pi_lsp.question' }, function(_, idx)
    if idx == nil then
      park(entry)
    elseif idx == #items then
      finish(entry, { cancelled = true })
    elseif idx == #items - 1 then
      local answers = {}
      for _, o in ipairs(p.options) do
        if selected[o] then
          answers[#answers + 1] = o
        end
      end
      finish(entry, { answers = answers })
    else
      local o = p.options[idx]
      selected[o] = not selected[o] or nil
      ask_multi(entry, selected)
    end
  end)
end

local function ask_question(entry)
  local p = entry.params
  local options = type(p.options) == 'table' and p.options or {}
  if #options == 0 then
    vim.ui.input({ prompt = tostring(p.question or 'Question') .. ' ' }, function(text)
      if text == nil then
        park(entry)
      else
        finish(entry, { answer = text })
      end
    end)
  elseif p.selectionMode == 'multi' or p.selectionMode == 'multiple' then
    entry.params.options = options
    ask_multi(entry, {})
  else
    local items = vim.list_extend(vim.deepcopy(options), { OTHER, REFUSE })
    vim.ui.select(items, { prompt = tostring(p.question or 'Question'), kind = 'pi_lsp.question' }, function(choice, idx)
      if choice == nil then
        park(entry)
      elseif idx == #items then
        finish(entry, { cancelled = true })
      elseif idx == #items - 1 then
        -- Free text instead of the options.
        vim.ui.input({ prompt = tostring(p.question or 'Question') .. ' ' }, function(text)
          if text == nil then
            park(entry)
          else
            finish(entry, { answer = text })
          end
        end)
      else
        finish(entry, { answer = choice })
      end
    end)
  end
end

local function show(entry)
  active = entry
  entry.parked = false
  if entry.method == 'ui/requestApproval' then
    ask_approval(entry)
  elseif entry.method == 'ui/askQuestion' then
    ask_question(entry)
  else
    require('pi_lsp.plan').open(entry.client, entry.params, {
      finish = function(answer)
        finish(entry, answer)
      end,
      park = function()
        park(entry)
      end,
      set_close = function(fn)
        entry.close = fn
      end,
    })
  end
end

show_next = function()
  if active then
    return
  end
  for _, e in ipairs(queue) do
    if not e.parked and not e.finished then
      show(e)
      return
    end
  end
end

--- Queues a server request; `done(answer)` sends the answer.
function M.handle(client, method, params, done)
  local entry = { client = client, method = method, params = params, done = done }
  queue[#queue + 1] = entry
  if not active then
    show(entry)
  end
end

--- Shows the pending prompts again (:PiPending). Returns how many were pending.
function M.reopen()
  local n = #queue
  for _, e in ipairs(queue) do
    e.parked = false
  end
  if not active then
    show_next()
  end
  return n
end

--- Drops the pending prompts of `client` (the run ended, was aborted, or the server exited).
function M.drop(client, _reason)
  local keep = {}
  local dropped = {}
  for _, e in ipairs(queue) do
    if e.client == client then
      dropped[#dropped + 1] = e
    else
      keep[#keep + 1] = e
    end
  end
  queue = keep
  for _, e in ipairs(dropped) do
    if active == e then
      active = nil
    end
    e.finished = true
    if e.close then
      pcall(e.close)
    end
    pcall(e.done, default_answer(e.method))
  end
  if #dropped > 0 then
    vim.schedule(show_next)
  end
end

local kinds = { ['ui/requestApproval'] = 'approval', ['ui/askQuestion'] = 'question', ['ui/approvePlan'] = 'plan' }

local function request_id(entry)
  local p = entry.params or {}
  if entry.method == 'ui/requestApproval' then
    return p.toolCallId
  end
  return p.id
end

--- ui/resolved: another client answered the prompt `params.requestId` of `client` first.
--- Its float, diff tab or pending entry closes (a vim.ui.select that cannot be closed is
--- ignored when it returns), and the user is told who answered. Returns true when a prompt of
--- this editor was closed.
function M.resolved(client, params)
  if type(params) ~= 'table' then
    return false
  end
  local found
  for _, e in ipairs(queue) do
    if e.client == client and kinds[e.method] == params.kind and request_id(e) == params.requestId then
      found = e
      break
    end
  end
  local what
  if found then
    local p = found.params or {}
    what = p.display or p.toolName or p.title or p.question
    remove(found)
    if active == found then
      active = nil
    end
    found.finished = true
    if found.close then
      pcall(found.close)
    end
    -- The server took the other answer; this reply only ends the request.
    pcall(found.done, default_answer(found.method))
    vim.schedule(show_next)
  end
  vim.notify(require('pi_lsp.attach').resolved_text(params, what and tostring(what) or nil), vim.log.levels.INFO)
  return found ~= nil
end

--- The pending prompts (for tests and :PiPending).
function M.pending()
  return queue
end

return M
