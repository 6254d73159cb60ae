-- :PiRewind and the tree's `r`: put the workspace's files (and the conversation) back as they
-- were at an entry. Picks a user message of the branch with vim.ui.select, shows what a
-- restore would change (session/rewindPreview), asks "code and conversation", "conversation
-- only" or "code only", and reloads the buffers of the files it changed.
local M = {}

local function report(method, err)
  vim.notify('pi-lsp: ' .. method .. ': ' .. tostring(err and err.message or err), vim.log.levels.ERROR)
end

local function first_line(s)
  return (tostring(s or ''):gsub('\n.*', ''))
end

--- Reloads the loaded, unmodified buffers of `paths`: relative to the client's cwd, or absolute
--- (the files of an extra workspace root, `--root`).
function M.reload(client, paths)
  for _, p in ipairs(paths or {}) do
    local abs = p:sub(1, 1) == '/' and p or (client.cwd .. '/' .. p)
    local buf = vim.fn.bufnr(abs)
    if buf > 0 and vim.api.nvim_buf_is_loaded(buf) then
      if vim.bo[buf].modified then
        vim.notify('pi-lsp: ' .. p .. ' has unsaved changes; not reloaded', vim.log.levels.WARN)
      else
        vim.api.nvim_buf_call(buf, function()
          vim.cmd('silent! edit!')
        end)
      end
    end
  end
end

local choices = {
  { id = 'both', label = 'Restore code and conversation' },
  { id = 'chat', label = 'Conversation only' },
  { id = 'code', label = 'Code only' },
}

--- What the user saw and chose, for tests.
M.last = nil

--- Rewinds to entry `id`: preview, choice, restore. `cb(result)` is called after.
function M.rewind(client, id, cb)
  client:request('session/rewindPreview', { targetId = id }, function(err, preview)
    if err then
      report('session/rewindPreview', err)
      return
    end
    local files = preview.files or {}
    local lines = {}
    for _, f in ipairs(files) do
      lines[#lines + 1] = string.format('  %-8s %s', f.change, f.path)
    end
    local prompt
    if #files == 0 then
      prompt = 'Rewind: no file would change'
    else
      prompt = 'Rewind: ' .. #files .. ' file(s) would change:\n' .. table.concat(lines, '\n') .. '\n'
    end
    M.last = { files = files, prompt = prompt }
    vim.ui.select(choices, {
      prompt = prompt,
      format_item = function(c)
        return c.label
      end,
    }, function(choice)
      if not choice then
        return
      end
      M.last.choice = choice.id
      local method, params = 'session/navigate', { targetId = id, files = 'restore' }
      if choice.id == 'chat' then
        params.files = 'keep'
      elseif choice.id == 'code' then
        method, params = 'session/restoreFiles', { targetId = id }
      end
      client:request(method, params, function(rerr, result)
        if rerr then
          report(method, rerr)
          return
        end
        local fr = result.files
        if fr then
          M.reload(client, fr.paths)
          local msg = string.format('pi-lsp: %d file(s) restored, %d deleted', fr.restored or 0, fr.deleted or 0)
          for _, f in ipairs(fr.failed or {}) do
            msg = msg .. '\n  could not write ' .. f.path .. ': ' .. f.error
          end
          vim.notify(msg, (fr.failed and #fr.failed > 0) and vim.log.levels.WARN or vim.log.levels.INFO)
        end
        if result.editorText and result.editorText ~= '' then
          pcall(function()
            require('pi_lsp.chat').set_input(client, result.editorText)
          end)
        end
        if cb then
          cb(result)
        end
      end)
    end)
  end)
end

--- :PiRewind: pick a user message of the current branch, then rewind to it.
function M.pick(client, cb)
  client:request('session/entries', { limit = 1000 }, function(err, res)
    if err then
      report('session/entries', err)
      return
    end
    local turns = {}
    for _, e in ipairs(res.entries or {}) do
      if e.type == 'message' and e.message and e.message.role == 'user' then
        local text = e.message.content
        if type(text) == 'table' then
          local parts = {}
          for _, b in ipairs(text) do
            if b.type == 'text' then
              parts[#parts + 1] = b.text
            end
          end
          text = table.concat(parts, ' ')
        end
        turns[#turns + 1] = { id = e.id, text = first_line(text) }
      end
    end
    if #turns == 0 then
      vim.notify('pi-lsp: no user message on this branch to rewind to', vim.log.levels.INFO)
      return
    end
    vim.ui.select(turns, {
      prompt = 'Rewind to before',
      format_item = function(t)
        return t.text
      end,
    }, function(turn)
      if turn then
        M.rewind(client, turn.id, cb)
      end
    end)
  end)
end

return M
