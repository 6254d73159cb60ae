-- A subagent's tool lines show the recorded outcome and its reason, as the parent's tool lines
-- do (render.tool_badge): the state carries them on the child's items too.
local t = ...
local render = require('pi_lsp.render')

t.test("a child's declined and interrupted tools read as the parent's do", function()
  local items = {
    { id = 'w1', kind = 'tool', toolName = 'write', args = { path = 'x' }, status = 'declined', outcome = 'declined', reason = 'not now' },
    { id = 'b1', kind = 'tool', toolName = 'bash', args = { command = 'make' }, status = 'error', outcome = 'interrupted', reason = 'aborted' },
    { id = 'r1', kind = 'tool', toolName = 'read', args = { path = 'y' }, status = 'done' },
  }
  local lines = {}
  render.child_block({ agent = 'explore', status = 'done', items = items }, function(l)
    lines[#lines + 1] = l
  end)
  local function line_of(item)
    local icon, label = render.tool_badge(item)
    local s = render.args_summary(item.args)
    return string.format('  │ %s **%s** `%s` — %s', icon, item.toolName, s, label)
  end
  t.eq(line_of(items[1]), lines[2])
  t.ok(lines[2]:find('declined: not now', 1, true), lines[2])
  t.eq(line_of(items[2]), lines[3])
  t.ok(lines[3]:find(render.end_reason_text('aborted'), 1, true), lines[3])
  t.eq('  │ ✓ **read** `y` — done', lines[4])
end)
