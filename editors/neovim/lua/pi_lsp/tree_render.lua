-- Rendering of a `session/tree` result to lines. Pure Lua (unit-tested); the :PiTree view
-- (tree.lua) draws the lines and maps the cursor line back to an entry id.
local M = {}

local function present(v)
  return v ~= nil and v ~= vim.NIL and v ~= ''
end

-- Bookkeeping entries hidden by default, as pi's /tree does.
M.hidden_types = {
  label = true,
  custom = true,
  model_change = true,
  thinking_level_change = true,
  session_info = true,
  leaf = true,
}

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

local function kids(node)
  return type(node.children) == 'table' and node.children or {}
end

--- Renders the tree. Depth grows only at branch points, so a long linear chat stays flat.
--- Marks: '>' the leaf (or its nearest shown ancestor), '*' an entry on the current branch.
---@param tree table {leafId=, roots=[node]}
---@param opts table|nil {all=bool}: also show bookkeeping entries (model changes, custom...)
---@return string[] lines, string[] ids  (ids[i] is the entry id of lines[i])
function M.render(tree, opts)
  opts = opts or {}
  if type(tree) ~= 'table' then
    return { 'No session.' }, { '' }
  end
  local function shown(node)
    return opts.all or not M.hidden_types[node.type]
  end
  -- Children as displayed: a hidden node is replaced by its own displayed children.
  local function visible_children(list)
    local out, stack = {}, {}
    for i = #list, 1, -1 do
      stack[#stack + 1] = list[i]
    end
    while #stack > 0 do
      local n = table.remove(stack)
      if type(n) == 'table' then
        if shown(n) then
          out[#out + 1] = n
        else
          local ch = kids(n)
          for i = #ch, 1, -1 do
            stack[#stack + 1] = ch[i]
          end
        end
      end
    end
    return out
  end

  -- The displayed leaf: the leaf or its nearest shown ancestor.
  local leaf = tree.leafId
  if present(leaf) then
    local parent, byid = {}, {}
    local stack = {}
    for _, r in ipairs(type(tree.roots) == 'table' and tree.roots or {}) do
      stack[#stack + 1] = r
    end
    while #stack > 0 do
      local n = table.remove(stack)
      if type(n) == 'table' and n.id then
        byid[n.id] = n
        for _, c in ipairs(kids(n)) do
          if type(c) == 'table' and c.id then
            parent[c.id] = n.id
          end
          stack[#stack + 1] = c
        end
      end
    end
    while leaf and byid[leaf] and not shown(byid[leaf]) do
      leaf = parent[leaf]
    end
  end

  local lines, ids = {}, {}
  local roots = visible_children(type(tree.roots) == 'table' and tree.roots or {})
  local stack = {}
  for i = #roots, 1, -1 do
    stack[#stack + 1] = { node = roots[i], indent = 0, branch = #roots > 1 }
  end
  while #stack > 0 do
    local top = table.remove(stack)
    local node = top.node
    local mark = ' '
    if present(leaf) and node.id == leaf then
      mark = '>'
    elseif node.onBranch == true then
      mark = '*'
    end
    local prefix = string.rep('  ', top.indent) .. (top.branch and '├ ' or '')
    lines[#lines + 1] = mark .. ' ' .. prefix .. M.node_text(node)
    ids[#ids + 1] = node.id or ''
    local children = visible_children(kids(node))
    local multi = #children > 1
    local indent = top.indent + (top.branch and 1 or 0)
    for i = #children, 1, -1 do
      stack[#stack + 1] = { node = children[i], indent = indent, branch = multi }
    end
  end
  if #lines == 0 then
    return { 'Empty session.' }, { '' }
  end
  return lines, ids
end

return M
