-- Run by test/node/attach_nvim.test.mjs in headless Neovim with the plugin on the runtimepath:
-- opens $PI_SESSION (owned by the Node test's pi-lsp, so this editor's pi-lsp attaches),
-- writes $PI_OUT.ready once attached, types $PI_PROMPT into the chat input, waits for
-- $PI_ANSWER in the transcript buffer, then writes what it saw to $PI_OUT and quits.
-- Any failure is written to $PI_OUT as {error = ...} and Neovim exits 1.
local env = vim.env
local function write(path, v)
  local f = assert(io.open(path, 'wb'))
  f:write(vim.json.encode(v))
  f:close()
end

local function wait(what, ms, cond)
  local ok = vim.wait(ms, function()
    local s, r = pcall(cond)
    return s and r
  end, 20)
  if not ok then
    error('timed out waiting for ' .. what)
  end
end

local ok, err = pcall(function()
  vim.cmd('cd ' .. vim.fn.fnameescape(env.PI_WORK))
  local pi = require('pi_lsp')
  pi.setup({
    cmd = { env.PI_LSP_BIN },
    model = 'fake/fake-model',
    session = env.PI_SESSION,
    env = { PI_LSP_MODELS = env.PI_LSP_MODELS, PI_LSP_SESSIONS = env.PI_LSP_SESSIONS, HOME = env.HOME },
    review = false,
  })
  local c = pi.client()
  wait('the attached client', 15000, function()
    return c.ready and c:display() ~= nil and c.attached ~= nil
  end)
  local chat = require('pi_lsp.chat')
  local view = pi.chat()
  write(env.PI_OUT .. '.ready', { ownerPid = c.attached.ownerPid })
  -- Type the prompt in the chat input and press <CR>, as a user does.
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == view.ibuf then
      vim.api.nvim_set_current_win(w)
    end
  end
  vim.api.nvim_buf_set_lines(view.ibuf, 0, -1, false, { env.PI_PROMPT })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'mx', false)
  local function transcript()
    return vim.api.nvim_buf_get_lines(chat.view(c).tbuf, 0, -1, false)
  end
  wait('the answer in the transcript', 20000, function()
    local st = c:display()
    return st.status ~= 'running' and table.concat(transcript(), '\n'):find(env.PI_ANSWER, 1, true) ~= nil
  end)
  write(env.PI_OUT, { transcript = transcript(), statusline = pi.statusline(), ownerPid = c.attached and c.attached.ownerPid })
end)
if not ok then
  write(env.PI_OUT, { error = tostring(err) })
  vim.cmd('cquit 1')
end
vim.cmd('qa!')
