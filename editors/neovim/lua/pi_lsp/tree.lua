-- :PiTree: the session tree in a float. The current branch is marked ('*', the leaf '>'),
-- labels are shown; <CR> navigates, f forks, L labels, s navigates with a branch summary.
local tree_render = require('pi_lsp.tree_render')
local util = require('pi_lsp.util')

local M = {}

-- Runs of up to this many entries are listed entry by entry; a longer run shows its first
-- entry, then one line standing for the rest (its id is the run's last entry).
M.chain_shown = 200

local function present(v)
  return v ~= nil and v ~= vim.NIL
end

--- Loads the whole tree from session/tree's flat pages (no answer nests: a 35k-turn chain is
--- one node with a `chain`) and builds {leafId=, roots=[node with children]} for tree_render.
--- cb(err, tree) runs once every page arrived.
function M.load(client, cb)
  local pending, failed = 0, nil
  local tree = { roots = {} }
  local function request(params, on_page)
    pending = pending + 1
    client:request('session/tree', params, function(err, page)
      pending = pending - 1
      if err then
        failed = failed or err
      elseif type(page) == 'table' then
        if present(page.leafId) then
          tree.leafId = page.leafId
        end
        on_page(page)
      end
      if pending == 0 then
        cb(failed, tree)
      end
    end)
  end
  local function node_of(n)
    return { id = n.id, parentId = n.parentId, type = n.type, role = n.role, preview = n.preview, label = n.label,
      onBranch = n.onBranch, childCount = n.childCount, children = {} }
  end
  local children_of
  -- Fills first.children with the rest of the run that starts at `first`, then what hangs below it.
  local function run_of(first, chain)
    local tail = first
    local function page(after)
      local params = { chain = first.id, limit = 1000 }
      if after then
        params.after = after
      end
      request(params, function(p)
        for i, n in ipairs(type(p.nodes) == 'table' and p.nodes or {}) do
          if not (i == 1 and n.id == first.id) then
            local node = node_of(n)
            tail.children = { node }
            tail = node
          end
        end
        if present(p.next) then
          page(p.next)
        elseif (chain.lastChildCount or 0) > 0 then
          children_of(chain.lastId, tail.children)
        end
      end)
    end
    page(nil)
  end
  function children_of(root, into, after)
    local params = { limit = 1000 }
    if root then
      params.root = root
    end
    if after then
      params.after = after
    end
    request(params, function(p)
      for _, n in ipairs(type(p.nodes) == 'table' and p.nodes or {}) do
        local first = node_of(n)
        into[#into + 1] = first
        local chain = n.chain
        if type(chain) == 'table' and chain.length <= M.chain_shown then
          run_of(first, chain)
        elseif type(chain) == 'table' then
          local gap = { id = chain.lastId, type = '…', preview = string.format('%d more entries', chain.length - 1),
            onBranch = n.onBranch, children = {} }
          first.children = { gap }
          if (chain.lastChildCount or 0) > 0 then
            children_of(chain.lastId, gap.children)
          end
        elseif (n.childCount or 0) > 0 then
          children_of(n.id, first.children)
        end
      end
      if present(p.next) then
        children_of(root, into, p.next)
      end
    end)
  end
  children_of(nil, tree.roots)
end

local function index_nodes(roots, into)
  local stack = {}
  for _, r in ipairs(type(roots) == 'table' and roots or {}) do
    stack[#stack + 1] = r
  end
  while #stack > 0 do
    local n = table.remove(stack)
    if type(n) == 'table' then
      if n.id then
        into[n.id] = n
      end
      for _, c in ipairs(type(n.children) == 'table' and n.children or {}) do
        stack[#stack + 1] = c
      end
    end
  end
  return into
end

local function report(what, err)
  vim.notify('pi-lsp: ' .. what .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
end

local function give_back(client, text)
  if type(text) == 'string' and text ~= '' then
    require('pi_lsp.chat').set_input(client, text)
    vim.notify('pi-lsp: the message is back in the chat input', vim.log.levels.INFO)
  end
end

--- The id of the session `client` shows (nil before the first frame).
function M.session_of(client)
  local st = client:display()
  local s = type(st) == 'table' and st.session or nil
  if type(s) ~= 'table' then
    return nil
  end
  return s.id or s.path
end

--- Opens the tree float of `client`. Returns the view {buf, win, ids, nodes, refresh}.
--- The tree float's key hints, one line, from the configured keys.
function M.hints(keys)
  local out = {}
  for _, kv in ipairs({
    { keys.tree_navigate, 'go here' },
    { keys.tree_fork, 'fork' },
    { keys.tree_summarize, 'go + summary' },
    { keys.tree_label, 'label' },
    { keys.tree_rewind, 'rewind' },
    { keys.tree_all, 'all' },
    { keys.tree_subagents, 'subagents' },
    { keys.tree_refresh, 'refresh' },
    { keys.close, 'close' },
  }) do
    if kv[1] then
      out[#out + 1] = kv[1] .. ' ' .. kv[2]
    end
  end
  return table.concat(out, ' · ')
end

function M.open(client)
  local keys = client.cfg.keymaps
  local buf = util.scratch(nil, 'pi_lsp_tree')
  util.set_lines(buf, { 'Loading the session tree...' })
  vim.bo[buf].modifiable = false
  local width = math.floor(vim.o.columns * 0.7)
  local win = util.float(buf, { string.rep(' ', width) }, { title = 'Session tree', height = math.floor(vim.o.lines * 0.6) })
  vim.wo[win].cursorline = true
  vim.wo[win].wrap = false
  local view = { buf = buf, win = win, ids = {}, nodes = {}, client = client }
  -- The session the tree shows: the server's (session/state answers after any open that came
  -- before), as the display state may still show the previous one for a moment.
  -- Until it answers, changes are only tracked.
  view.session = nil
  client:request('session/state', nil, function(err, st)
    if not err and type(st) == 'table' and (st.sessionId or st.path) then
      view.session = st.sessionId or st.path
    else
      view.session = M.session_of(client)
    end
  end)

  -- Another session (:PiSessions, :PiNew, a resume elsewhere) closes the float: it showed the
  -- old one's tree. Only a change away from the tree's session counts (a display catching up
  -- with an open that came before the tree does not). A change the tree itself asked for
  -- (fork, a subagent's session) is adopted and the tree reloads.
  local last_seen = M.session_of(client)
  local unsub
  unsub = client:subscribe(function(event)
    if event ~= 'state' then
      return
    end
    if not vim.api.nvim_win_is_valid(win) then
      unsub()
      return
    end
    local now = M.session_of(client)
    if now == nil or now == last_seen then
      return
    end
    local was = last_seen
    last_seen = now
    if view.session == nil or was ~= view.session then
      return
    end
    if view.adopt then
      view.adopt, view.session = false, now
      return
    end
    unsub()
    util.close_win(win)
    vim.notify('pi-lsp: the session changed; the tree closed (:PiTree opens the new one)', vim.log.levels.INFO)
  end)

  function view.refresh(cb)
    M.load(client, function(err, tree)
      if err then
        report('session/tree', err)
        return
      end
      if not vim.api.nvim_buf_is_valid(buf) then
        return
      end
      local lines, ids = tree_render.render(tree, { all = view.all })
      view.tree, view.ids, view.nodes = tree, ids, index_nodes(tree.roots, {})
      -- The keys, under the tree (a float has no statusline or footer on 0.7).
      lines = vim.list_extend(vim.list_slice(lines), { '', M.hints(keys) })
      util.set_lines(buf, lines)
      if vim.api.nvim_win_is_valid(win) then
        local max = math.max(3, math.floor(vim.o.lines * 0.6))
        pcall(vim.api.nvim_win_set_height, win, math.max(3, math.min(#lines, max)))
        for i, id in ipairs(ids) do
          if id ~= '' and id == tree.leafId then
            pcall(vim.api.nvim_win_set_cursor, win, { i, 0 })
          end
        end
      end
      if cb then
        cb(tree)
      end
    end)
  end

  --- The node under the cursor (or at line `lnum`).
  function view.node(lnum)
    lnum = lnum or vim.api.nvim_win_get_cursor(win)[1]
    local id = view.ids[lnum]
    return id and view.nodes[id]
  end

  function view.navigate(node, opts, cb)
    opts = opts or {}
    local params = { targetId = node.id, summarize = opts.summarize == true }
    if opts.instructions and opts.instructions ~= '' then
      params.customInstructions = opts.instructions
    end
    client:request('session/navigate', params, function(err, result)
      if err then
        report('session/navigate', err)
      else
        give_back(client, result.editorText)
      end
      view.refresh(cb)
    end)
  end

  function view.fork(node, cb)
    local is_user = node.type == 'message' and node.role == 'user'
    view.adopt = true
    client:request('session/fork', { entryId = node.id, at = not is_user }, function(err, result)
      if err then
        view.adopt = false
        report('session/fork', err)
      else
        vim.notify('pi-lsp: forked into ' .. tostring(result.path or result.sessionId), vim.log.levels.INFO)
        give_back(client, result.editorText)
      end
      view.refresh(cb)
    end)
  end

  function view.label(node, text, cb)
    client:request('session/label', { entryId = node.id, label = text }, function(err)
      if err then
        report('session/label', err)
      end
      view.refresh(cb)
    end)
  end

  --- Lists the sessions of the subagents the current session started (session/list with
  --- includeSubagents, by parentSession) and opens the one picked.
  function view.subagents(cb)
    client:request('session/state', nil, function(err, st)
      if err then
        report('session/state', err)
        return
      end
      client:request('session/list', { includeSubagents = true }, function(lerr, res)
        if lerr then
          report('session/list', lerr)
          return
        end
        local kids = {}
        for _, s in ipairs(res.sessions or {}) do
          if s.parentSession == st.path then
            kids[#kids + 1] = s
          end
        end
        if #kids == 0 then
          vim.notify('pi-lsp: this session started no subagents', vim.log.levels.INFO)
          return
        end
        vim.ui.select(kids, {
          prompt = 'Open subagent session',
          format_item = function(s)
            local first = require('pi_lsp.util').lines(s.firstMessage or '')[1] or ''
            return first .. '  (' .. tostring(s.path) .. ')'
          end,
        }, function(pick)
          if not pick then
            return
          end
          view.adopt = true
          client:request('session/open', { path = pick.path }, function(oerr)
            if oerr then
              view.adopt = false
              report('session/open', oerr)
            end
            view.refresh(cb)
          end)
        end)
      end)
    end)
  end

  local function with_node(fn)
    return function()
      local node = view.node()
      if node then
        fn(node)
      end
    end
  end

  util.map(buf, 'n', keys.tree_navigate, with_node(function(node)
    view.navigate(node)
  end), 'Navigate to this entry')
  util.map(buf, 'n', keys.tree_summarize, with_node(function(node)
    vim.ui.input({ prompt = 'Summary instructions (optional): ' }, function(text)
      if text ~= nil then
        view.navigate(node, { summarize = true, instructions = text })
      end
    end)
  end), 'Navigate here, summarizing the abandoned branch')
  util.map(buf, 'n', keys.tree_fork, with_node(function(node)
    view.fork(node)
  end), 'Fork a new session here')
  util.map(buf, 'n', keys.tree_rewind, with_node(function(node)
    require('pi_lsp.rewind').rewind(client, node.id, function()
      view.refresh()
    end)
  end), "Rewind: this entry's files (and conversation), with a preview")
  util.map(buf, 'n', keys.tree_label, with_node(function(node)
    local cur = node.label
    if cur == nil or cur == vim.NIL then
      cur = ''
    end
    vim.ui.input({ prompt = 'Label (empty clears): ', default = cur }, function(text)
      if text ~= nil then
        view.label(node, text)
      end
    end)
  end), 'Label this entry')
  util.map(buf, 'n', keys.tree_all, function()
    view.all = not view.all
    view.refresh()
  end, 'Show or hide bookkeeping entries')
  util.map(buf, 'n', keys.tree_subagents, function()
    view.subagents()
  end, "Open a subagent's session")
  util.map(buf, 'n', keys.tree_refresh, function()
    view.refresh()
  end, 'Refresh')
  util.map(buf, 'n', keys.close, function()
    util.close_win(win)
  end, 'Close')
  view.refresh()
  M.last = view
  return view
end

return M
