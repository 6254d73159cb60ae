-- Issue 33 bug 15 on 0.7/0.8 (the runtime markdown syntax): inline code and fences are
-- concealed, fenced Go is coloured by Go's syntax.
local t = ...

local function shown(buf, lnum)
  local text = vim.api.nvim_buf_get_lines(buf, lnum - 1, lnum, false)[1]
  local out, last = {}, nil
  for col = 1, #text do
    local cc = vim.fn.synconcealed(lnum, col)
    if cc[1] == 0 then
      out[#out + 1] = text:sub(col, col)
      last = nil
    elseif cc[3] ~= last then
      out[#out + 1] = cc[2]
      last = cc[3]
    end
  end
  return table.concat(out)
end

t.test('bug 15: backticks and fences are concealed, fenced Go is coloured', function()
  if vim.fn.has('nvim-0.9') == 1 then
    return -- treesitter's markdown there (docs/neovim.md)
  end
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
  })
  vim.cmd('enew!')
  vim.api.nvim_win_set_buf(0, buf)
  md.setup_window(0)
  t.eq('✓ edit main.go — done', shown(buf, 1))
  t.eq('', shown(buf, 2))
  t.eq('', shown(buf, 4))
  t.eq('', shown(buf, 5))
  t.eq('plain output', shown(buf, 6))
  t.eq('', shown(buf, 7))
  local names = {}
  for _, id in ipairs(vim.fn.synstack(3, 1)) do
    names[#names + 1] = vim.fn.synIDattr(id, 'name')
  end
  t.ok(vim.tbl_contains(names, 'goDeclaration') or table.concat(names, ' '):find('^markdownHighlightgo .*go'), table.concat(names, ' '))
end)
