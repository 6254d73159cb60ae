-- The shared test corpora (testdata/display-ops, testdata/display-sync): finding the folder above
-- the working directory, reading a case, and dropping JSON nulls (nil in the store) before a
-- comparison. Loaded by the corpus specs with dofile.
local C = {}

-- The sorted JSON files of testdata/<name>, found above the working directory.
function C.files(name)
  local dir = vim.fn.getcwd()
  while dir ~= '/' do
    local c = dir .. '/testdata/' .. name
    if vim.fn.isdirectory(c) == 1 then
      local files = vim.fn.glob(c .. '/*.json', false, true)
      table.sort(files)
      return files
    end
    dir = vim.fn.fnamemodify(dir, ':h')
  end
  error('testdata/' .. name .. ' not found above ' .. vim.fn.getcwd())
end

function C.drop_nulls(v)
  if type(v) ~= 'table' then
    return v
  end
  local out = {}
  for k, x in pairs(v) do
    if not (type(k) == 'string' and x == vim.NIL) then
      out[k] = C.drop_nulls(x)
    end
  end
  return out
end

function C.read(path)
  local f = assert(io.open(path, 'r'))
  local s = f:read('*a')
  f:close()
  return vim.json.decode(s)
end

return C
