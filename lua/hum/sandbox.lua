-- Where policy files run. A policy file is trusted operator code with the host's privileges,
-- but it runs inside a serving process: whatever it does, it must not end that process, freeze
-- it, or change what hum or another file sees. So each file, on each load, gets
--   * a global table of its own: the base functions that cannot reach outside it, read-only
--     views of string, table, math, bit, coroutine and a few of os, and a `require` that
--     gives only those and the helper modules hum hands policies (no io, os.exit, os.execute,
--     ffi, debug, jit, load*, dofile, getfenv/setfenv, package, collectgarbage, newproxy);
--   * every call into it (the file's top level, applies, tunings, an error value's
--     __tostring) under a time limit: a count hook checks the thread's CPU clock every
--     HOOK_EVERY instructions. LuaJIT does not run hooks inside compiled traces, so the JIT is off for
--     every function of a policy file (jit.off(chunk, true)); hum's own code keeps it. And
--     under a memory limit: the runtime's allocator refuses what the call would use past it.
-- Whatever goes wrong in such a call comes back as HUM_ERR_POLICY naming the file, the line,
-- the function and, for a non-string error value, its type. The call's results are copied
-- into plain tables before the guard ends, so that no metamethod of the file runs afterwards
-- outside the limit.

local ffi = require("ffi")
local hum = require("hum")

local sandbox = {}

local native = package.loaded["hum.native"]

-- What one call into a policy file may use when the config does not say (docs/config.md,
-- policy_time_limit_ms and policy_memory_limit_mb): milliseconds of the calling thread's CPU time,
-- and MiB
-- of memory beyond what the Lua state used when the call began (enforced inside a runtime by
-- its allocator, lua_state.c; not outside one).
sandbox.DEFAULT_LIMITS = { time_ms = 1000, memory_mb = 256 }

-- The limits `given` sets ({time_ms =, memory_mb =}; nil or 0 fields: the default).
function sandbox.limits(given)
  local limits = {}
  for k, default in pairs(sandbox.DEFAULT_LIMITS) do
    local v = given and given[k]
    limits[k] = (v == nil or v == 0) and default or v
  end
  return limits
end

local HOOK_EVERY = 100

-- Pattern matching runs inside one C call, where the time limit's hook never fires, and a Lua
-- pattern backtracks: q repeated items (x*, x+, x-) may split n characters C(n + q, q) ways, and
-- each optional one (x?) doubles the trials, at each of n + 1 starts (one where the pattern is
-- anchored), each trial walking the pattern's m characters, and a %b item scans up to n more
-- (string.rep("a", 26):find(
-- string.rep("a*", 26) .. "c") never ends). So string.find, match, gmatch and gsub called from a
-- policy file refuse a pattern whose bound passes PATTERN_STEPS (a few seconds of matching at
-- most); a plain find is bounded by n x m alone. hum's own code (its modules, which a policy call
-- may run, e.g. hum.policy.below) keeps the plain functions: the guard looks at the first Lua
-- function up the stack, and only a policy file's, or this file's (a policy's tail call leaves
-- the sandbox's frame there), is guarded. It sits in the string table itself, which strings'
-- methods index.
local PATTERN_STEPS = 1e9
local policy_calls = 0 -- calls into policy files running (call): outside them, no stack walk
local guarded_sources = {} -- debug.getinfo's source of each policy file's chunk, and this file's
guarded_sources[debug.getinfo(1, "S").source] = true

local raw_sub = string.sub

-- The bound of matching pattern p on n characters (plain: a find without pattern items; a '^'
-- anchors all but gmatch, which tries every start).
local function pattern_steps(p, n, plain, anchors)
  local m = #p
  if plain then return (n + 1) * (m + 1) end
  local q, optional, i, item, scans = 0, 0, 1, false, 1
  while i <= m do
    local c = raw_sub(p, i, i)
    if c == "%" then
      local k = raw_sub(p, i + 1, i + 1)
      if k == "b" then scans, i, item = n + 1, i + 4, false
      elseif k == "f" then
        i = i + 2 -- a frontier's set follows
        item = false
      else i, item = i + 2, true end
    elseif c == "[" then
      i = i + 1
      if raw_sub(p, i, i) == "^" then i = i + 1 end
      if raw_sub(p, i, i) == "]" then i = i + 1 end
      while i <= m and raw_sub(p, i, i) ~= "]" do
        i = i + (raw_sub(p, i, i) == "%" and 2 or 1)
      end
      i, item = i + 1, true
    elseif item and (c == "*" or c == "+" or c == "-") then
      q, i, item = q + 1, i + 1, false
    elseif item and c == "?" then
      optional, i, item = optional + 1, i + 1, false
    else
      i, item = i + 1, c ~= "(" and c ~= ")" and not (c == "^" and i == 1) and c ~= "$"
    end
  end
  local steps = (anchors and raw_sub(p, 1, 1) == "^" and 1 or n + 1) * (m + 1) * scans * 2 ^ optional
  for j = 1, q do steps = steps * (n + j) / j end -- times C(n + q, q)
  return steps, q + optional
end

-- Whether the function calling a string function (level 3 from here) is a policy file's: the first
-- Lua function up the stack decides.
local function from_policy()
  for level = 3, 200 do
    local info = debug.getinfo(level, "S")
    if not info then return false end
    if info.what ~= "C" then return guarded_sources[info.source] == true end
  end
  return false
end

for _, name in ipairs({ "find", "match", "gmatch", "gsub" }) do
  local fn = string[name]
  string[name] = function(s, pattern, init, plain, ...)
    if policy_calls > 0 and from_policy() then
      local subject = type(s) == "number" and tostring(s) or s
      local pat = type(pattern) == "number" and tostring(pattern) or pattern
      if type(subject) == "string" and type(pat) == "string" then
        local steps, q = pattern_steps(pat, #subject, name == "find" and plain, name ~= "gmatch")
        if steps > PATTERN_STEPS then
          error(string.format("string.%s: this pattern (%d repeated or optional items, %d characters) over %d "
            .. "characters may "
            .. "take about %.0e matching steps in one call, which the time limit cannot stop (a policy call "
            .. "allows %.0e): match a shorter string or a simpler pattern", name, q, #pat, #subject, steps,
            PATTERN_STEPS), 0)
        end
      end
    end
    return fn(s, pattern, init, plain, ...)
  end
end

-- Captured when hum starts, so that nothing a file does later changes what the next one gets.
local BASE = {}
for _, name in ipairs({ "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawset",
                        "select", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall" }) do
  BASE[name] = _G[name]
end

local LIBRARIES = {}
for lib, names in pairs({
  string = { "byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "rep", "reverse", "sub",
             "upper" },
  table = { "concat", "insert", "maxn", "remove", "sort" },
  math = { "abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "deg", "exp", "floor", "fmod", "frexp",
           "huge", "ldexp", "log", "log10", "max", "min", "modf", "pi", "pow", "rad", "sin", "sinh", "sqrt", "tan",
           "tanh" },
  bit = { "arshift", "band", "bnot", "bor", "bswap", "bxor", "lshift", "rol", "ror", "rshift", "tobit", "tohex" },
  coroutine = { "create", "resume", "running", "status", "wrap", "yield" },
  os = { "getenv" },
}) do
  local src = lib == "bit" and require("bit") or _G[lib]
  LIBRARIES[lib] = {}
  for _, name in ipairs(names) do LIBRARIES[lib][name] = src[name] end
end

-- Names a policy may look for and not find, with why.
local WITHHELD =
  "is not available to policy files (they run sandboxed: docs/policies.md, \"What a policy file can do\")"
local WITHHELD_GLOBALS = {
  io = true, debug = true, jit = true, ffi = true, package = true, load = true, loadstring = true, loadfile = true,
  dofile = true, getfenv = true, setfenv = true, module = true, collectgarbage = true, newproxy = true, gcinfo = true,
}
local WITHHELD_FIELDS = {
  -- the clock too: a table depends on the device, the layer and the config (the environment among
  -- its inputs), never on when it was asked for, or by chance (math.random)
  os = { exit = true, execute = true, remove = true, rename = true, tmpname = true, setlocale = true, clock = true,
         date = true, difftime = true, time = true },
  string = { dump = true },
  math = { random = true, randomseed = true },
}

local function describe_key(k)
  return type(k) == "string" and ("'" .. k .. "'") or ("a key of type " .. type(k))
end

-- A read-only view of `fields` named `name` ("string", "hum.policy"), fresh for each file.
local function view(name, fields)
  local withheld = WITHHELD_FIELDS[name] or {}
  return setmetatable({}, {
    __index = function(_, k)
      local v = fields[k]
      if v == nil and withheld[k] then error(name .. "." .. k .. " " .. WITHHELD, 2) end
      return v
    end,
    __newindex = function(_, k)
      error(string.format("%s is read-only in a policy file (assigning %s)", name, describe_key(k)), 2)
    end,
    __metatable = false,
  })
end

-- A fresh global table for the policy file `origin`. `modules` maps the names its `require`
-- may give beyond the libraries ("hum.policy") to tables of functions, shown read-only.
function sandbox.env(origin, modules)
  local env, libs = {}, {}
  for name, fn in pairs(BASE) do env[name] = fn end
  for lib, fields in pairs(LIBRARIES) do
    libs[lib] = view(lib, fields)
    env[lib] = libs[lib]
  end
  for name, fields in pairs(modules) do libs[name] = view(name, fields) end
  local allowed = {}
  for name in pairs(libs) do allowed[#allowed + 1] = name end
  table.sort(allowed)
  -- Strings share one metatable whose __index is hum's own string table.
  env.getmetatable = function(v)
    if type(v) == "string" then return nil end
    return getmetatable(v)
  end
  env.require = function(name)
    local m = libs[name]
    if m == nil then
      error(string.format("require(%s): a policy file may require only %s", describe_key(name),
        table.concat(allowed, ", ")), 2)
    end
    return m
  end
  env.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    hum.log("info", origin .. ": " .. table.concat(parts, "\t"))
  end
  env._G = env
  env._VERSION = _VERSION
  return setmetatable(env, {
    __index = function(_, k)
      if WITHHELD_GLOBALS[k] then error(tostring(k) .. " " .. WITHHELD, 2) end
    end,
  })
end

-- Compiles the policy file `origin` into a function that runs it in a fresh environment
-- (sandbox.env), with the JIT off for it and every function it defines.
function sandbox.load(text, origin, modules)
  local chunk = hum.load_chunk(text, origin, sandbox.env(origin, modules))
  jit.off(chunk, true)
  guarded_sources[debug.getinfo(chunk, "S").source] = true
  return chunk
end

ffi.cdef [[
typedef struct hum_sandbox_timespec { long tv_sec; long tv_nsec; } hum_sandbox_timespec;
int clock_gettime(int clock_id, hum_sandbox_timespec *ts);
]]
-- The time limit's clock: the calling thread's CPU time (Linux's CLOCK_THREAD_CPUTIME_ID), so
-- that a loaded host (the serving threads, other processes) does not stop a policy that would
-- finish, while one that loops is stopped after this much of its own work: on the wall clock, a
-- test's 50 ms limit stopped the embedded sm75.lua's top level on two cores shared by sixteen
-- test processes and eight busy loops. A policy call cannot wait on anything (no io; of os,
-- getenv alone), so its CPU time is its running time.
local CLOCK_THREAD_CPUTIME_ID = 3
local ts = ffi.new("hum_sandbox_timespec")

local function now_ms()
  ffi.C.clock_gettime(CLOCK_THREAD_CPUTIME_ID, ts)
  return tonumber(ts.tv_sec) * 1e3 + tonumber(ts.tv_nsec) * 1e-6
end

-- A copy of `v` with no metatables (tables are walked with next, so no metamethod runs);
-- shared and cyclic tables stay shared and cyclic.
local function plain(v, seen)
  if type(v) ~= "table" then return v end
  if seen[v] then return seen[v] end
  local c = {}
  seen[v] = c
  for k, x in next, v do c[plain(k, seen)] = plain(x, seen) end
  return c
end

local call

-- What an error value says, without running anything of the file outside a guard.
local function describe(e, origin, limits)
  if type(e) == "string" then return hum.fix_location(e) end
  if type(e) == "number" then return tostring(e) .. " (an error value of type number)" end
  if hum.is_error(e) then return rawget(e, "message") end
  if e == nil then return "an error value of type nil (error() without a message)" end
  local what = "an error value of type " .. type(e)
  local mt = debug.getmetatable(e)
  if type(mt) == "table" and rawget(mt, "__tostring") ~= nil then
    local ok, s = pcall(call, origin, "the error value's __tostring", limits, tostring, e)
    if not ok then return what .. ", whose __tostring failed: " .. hum.message(s) end
    if type(s) ~= "string" then return what .. ", whose __tostring returned a " .. type(s) end
    return what .. ": " .. s
  end
  return what
end

-- Runs fn(...) from the policy file `origin` under `limits` (sandbox.limits) and returns its
-- results as plain data. `what` names the call in messages ("tunings(device, layer,
-- overrides)"). Any failure raises HUM_ERR_POLICY: "origin:line: message", the line being
-- the innermost of the file on the stack when the error was raised.
function call(origin, what, limits, fn, ...)
  local args = { n = select("#", ...), ... }
  local source = "@" .. origin
  local deadline = now_ms() + limits.time_ms
  local expired, line = false, nil
  local guarded, handler, hook
  guarded = function()
    local r = { n = 0 }
    local function collect(...)
      r.n = select("#", ...)
      local seen = {}
      for i = 1, r.n do r[i] = plain((select(i, ...)), seen) end
    end
    collect(fn(unpack(args, 1, args.n)))
    return r
  end
  handler = function(e)
    local level = 2
    local info = debug.getinfo(level, "Sl")
    while info and info.source ~= source do
      level = level + 1
      info = debug.getinfo(level, "Sl")
    end
    line = info and info.currentline
    return e
  end
  hook = function()
    if not expired then
      if now_ms() <= deadline then return end
      expired = true
      -- From now on every instruction raises, so a pcall in the file cannot swallow the stop.
      debug.sethook(hook, "", 1)
    end
    local running = debug.getinfo(2, "f")
    if running and (running.func == call or running.func == handler) then return end
    error("policy time limit", 0)
  end
  local outer_hook, outer_mask, outer_count = debug.gethook()
  local outer_memory = native and native.memory_guard(limits.memory_mb * 1048576)
  debug.sethook(hook, "", HOOK_EVERY)
  policy_calls = policy_calls + 1
  local ok, r = xpcall(guarded, handler)
  policy_calls = policy_calls - 1
  local refused = native and native.memory_release(outer_memory)
  if outer_hook then debug.sethook(outer_hook, outer_mask, outer_count) else debug.sethook() end
  if ok then return unpack(r, 1, r.n) end
  local where = line and (origin .. ":" .. line) or origin
  local msg
  if refused then
    msg = string.format("%s used more than %d MiB, the policy memory limit (policy_memory_limit_mb)", what,
      limits.memory_mb)
  elseif expired then
    msg = string.format("%s ran past the policy time limit of %d ms (policy_time_limit_ms)", what, limits.time_ms)
  else
    msg = describe(r, origin, limits)
    if msg:sub(1, #origin + 1) == origin .. ":" then
      msg = msg .. " (in " .. what .. ")"
    else
      msg = what .. ": " .. msg
    end
  end
  if msg:sub(1, #origin + 1) ~= origin .. ":" then msg = where .. ": " .. msg end
  hum.fail("HUM_ERR_POLICY", msg, 0)
end
sandbox.call = call

return sandbox
