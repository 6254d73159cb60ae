-- attach: the editor side of two clients on one session (issue 17). The server may answer
-- `initialize` or `session/open` with `attached = true, ownerPid = N` (another pi-lsp process
-- owns the session and this one proxies to it); it sends `ui/resolved` when another client
-- answered a prompt first and `session/owner` when the owner changed (see docs/protocol.md).
local M = {}

--- Protocol shapes (docs/protocol.md, "Attach"):
---@class pi_lsp.AttachResult       -- fields of the initialize and session/open results
---@field attached boolean|nil
---@field ownerPid integer|nil
---@class pi_lsp.UiResolved         -- notification ui/resolved
---@field requestId string          -- the approval's toolCallId, or the question's/plan's id
---@field kind "approval"|"question"|"plan"
---@field outcome any               -- the decision or answer, as the answering client sent it
---@field by string                 -- the answering client's clientInfo.name
---@class pi_lsp.SessionOwner       -- notification session/owner
---@field pid integer
---@field reason "handover"|"takeover"

--- The attachment a result describes ({ownerPid = N}), or nil when this process owns the
--- session.
function M.from_result(result)
  if type(result) == 'table' and result.attached == true then
    return { ownerPid = tonumber(result.ownerPid) }
  end
  return nil
end

--- Statusline part: "attached to pid N" ('' when not attached).
function M.label(attached)
  if type(attached) ~= 'table' then
    return ''
  end
  return attached.ownerPid and ('attached to pid ' .. attached.ownerPid) or 'attached'
end

--- A short text for an outcome: the decision, the answer(s), or approved/rejected.
function M.outcome_text(kind, outcome)
  if type(outcome) ~= 'table' then
    return outcome ~= nil and outcome ~= vim.NIL and tostring(outcome) or ''
  end
  if kind == 'approval' then
    return tostring(outcome.decision or '')
  elseif kind == 'plan' then
    return outcome.approved == true and 'approved' or 'rejected'
  end
  if outcome.cancelled == true then
    return 'cancelled'
  elseif type(outcome.answers) == 'table' then
    return table.concat(vim.tbl_map(tostring, outcome.answers), ', ')
  end
  return outcome.answer ~= nil and tostring(outcome.answer) or ''
end

--- The notice for a ui/resolved: "pi-lsp: approval of edit answered by vscode (approve)".
function M.resolved_text(params, what)
  local kind = tostring(params.kind or 'prompt')
  local out = M.outcome_text(params.kind, params.outcome)
  return string.format('pi-lsp: %s%s answered by %s%s', kind, what and (' (' .. what .. ')') or '', tostring(params.by or 'another client'),
    out ~= '' and (': ' .. out) or '')
end

--- The notice for a session/owner.
function M.owner_text(params, is_self)
  local why = params.reason == 'takeover' and 'the previous owner died' or 'the previous owner exited'
  if is_self then
    return string.format('pi-lsp: this editor now owns the session (pid %s; %s)', tostring(params.pid), why)
  end
  return string.format('pi-lsp: the session is now owned by pid %s (%s); attached to pid %s', tostring(params.pid), why, tostring(params.pid))
end

return M
