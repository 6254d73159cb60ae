-- pi_lsp: Neovim front end of pi-lsp. setup{}, the :Pi* commands and the statusline.
local config = require('pi_lsp.config')

local M = {}

local current = nil

--- Configures the plugin (see :help pi_lsp-setup). Calling it again replaces the options;
--- running servers keep theirs until :PiRestart.
function M.setup(opts)
  current = config.merge(opts)
  if current.keymaps == false then
    current.keymaps = {}
  end
  return M
end

--- The effective options (defaults when setup{} was never called).
function M.config()
  if not current then
    current = config.merge({})
  end
  return current
end

local function buffer_cwd()
  local ok, cwd = pcall(vim.api.nvim_buf_get_var, 0, 'pi_lsp_cwd')
  if ok and type(cwd) == 'string' then
    return cwd
  end
  return (vim.uv or vim.loop).cwd()
end

--- The client of the current directory (or of the chat buffer you are in), started on demand.
function M.client()
  local clients = require('pi_lsp.client')
  local cwd = buffer_cwd()
  local c = clients.get(cwd, false)
  if not c then
    c = clients.get(cwd, true, M.config())
    local edits = nil
    c:subscribe(function(event)
      if event == 'state' or event == 'status' or event == 'progress' then
        pcall(vim.cmd, 'redrawstatus!')
      end
      if event == 'state' or event == 'status' then
        require('pi_lsp.quitguard').update(c)
      end
      if event == 'state' then
        -- Reload buffers whose files the agent changed ('autoread' decides how).
        local n = M.edit_count(c:display())
        if edits ~= nil and n > edits then
          pcall(vim.cmd, 'silent! checktime')
        end
        edits = n
      end
    end)
  end
  return c
end

--- How many finished tool calls changed a file (a diff or a path), for reloading buffers.
function M.edit_count(st)
  local n = 0
  for _, it in ipairs(type(st) == 'table' and type(st.items) == 'table' and st.items or {}) do
    if type(it) == 'table' and it.kind == 'tool' and it.status == 'done' then
      if (type(it.diff) == 'string' and it.diff ~= '') or (type(it.path) == 'string' and it.path ~= '') then
        n = n + 1
      end
    end
  end
  return n
end

--- Statusline component: "pi · model · mode · running · ctx 12%".
function M.statusline()
  return require('pi_lsp.statusline').get()
end

--- Opens the chat; with `text`, sends it too.
--- Opens the chat; with `text`, sends it too. `range` {buf, line1, line2} (from
--- :'<,'>PiChat) attaches that selection: sent with the text, or with the next prompt.
function M.chat(text, range)
  local c = M.client()
  local chat = require('pi_lsp.chat')
  local sel = range and require('pi_lsp.context').selection(range[1], range[2], range[3]) or nil
  local view = chat.open(c)
  if text and text ~= '' and require('pi_lsp.builtins').run(c, text) then
    return view
  end
  if text and text ~= '' then
    local ctx = require('pi_lsp.context').from_text(c.cwd, text)
    if sel then
      table.insert(ctx, 1, sel)
    end
    chat.prompt(c, text, 'steer', nil, ctx)
  elseif sel then
    chat.attach(c, sel)
  end
  if not text or text == '' then
    -- Ready to type: Insert mode in the input (after the command returns).
    local win = vim.api.nvim_get_current_win()
    if vim.api.nvim_win_get_buf(win) == view.ibuf then
      chat.start_insert(win)
    end
  end
  return view
end

--- Hides the chat when it is shown in this tab, else opens it.
function M.toggle()
  return require('pi_lsp.chat').toggle(M.client())
end

function M.abort()
  require('pi_lsp.chat').abort(M.client())
end

--- Sets a goal from `/goal`'s arguments (`text [--check "cmd"] [--max-turns N]`); no
--- arguments: shows it.
function M.goal(args)
  require('pi_lsp.goal').run(M.client(), '/goal ' .. (args or ''))
end

function M.goal_stop()
  require('pi_lsp.goal').stop(M.client())
end

function M.tasks()
  return require('pi_lsp.tasks').open(M.client())
end

function M.jobs(id)
  if id and id ~= '' then
    return require('pi_lsp.jobs').open_job(M.client(), id)
  end
  return require('pi_lsp.jobs').open(M.client())
end

function M.tree()
  return require('pi_lsp.tree').open(M.client())
end

function M.rewind()
  return require('pi_lsp.rewind').pick(M.client())
end

function M.sessions(all)
  require('pi_lsp.pickers').sessions(M.client(), all)
end

function M.new_session()
  M.client():request('session/new', { cwd = M.client().cwd }, function(err, r)
    if err then
      return vim.notify('pi-lsp: session/new: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    vim.notify('pi-lsp: new session ' .. tostring(r.path), vim.log.levels.INFO)
  end)
end

function M.model(name)
  require('pi_lsp.pickers').model(M.client(), name)
end

function M.mode(id)
  require('pi_lsp.pickers').mode(M.client(), id)
end

function M.thinking(level)
  require('pi_lsp.pickers').thinking(M.client(), level)
end

function M.memory()
  require('pi_lsp.pickers').memory(M.client())
end

function M.compact(instructions)
  require('pi_lsp.pickers').compact(M.client(), instructions)
end

function M.pending()
  local n = require('pi_lsp.prompts').reopen()
  if n == 0 then
    vim.notify('pi-lsp: nothing pending', vim.log.levels.INFO)
  end
end

function M.restart()
  M.client():restart()
end

-- Command-line completion helpers (synchronous, short timeout).
local function complete_from(method, field, fmt)
  return function(lead)
    local c = require('pi_lsp.client').get(buffer_cwd(), false)
    if not c or not c.ready then
      return {}
    end
    local err, r = c:request_sync(method, nil, 1000)
    if err or type(r) ~= 'table' then
      return {}
    end
    local out = {}
    for _, x in ipairs(r[field] or {}) do
      local s = fmt(x)
      if s:sub(1, #lead) == lead then
        out[#out + 1] = s
      end
    end
    return out
  end
end

M.complete_model = complete_from('model/list', 'models', function(m)
  return tostring(m.provider) .. '/' .. tostring(m.id)
end)
M.complete_mode = complete_from('mode/list', 'modes', function(m)
  return tostring(m.id)
end)
function M.complete_thinking(lead)
  return vim.tbl_filter(function(l)
    return l:sub(1, #lead) == lead
  end, require('pi_lsp.pickers').thinking_levels)
end

return M
