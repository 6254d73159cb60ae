-- Options of require('pi_lsp').setup{} and their defaults (documented in doc/pi_lsp.txt).
local M = {}

M.defaults = {
  -- Command that starts the server; the first element is looked up on $PATH.
  cmd = { 'pi-lsp' },
  -- Extra environment for the server process (merged into Neovim's).
  env = nil,
  -- `provider/id`; nil keeps the server's default.
  model = nil,
  -- 'new' | 'continue' | a session file path.
  session = 'new',
  -- initializationOptions.logLevel ('error'|'warn'|'info'|'debug'); nil: no window/logMessage.
  log_level = nil,
  -- Restart after a crash at most `max` times within `window_ms`.
  restart = { max = 3, window_ms = 60000, delay_ms = 300 },
  -- Pending edits and writes open as a diff to review hunk by hunk (false: a one-line prompt).
  review = true,
  -- Take the agent's writes into loaded buffers (fs/writeTextFile), with undo and no W12.
  editor_writes = true,
  -- Answer editor/diagnostics and editor/lsp from the LSP clients attached to buffers.
  diagnostics = true,
  -- While a turn runs, `:qa` stops with E37/E162 ("a turn is running"); `:qa!` quits.
  confirm_quit = true,
  chat = {
    -- 'right' | 'left' | 'bottom' | 'tab' | 'current' | 'float'
    position = 'right',
    -- columns (right/left) or lines (bottom); a number below 1 is a fraction of the editor.
    size = 0.4,
    -- The 'float' layout's box (transcript and input together); fractions or cells.
    float = { width = 0.8, height = 0.8 },
    input_height = 4,
    show_thinking = true,
    -- Lines of tool output shown (inside a fold): the last ones, after "… (N earlier lines)".
    max_output_lines = 200,
    -- Complete /commands automatically while typing the first word of the input.
    auto_complete = true,
  },
  keymaps = {
    -- Input area (normal and insert mode).
    send = '<CR>',
    follow_up = '<C-f>',
    abort = '<C-c>',
    -- Transcript buffer (normal mode).
    focus_input = 'i',
    pending = 'p',
    older = '[o',
    goal_stop = 'gS',
    dismiss = 'x',
    retry = 'R',
    queue = 'Q',
    -- :PiTree
    tree_navigate = '<CR>',
    tree_fork = 'f',
    tree_label = 'L',
    tree_summarize = 's',
    tree_refresh = 'R',
    tree_all = 'a',
    tree_subagents = 'S',
    tree_rewind = 'r',
    -- Plan float
    plan_approve = 'a',
    plan_reject = 'r',
    -- Every float and the tree
    close = 'q',
  },
}

--- Returns defaults deep-merged with `user`. A keymap set to false is not mapped. Lists
--- (`cmd`) are replaced, not merged.
function M.merge(user)
  user = user or {}
  local cfg = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user)
  if type(user.cmd) == 'string' then
    cfg.cmd = { user.cmd }
  elseif type(user.cmd) == 'table' then
    cfg.cmd = vim.deepcopy(user.cmd)
  end
  return cfg
end

return M
