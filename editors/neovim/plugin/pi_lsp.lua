-- pi_lsp commands. The server starts on first use; see :help pi_lsp.
if vim.g.loaded_pi_lsp then
  return
end
vim.g.loaded_pi_lsp = true

local function pi()
  return require('pi_lsp')
end

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts or {})
end

local function arg(o)
  return o.args ~= '' and o.args or nil
end

cmd('PiChat', function(o)
  local range = o.range > 0 and { vim.api.nvim_get_current_buf(), o.line1, o.line2 } or nil
  pi().chat(arg(o), range)
end, { nargs = '*', range = true, desc = 'Open the pi chat (and send the text given); with a range, attach those lines' })
vim.keymap.set('x', '<Plug>(PiChatSelection)', ':PiChat<CR>', { silent = true, desc = 'pi-lsp: attach the selection to the chat' })
if vim.fn.hasmapto('<Plug>(PiChatSelection)', 'x') == 0 and vim.fn.maparg('<leader>pc', 'x') == '' then
  vim.keymap.set('x', '<leader>pc', '<Plug>(PiChatSelection)', { remap = true, desc = 'pi-lsp: attach the selection to the chat' })
end
cmd('PiMcpLogin', function(o)
  require('pi_lsp.mcp_auth').login(pi().client(), arg(o))
end, { nargs = '?', desc = 'Log in to an MCP server (http or sse) that needs a login' })
cmd('PiToggle', function()
  pi().toggle()
end, { desc = 'Hide the pi chat, or show it again' })
cmd('PiAbort', function()
  pi().abort()
end, { desc = 'Abort the pi run' })
cmd('PiPending', function()
  pi().pending()
end, { desc = 'Show pending approvals, questions and plans' })
cmd('PiGoal', function(o)
  pi().goal(o.args)
end, { nargs = '*', desc = 'Set a goal: text [--check "cmd"] [--max-turns N]; no argument shows it' })
cmd('PiGoalStop', function()
  pi().goal_stop()
end, { desc = 'Stop the goal (goal/clear)' })
cmd('PiTasks', function()
  pi().tasks()
end, { desc = 'Show the task list' })
cmd('PiJobs', function(o)
  pi().jobs(o.args)
end, { nargs = '?', desc = 'Show the background jobs (or follow one: :PiJobs job-1)' })
cmd('PiOlder', function()
  require('pi_lsp.chat').older(pi().client())
end, { desc = 'Load earlier items into the chat transcript' })
cmd('PiTree', function()
  pi().tree()
end, { desc = 'Show the session tree' })
cmd('PiRewind', function()
  pi().rewind()
end, { desc = "Rewind the workspace's files and the conversation to before a user message" })
cmd('PiSessions', function(o)
  pi().sessions(o.bang)
end, { bang = true, desc = 'Resume a session of this directory (! all)' })
cmd('PiNew', function()
  pi().new_session()
end, { desc = 'Start a new session' })
cmd('PiModel', function(o)
  pi().model(arg(o))
end, {
  nargs = '?',
  complete = function(lead)
    return pi().complete_model(lead)
  end,
  desc = 'Pick the model',
})
cmd('PiMode', function(o)
  pi().mode(arg(o))
end, {
  nargs = '?',
  complete = function(lead)
    return pi().complete_mode(lead)
  end,
  desc = 'Pick the mode',
})
cmd('PiThinking', function(o)
  pi().thinking(arg(o))
end, {
  nargs = '?',
  complete = function(lead)
    return pi().complete_thinking(lead)
  end,
  desc = 'Set the thinking level',
})
cmd('PiMemory', function()
  pi().memory()
end, { desc = 'Show the observation log (observational memory)' })
cmd('PiCompact', function(o)
  pi().compact(arg(o))
end, { nargs = '*', desc = 'Compact the context now' })
cmd('PiRetry', function()
  require('pi_lsp.queue').retry(pi().client())
end, { desc = 'Run again after a provider error' })
cmd('PiQueue', function()
  require('pi_lsp.queue').pick(pi().client())
end, { desc = 'Edit or remove a queued message' })
cmd('PiSetup', function()
  require('pi_lsp.setup_wizard').run(pi().client())
end, { desc = 'First run: pick a provider, give its key, pick a model' })
cmd('PiRestart', function()
  pi().restart()
end, { desc = 'Restart pi-lsp for this directory' })

vim.api.nvim_create_autocmd('VimLeavePre', {
  group = vim.api.nvim_create_augroup('pi_lsp', { clear = true }),
  callback = function()
    local ok, clients = pcall(require, 'pi_lsp.client')
    if ok then
      clients.stop_all()
    end
  end,
})
