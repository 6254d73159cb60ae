-- :checkhealth pi_lsp — the binary, its version, the models configured and their auth.
-- Works with Neovim 0.7's health#report_* and with vim.health (0.9+).
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  local old = require('health')
  return { start = old.report_start, ok = old.report_ok, warn = old.report_warn, error = old.report_error, info = old.report_info }
end

function M.check()
  local r = reporter()
  local pi = require('pi_lsp')
  local cfg = pi.config()
  r.start('pi_lsp')

  if vim.fn.has('nvim-0.7') == 1 then
    local v = vim.version()
    r.ok(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))
  else
    r.error('Neovim 0.7 or newer is needed')
  end

  local bin = cfg.cmd and cfg.cmd[1]
  local path = bin and vim.fn.exepath(bin) or ''
  if path == '' then
    r.error(string.format('pi-lsp binary not found: %s', tostring(bin)), {
      'Install it (go install github.com/pi-lsp/pi-lsp/cmd/pi-lsp@latest) or set cmd in setup{}',
    })
    return
  end
  r.ok('binary: ' .. path)

  local clients = require('pi_lsp.client')
  local cwd = clients.normalize((vim.uv or vim.loop).cwd())
  local c = clients.get(cwd, false)
  local temporary = false
  if not c or not c.ready then
    c = clients.Client.new(cwd, cfg)
    temporary = true
    if not c:start() then
      r.error('could not start pi-lsp: ' .. tostring(c.error))
      return
    end
  end
  local err, models = c:request_sync('model/list', nil, 10000)
  if c.info and type(c.info.serverInfo) == 'table' then
    r.ok(string.format('server: %s %s', tostring(c.info.serverInfo.name), tostring(c.info.serverInfo.version)))
  else
    r.error('pi-lsp did not answer initialize: ' .. tostring(c.error or c.last_rpc_error or 'no answer'))
  end
  if err then
    r.error('model/list failed: ' .. tostring(err.message or vim.inspect(err)))
  else
    local list = type(models) == 'table' and models.models or {}
    if #list == 0 then
      r.error('no models configured', {
        'Write ~/.pi/agent/models.json (pi format) or point $PI_LSP_MODELS at one',
      })
    else
      r.ok(string.format('%d model(s) configured; current: %s', #list, tostring(models.current)))
      local missing = {}
      local current_ok = nil
      for _, m in ipairs(list) do
        local id = tostring(m.provider) .. '/' .. tostring(m.id)
        if m.authenticated == false then
          missing[#missing + 1] = id
        end
        if id == models.current then
          current_ok = m.authenticated ~= false
        end
      end
      if current_ok == false then
        r.error('auth: no credentials for the current model ' .. tostring(models.current), {
          'Set the API key environment variable of its provider (see models.json)',
        })
      elseif current_ok == true then
        r.ok('auth: credentials found for ' .. tostring(models.current))
      else
        r.warn('auth: no current model; pick one with :PiModel or setup{ model = ... }')
      end
      if #missing > 0 then
        local shown = vim.list_slice(missing, 1, 5)
        r.info(string.format('%d other model(s) without credentials: %s%s', #missing, table.concat(shown, ', '), #missing > 5 and ', ...' or ''))
      end
    end
  end
  if temporary then
    c:stop()
  end
end

return M
