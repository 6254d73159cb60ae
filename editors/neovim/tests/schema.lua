-- Validates received messages against protocol/protocol.schema.json, the JSON Schema generated
-- from the Go package protocol (`go generate ./protocol`). It implements the keywords the
-- generator writes: $ref into $defs, type, properties, required, additionalProperties, items,
-- prefixItems, minItems, maxItems, enum and anyOf. Lua cannot tell [] from {}, and Neovim's
-- LSP client decodes an object's null members as absent, so an empty table is both an array
-- and an object and a missing member that may be null is accepted.
local S = {}

local islist = vim.islist or vim.tbl_islist

local function root()
  local dir = vim.fn.getcwd()
  while dir ~= '/' do
    if vim.fn.filereadable(dir .. '/protocol/protocol.schema.json') == 1 then
      return dir
    end
    dir = vim.fn.fnamemodify(dir, ':h')
  end
  error('protocol/protocol.schema.json not found above ' .. vim.fn.getcwd())
end

local f = assert(io.open(root() .. '/protocol/protocol.schema.json', 'r'))
local schema = vim.json.decode(f:read('*a'))
f:close()
S.schema = schema

local function deref(s)
  while type(s) == 'table' and s['$ref'] do
    s = schema['$defs'][s['$ref']:gsub('^#/%$defs/', '')]
  end
  return s
end

local function types_of(v)
  if v == nil or v == vim.NIL then
    return { null = true }
  end
  local t = type(v)
  if t == 'string' then
    return { string = true }
  elseif t == 'boolean' then
    return { boolean = true }
  elseif t == 'number' then
    return { number = true, integer = v == math.floor(v) }
  elseif t == 'table' then
    if next(v) == nil then
      return { array = true, object = true }
    end
    return islist(v) and { array = true } or { object = true }
  end
  return { [t] = true }
end

local function nullable(s)
  s = deref(s)
  if type(s) ~= 'table' or next(s) == nil then
    return true
  end
  if s.anyOf then
    for _, b in ipairs(s.anyOf) do
      if nullable(b) then
        return true
      end
    end
  end
  local ty = s.type
  if type(ty) == 'table' then
    return vim.tbl_contains(ty, 'null')
  end
  return ty == 'null'
end

local check

check = function(s, v, at, errs)
  s = deref(s)
  if s == nil then
    errs[#errs + 1] = at .. ': unknown $ref'
    return
  end
  if s.anyOf then
    local firsts = {}
    for _, b in ipairs(s.anyOf) do
      local e = {}
      check(b, v, at, e)
      if #e == 0 then
        return
      end
      firsts[#firsts + 1] = e[1]
    end
    errs[#errs + 1] = at .. ': matches none of its shapes (' .. table.concat(firsts, ' | ') .. ')'
    return
  end
  if s.enum and not vim.tbl_contains(s.enum, v) then
    errs[#errs + 1] = at .. ': ' .. vim.inspect(v) .. ' is not one of ' .. table.concat(s.enum, ', ')
  end
  local have = types_of(v)
  if s.type then
    local want = type(s.type) == 'table' and s.type or { s.type }
    local ok = false
    for _, w in ipairs(want) do
      if have[w] or (w == 'number' and have.integer) then
        ok = true
      end
    end
    if not ok then
      errs[#errs + 1] = at .. ': ' .. vim.inspect(v):sub(1, 60) .. ', want ' .. table.concat(want, '|')
      return
    end
  end
  if have.object and type(v) == 'table' then
    for _, r in ipairs(s.required or {}) do
      if v[r] == nil and not (s.properties and nullable(s.properties[r])) then
        errs[#errs + 1] = at .. ': missing ' .. r
      end
    end
    for k, x in pairs(v) do
      if type(k) == 'string' then
        if s.properties and s.properties[k] then
          check(s.properties[k], x, at .. '.' .. k, errs)
        elseif s.additionalProperties == false then
          errs[#errs + 1] = at .. ': unknown member ' .. k
        elseif type(s.additionalProperties) == 'table' then
          check(s.additionalProperties, x, at .. '.' .. k, errs)
        end
      end
    end
  end
  if have.array and type(v) == 'table' then
    if s.minItems and #v < s.minItems then
      errs[#errs + 1] = at .. ': too few items'
    end
    if s.maxItems and #v > s.maxItems then
      errs[#errs + 1] = at .. ': too many items'
    end
    for i, x in ipairs(v) do
      local p = (s.prefixItems and s.prefixItems[i]) or s.items
      if p then
        check(p, x, ('%s[%d]'):format(at, i - 1), errs)
      end
    end
  end
end

--- The ways `value` does not fit the generated type `name` (empty when it fits).
function S.validate(name, value)
  if not schema['$defs'][name] then
    return { 'no type ' .. name .. ' in the schema' }
  end
  local errs = {}
  check({ ['$ref'] = '#/$defs/' .. name }, value, name, errs)
  return errs
end

return S
