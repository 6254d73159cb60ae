-- Display state store: applies `display/state` frames (docs/protocol.md § Display) to a Lua
-- table. Pure Lua, no editor calls, so it is unit-tested directly.
local M = {}

-- A path element as a Lua key: JSON array indices are 0-based, Lua's are 1-based.
local function key_of(k)
  return type(k) == 'number' and k + 1 or k
end

-- Walks the first `n` elements of `path` from `root` and returns the table reached, or nil
-- and an error when a step is missing or not a table: such an op does not fit the state and
-- the caller resyncs, as every other client does (nothing is created on the way).
local function walk(root, path, n)
  local node = root
  for i = 1, n do
    local child = node[key_of(path[i])]
    if type(child) ~= 'table' then
      return nil, 'no ' .. table.concat(vim.tbl_map(tostring, { unpack(path, 1, i) }), '.')
    end
    node = child
  end
  return node
end

-- Returns the parent container of `path`'s last element and that element as a Lua key.
local function resolve(root, path)
  if type(path) ~= 'table' or #path == 0 then
    return nil, nil, 'empty path'
  end
  local node, err = walk(root, path, #path - 1)
  if not node then
    return nil, nil, err
  end
  local last = path[#path]
  if type(last) ~= 'number' and type(last) ~= 'string' then
    return nil, nil, 'path element must be a string or a number'
  end
  return node, key_of(last), nil, type(last) == 'number'
end

-- Sets each key of the object `op.value` in the object at `op.path` (the root when empty).
local function merge(root, op)
  if type(op.path) ~= 'table' then
    return 'merge needs a path'
  end
  local node, err = walk(root, op.path, #op.path)
  if not node then
    return err
  end
  if type(op.value) ~= 'table' or (#op.value > 0 and not next(op.value, #op.value)) then
    return 'merge needs an object value'
  end
  for k, v in pairs(op.value) do
    if v == vim.NIL then
      v = nil
    end
    node[k] = v
  end
  return nil
end

--- Applies one op to `root` in place. Returns nil, or an error string when the op is malformed.
---@param root table
---@param op table {op=, path=, value=}
function M.apply_op(root, op)
  if op.op == 'merge' then
    return merge(root, op)
  end
  local parent, key, err, is_index = resolve(root, op.path)
  if err then
    return err
  end
  local kind = op.op
  if kind == 'set' then
    local v = op.value
    if v == vim.NIL then
      v = nil
    end
    parent[key] = v
  elseif kind == 'append' then
    local cur = parent[key]
    if cur == nil or cur == vim.NIL then
      cur = ''
    end
    if type(cur) ~= 'string' then
      return 'append to a non-string at ' .. table.concat(vim.tbl_map(tostring, op.path), '.')
    end
    parent[key] = cur .. tostring(op.value or '')
  elseif kind == 'push' then
    local arr = parent[key]
    if type(arr) ~= 'table' then
      arr = {}
      parent[key] = arr
    end
    arr[#arr + 1] = op.value == nil and vim.NIL or op.value
  elseif kind == 'delete' then
    if is_index then
      table.remove(parent, key)
    else
      parent[key] = nil
    end
  else
    return 'unknown op ' .. tostring(kind)
  end
  return nil
end

local CODES = { s = 'set', a = 'append', p = 'push', d = 'delete', m = 'merge' }

--- Decodes an op from its wire form `[code, path, value]` (`[code, path]` for delete; codes
--- s/a/p/d/m for set/append/push/delete/merge). Returns the op table {op=, path=, value=}, or nil and
--- an error string.
---@param wire any
function M.decode_op(wire)
  if type(wire) ~= 'table' or #wire < 2 then
    return nil, 'an op is an array [code, path, value]'
  end
  local kind = CODES[wire[1]]
  if not kind then
    return nil, 'unknown op code ' .. tostring(wire[1])
  end
  local want = kind == 'delete' and 2 or 3
  if #wire ~= want then
    return nil, ('op %s needs %d elements, got %d'):format(wire[1], want, #wire)
  end
  if type(wire[2]) ~= 'table' then
    return nil, 'op path is not an array'
  end
  return { op = kind, path = wire[2], value = wire[3] }
end

--- A Store holds one DisplayState and its version.
---@class PiStore
---@field state table|nil
---@field version integer
local Store = {}
Store.__index = Store

function M.new()
  return setmetatable({ state = nil, version = 0 }, Store)
end

--- Applies a `display/state` notification. Returns 'ok', 'resync' (a gap or a bad op: the
--- caller must ask `display/snapshot`), or 'stale' (an old frame, ignored). With 'ok' of an
--- ops frame it also returns the set of top-level keys the ops touched (nil: anything may have
--- changed), so views can skip frames that do not concern them.
---@param frame table {version=, state=?|ops=?}
function Store:apply(frame)
  if type(frame) ~= 'table' or type(frame.version) ~= 'number' then
    return 'resync'
  end
  if frame.state ~= nil then
    self.state = frame.state
    self.version = frame.version
    return 'ok'
  end
  if self.state == nil then
    return 'resync'
  end
  if frame.version <= self.version then
    return 'stale'
  end
  if frame.version ~= self.version + 1 then
    return 'resync'
  end
  local touched = {}
  for _, wire in ipairs(frame.ops or {}) do
    local op = M.decode_op(wire)
    if not op or M.apply_op(self.state, op) then
      return 'resync'
    end
    if touched then
      if #op.path > 0 then
        touched[op.path[1]] = true
      elseif op.op == 'merge' then
        for k in pairs(op.value) do
          touched[k] = true
        end
      else
        touched = nil -- the whole state was replaced
      end
    end
  end
  self.version = frame.version
  return 'ok', touched
end

--- Replaces the state with a `display/snapshot` result. A snapshot without a state, or older
--- than what the store already holds (a frame overtook the answer), is ignored. Returns
--- whether it was taken.
function Store:reset(snapshot)
  if type(snapshot) ~= 'table' or type(snapshot.state) ~= 'table' then
    return false
  end
  local v = tonumber(snapshot.version) or 0
  if self.state ~= nil and v < self.version then
    return false
  end
  self.state = snapshot.state
  self.version = v
  return true
end

return M
