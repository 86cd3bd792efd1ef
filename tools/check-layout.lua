-- The layout rules of runtime/ (README.md, Layout; docs/architecture.md), checked by the ctest
-- `layout`:
--   1. every libhum source lives in a folder of runtime/src/ (src/ itself holds only the FFI
--      list hum_ffi.h), and no two headers share a name (includes name headers by basename);
--   2. no include circle: between header files, and between folders (folder F includes a
--      header of folder G);
--   3. no call circle: no two object files of libhum (nor two folders) use each other's
--      symbols, read from `nm` of the objects the build made;
--   4. the CLI (runtime/cli), the installed headers and the FFI's hum_ffi.h include only
--      installed headers (the CLI also its own) and system headers;
--   5. every file path an installed header cites exists in the repository.
-- Usage: luajit tools/check-layout.lua REPO_ROOT OBJECT_LIST_FILE
-- Prints each broken rule and exits 1; prints "layout: ok" and exits 0 otherwise.

local root, object_list = arg[1], arg[2]
if not root or not object_list then
  io.stderr:write("usage: luajit check-layout.lua REPO_ROOT OBJECT_LIST_FILE\n")
  os.exit(2)
end

local failures = {}
local function fail(fmt, ...) failures[#failures + 1] = string.format(fmt, ...) end

local function lines_of(cmd)
  local p = assert(io.popen(cmd))
  local out = {}
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return ks
end

-- Strongly connected components (Tarjan) of graph[node] = {succ = true}; returns those with
-- more than one node, or a node with an edge to itself, each as a sorted list.
local function circles(graph)
  local index, low, on, stack, out, n = {}, {}, {}, {}, {}, 0
  local function visit(v)
    n = n + 1
    index[v], low[v] = n, n
    stack[#stack + 1] = v
    on[v] = true
    for _, w in ipairs(sorted_keys(graph[v] or {})) do
      if not index[w] then
        visit(w)
        low[v] = math.min(low[v], low[w])
      elseif on[w] then
        low[v] = math.min(low[v], index[w])
      end
    end
    if low[v] == index[v] then
      local comp = {}
      repeat
        local w = table.remove(stack)
        on[w] = nil
        comp[#comp + 1] = w
      until w == v
      table.sort(comp)
      if #comp > 1 then out[#out + 1] = comp end
    end
  end
  for _, v in ipairs(sorted_keys(graph)) do
    if not index[v] then visit(v) end
  end
  return out
end

-- graph[a][b] holds why a depends on b (the first example found), for the message.
local function add_edge(graph, a, b, why)
  graph[a] = graph[a] or {}
  graph[b] = graph[b] or {}
  if a ~= b and not graph[a][b] then graph[a][b] = why or true end
end

-- "a -> b (why), b -> a (why)": the edges inside one circle.
local function explain(graph, comp)
  local inside, out = {}, {}
  for _, v in ipairs(comp) do inside[v] = true end
  for _, a in ipairs(comp) do
    for _, b in ipairs(sorted_keys(graph[a])) do
      if inside[b] then
        local why = graph[a][b]
        out[#out + 1] = a .. " -> " .. b .. (type(why) == "string" and " (" .. why .. ")" or "")
      end
    end
  end
  return table.concat(out, "; ")
end

local function quoted_includes(path)
  local out = {}
  for l in read(path):gmatch("[^\n]*") do
    local inc = l:match('^%s*#%s*include%s*"([^"]+)"')
    if inc then out[#out + 1] = inc end
  end
  return out
end

-- 1. Folders and header names -----------------------------------------------------------------
-- The .c and .h files under dir, relative to it, sorted.
local function sources_under(dir)
  return lines_of("cd '" .. dir .. "' && find . -type f \\( -name '*.c' -o -name '*.h' \\) | sed 's#^\\./##' | sort")
end

local src = root .. "/runtime/src"
local files = sources_under(src)
local header_at = {} -- basename -> path relative to src
local folder_of = {}
for _, f in ipairs(files) do
  local folder = f:match("^([^/]+)/[^/]+$")
  if folder then
    folder_of[f] = folder
  elseif f ~= "hum_ffi.h" then
    fail("runtime/src/%s: every libhum file belongs in a folder of runtime/src (README.md, Layout)", f)
  end
  local base = f:match("([^/]+%.h)$")
  if base then
    if header_at[base] then
      fail("runtime/src/%s and runtime/src/%s: two headers of one name", header_at[base], f)
    end
    header_at[base] = f
  end
end

-- 2. Include circles ---------------------------------------------------------------------------
local file_graph, folder_graph = {}, {}
for _, f in ipairs(files) do
  for _, inc in ipairs(quoted_includes(src .. "/" .. f)) do
    local target = header_at[inc:match("([^/]+)$")]
    if target and not inc:match("^hum/") then
      if f:match("%.h$") then add_edge(file_graph, f, target) end
      if folder_of[f] and folder_of[target] then
        add_edge(folder_graph, folder_of[f], folder_of[target], f .. " includes " .. inc)
      end
    end
  end
end
for _, c in ipairs(circles(file_graph)) do
  fail("include circle between headers: %s", explain(file_graph, c))
end
for _, c in ipairs(circles(folder_graph)) do
  fail("include circle between folders of runtime/src: %s", explain(folder_graph, c))
end

-- 3. Call circles, from the symbols of libhum's objects -----------------------------------------
local objects = {}
for l in read(object_list):gmatch("[^\n]+") do
  local rel = l:match("/hum_objects%.dir/src/(.+)%.c%.o$")
  if rel then objects[#objects + 1] = {path = l, name = rel} end
end
if #objects == 0 then fail("%s lists no object of runtime/src", object_list) end
local defined, uses = {}, {}
for _, o in ipairs(objects) do
  uses[o.name] = {}
  for _, l in ipairs(lines_of("nm '" .. o.path .. "'")) do
    local kind, sym = l:match("^%x+%s+([TDBRC])%s+(%S+)$")
    if sym then
      defined[sym] = o.name
    else
      sym = l:match("^%s+U%s+(%S+)$")
      if sym then uses[o.name][sym] = true end
    end
  end
end
local call_graph, call_folders = {}, {}
for name, syms in pairs(uses) do
  add_edge(call_graph, name, name)
  for sym in pairs(syms) do
    local owner = defined[sym]
    if owner and owner ~= name then
      add_edge(call_graph, name, owner, sym)
      local fa, fb = name:match("^([^/]+)/"), owner:match("^([^/]+)/")
      if fa and fb then add_edge(call_folders, fa, fb, name .. " uses " .. sym) end
    end
  end
end
for _, c in ipairs(circles(call_graph)) do
  fail("call circle between files of runtime/src: %s", explain(call_graph, c))
end
for _, c in ipairs(circles(call_folders)) do
  fail("call circle between folders of runtime/src: %s", explain(call_folders, c))
end

-- 4. What the CLI and the installed headers include --------------------------------------------
local include_dir = root .. "/runtime/include"
local installed = {}
for _, h in ipairs(lines_of("cd '" .. include_dir .. "' && find . -name '*.h' | sed 's#^\\./##' | sort")) do
  installed[h] = true
end
local function check_includes(dir, rel_prefix, own)
  for _, f in ipairs(sources_under(dir)) do
    for _, inc in ipairs(quoted_includes(dir .. "/" .. f)) do
      if not installed[inc] and not (own and exists(dir .. "/" .. inc)) then
        fail("%s%s includes \"%s\": only installed headers (runtime/include/hum/)%s", rel_prefix, f, inc,
          own and " and the CLI's own headers" or "")
      end
    end
  end
end
check_includes(root .. "/runtime/cli", "runtime/cli/", true)
check_includes(include_dir, "runtime/include/", false)
-- The FFI reads hum_ffi.h preprocessed: it must stay plain declarations over installed headers.
for _, inc in ipairs(quoted_includes(src .. "/hum_ffi.h")) do
  if not installed[inc] then
    fail("runtime/src/hum_ffi.h includes \"%s\": only installed headers (the FFI reads it)", inc)
  end
end

-- 5. Paths cited by the installed headers ------------------------------------------------------
local extensions = {c = 1, h = 1, cu = 1, cuh = 1, lua = 1, md = 1, py = 1, rs = 1, yaml = 1, txt = 1}
for h in pairs(installed) do
  local text = read(include_dir .. "/" .. h)
  for path in text:gmatch("[%w_%-%./%*]+%.%a+") do
    local ext = path:match("%.(%a+)$")
    local file_like = extensions[ext] and not path:match("^%.") and path:match("%a")
    if file_like and not path:find("/", 1, true) then
      -- a bare name cites a file of ours only when it is a doc, a kernel or a Lua file
      file_like = ext == "md" or ext == "cu" or ext == "cuh" or ext == "lua"
    end
    if file_like and not path:find("*", 1, true) then
      local found = exists(root .. "/" .. path) or exists(include_dir .. "/" .. path)
      if not found and path:find("/", 1, true) == nil then
        local cmd = "cd '" .. root .. "' && find . -path ./build -prune -o -name '" .. path .. "' -print | head -1"
        found = #lines_of(cmd) > 0
      end
      if not found then
        fail("runtime/include/%s cites %s, which is not in the repository", h, path)
      end
    end
  end
end

if #failures > 0 then
  for _, f in ipairs(failures) do io.stderr:write("layout: ", f, "\n") end
  io.stderr:write(string.format("layout: %d rule(s) broken\n", #failures))
  os.exit(1)
end
print("layout: ok")
