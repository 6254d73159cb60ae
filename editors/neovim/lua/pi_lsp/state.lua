-- Display state store: applies `display/state` frames (docs/protocol.md § Display) to a Lua
-- table. Pure Lua, no editor calls, so it is unit-tested directly.
local M = {}

local islist = vim.islist or vim.tbl_islist

-- The rules are Go's `display.Patch` (testdata/display-ops checks every client against it): a
-- path's elements must all exist (nothing is created on the way); a number names an element of
-- an array (JSON's 0-based index, which must exist: arrays grow by push only), a string a key of
-- an object. A JSON null is nil here, so a key set to null is gone.

-- Whether `t` can be an array (a list, or empty: vim.json decodes [] and {} alike).
local function is_array(t)
  return type(t) == 'table' and (next(t) == nil or islist(t))
end

-- Whether `t` can be an object.
local function is_object(t)
  return type(t) == 'table' and (next(t) == nil or not islist(t))
end

local function show(path, n)
  return table.concat(vim.tbl_map(tostring, { unpack(path, 1, n or #path) }), '.')
end

-- The Lua key of path element `k` in container `node`, or nil and an error when it names
-- nothing there.
local function key_in(node, k, path, i)
  if type(k) == 'number' then
    if not is_array(node) or k ~= math.floor(k) or k < 0 or k >= #node then
      return nil, 'array index out of range at ' .. show(path, i)
    end
    return k + 1
  end
  if type(k) ~= 'string' then
    return nil, 'path element must be a string or a number'
  end
  if not is_object(node) or (next(node) ~= nil and islist(node)) then
    return nil, 'object key on an array at ' .. show(path, i)
  end
  return k
end

-- Walks the first `n` elements of `path` from `root` and returns the table reached, or nil
-- and an error when a step is missing or not a table.
local function walk(root, path, n)
  local node = root
  for i = 1, n do
    local k, err = key_in(node, path[i], path, i)
    if not k then
      return nil, err
    end
    local child = node[k]
    if type(child) ~= 'table' then
      return nil, 'no ' .. show(path, i)
    end
    node = child
  end
  return node
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
  if not is_object(node) then
    return 'merge needs an object at ' .. show(op.path)
  end
  if not is_object(op.value) then
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

--- Applies one op to `root` in place. Returns nil, or an error string when the op does not fit
--- the state (the caller resyncs).
---@param root table
---@param op table {op=, path=, value=}
function M.apply_op(root, op)
  if op.op == 'merge' then
    return merge(root, op)
  end
  if type(op.path) ~= 'table' or #op.path == 0 then
    return 'empty path'
  end
  local parent, err = walk(root, op.path, #op.path - 1)
  if not parent then
    return err
  end
  local last = op.path[#op.path]
  local key
  key, err = key_in(parent, last, op.path, #op.path)
  if not key then
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
    if type(cur) ~= 'string' or type(op.value) ~= 'string' then
      return 'append needs a string at ' .. show(op.path) .. ' and a string value'
    end
    parent[key] = cur .. op.value
  elseif kind == 'push' then
    local arr = parent[key]
    if not is_array(arr) then
      return 'push needs an array at ' .. show(op.path)
    end
    arr[#arr + 1] = op.value == nil and vim.NIL or op.value
  elseif kind == 'delete' then
    if type(last) == 'number' then
      return 'delete names an object key, not an array element'
    end
    parent[key] = nil
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

--- A Store holds one DisplayState, the display stream it came in and its version. The sync
--- rules are docs/protocol.md's "Display streams" (testdata/display-sync checks them): a frame
--- of another stream discards what is held (a full state is the truth, ops wait for a
--- snapshot); within a stream a frame at or below the held version is stale, a full state too;
--- ops must follow the held version by one.
---@class PiStore
---@field state table|nil
---@field version integer
---@field stream string
---@field out_of_sync boolean
local Store = {}
Store.__index = Store

function M.new()
  return setmetatable({ state = nil, version = 0, stream = '', out_of_sync = false }, Store)
end

--- Whether the store holds a state in sync with its stream.
function Store:synced()
  return self.state ~= nil and not self.out_of_sync
end

--- Applies a `display/state` notification. Returns 'ok', 'resync' (a gap, a new stream or a bad
--- op: the caller must ask `display/snapshot`), or 'stale' (an old frame, ignored). With 'ok' of
--- an ops frame it also returns the set of top-level keys the ops touched (nil: anything may
--- have changed), so views can skip frames that do not concern them.
---@param frame table {stream=, version=, state=?|ops=?}
function Store:apply(frame)
  if type(frame) ~= 'table' or type(frame.version) ~= 'number' then
    return 'resync'
  end
  local fs = type(frame.stream) == 'string' and frame.stream or ''
  if self.stream ~= '' and fs ~= '' and fs ~= self.stream then
    -- A new stream (a restarted server, another owner): its versions do not compare with the
    -- held ones.
    self.stream = fs
    self.version = 0
    if frame.state == nil then
      self.out_of_sync = true
      return 'resync'
    end
  end
  if self.stream == '' then
    self.stream = fs
  end
  if frame.version <= self.version then
    return 'stale'
  end
  if frame.state ~= nil then
    self.state = frame.state
    self.version = frame.version
    self.out_of_sync = false
    return 'ok'
  end
  if self.state == nil or self.out_of_sync then
    return 'resync'
  end
  if frame.version ~= self.version + 1 then
    self.out_of_sync = true
    return 'resync'
  end
  local touched = {}
  for _, wire in ipairs(frame.ops or {}) do
    local op = M.decode_op(wire)
    if not op or M.apply_op(self.state, op) then
      self.out_of_sync = true
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

--- Replaces the state with a `display/snapshot` result asked while the store held stream
--- `asked`. A snapshot without a state is ignored, as is one of the held stream older than a
--- state in sync (a frame overtook the answer), or one of another stream while the held stream
--- changed since the request (it predates what is held). Returns whether it was taken.
function Store:reset(snapshot, asked)
  if type(snapshot) ~= 'table' or type(snapshot.state) ~= 'table' then
    return false
  end
  local v = tonumber(snapshot.version) or 0
  local ss = type(snapshot.stream) == 'string' and snapshot.stream or ''
  if ss ~= '' and self.stream ~= '' and ss ~= self.stream then
    if asked ~= nil and self.stream ~= asked then
      return false
    end
  elseif self:synced() and v < self.version then
    return false
  end
  self.state = snapshot.state
  self.version = v
  if ss ~= '' then
    self.stream = ss
  end
  self.out_of_sync = false
  return true
end

return M
