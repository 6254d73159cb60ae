-- Issue 29: editor/diagnostics answered from an LSP client attached to the buffer (the scripted
-- fake language server cmd/fakelsp: a diagnostic for every "ERR:"/"WARN:" line), against the
-- real pi-lsp binary. The write's new error reaches the model; the old warning does not.
local t = ...
local H = dofile('tests/helpers.lua')

local function fake_lsp(t, root)
  local bin = os.getenv('FAKELSP_BIN')
  t.ok(bin and vim.fn.executable(bin) == 1, 'FAKELSP_BIN is not set (make fakellm builds it)')
  local id = vim.lsp.start_client({ name = 'fakelsp', cmd = { bin }, root_dir = root })
  t.ok(id, 'the fake language server did not start')
  local group = vim.api.nvim_create_augroup('pi_lsp_test_fakelsp', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = '*.fk',
    callback = function(a)
      vim.lsp.buf_attach_client(a.buf, id)
    end,
  })
  t.cleanup(function()
    pcall(vim.api.nvim_del_augroup_by_id, group)
    vim.lsp.stop_client(id, true)
  end)
  return id
end

t.test('a write gets the new problem from the buffer LSP client, not the old one', function()
  local after = 'fine\nWARN: old warning\nERR: undefined: frobnicate\n'
  local c, proj = H.start(t, {
    { toolCalls = { { id = 'w1', name = 'write', arguments = vim.json.encode({ path = 'a.fk', content = after }) } } },
    { match = 'a.fk:3:1: error: undefined: frobnicate (fake)', text = 'Saw the new error.' },
  }, { files = { ['a.fk'] = 'fine\nWARN: old warning\n' }, setup = { cmd = { os.getenv('PI_LSP_BIN'), '--yolo' } } })
  fake_lsp(t, proj)
  require('pi_lsp').chat('write a.fk')
  H.wait_answer(t, c, 'Saw the new error.', 30000)
  local item
  for _, it in ipairs(H.items(c, 'tool')) do
    if it.id == 'w1' then
      item = it
    end
  end
  t.ok(item, 'no write item')
  t.eq({ 'a.fk:3:1: error: undefined: frobnicate (fake)' }, item.diagnostics)
  t.eq(after, H.read(proj .. '/a.fk'))
  -- The chat shows the line under the tool item.
  t.has(H.transcript(c), '  ✗ a.fk:3:1: error: undefined: frobnicate (fake)')
end)
