-- lua/hum/policy.lua: layering (later files win where they apply), atomic loads that keep the
-- old set on syntax, run-time and shape errors (with file:line), tunings validation naming the
-- policy file, overrides reaching the policy, and the built-in device files.
local policy = require("hum.policy")
local hum = require("hum")

local root = os.getenv("HUM_SOURCE_DIR") or "."

local function source(origin, text, layer)
  return { origin = origin, text = text, layer = layer or "site" }
end

local function tuning(bn)
  return string.format("{ block_m = 16, block_n = %d, block_k = 64, warp_m = 16, warp_n = 16, warp_k = 64, "
    .. "stages = 3, stream_k = true, ctas_per_sm = 1 }", bn)
end

-- A policy file for sm >= min_sm with one M range whose block_n is bn.
local function file(name, min_sm, bn)
  return string.format([[
return {
  name = %q,
  applies = function(device) return device.sm >= %d end,
  tunings = function(device, layer)
    return { { m_min = 1, m_max = math.huge, tuning = %s } }
  end,
}
]], name, min_sm, tuning(bn))
end

local function device(sm) return { name = "test sm_" .. sm, sm = sm, sm_count = 100 } end

local function builtin_sources()
  local list = {}
  for _, name in ipairs({ "sm75", "sm80", "sm86", "sm89", "sm90" }) do
    local path = root .. "/policies/" .. name .. ".lua"
    local f = assert(io.open(path, "rb"))
    list[#list + 1] = source("embedded:policies/" .. name .. ".lua", f:read("*a"), "builtin")
    f:close()
  end
  return list
end

local function with(list, ...)
  local out = {}
  for _, s in ipairs(list) do out[#out + 1] = s end
  for _, s in ipairs({ ... }) do out[#out + 1] = s end
  return out
end

-- Runs f, expecting a hum error; returns it.
local function raises(f)
  local ok, err = pcall(f)
  assert.is_false(ok, "expected an error")
  assert.is_true(hum.is_error(err), "expected a hum error object, got " .. tostring(err))
  return err
end

local function winner_of(sm)
  local list, p = policy.tunings(device(sm), { n = 4096, k = 4096, kernels = { mma = true } })
  return p.name, list[1].tuning.block_n
end

describe("policy layering", function()
  before_each(function() policy.load(builtin_sources(), {}) end)

  it("picks the built-in file of each device class", function()
    for _, case in ipairs({ { 75, "sm75" }, { 80, "sm80" }, { 87, "sm80" }, { 86, "sm86" }, { 89, "sm89" },
                            { 90, "sm90" }, { 100, "sm90" } }) do
      assert.are.equal(case[2], (winner_of(case[1])))
    end
  end)

  it("lets a later layer win only where it applies", function()
    policy.load(with(builtin_sources(), source("/etc/hum/hopper.lua", file("site-hopper", 90, 64))), {})
    assert.are.same({ "site-hopper", 64 }, { winner_of(90) })
    assert.are.equal("sm80", (winner_of(80)))
  end)

  it("lets the last of several site files win", function()
    policy.load(with(builtin_sources(), source("/a.lua", file("a", 80, 64)), source("/b.lua", file("b", 80, 32))), {})
    assert.are.same({ "b", 32 }, { winner_of(90) })
    assert.are.same({ "b", 32 }, { winner_of(80) })
    assert.are.equal("sm75", (winner_of(75)))
    local loaded = policy.loaded()
    assert.are.equal(7, #loaded)
    assert.are.same({ name = "b", origin = "/b.lua", layer = "site" }, loaded[7])
  end)

  it("names the device and the loaded files when nothing applies", function()
    local err = raises(function() policy.tunings(device(70), {}) end)
    assert.are.equal(hum.status("HUM_ERR_UNSUPPORTED"), err.status)
    assert.matches("no policy applies to device 'test sm_70' (sm 70); loaded: sm75, sm80, sm86, sm89, sm90",
      err.message, 1, true)
  end)
end)

describe("policy.load keeps the old set", function()
  local good
  before_each(function()
    good = with(builtin_sources(), source("/site/hopper.lua", file("site-hopper", 90, 64)))
    policy.load(good, {})
  end)

  local function rejected(text, pattern, status)
    local before = policy.current()
    local err = raises(function() policy.load(with(good, source("/site/zz.lua", text)), {}) end)
    assert.are.equal(hum.status(status or "HUM_ERR_POLICY"), err.status)
    assert.matches(pattern, err.message)
    assert.are.equal(before, policy.current())
    assert.are.same({ "site-hopper", 64 }, { winner_of(90) })
    return err
  end

  it("on a syntax error, with file:line", function()
    rejected("return {\n  name = 'x'\n  applies = 1,\n}\n", "^/site/zz%.lua:3: '}' expected")
  end)

  it("on a run-time error, with file:line", function()
    rejected("local t = nil\n\nreturn t.x\n", "^/site/zz%.lua:3: attempt to index")
  end)

  it("on an error() call, with file:line", function()
    rejected("error('no such site')\nreturn {}\n", "^/site/zz%.lua:1: no such site %(in the file's top level%)$")
  end)

  it("as HUM_ERR_POLICY whatever status a hum helper's error carries", function()
    rejected("\nrequire('hum.policy').nominal_device('sm_1')\n",
      "^/site/zz%.lua:2: the file's top level: policy: no nominal device for arch 'sm_1'")
  end)

  it("on a file that returns no policy table", function()
    rejected("return 'sm90'\n", "^/site/zz%.lua: a policy file must return a table")
    rejected("return { name = 'x', applies = function() return true end }\n", "'tunings' must be a function")
    rejected("return { name = '', applies = function() end, tunings = function() end }\n", "'name' must be")
    rejected("return { name = 'a\\27[31m\\nb', applies = function() end, tunings = function() end }\n",
      "'name' must hold no control characters")
    rejected("return { name = 'x', applies = true, tunings = function() end }\n", "'applies' must be a function")
    rejected("return { name = 'x', applies = function() end, tunings = function() end, stages = 3 }\n",
      "unknown field 'stages'")
  end)

  it("gives the sandboxed file its own globals", function()
    policy.load(with(good, source("/site/zz.lua", "leaked_global = 1\n" .. file("g", 90, 32))), {})
    assert.is_nil(rawget(_G, "leaked_global"))
  end)
end)

describe("tunings validation", function()
  -- A policy for sm90 whose tunings return `list_text`; the error must name file and problem.
  local function bad(list_text, pattern)
    policy.load({ source("/site/bad.lua", string.format(
      "return { name = 'bad', applies = function(d) return true end, tunings = function() return %s end }",
      list_text)) }, {})
    local err = raises(function() policy.tunings(device(90), {}) end)
    assert.are.equal(hum.status("HUM_ERR_POLICY"), err.status)
    assert.matches("policy 'bad' (/site/bad.lua): tunings", err.message, 1, true)
    assert.matches(pattern, err.message, 1, true)
  end

  local t = tuning(128)
  local function field(k, v)
    return string.format("{ { m_min = 1, m_max = math.huge, tuning = { block_m = 16, block_n = 128, block_k = 64, "
      .. "warp_m = 16, warp_n = 32, warp_k = 64, stages = 3, stream_k = true, ctas_per_sm = 1, %s = %s } } }", k, v)
  end

  it("rejects bad M ranges", function()
    bad("nil", "must return a non-empty list")
    bad("{}", "got an empty table")
    bad("{ { m_min = 2, m_max = math.huge, tuning = " .. t .. " } }", "entry 1: m_min = 2, expected 1")
    bad("{ { m_min = 1, m_max = 16, tuning = " .. t .. " }, { m_min = 20, m_max = math.huge, tuning = " .. t .. " } }",
      "entry 2: m_min = 20, expected 17")
    bad("{ { m_min = 1, m_max = 16, tuning = " .. t .. " }, { m_min = 10, m_max = math.huge, tuning = " .. t .. " } }",
      "entry 2: m_min = 10, expected 17")
    bad("{ { m_min = 1, m_max = 64, tuning = " .. t .. " } }", "m_max = 64: the last range must end at math.huge")
    bad("{ { m_min = 1, m_max = 0.5, tuning = " .. t .. " }, { m_min = 2, m_max = math.huge, tuning = " .. t .. " } }",
      "entry 1: m_max = 0.5: expected an integer >= m_min (1)")
    -- 2^63 wrapped to a negative int64 bound in the plan, whose error named no policy file
    bad("{ { m_min = 1, m_max = 2^63, tuning = " .. t .. " }, { m_min = 2^63 + 1, m_max = math.huge, tuning = " .. t
      .. " } }", "entry 1: m_max = 9.2233720368548e+18: expected an integer >= m_min (1) and below 2^53")
    bad("{ { m_min = 1, m_max = math.huge, tuning = " .. t .. " }, extra = 1 }", "non-sequence key 'extra'")
    -- a hole: ipairs stopped before it, and C's plan refused "entry 0 covers M 0..0" naming no policy
    bad("(function() local r = { { m_min = 1, m_max = 8, tuning = " .. t .. " }, { m_min = 9, m_max = math.huge, "
      .. "tuning = " .. t .. " } }; r[1] = nil; return r end)()", "entry 1: is missing (nil): the list has a gap")
    -- a misspelt or stray key of an entry was ignored, while one inside its tuning is refused
    bad("{ { m_min = 1, m_max = math.huge, tuning = " .. t .. ", bar = 1 } }",
      "entry 1: has an unknown field 'bar' (an entry holds m_min, m_max and tuning)")
  end)

  -- The values themselves (a block N of 96, 1 stage) are C's to refuse when the plan is fitted
  -- (tests/c/test_layer_plan.c).
  it("rejects tunings with missing or mistyped fields", function()
    bad("{ { m_min = 1, m_max = math.huge, tuning = { block_m = 16 } } }", "tuning has no 'block_n'")
    bad("{ { m_min = 1, m_max = math.huge } }", "tuning must be a table, got nil")
    bad(field("stream_k", "1"):gsub("stream_k = true, ", "", 1), "tuning.stream_k = 1: expected true or false")
    bad(field("stages", "'3'"):gsub("stages = 3, ", "", 1), 'tuning.stages = "3" (a string): expected an integer')
  end)

  it("rejects a field no config field list declares, a bad enum name and a non-integer", function()
    bad(field("use_tma", "true"), "tuning has an unknown field 'use_tma' (fields: block_m, block_n")
    bad(field("kernel", "'tensor-core'"), 'tuning.kernel = "tensor-core" (a string): expected one of mma, wgmma')
    bad(field("kernel", "'wgmma'"):gsub("block_k = 64", "block_k = 6.5"), "tuning.block_k = 6.5: expected an integer")
    -- a whole number past 32 bits is named as such, not as "not an integer"
    bad(field("promote_k", "2^40"), "tuning.promote_k = 1099511627776: expected an integer within 32 bits")
  end)

  it("rejects an applies() that does not answer true or false", function()
    policy.load({ source("/site/maybe.lua", "return { name = 'maybe', applies = function(d) return 1 end, "
      .. "tunings = function() end }") }, {})
    local err = raises(function() policy.tunings(device(90), {}) end)
    assert.matches("policy 'maybe' (/site/maybe.lua): applies(device) must return true or false", err.message, 1, true)
  end)

  it("reports a run-time error inside tunings() with its file:line", function()
    policy.load({ source("/site/crash.lua", "return { name = 'crash', applies = function(d) return true end,\n"
      .. "  tunings = function(device, layer)\n    return layer.missing.field\n  end }") }, {})
    local ok, err = pcall(policy.tunings, device(90), {})
    assert.is_false(ok)
    assert.matches("^/site/crash%.lua:3: attempt to index", hum.message(err))
  end)
end)

describe("overrides", function()
  it("reach the policy's tunings and policy.override", function()
    local text = [[
return {
  name = "fp8-aware",
  applies = function(device) return true end,
  tunings = function(device, layer, overrides)
    local fp8 = overrides.linear and overrides.linear.activation == "e4m3"
    return require("hum.policy").ranges({ { math.huge, { block_m = 16, block_n = 128, block_k = fp8 and 128 or 64,
      warp_m = 16, warp_n = 32, warp_k = fp8 and 128 or 64, stages = 3, stream_k = true, ctas_per_sm = 1 } } })
  end,
}
]]
    policy.load({ source("/site/fp8.lua", text) }, {})
    assert.are.equal(64, policy.tunings(device(89), {})[1].tuning.block_k)
    assert.is_nil(policy.override("linear.activation"))
    policy.load({ source("/site/fp8.lua", text) }, { ["linear.activation"] = "e4m3", ["moe.activation"] = "mxfp8" })
    assert.are.equal(128, policy.tunings(device(89), {})[1].tuning.block_k)
    assert.are.equal("e4m3", policy.override("linear.activation"))
    assert.are.equal("mxfp8", policy.override("moe.activation"))
  end)

  it("cannot be changed by a policy through its argument", function()
    policy.load({ source("/site/mut.lua", "return { name = 'mut', applies = function() return true end, "
      .. "tunings = function(d, l, o) o.moe.activation = 'int4' end }") }, { ["moe.activation"] = "mxfp8" })
    assert.is_false(pcall(policy.tunings, device(90), {}))
    assert.are.equal("mxfp8", policy.override("moe.activation"))
  end)
end)

describe("built-in policies", function()
  before_each(function() policy.load(builtin_sources(), {}) end)

  it("give valid tables on every nominal device for a range of layers", function()
    for _, arch in ipairs({ "sm_75", "sm_80", "sm_86", "sm_89", "sm_90a" }) do
      local dev = policy.nominal_device(arch)
      local kernels = { mma = true, wgmma = arch == "sm_90a" }
      for _, layer in ipairs({ { n = 4096, k = 4096, padded_n = 4096, padded_k = 4096, kernels = kernels },
                               { n = 128, k = 14336, padded_n = 128, padded_k = 14336, kernels = kernels },
                               { n = 151936, k = 896, padded_n = 151936, padded_k = 896, kernels = kernels } }) do
        local list, p = policy.tunings(dev, layer)
        assert.are.equal("sm" .. arch:match("%d+"), p.name)
        assert.is_true(#list >= 3 and #list <= 7, "a few M ranges")
      end
    end
  end)

  it("put M <= 8 on mma_direct by card: codes of 3+ bits on an H100, 8-bit codes elsewhere", function()
    local kernels = { mma = true, wgmma = true, wgmma_ws = true, mma_direct = true }
    local function first(name, bits)
      local dev = { name = name, sm = 90, sm_count = 132, smem_per_block = 232448, l2_bytes = 50 * 2 ^ 20 }
      local layer = { n = 8192, k = 8192, padded_n = 8192, padded_k = 8192, weight_bits = bits,
                      kernel_group = bits == 8 and 8192 or 128, kernels = kernels }
      local list = policy.tunings(dev, layer)
      assert.are.equal(8, list[1].m_max)
      return list[1].tuning.kernel
    end
    assert.are.equal("mma_direct", first("NVIDIA H100 80GB HBM3", 4))
    assert.are.equal("mma_direct", first("NVIDIA H100 80GB HBM3", 8))
    assert.are.equal("mma_direct", first(policy.nominal_device("sm_90a").name, 4))
    assert.are_not.equal("mma_direct", first("NVIDIA H200", 4))
    assert.are_not.equal("mma_direct", first("NVIDIA H200", 5))
    assert.are.equal("mma_direct", first("NVIDIA H200", 8))
    assert.are_not.equal("mma_direct", first("NVIDIA H100 80GB HBM3", 2))
  end)

  it("has nominal devices only for the supported archs", function()
    assert.are.equal(132, policy.nominal_device("sm_90a").sm_count)
    assert.are.equal(80, policy.nominal_device("sm_80").sm)
    local err = raises(function() policy.nominal_device("sm_70") end)
    assert.matches("no nominal device for arch 'sm_70'", err.message, 1, true)
  end)

  it("ranges() builds contiguous ranges", function()
    assert.are.same({ { m_min = 1, m_max = 16, tuning = 1 }, { m_min = 17, m_max = math.huge, tuning = 2 } },
      policy.ranges({ { 16, 1 }, { math.huge, 2 } }))
  end)

  it("mma_tuning() builds a fresh mma.sync tuning, one CTA per SM unless given", function()
    local t = policy.mma_tuning(16, 128, 256, 16, 32, 128, 4)
    assert.are.same({ block_m = 16, block_n = 128, block_k = 256, warp_m = 16, warp_n = 32, warp_k = 128,
      stages = 4, stream_k = true, ctas_per_sm = 1 }, t)
    assert.are.equal(2, policy.mma_tuning(16, 128, 64, 16, 32, 64, 2, 2).ctas_per_sm)
    assert.are_not.equal(t, policy.mma_tuning(16, 128, 256, 16, 32, 128, 4))
  end)
end)

describe("where each tuning came from", function()
  -- Line numbers as written below: 6 tunings, 7 policy.below, 9 mma_tuning, 10 helper, 11 tuning(), 13 literal.
  local text = table.concat({
    "local policy = require('hum.policy')",                                                    -- 1
    "local function deep() local t = policy.mma_tuning(64, 128, 128, 64, 32, 64, 3); return t end", -- 2
    "return {",                                                                                -- 3
    "  name = 'site',",                                                                        -- 4
    "  applies = function(device) return device.sm >= 90 end,",                                -- 5
    "  tunings = function(device, layer)",                                                     -- 6
    "    if layer.n ~= 4096 then return policy.below(device, layer) end",                      -- 7
    "    return policy.ranges({",                                                              -- 8
    "      { 16, policy.mma_tuning(16, 128, 128, 16, 32, 128, 3) },",                          -- 9
    "      { 64, deep() },",                                                                   -- 10
    "      { 128, policy.tuning({ block_m = 64, block_n = 128, block_k = 64, warp_m = 64, warp_n = 32, warp_k = 64,"
      .. " stages = 2, stream_k = false, ctas_per_sm = 2 }) },",                               -- 11
    "      { math.huge, " .. tuning(256) .. " },",                                             -- 12
    "    })",                                                                                  -- 13
    "  end,",
    "}",
  }, "\n")

  before_each(function() policy.load(with(builtin_sources(), source("/site/site.lua", text)), {}) end)

  it("names the constructor's line, a helper's call site, policy.tuning's line, else the tunings function", function()
    local list, p = policy.tunings(device(90), { n = 4096, k = 4096 })
    assert.are.equal("site", p.name)
    local got = {}
    for i, e in ipairs(list) do got[i] = policy.origin_of(e.tuning) end
    assert.are.same({ "/site/site.lua:9", "/site/site.lua:10", "/site/site.lua:11", "/site/site.lua:6" }, got)
    assert.are.equal(2, list[3].tuning.ctas_per_sm)
    assert.is_false(list[3].tuning.stream_k)
  end)

  it("lets a file hand other layers to the files before it, keeping their origins", function()
    local layer = { n = 8192, k = 8192, padded_n = 8192, padded_k = 8192, kernels = { mma = true, wgmma = true } }
    local list, p = policy.tunings(device(90), layer)
    assert.are.equal("site", p.name)
    local builtin = policy.load(builtin_sources(), {}):tunings(device(90), layer)
    assert.are.equal(#builtin, #list)
    for i, e in ipairs(list) do
      assert.are.same(builtin[i].tuning, e.tuning)
      assert.matches("^embedded:policies/sm90%.lua:%d+$", policy.origin_of(e.tuning))
    end
  end)

  it("credits a tuning a file changed after policy.below to that file, the others to their lines", function()
    -- 4 tunings; entries at M <= 64 changed: copied with other stages (as bench/sweeps/site-policy.sh
    -- does), or changed in place; the rest handed on as they are
    local tuner = table.concat({
      "local policy = require('hum.policy')",
      "return { name = 'tuner', applies = function(device) return device.sm >= 90 end,",
      "  tunings = function(device, layer)",
      "    local list = policy.below(device, layer)",
      "    for _, e in ipairs(list) do",
      "      if e.m_max <= 16 then",
      "        local t = {}",
      "        for k, v in pairs(e.tuning) do t[k] = v end",
      "        t.stages = t.stages + 1",
      "        e.tuning = t",
      "      elseif e.m_max <= 64 then",
      "        e.tuning.stages = e.tuning.stages + 1",
      "      end",
      "    end",
      "    return list",
      "  end }",
    }, "\n")
    policy.load(with(builtin_sources(), source("/site/tuner.lua", tuner)), {})
    local layer = { n = 8192, k = 8192, padded_n = 8192, padded_k = 8192, kernels = { mma = true, wgmma = true } }
    local list, p = policy.tunings(device(90), layer)
    assert.are.equal("tuner", p.name)
    local builtin = policy.load(builtin_sources(), {}):tunings(device(90), layer)
    assert.are.equal(#builtin, #list)
    local changed = 0
    for i, e in ipairs(list) do
      if e.m_max <= 64 then
        changed = changed + 1
        assert.are.equal(builtin[i].tuning.stages + 1, e.tuning.stages)
        assert.are.equal("/site/tuner.lua:3", policy.origin_of(e.tuning))
      else
        assert.are.same(builtin[i].tuning, e.tuning)
        assert.matches("^embedded:policies/sm90%.lua:%d+$", policy.origin_of(e.tuning))
      end
    end
    assert.is_true(changed >= 2, "entries at M <= 64: " .. changed)
  end)

  it("refuses policy.below outside tunings(), and when no earlier file applies", function()
    local err = raises(function() policy.below(device(90), {}) end)
    assert.matches("call it from a policy's tunings", err.message, 1, true)
    policy.load({ source("/site/site.lua", text) }, {})
    err = raises(function() policy.tunings(device(90), { n = 8192 }) end)
    assert.are.equal(hum.status("HUM_ERR_POLICY"), err.status) -- what a policy file causes is a policy error
    assert.matches("^/site/site%.lua: tunings", err.message) -- called in a tail call: no line
    assert.matches("no policy applies to device 'test sm_90' (sm 90); loaded: site (below site)", err.message, 1, true)
  end)

  it("refuses a policy.tuning of something other than a table", function()
    local err = raises(function() policy.tuning(16) end)
    assert.matches("expected a table of tuning fields, got number", err.message, 1, true)
  end)

  it("gives the winner on an arch's nominal device", function()
    assert.are.same({ "site", "/site/site.lua" }, { policy.winner_of("sm_90a") })
    assert.are.same({ "sm80", "embedded:policies/sm80.lua" }, { policy.winner_of("sm_80") })
  end)
end)
