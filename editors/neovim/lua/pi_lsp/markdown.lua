-- A transcript that reads well: markdown concealed (no raw `**`, backticks or fences), fenced
-- code highlighted with its language's syntax (`g:markdown_fenced_languages` with the runtime
-- markdown syntax on 0.7; treesitter's markdown where its parser is installed), and role
-- headers marked apart from the answer's own headings (a sign and a line highlight on the
-- transcript's `## You` / `## Assistant` lines only).
local M = {}

local ns = vim.api.nvim_create_namespace('pi_lsp_roles')

-- Languages offered to the runtime markdown syntax when the user set none.
local FENCED = { 'go', 'lua', 'python', 'javascript', 'typescript', 'sh', 'bash=sh', 'json', 'yaml', 'rust', 'c', 'vim', 'diff', 'sql', 'html', 'css' }

local ROLES = { ['## You'] = { sign = '▶', hl = 'PiLspUserHeader' }, ['## Assistant'] = { sign = 'π', hl = 'PiLspAssistantHeader' } }

--- Buffer setup of the transcript.
function M.setup_buffer(buf)
  vim.api.nvim_set_hl(0, 'PiLspUserHeader', { default = true, link = 'DiffAdd' })
  vim.api.nvim_set_hl(0, 'PiLspAssistantHeader', { default = true, link = 'DiffChange' })
  if vim.g.markdown_fenced_languages == nil then
    vim.g.markdown_fenced_languages = FENCED
  end
  local ok_ts = false
  if vim.treesitter and vim.treesitter.start and vim.fn.has('nvim-0.9') == 1 then
    ok_ts = pcall(vim.treesitter.start, buf, 'markdown')
  end
  if not ok_ts then
    vim.api.nvim_buf_call(buf, function()
      vim.cmd('setlocal syntax=markdown')
      -- Error lines are plain text: an asterisk in a message (a redacted "sk-bad***") must
      -- not be read as emphasis and concealed. Only the label's own ** are hidden.
      vim.cmd([[syntax match PiLspErrorLine /^\(> \)\=\*\*Error:\*\* .*$/ contains=PiLspErrorLabel]])
      vim.cmd([[syntax match PiLspErrorLabel /^\(> \)\=\*\*Error:\*\*/ contained contains=PiLspErrorStars]])
      vim.cmd([[syntax match PiLspErrorStars /\*\*/ contained conceal]])
      -- The runtime markdown syntax of 0.7/0.8 conceals only bold, italics and fences with a
      -- known language: inline code and fences without a language are concealed here too
      -- (the later definition wins where both start).
      vim.cmd([[syntax region markdownCode matchgroup=markdownCodeDelimiter start="`\@<!`\ze[^`]" end="`" keepend contains=markdownLineStart concealends]])
      vim.cmd([[syntax region markdownCode matchgroup=markdownCodeDelimiter start="^\s*```\s*$" end="^\s*```\ze\s*$" keepend concealends]])
      vim.cmd('highlight default link PiLspErrorLine ErrorMsg')
      vim.cmd('highlight default link PiLspErrorLabel ErrorMsg')
    end)
  end
end

--- Window setup of the transcript: concealed markup, shown again on the cursor line in
--- Insert mode only (never, since the buffer is read-only).
function M.setup_window(win)
  vim.wo[win].conceallevel = 2
  vim.wo[win].concealcursor = 'nc'
  vim.wo[win].signcolumn = 'yes:1'
end

--- Marks the role header lines between first and last (1-based, inclusive) of buf.
function M.mark_roles(buf, first, last)
  first = math.max(1, first or 1)
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, last or -1, false)
  vim.api.nvim_buf_clear_namespace(buf, ns, first - 1, last or -1)
  for i, l in ipairs(lines) do
    local r = ROLES[l]
    if r then
      vim.api.nvim_buf_set_extmark(buf, ns, first + i - 2, 0, { sign_text = r.sign, sign_hl_group = r.hl, line_hl_group = r.hl })
    end
  end
end

--- The role marks of buf as {line (1-based), sign}.
function M.roles(buf)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    out[#out + 1] = { m[2] + 1, vim.trim(m[4].sign_text or '') }
  end
  return out
end

return M
