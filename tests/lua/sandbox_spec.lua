-- lua/hum/sandbox.lua through policy.load: what a policy file cannot reach (os.exit, io, ffi,
-- debug, load, bytecode), that files share nothing with each other or with hum, the time limit
-- on every call into a file (tight loops, loops behind pcall, coroutines, metamethods, an error
-- value's __tostring) and the message of every kind of error value.
local policy = require("hum.policy")
local hum = require("hum")

local LIMIT_MS = 50
local LIMITS = { time_ms = LIMIT_MS }

local function source(origin, text) return { origin = origin, text = text, layer = "site" } end

local TUNING = "{ block_m = 16, block_n = 128, block_k = 64, warp_m = 16, warp_n = 32, warp_k = 64, stages = 3, "
  .. "stream_k = true, ctas_per_sm = 1 }"

-- A policy file: `top` runs at its top level, `applies` and `tunings` are bodies of those
-- functions (defaults: applies to all, one range of a valid tuning).
local function file(t)
  return string.format([[
%s
return {
  name = %q,
  applies = function(device) %s end,
  tunings = function(device, layer, overrides)
    %s
  end,
}
]], t.top or "", t.name or "p", t.applies or "return true",
    t.tunings or ("return { { m_min = 1, m_max = math.huge, tuning = " .. TUNING .. " } }"))
end

local function device(sm) return { name = "test sm_" .. sm, sm = sm, sm_count = 100 } end

-- Runs f, expecting HUM_ERR_POLICY; returns its message.
local function policy_error(f)
  local ok, err = pcall(f)
  assert.is_false(ok, "expected an error")
  assert.is_true(hum.is_error(err), "expected a hum error object, got " .. type(err))
  assert.are.equal(hum.status("HUM_ERR_POLICY"), err.status)
  return err.message
end

local function load_fails(text, origin)
  return policy_error(function() policy.load({ source(origin or "/site/x.lua", text) }, {}, LIMITS) end)
end

local function tunings_fail(text, sm)
  policy.load({ source("/site/x.lua", text) }, {}, LIMITS)
  return policy_error(function() policy.tunings(device(sm or 90), { n = 4096, k = 4096 }) end)
end

describe("a policy file cannot reach", function()
  local cases = {
    { "os.exit(0)", "/site/x.lua:1: os.exit is not available to policy files" },
    { "os.execute('true')", "/site/x.lua:1: os.execute is not available" },
    { "local f = io.open('/etc/passwd')", "/site/x.lua:1: io is not available" },
    { "require('ffi')", "/site/x.lua:1: require('ffi'): a policy file may require only bit, coroutine, hum.policy" },
    { "require('hum')", "a policy file may require only" },
    { "require('io')", "a policy file may require only" },
    { "debug.sethook()", "/site/x.lua:1: debug is not available" },
    { "jit.on()", "/site/x.lua:1: jit is not available" },
    { "load('return 1')", "/site/x.lua:1: load is not available" },
    { "loadstring('return 1')", "/site/x.lua:1: loadstring is not available" },
    { "dofile('/etc/hum/x.lua')", "/site/x.lua:1: dofile is not available" },
    { "getfenv(0).x = 1", "/site/x.lua:1: getfenv is not available" },
    { "setfenv(1, {})", "/site/x.lua:1: setfenv is not available" },
    { "collectgarbage('stop')", "/site/x.lua:1: collectgarbage is not available" },
    { "newproxy(true)", "/site/x.lua:1: newproxy is not available" },
    { "string.dump(print)", "/site/x.lua:1: string.dump is not available" },
    { "math.randomseed(1)", "/site/x.lua:1: math.randomseed is not available" },
    { "local t = os.time()", "/site/x.lua:1: os.time is not available" },
    { "local t = os.clock()", "/site/x.lua:1: os.clock is not available" },
    { "local t = os.date()", "/site/x.lua:1: os.date is not available" },
    { "package.loaded.x = 1", "/site/x.lua:1: package is not available" },
  }
  -- Were the file to reach the host's os.exit, busted would end with the file's status, 0 among
  -- them; this one makes that a failure instead.
  local host_exit
  before_each(function()
    host_exit = os.exit
    os.exit = function() error("the policy file reached the host's os.exit") end
  end)
  after_each(function() os.exit = host_exit end)

  for _, case in ipairs(cases) do
    it(case[1], function()
      assert.matches(case[2], load_fails(file({ top = case[1] })), 1, true)
    end)
  end

  it("os.exit from tunings: the call fails and the process goes on", function()
    local msg = tunings_fail(file({ tunings = "os.exit(3)" }))
    assert.matches("/site/x.lua:6: os.exit is not available", msg, 1, true)
  end)

  it("precompiled bytecode", function()
    local bytecode = string.dump(loadstring(file({})))
    assert.matches("/site/x.lua: is precompiled Lua bytecode", load_fails(bytecode), 1, true)
  end)

  it("the string library through the strings' metatable", function()
    assert.matches("attempt to index a nil value", load_fails(file({ top = "getmetatable('').__index.x = 1" })), 1,
      true)
  end)
end)

describe("policy files share nothing", function()
  -- Writes everything a file can write, each in its own pcall so that one refusal does not stop
  -- the others.
  local WRITER = file({ name = "writer", applies = "return false", top = [[
_G.leak = 'global'
leak2 = 'global'
rawset(string, 'leak', 'rawset')
rawset(math, 'pi', 3)
pcall(function() string.leak2 = 'string' end)
pcall(function() math.leak = 'math' end)
pcall(function() require('hum.policy').ranges = nil end)
pcall(function() setmetatable(string, {}) end)
pcall(function() getmetatable(string).__index.leak3 = 1 end)
require = nil
]] })
  -- Fails naming whatever it sees of the writer.
  local READER = file({ name = "reader", top = [[
local function check()
  local seen = {}
  if leak ~= nil or leak2 ~= nil or _G.leak ~= nil then seen[#seen + 1] = 'globals' end
  if string.leak ~= nil or string.leak2 ~= nil or string.leak3 ~= nil or ('').leak ~= nil then
    seen[#seen + 1] = 'string'
  end
  if math.pi < 3.14 or math.leak ~= nil then seen[#seen + 1] = 'math' end
  if type(require) ~= 'function' or type(require('hum.policy').ranges) ~= 'function' then
    seen[#seen + 1] = 'require'
  end
  if #seen > 0 then error('leaked: ' .. table.concat(seen, ', ')) end
end
check()
]], tunings = "check() return require('hum.policy').ranges({ { math.huge, " .. TUNING .. " } })" })

  it("with each other, within a load and across loads, nor with hum", function()
    policy.load({ source("/site/a_writer.lua", WRITER), source("/site/b_reader.lua", READER) }, {}, LIMITS)
    local list, p = policy.tunings(device(90), {})
    assert.are.equal("reader", p.name)
    assert.are.equal(128, list[1].tuning.block_n)
    -- The writer deleted: nothing of it survives the reload.
    policy.load({ source("/site/b_reader.lua", READER) }, {}, LIMITS)
    assert.are.equal("reader", select(2, policy.tunings(device(90), {})).name)
    -- hum's own globals and libraries are untouched.
    assert.is_nil(rawget(_G, "leak"))
    assert.is_nil(rawget(string, "leak"))
    assert.is_nil(rawget(string, "leak3"))
    assert.are.equal(math.pi, 4 * math.atan(1))
    assert.are.equal("function", type(require))
    assert.are.equal("function", type(policy.ranges))
  end)

  it("the views are read-only, naming the library and the key", function()
    assert.matches("/site/x.lua:1: string is read-only in a policy file (assigning 'upper')",
      load_fails(file({ top = "string.upper = nil" })), 1, true)
    assert.matches("/site/x.lua:1: math is read-only in a policy file (assigning 'pi')",
      load_fails(file({ top = "math.pi = 3" })), 1, true)
    assert.matches("/site/x.lua:1: hum.policy is read-only in a policy file (assigning 'ranges')",
      load_fails(file({ top = "require('hum.policy').ranges = nil" })), 1, true)
    assert.matches("cannot change a protected metatable", load_fails(file({ top = "setmetatable(table, {})" })), 1,
      true)
  end)

  it("the device, layer and overrides a policy gets are its own copies", function()
    policy.load({ source("/site/x.lua", file({ tunings = "device.sm = 1; layer.n = 0; overrides.moe = nil\n"
      .. "return require('hum.policy').ranges({ { math.huge, " .. TUNING .. " } })" })) },
      { ["moe.activation"] = "mxfp8" }, LIMITS)
    local dev, layer = device(90), { n = 4096, k = 4096 }
    policy.tunings(dev, layer)
    assert.are.equal(90, dev.sm)
    assert.are.equal(4096, layer.n)
    assert.are.equal("mxfp8", policy.override("moe.activation"))
  end)
end)

describe("the time limit", function()
  local function stopped(f, pattern)
    local t0 = os.time()
    local msg = f()
    assert.matches(pattern, msg, 1, true)
    assert.matches(string.format("ran past the policy time limit of %d ms (policy_time_limit_ms)", LIMIT_MS), msg, 1,
      true)
    assert.is_true(os.time() - t0 < 10, "stopped within seconds")
    return msg
  end

  it("stops a tight loop at the top level (JIT-compiled otherwise, where no hook runs)", function()
    stopped(function() return load_fails(file({ top = "\nwhile true do end" })) end,
      "/site/x.lua:2: the file's top level ran past")
  end)

  it("stops a loop in applies", function()
    stopped(function() return tunings_fail(file({ applies = "while true do end" })) end,
      "/site/x.lua:4: applies(device) ran past")
  end)

  it("stops a loop in tunings", function()
    stopped(function() return tunings_fail(file({ tunings = "local i = 0 while true do i = i + 1 end" })) end,
      "/site/x.lua:6: tunings(device, layer, overrides, compute) ran past")
  end)

  it("stops a loop that catches the stop with pcall", function()
    stopped(function()
      return tunings_fail(file({ tunings = "while true do pcall(function() while true do end end) end" }))
    end, "/site/x.lua:6: tunings(device, layer, overrides, compute) ran past")
  end)

  it("stops a loop in a coroutine, in a sort comparator, in a metamethod", function()
    stopped(function() return load_fails(file({ top = "coroutine.wrap(function() while true do end end)()" })) end,
      "/site/x.lua:1: the file's top level ran past")
    stopped(function()
      return load_fails(file({ top = "table.sort({3, 2, 1}, function(a, b) while true do end end)" }))
    end, "/site/x.lua:1: the file's top level ran past")
    stopped(function()
      return load_fails(file({ top = "local t = setmetatable({}, { __index = function() while true do end end })\n"
        .. "local x = t.y" }))
    end, "/site/x.lua:1: the file's top level ran past")
  end)

  it("stops a loop in an error value's __tostring", function()
    local msg = stopped(function()
      return load_fails(file({ top = "\nerror(setmetatable({}, { __tostring = function() while true do end end }))" }))
    end, "/site/x.lua:2: the file's top level: an error value of type table, whose __tostring failed: "
      .. "/site/x.lua:2: the error value's __tostring ran past")
    assert.are.equal(1, select(2, msg:gsub("ran past", "")))
  end)

  it("runs no metamethod of a returned table outside the limit", function()
    local msg = tunings_fail(file({
      tunings = "return { setmetatable({}, { __index = function() while true do end end }) }" }))
    assert.matches("m_min = nil, expected 1", msg, 1, true)
  end)

  it("gives every call a fresh limit: many quick calls add up past it", function()
    policy.load({ source("/site/x.lua", file({})) }, {}, LIMITS)
    local t0 = os.clock()
    while os.clock() - t0 < 3 * LIMIT_MS / 1000 do policy.tunings(device(90), {}) end
  end)

  it("defaults to sandbox.DEFAULT_LIMITS", function()
    local msg = policy_error(function()
      policy.load({ source("/site/x.lua", file({ top = "while true do end" })) }, {})
    end)
    assert.matches("time limit of " .. require("hum.sandbox").DEFAULT_LIMITS.time_ms .. " ms", msg, 1, true)
  end)
end)

describe("an error value", function()
  local cases = {
    { "error({ code = 7 })", "/site/x.lua:2: the file's top level: an error value of type table$" },
    { "error(nil)", "/site/x.lua:2: the file's top level: an error value of type nil" },
    { "error(function() end)", "/site/x.lua:2: the file's top level: an error value of type function$" },
    { "error(42)", "^/site/x.lua:2: 42 %(in the file's top level%)$" },
    { "error(true)", "/site/x.lua:2: the file's top level: an error value of type boolean$" },
    { "error(setmetatable({}, { __tostring = function() return 'site says no' end }))",
      "/site/x.lua:2: the file's top level: an error value of type table: site says no$" },
    { "error(setmetatable({}, { __tostring = function() return {} end }))",
      "/site/x.lua:2: the file's top level: an error value of type table, whose __tostring returned a table$" },
    { "error(setmetatable({}, { __tostring = function() error('inner') end }))",
      "/site/x.lua:2: the file's top level: an error value of type table, whose __tostring failed: "
      .. "/site/x.lua:2: inner %(in the error value's __tostring%)$" },
    { "error('plain', 0)", "^/site/x.lua:2: the file's top level: plain$" },
  }
  for _, case in ipairs(cases) do
    it(case[1] .. " says where and what it is", function()
      assert.matches(case[2], load_fails(file({ top = "\n" .. case[1] })))
    end)
  end

  it("raised in tunings names the line in the policy file", function()
    local msg = tunings_fail(file({ tunings = "local t = {}\n    error(t)" }))
    assert.matches("^/site/x.lua:7: tunings%(device, layer, overrides, compute%): an error value of type table$", msg)
  end)

  it("a string where a number belongs says it is a string", function()
    local msg = tunings_fail(file({ tunings = "return { { m_min = 1, m_max = math.huge, tuning = { block_m = 16, "
      .. "block_n = '128', block_k = 64, warp_m = 16, warp_n = 32, warp_k = 64, stages = 3, stream_k = true, "
      .. "ctas_per_sm = 1 } } }" }))
    assert.matches('tuning.block_n = "128" (a string): expected an integer', msg, 1, true)
  end)
end)
