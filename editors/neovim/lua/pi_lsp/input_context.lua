-- The context the chat input's next prompt carries, listed on the input before sending
-- (issue 33, Missing 4): the selection attached with :'<,'>PiChat and the @file / #buffer
-- mentions of the text, as virtual text at the end of the input's last line.
local M = {}

local chips_ns = vim.api.nvim_create_namespace('pi_lsp_input_context')

--- One context item as a short label: `main.go:3-9`, `README.md`, `image shot.png`.
function M.chip(item, cwd)
  local path = tostring(item.path or '')
  if cwd and path:sub(1, #cwd + 1) == cwd .. '/' then
    path = path:sub(#cwd + 2)
  end
  if item.type == 'selection' and type(item.range) == 'table' then
    return string.format('%s:%d-%d', path, item.range.startLine or 0, item.range.endLine or 0)
  elseif item.type == 'image' then
    return 'image ' .. (path ~= '' and path or tostring(item.mimeType or ''))
  end
  return path .. ((item.type == 'file' and item.text) and ' (unsaved)' or '')
end

--- The context the input's next prompt carries: the attached items and the `@file` and
--- `#buffer` mentions of its text.
function M.pending(view)
  local items = vim.list_extend({}, view.attached or {})
  vim.list_extend(items, require('pi_lsp.context').from_text(view.client.cwd, require('pi_lsp.chat').input(view.client)))
  return items
end

--- Lists the attached context at the end of the input's last line (virtual text, so it is
--- never sent): `📎 main.go:3-9 · README.md`.
function M.show(view)
  if not (view.ibuf and vim.api.nvim_buf_is_valid(view.ibuf)) then
    return
  end
  vim.api.nvim_buf_clear_namespace(view.ibuf, chips_ns, 0, -1)
  local items = M.pending(view)
  if #items == 0 then
    return
  end
  local labels = {}
  for _, it in ipairs(items) do
    labels[#labels + 1] = M.chip(it, view.client.cwd)
  end
  local last = vim.api.nvim_buf_line_count(view.ibuf) - 1
  vim.api.nvim_buf_set_extmark(view.ibuf, chips_ns, last, 0, {
    virt_text = { { '  📎 ' .. table.concat(labels, ' · '), 'Comment' } },
    virt_text_pos = 'eol',
  })
end

--- The context labels shown on the input (for tests).
function M.shown(view)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(view.ibuf, chips_ns, 0, -1, { details = true })) do
    for _, chunk in ipairs(m[4].virt_text or {}) do
      out[#out + 1] = chunk[1]
    end
  end
  return table.concat(out)
end

return M
