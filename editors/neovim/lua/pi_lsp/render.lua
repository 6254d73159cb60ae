-- Rendering of a DisplayState (docs/protocol.md § Display) to chat-buffer lines. Pure Lua: it
-- returns lines and a fold level per line, and the chat view writes them to the buffer.
local M = {}

M.status_icon = {
  pending = '○',
  awaiting_approval = '?',
  running = '…',
  done = '✓',
  error = '✗',
  declined = '⊘',
}

local split = require('pi_lsp.util').lines

local function present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ''
end

--- A one-line summary of tool arguments: the path, command or pattern when there is one.
function M.args_summary(args)
  if type(args) ~= 'table' then
    return ''
  end
  for _, k in ipairs({ 'path', 'file_path', 'command', 'pattern', 'query', 'url', 'question', 'title' }) do
    local v = args[k]
    if type(v) == 'string' and v ~= '' then
      local first = split(v)[1] or ''
      if #first > 80 then
        first = first:sub(1, 77) .. '...'
      end
      return first
    end
  end
  return ''
end

-- Encodes args for display; vim.json.encode sorts nothing, so keys are sorted for stable output.
local function encode_args(args)
  if type(args) ~= 'table' then
    return { tostring(args) }
  end
  local keys = vim.tbl_keys(args)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  local out = {}
  for _, k in ipairs(keys) do
    local v = args[k]
    local s
    if type(v) == 'string' then
      local lines = split(v)
      if #lines > 1 then
        out[#out + 1] = k .. ':'
        for _, l in ipairs(lines) do
          out[#out + 1] = '  ' .. l
        end
      else
        s = v
      end
    else
      local ok, enc = pcall(vim.json.encode, v)
      s = ok and enc:gsub('\\/', '/') or tostring(v)
    end
    if s then
      out[#out + 1] = k .. ': ' .. s
    end
  end
  return out
end

--- The change an edit or write call asks for, as diff lines (a declined or failed call has
--- no server diff; its arguments are shown as a diff, never as escaped JSON). nil for other
--- tools or arguments of another shape.
function M.args_diff(tool, args)
  if type(args) ~= 'table' then
    return nil
  end
  local out = {}
  if tool == 'write' and type(args.content) == 'string' then
    out[1] = '+++ ' .. tostring(args.path or args.file_path or '')
    for _, l in ipairs(split(args.content)) do
      out[#out + 1] = '+' .. l
    end
    return out
  end
  if tool == 'edit' and type(args.edits) == 'table' then
    out[1] = '--- ' .. tostring(args.path or args.file_path or '')
    out[2] = '+++ ' .. tostring(args.path or args.file_path or '')
    for i, e in ipairs(args.edits) do
      if type(e) == 'table' then
        out[#out + 1] = string.format('@@ change %d @@', i)
        for _, l in ipairs(split(type(e.oldText) == 'string' and e.oldText or '')) do
          out[#out + 1] = '-' .. l
        end
        for _, l in ipairs(split(type(e.newText) == 'string' and e.newText or '')) do
          out[#out + 1] = '+' .. l
        end
      end
    end
    return out
  end
  return nil
end

--- The task list a task_write call sets, as `[ ]`/`[~]`/`[x]` lines; nil for other calls.
function M.args_tasks(tool, args)
  if tool ~= 'task_write' or type(args) ~= 'table' or type(args.tasks) ~= 'table' then
    return nil
  end
  return M.tasks(args.tasks)
end

--- A tool's output split for display: the lines to show (the END of the output, at most
--- `max`), how many earlier lines are hidden, and the "Full output: <path>" of a truncated
--- output (shown on its own line, outside the block, so `gf` opens it).
function M.output_tail(output, max)
  local body = split(output)
  local full
  local last = body[#body]
  if last then
    local path = last:match('Full output: (%S+)%]%s*$')
    if path then
      full = path
    end
  end
  local hidden = 0
  if #body > max then
    hidden = #body - max
    body = vim.list_slice(body, hidden + 1, #body)
  end
  return body, hidden, full
end

--- One attachment of a user message (a file, a selection's lines, an image).
function M.attachment_line(a)
  if type(a) ~= 'table' then
    return ''
  end
  local what = tostring(a.path or '')
  if present(a.lines) then
    what = what .. ':' .. tostring(a.lines)
  end
  return string.format('_📎 %s_ %s', tostring(a.type or 'file'), what)
end

M.child_icon = { running = '…', done = '✓', error = '✗', aborted = '⊘' }

--- A subagent's block under its tool line (docs/subagents.md): a fold whose header names the
--- agent, its status and tokens; inside, the child's own items, each line prefixed with '│ '.
---@param child table the tool item's child {session, agent, fork, status, items, tokens}
---@param add fun(line: string, fold: string)
function M.child_block(child, add)
  local status = tostring(child.status or 'running')
  local tokens = type(child.tokens) == 'table' and ((tonumber(child.tokens.input) or 0) + (tonumber(child.tokens.output) or 0)) or 0
  local head = string.format('  ↳ %s **%s** %s — %s', M.child_icon[status] or '•', tostring(child.agent or 'subagent'),
    child.fork == true and 'fork' or 'subagent', status)
  if tokens > 0 then
    head = head .. string.format(' · %d tokens', tokens)
  end
  add(head, '>1')
  local function body(l)
    add('  │ ' .. l, '1')
  end
  if type(child.older) == 'number' and child.older > 0 then
    body(string.format('… %d earlier items (in the session)', child.older))
  end
  for _, ci in ipairs(type(child.items) == 'table' and child.items or {}) do
    if type(ci) == 'table' then
      if ci.kind == 'user' then
        body('Task: ' .. (split(ci.text)[1] or ''))
      elseif ci.kind == 'assistant' then
        if present(ci.text) then
          for _, l in ipairs(split(ci.text)) do
            body(l)
          end
        elseif ci.streaming == true then
          body('...')
        end
      elseif ci.kind == 'tool' then
        -- The outcome and its reason, as on the parent's tool lines.
        local s = M.args_summary(ci.args)
        local icon, label = M.tool_badge(ci)
        body(string.format('%s **%s**%s — %s', icon, tostring(ci.toolName or 'tool'), s ~= '' and (' `' .. s .. '`') or '', label))
      elseif ci.kind == 'error' then
        body('**Error:** ' .. (split(ci.text)[1] or ''))
      else
        body(split(ci.text)[1] or '')
      end
    end
  end
  if present(child.session) then
    body('session: ' .. tostring(child.session))
  end
end

--- Why a run ended, after "interrupted" (docs/protocol.md, "Display facts").
---@param reason string|nil the item's endReason, or an interrupted tool's reason
---@return string
function M.end_reason_text(reason)
  if reason == 'client_gone' then
    return 'interrupted: the client went away'
  elseif reason == 'error' then
    return 'interrupted by an error'
  end
  return 'interrupted by Stop'
end

--- The note line of the plan hand-over message the server marked (note = 'plan_handover'), with
--- the plan's title from the state (planTitle).
---@param item table
---@return string
function M.handover_text(item)
  local title = type(item.planTitle) == 'string' and item.planTitle or ''
  return 'Plan approved' .. (title ~= '' and (': ' .. title) or '') .. ' — building in Build mode'
end

--- A tool item's icon and label: a plan's verdict, else its outcome (with the reason), else its
--- status. All from the state: the plugin keeps none of these itself.
---@param item table
---@return string icon, string label
function M.tool_badge(item)
  if item.verdict == 'approved' then
    return '✓', 'approved'
  elseif item.verdict == 'rejected' then
    return '✗', 'rejected'
  elseif item.outcome == 'interrupted' then
    return '⊘', M.end_reason_text(item.reason)
  elseif item.outcome == 'declined' then
    local why = type(item.reason) == 'string' and item.reason ~= '' and (': ' .. item.reason) or ''
    return M.status_icon.declined, 'declined' .. why
  end
  return M.status_icon[item.status] or '•', tostring(item.status or '')
end

--- Renders `state` into a list of lines and a parallel list of fold levels ('0', '>1', '1').
---@param state table|nil the DisplayState
---@param opts table|nil {show_thinking=bool, max_output_lines=int}
---@return string[] lines, string[] folds
function M.render(state, opts)
  opts = opts or {}
  local max_out = opts.max_output_lines or 200
  local lines, folds = {}, {}
  local function add(line, fold)
    lines[#lines + 1] = line
    folds[#folds + 1] = fold or '0'
  end
  local function add_block(list, fold, prefix)
    for _, l in ipairs(list) do
      add((prefix or '') .. l, fold)
    end
  end
  -- A fenced block of `body`; a long one shows its end (the start is what is hidden).
  local function fenced(lang, body, fold)
    local n = #body
    local shown = body
    if n > max_out then
      shown = vim.list_slice(body, n - max_out + 1, n)
      add(string.format('… (%d earlier lines)', n - max_out), fold)
    end
    add('```' .. (lang or ''), fold)
    add_block(shown, fold)
    add('```', fold)
  end
  -- A tool's or command's output, its "Full output" path on a line of its own.
  local function output_block(output, fold)
    local _, _, full = M.output_tail(output, max_out)
    fenced('', split(output), fold)
    if full then
      add('Full output: ' .. full, fold)
    end
  end
  local function blank()
    if #lines > 0 and lines[#lines] ~= '' then
      add('')
    end
  end

  if type(state) ~= 'table' then
    add('_Connecting to pi-lsp..._')
    return lines, folds
  end

  -- The goal's line heads the transcript.
  local goal = require('pi_lsp.goal').line(state.goal)
  if goal ~= '' then
    add('**' .. goal .. '**')
  end
  local items = state.items or {}
  -- The index of the last answer with text: errors before it were followed by a successful
  -- turn and shrink to one line.
  local last_answer = 0
  for i, item in ipairs(items) do
    if type(item) == 'table' and item.kind == 'assistant' and present(item.text) and item.streaming ~= true then
      last_answer = i
    end
  end
  for idx, item in ipairs(items) do
    if type(item) == 'table' then
      local kind = item.kind
      if opts.dismissed and opts.dismissed[item.id] then
        -- An error the user dismissed (x on it in the transcript).
      elseif kind == 'user' and item.note == 'plan_handover' then
        -- The server's own hand-over message (marked by the server): a note, not the user's.
        blank()
        add('> _' .. M.handover_text(item) .. '_')
      elseif kind == 'user' then
        blank()
        add('## You')
        add_block(split(item.text))
        for _, a in ipairs(type(item.attachments) == 'table' and item.attachments or {}) do
          add(M.attachment_line(a))
        end
      elseif kind == 'assistant' and not present(item.text) and not present(item.thinking) and item.streaming ~= true then
        -- An assistant turn made only of tool calls: the tool items follow.
      elseif kind == 'assistant' then
        blank()
        add('## Assistant')
        if opts.show_thinking ~= false and present(item.thinking) then
          add('> _Thinking_', '>1')
          add_block(split(item.thinking), '1', '> ')
          add('', '1')
        end
        if present(item.text) then
          add_block(split(item.text))
        elseif item.streaming == true then
          add('...')
        end
        if item.status == 'interrupted' then
          add('_⊘ ' .. M.end_reason_text(item.endReason) .. '_')
        end
      elseif kind == 'tool' then
        blank()
        local icon, label = M.tool_badge(item)
        local summary = M.args_summary(item.args)
        local head = string.format('%s **%s**', icon, item.toolName or 'tool')
        if summary ~= '' then
          head = head .. ' `' .. summary .. '`'
        end
        head = head .. ' — ' .. label
        if item.isError == true and item.status ~= 'error' then
          head = head .. ' (error)'
        end
        add(head, '>1')
        if type(item.diagnostics) == 'table' then
          for _, d in ipairs(item.diagnostics) do
            add('  ' .. (tostring(d):find(': error: ', 1, true) and '✗ ' or '⚠ ') .. tostring(d), '1')
          end
        end
        local adiff = not present(item.diff) and M.args_diff(item.toolName, item.args) or nil
        local atasks = M.args_tasks(item.toolName, item.args)
        if present(item.diff) then
          fenced('diff', split(item.diff), '1')
        elseif adiff then
          fenced('diff', adiff, '1')
        elseif atasks then
          add_block(atasks, '1', '  ')
        elseif type(item.args) == 'table' and next(item.args) ~= nil then
          fenced('', encode_args(item.args), '1')
        end
        if present(item.output) and not (atasks and item.isError ~= true) then
          output_block(item.output, '1')
        end
        if type(item.child) == 'table' then
          M.child_block(item.child, add)
        end
      elseif kind == 'bash' then
        blank()
        local head = '$ ' .. tostring(item.command or item.text or '')
        if type(item.exitCode) == 'number' and item.exitCode ~= 0 then
          head = head .. string.format('  (exit %d)', item.exitCode)
        end
        add(head, '>1')
        if present(item.output) then
          output_block(item.output, '1')
        end
      elseif kind == 'summary' then
        blank()
        local sk = item.summaryKind
        add(present(sk) and ('### Summary (' .. tostring(sk) .. ')') or '### Summary', '>1')
        add_block(split(item.text or item.summary), '1')
      elseif kind == 'error' then
        -- Errors show once, where they happened (state.errors repeats them: not drawn).
        blank()
        local body = split(item.text or item.message)
        if idx < last_answer then
          -- A later turn succeeded: one line, marked as earlier.
          add('> **Error:** ' .. (body[1] or '') .. '  (earlier; x dismisses)')
        else
          add('> **Error:** ' .. (body[1] or ''))
          add_block(vim.list_slice(body, 2), '0', '> ')
          add('> _x dismisses_' .. (opts.retry_id == item.id and ', _R retries_' or ''))
        end
      else
        blank()
        add_block(split(item.text or item.message), '0', '> ')
      end
    end
  end

  -- Footer: queued messages, pending prompts, retries, run state.
  local footer = {}
  local queue = state.queue
  if type(queue) == 'table' then
    for _, q in ipairs(type(queue.steering) == 'table' and queue.steering or {}) do
      footer[#footer + 1] = '_Queued (steer):_ ' .. (split(type(q) == 'table' and q.text or q)[1] or '')
    end
    for _, q in ipairs(type(queue.followUp) == 'table' and queue.followUp or {}) do
      footer[#footer + 1] = '_Queued (follow-up):_ ' .. (split(type(q) == 'table' and q.text or q)[1] or '')
    end
    if #footer > 0 then
      footer[#footer + 1] = '_Q edits or removes a queued message (:PiQueue)_'
    end
  end
  local pending = state.pending
  if type(pending) == 'table' then
    if type(pending.approval) == 'table' then
      local a = pending.approval
      footer[#footer + 1] = '**Approval needed:** '
        .. tostring(a.display or a.toolName or 'tool call')
        .. ' (:PiPending)'
    end
    if type(pending.question) == 'table' then
      footer[#footer + 1] = '**Question:** ' .. tostring(pending.question.question or '') .. ' (:PiPending)'
    end
    if type(pending.plan) == 'table' then
      footer[#footer + 1] = '**Plan awaiting approval:** ' .. tostring(pending.plan.title or '') .. ' (:PiPending)'
    end
  end
  if type(state.retry) == 'table' then
    local r = state.retry
    local delay = type(r.delayMs) == 'number' and string.format(' in %.1f s', r.delayMs / 1000) or ''
    footer[#footer + 1] = string.format('_Retrying (attempt %s)%s..._ %s', tostring(r.attempt or '?'), delay, tostring(r.error or r.message or ''))
  end
  if type(state.compaction) == 'table' then
    local reason = present(state.compaction.reason) and (' (' .. tostring(state.compaction.reason) .. ')') or ''
    footer[#footer + 1] = '_Compacting context' .. reason .. '..._'
  end
  -- The task list while it has open tasks (all of it is in :PiTasks).
  local open_tasks = false
  for _, tk in ipairs(type(state.tasks) == 'table' and state.tasks or {}) do
    if type(tk) == 'table' and (tk.status == 'pending' or tk.status == 'in_progress') then
      open_tasks = true
    end
  end
  if open_tasks then
    footer[#footer + 1] = '_Tasks:_'
    for _, l in ipairs(M.tasks(state.tasks)) do
      footer[#footer + 1] = '  ' .. l
    end
  end
  if state.status == 'running' or (state.phase and state.phase ~= 'idle' and state.phase ~= vim.NIL) then
    footer[#footer + 1] = '_Working (' .. tostring(state.phase or state.status) .. ')..._ <C-c> aborts'
  end
  if #footer > 0 then
    blank()
    add('---')
    add_block(footer)
  end
  if #lines == 0 then
    add('_New session. Type below and press <CR>._')
  end
  return lines, folds
end

--- A tasks list as lines: `[x]` done, `[~]` in progress (its activeForm), `[ ]` pending.
function M.tasks(tasks)
  local out = {}
  for _, t in ipairs(type(tasks) == 'table' and tasks or {}) do
    if type(t) == 'table' then
      local status = t.status
      local mark, text = '[ ]', t.content
      if status == 'completed' or status == 'done' then
        mark = '[x]'
      elseif status == 'in_progress' then
        mark = '[~]'
        text = present(t.activeForm) and t.activeForm or t.content
      elseif status == 'cancelled' then
        mark = '[-]'
      end
      out[#out + 1] = mark .. ' ' .. tostring(text or t.id or '')
    end
  end
  if #out == 0 then
    out[1] = 'No tasks.'
  end
  return out
end

return M
