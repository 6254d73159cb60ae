-- Issue 33 bug 15: inline code and fences are concealed, fenced code is coloured by its
-- language. 0.7/0.8 use the runtime markdown syntax (fenced Go through
-- g:markdown_fenced_languages); 0.9+ use treesitter's markdown, where a fence is coloured only
-- when its language's parser is installed (0.10 bundles c, lua, markdown, query, vim, vimdoc).
local t = ...
local H = dofile('tests/helpers.lua')

t.test('bug 15: backticks and fences are concealed, fenced code is coloured', function()
  vim.cmd('syntax on')
  t.cleanup(function()
    vim.cmd('syntax off')
  end)
  local md = require('pi_lsp.markdown')
  local buf = vim.api.nvim_create_buf(false, true)
  md.setup_buffer(buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {
    '✓ **edit** `main.go` — done', -- 1
    '```go', -- 2
    'func main() {}', -- 3
    '```', -- 4
    '```', -- 5
    'plain output', -- 6
    '```', -- 7
    '```lua', -- 8
    'local x = 1', -- 9
    '```', -- 10
  })
  vim.cmd('enew!')
  vim.api.nvim_win_set_buf(0, buf)
  md.setup_window(0)
  t.eq('✓ edit main.go — done', H.shown(buf, 1))
  t.eq('', H.shown(buf, 2))
  t.eq('', H.shown(buf, 4))
  t.eq('', H.shown(buf, 5))
  t.eq('plain output', H.shown(buf, 6))
  t.eq('', H.shown(buf, 7))
  t.eq('', H.shown(buf, 8))
  local go, lua = table.concat(H.highlights(buf, 3, 1), ' '), table.concat(H.highlights(buf, 9, 1), ' ')
  if vim.fn.has('nvim-0.9') == 0 then
    t.eq(false, H.treesitter(buf))
    t.ok(go:find('goDeclaration', 1, true) or go:find('^markdownHighlightgo .*go'), go)
    t.ok(lua:find('lua', 1, true), lua)
    return
  end
  t.eq(true, H.treesitter(buf), 'the markdown parser is not installed (0.10 bundles it)')
  t.ok(lua:find('lua:keyword', 1, true), lua)
  if pcall(vim.treesitter.language.add, 'go') then
    t.ok(go:find('go:', 1, true), go)
  else
    -- No Go parser: the block is code, uncoloured (docs/neovim.md says so).
    t.ok(go:find('markdown:markup.raw.block', 1, true), go)
  end
end)
