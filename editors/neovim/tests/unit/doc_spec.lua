local t = ...

local function read(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local help = read('doc/pi_lsp.txt')

t.test('every command has a help tag', function()
  local plugin = read('plugin/pi_lsp.lua')
  local n = 0
  for name in plugin:gmatch("cmd%('(Pi%w+)'") do
    n = n + 1
    t.ok(help:find('*:' .. name .. '*', 1, true), ':' .. name .. ' is not documented')
  end
  t.ok(n >= 12, 'commands found: ' .. n)
end)

t.test('every option and keymap is documented', function()
  local defaults = require('pi_lsp.config').defaults
  for k in pairs(defaults) do
    if k ~= 'keymaps' and k ~= 'chat' then
      t.ok(help:find('\n' .. k .. ' ', 1, true), 'option ' .. k .. ' is not documented')
    end
  end
  for k in pairs(defaults.chat) do
    t.ok(help:find('chat.' .. k, 1, true), 'option chat.' .. k .. ' is not documented')
  end
  for k in pairs(defaults.keymaps) do
    t.ok(help:find('`keymaps.' .. k .. '`', 1, true), 'keymaps.' .. k .. ' is not documented')
  end
end)

t.test('helptags accepts the help file', function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  vim.fn.writefile(vim.split(help, '\n', { plain = true }), dir .. '/pi_lsp.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(dir))
  local tags = vim.fn.readfile(dir .. '/tags')
  t.ok(#tags > 20, 'tags: ' .. #tags)
  -- doc/tags ships (so :help works with a plain rtp+=) and must match the help file:
  -- regenerate it with `nvim --headless -u NONE -c 'helptags doc' -c q`.
  local shipped = vim.fn.filereadable('doc/tags') == 1 and vim.fn.readfile('doc/tags') or {}
  t.eq(table.concat(shipped, '\n'), table.concat(tags, '\n'), 'doc/tags is stale or missing')
end)
