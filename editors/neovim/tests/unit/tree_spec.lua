local t = ...
local tree_render = require('pi_lsp.tree_render')

local function node(id, role, preview, children, extra)
  local n = { id = id, type = 'message', role = role, preview = preview, children = children or {} }
  for k, v in pairs(extra or {}) do
    n[k] = v
  end
  return n
end

t.test('a linear branch stays flat; the branch and the leaf are marked', function()
  local tree = {
    leafId = 'c',
    roots = { node('a', 'user', 'fix it', { node('b', 'assistant', 'done', { node('c', 'user', 'more') }, { onBranch = true }) }, { onBranch = true, label = 'start' }) },
  }
  local lines, ids = tree_render.render(tree)
  t.eq({ '* You: fix it  [start]', '* Assistant: done', '> You: more' }, lines)
  t.eq({ 'a', 'b', 'c' }, ids)
end)

t.test('branch points indent their children', function()
  local tree = {
    leafId = 'd',
    roots = {
      node('a', 'user', 'q', {
        node('b', 'assistant', 'first answer', {}),
        node('c', 'assistant', 'second answer', { node('d', 'user', 'follow') }, { onBranch = true }),
      }, { onBranch = true }),
    },
  }
  local lines, ids = tree_render.render(tree)
  t.eq({
    '* You: q',
    '  ├ Assistant: first answer',
    '* ├ Assistant: second answer',
    '>   You: follow',
  }, lines)
  t.eq({ 'a', 'b', 'c', 'd' }, ids)
end)

t.test('non-message entries and long previews', function()
  local long = string.rep('x', 150)
  local lines = tree_render.render({ roots = { { id = 'z', type = 'compaction', preview = long, children = {} } } })
  t.eq('  compaction: ' .. string.rep('x', 97) .. '...', lines[1])
  t.eq({ 'Empty session.' }, (tree_render.render({ roots = {} })))
end)

t.test('deep chains do not recurse', function()
  local root = node('n1', 'user', 'x')
  local cur = root
  for i = 2, 5000 do
    local n = node('n' .. i, i % 2 == 0 and 'assistant' or 'user', 'm' .. i)
    cur.children = { n }
    cur = n
  end
  local lines = tree_render.render({ leafId = 'n5000', roots = { root } })
  t.eq(5000, #lines)
  t.eq('> Assistant: m5000', lines[5000])
end)

t.test('bookkeeping entries are hidden unless asked; a hidden leaf marks its shown ancestor', function()
  local tree = {
    leafId = 's',
    roots = {
      { id = 'm', type = 'model_change', preview = 'fake/m1', onBranch = true, children = {
        node('a', 'user', 'q', { node('b', 'assistant', 'done', {
          { id = 's', type = 'custom', preview = 'pi-lsp/state', onBranch = true, children = {} },
        }, { onBranch = true }) }, { onBranch = true }),
      } },
    },
  }
  local lines, ids = tree_render.render(tree)
  t.eq({ '* You: q', '> Assistant: done' }, lines)
  t.eq({ 'a', 'b' }, ids)
  lines = tree_render.render(tree, { all = true })
  t.eq({ '* model_change: fake/m1', '* You: q', '* Assistant: done', '> custom: pi-lsp/state' }, lines)
end)

t.test('hidden entries at a branch point keep the branches apart', function()
  local tree = {
    roots = {
      node('a', 'user', 'q', {
        { id = 'x', type = 'label', children = { node('b', 'assistant', 'one') } },
        node('c', 'assistant', 'two'),
      }),
    },
  }
  t.eq({ '  You: q', '  ├ Assistant: one', '  ├ Assistant: two' }, (tree_render.render(tree)))
end)
