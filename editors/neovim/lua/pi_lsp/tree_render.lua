-- Rendering of a `session/tree` result to lines. Pure Lua (unit-tested); the :PiTree view
-- (tree.lua) draws the lines and maps the cursor line back to an entry id.
local M = {}

local function present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ''
end

--- Text of one node: role or type, preview, label.
function M.node_text(node)
  local what
  if node.type == 'message' then
    local role = node.role
    if role == 'user' then
      what = 'You'
    elseif role == 'assistant' then
      what = 'Assistant'
    elseif role == 'toolResult' then
      what = 'Tool result'
    elseif role == 'bashExecution' then
      what = 'Bash'
    else
      what = tostring(role or 'message')
    end
  else
    what = tostring(node.type or 'entry')
  end
  local preview = present(node.preview) and tostring(node.preview):gsub('[\r\n]+', ' ') or ''
  if #preview > 100 then
    preview = preview:sub(1, 97) .. '...'
  end
  local text = preview ~= '' and (what .. ': ' .. preview) or what
  if present(node.label) then
    text = text .. '  [' .. tostring(node.label) .. ']'
  end
  return text
end

--- Renders the tree. Depth grows only at branch points, so a long linear chat stays flat.
--- Marks: '>' the leaf, '*' an entry on the current branch, ' ' elsewhere.
---@param tree table {leafId=, roots=[node]}
---@return string[] lines, string[] ids  (ids[i] is the entry id of lines[i])
function M.render(tree)
  local lines, ids = {}, {}
  if type(tree) ~= 'table' then
    return { 'No session.' }, { '' }
  end
  local leaf = tree.leafId
  -- Explicit stack: sessions can be thousands of entries deep.
  local stack = {}
  local roots = type(tree.roots) == 'table' and tree.roots or {}
  for i = #roots, 1, -1 do
    stack[#stack + 1] = { node = roots[i], indent = 0, branch = #roots > 1 }
  end
  while #stack > 0 do
    local top = table.remove(stack)
    local node = top.node
    if type(node) == 'table' then
      local mark = ' '
      if present(leaf) and node.id == leaf then
        mark = '>'
      elseif node.onBranch == true then
        mark = '*'
      end
      local prefix = string.rep('  ', top.indent) .. (top.branch and '├ ' or '')
      lines[#lines + 1] = mark .. ' ' .. prefix .. M.node_text(node)
      ids[#ids + 1] = node.id or ''
      local children = type(node.children) == 'table' and node.children or {}
      local multi = #children > 1
      local indent = top.indent + (top.branch and 1 or 0)
      for i = #children, 1, -1 do
        stack[#stack + 1] = { node = children[i], indent = indent, branch = multi }
      end
    end
  end
  if #lines == 0 then
    return { 'Empty session.' }, { '' }
  end
  return lines, ids
end

return M
