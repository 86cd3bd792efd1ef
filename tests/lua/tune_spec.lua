-- `hum tune` without a GPU: the candidate generator (lua/hum/candidates.lua), the session's
-- ranges, fitting and choice (lua/hum/tune.lua) and the policy files it writes
-- (lua/hum/tuned_policy.lua), loaded back by the policy loader: the file wins for its GPU and
-- layer class only, gives the chosen tunings with its own file:line, and hands every other
-- layer to the built-in table. The timings a GPU would measure are set by hand.
local ffi = require("ffi")
local hum = require("hum")
local policy = require("hum.policy")
local dispatch = require("hum.dispatch")
local candidates = require("hum.candidates")
local tune = require("hum.tune")
local tuned_policy = require("hum.tuned_policy")
local C = hum.C

local root = os.getenv("HUM_SOURCE_DIR") or "."

local function source(origin, text, layer)
  return { origin = origin, text = text, layer = layer or "site" }
end

local function builtin_sources()
  local list = {}
  for _, name in ipairs({ "sm75", "sm80", "sm86", "sm89", "sm90" }) do
    local f = assert(io.open(root .. "/policies/" .. name .. ".lua", "rb"))
    list[#list + 1] = source("embedded:policies/" .. name .. ".lua", f:read("*a"), "builtin")
    f:close()
  end
  return list
end

local H200 = { name = "NVIDIA H200", sm = 90, sm_count = 132, smem_per_block = 232448, l2_bytes = 60 * 2 ^ 20 }
local A100 = { name = "NVIDIA A100-SXM4-80GB", sm = 80, sm_count = 108, smem_per_block = 166912 }

-- A hum_tune_session for n x k uint4 g128 float16 on `device` (its plan's inputs and target).
local function session(device, n, k)
  local s = ffi.new("hum_tune_session")
  local c = s.plan.config
  c.n, c.k = n, k
  c.a_dtype, c.c_dtype, c.param_dtype, c.scale_dtype = C.HUM_DTYPE_FLOAT16, C.HUM_DTYPE_FLOAT16, C.HUM_DTYPE_FLOAT16,
    C.HUM_DTYPE_FLOAT16
  c.weight_dtype = C.HUM_DTYPE_UINT4
  c.scale_type = C.HUM_SCALE_GROUP
  c.group_size = 128
  ffi.copy(s.plan.arch, "sm_" .. device.sm .. (device.sm == 90 and "a" or ""))
  ffi.copy(s.plan.device_name, device.name)
  s.plan.sm, s.plan.sm_count = device.sm, device.sm_count
  s.plan.smem_per_block = device.smem_per_block
  s.spec = "n=" .. n .. ",k=" .. k .. ",w=uint4,a=float16,group=128"
  s.reps = 50
  return s
end

local function set_m(s, ms)
  s.m_count = #ms
  for i, m in ipairs(ms) do s.m_values[i - 1] = m end
end

local function tmpfile(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- The session's candidates file as cmd_tune.c hands it over: its name and the text hum_file_read
-- gave, which it returns (for hum_file_free once the session is done with it).
local function set_candidates(s, path)
  local data, size = ffi.new("char *[1]"), ffi.new("size_t[1]")
  hum.check(C.hum_file_read(path, data, size), "reading " .. path)
  s.candidates_file, s.candidates_text, s.candidates_size = path, data[0], size[0]
  return data[0]
end

describe("candidate tunings", function()
  before_each(function() policy.load(builtin_sources(), {}) end)

  it("start with the table's own tuning, are distinct, fitted and within the kernels' rules", function()
    local s = session(H200, 8192, 8192)
    set_m(s, { 1, 16, 32, 64, 128, 256, 1024, 4096 })
    tune.begin(nil, s)
    assert.are.equal(7, s.range_count) -- sm90.lua's six ranges, the last split after M = 4096
    local builtin = policy.tunings(H200, select(2, require("hum.layer").inputs(s.plan)))
    assert.are.equal(1, s.ranges[0].candidates[0].m_min)
    assert.are.equal(8, tonumber(s.ranges[0].candidates[0].m_max))
    assert.are.equal(16, tonumber(s.ranges[1].candidates[0].m_max))
    assert.are.equal(4096, tonumber(s.ranges[5].candidates[0].m_max))
    assert.are.equal(4097, tonumber(s.ranges[6].candidates[0].m_min))
    assert.are.equal(1, s.ranges[6].candidate_count) -- not sampled: nothing to time but the table's
    assert.are.equal(0, s.ranges[6].sample_count)
    assert.are.same({ 1, 16 }, { tonumber(s.ranges[0].samples[0]), tonumber(s.ranges[1].samples[0]) })
    assert.matches("^embedded:policies/sm90%.lua:%d+$", ffi.string(s.ranges[0].builtin_origin))
    local wgmma = 0
    for r = 0, s.range_count - 1 do
      local range = s.ranges[r]
      local seen = {}
      for c = 0, range.candidate_count - 1 do
        local t = range.candidates[c]
        local key = dispatch.key(t)
        assert.is_nil(seen[key], "candidate " .. c .. " of range " .. r .. " repeats another")
        seen[key] = true
        assert.are.equal(0, tonumber(C.hum_layer_tuning_check(s.plan.config, t, nil, nil)),
          ffi.string(C.hum_last_error()))
        -- fitting a candidate again changes nothing: the file that gives it runs it as timed
        local refit = dispatch.fit(dispatch.policy_tuning(t), s.plan.config, H200, "refit")
        assert.are.equal(key, dispatch.key(refit))
        if t.kernel == C.HUM_GEMM_KERNEL_WGMMA then wgmma = wgmma + 1 end
      end
      assert.is_true(range.candidate_count <= C.HUM_TUNE_MAX_CANDIDATES)
      if range.sample_count > 0 then
        assert.is_true(range.candidate_count >= 10, "range " .. r .. ": " .. range.candidate_count .. " candidates")
      end
    end
    assert.is_true(wgmma > 10, "wgmma candidates on sm_90")
    -- candidates[0] is the table in force's entry for the range
    local tbl = dispatch.table(builtin, s.plan.config, H200, "sm90")
    for r = 0, 5 do
      assert.are.equal(dispatch.key(tbl[r + 1].tuning), dispatch.key(s.ranges[r].candidates[0]))
    end
  end)

  it("offer no warpgroup MMA before sm_90 (mma.sync, staged or direct)", function()
    local s = session(A100, 4096, 4096)
    set_m(s, { 8, 100, 2000 })
    tune.begin(nil, s)
    for r = 0, s.range_count - 1 do
      for c = 0, s.ranges[r].candidate_count - 1 do
        local k = s.ranges[r].candidates[c].kernel
        assert.is_true(k == C.HUM_GEMM_KERNEL_MMA or k == C.HUM_GEMM_KERNEL_MMA_DIRECT, "kernel " .. tostring(k))
      end
    end
  end)

  it("offer mma_direct tiles at M <= 8 only, where it takes the layer", function()
    local s = session(H200, 8192, 8192)
    set_m(s, { 1, 100 })
    tune.begin(nil, s)
    local direct, grid = {}, false
    for r = 0, s.range_count - 1 do
      local n = 0
      for c = 0, s.ranges[r].candidate_count - 1 do
        local t = s.ranges[r].candidates[c]
        if t.kernel == C.HUM_GEMM_KERNEL_MMA_DIRECT then
          n = n + 1
          -- the grid's 8 x 128 x 256 tile on 2 x 4 warps: two fields from the table's own
          grid = grid or (r == 0 and t.block_n == 128 and t.warp_n == 64 and t.warp_k == 64)
        end
      end
      direct[#direct + 1] = { tonumber(s.ranges[r].candidates[0].m_max), n }
    end
    assert.are.equal(8, direct[1][1])
    assert.is_true(grid, "the grid's mma_direct tiles at M <= 8")
    for i = 2, #direct do assert.are.equal(0, direct[i][2]) end
  end)

  it("are extended by a site's candidates file", function()
    local path = tmpfile([[
return function(list, device, layer, range)
  if range.m_max == 16 then
    list[#list + 1] = { block_m = 16, block_n = 64, block_k = 64, warp_m = 16, warp_n = 16, warp_k = 64,
                        stages = 7, stream_k = false, ctas_per_sm = 3 }
  end
  return list
end
]])
    local s = session(H200, 8192, 8192)
    set_m(s, { 16 })
    local text = set_candidates(s, path)
    tune.begin(nil, s)
    C.hum_file_free(text)
    local found = false
    for c = 0, s.ranges[1].candidate_count - 1 do -- M 9..16
      local t = s.ranges[1].candidates[c]
      if t.ctas_per_sm == 3 and t.stages == 7 and t.stream_k == 0 then found = true end
    end
    assert.is_true(found, "the site's tuning is a candidate")
    os.remove(path)
    local bad = tmpfile("return 42\n")
    text = set_candidates(s, bad)
    local ok, err = pcall(tune.begin, nil, s)
    C.hum_file_free(text)
    assert.is_false(ok)
    assert.matches(bad .. ": a candidates file returns function", hum.message(err), 1, true)
    os.remove(bad)
    -- Lua opens no file: a name without its text is the caller's mistake
    s.candidates_text = nil
    ok, err = pcall(tune.begin, nil, s)
    assert.is_false(ok)
    assert.matches("candidates_file " .. bad .. " comes without candidates_text", hum.message(err), 1, true)
  end)

  it("at M <= 16 offer small tiles several fields away, whole and summed, none cut by the cap", function()
    local s = session(H200, 8192, 8192)
    set_m(s, { 1, 16 })
    tune.begin(nil, s)
    local function keys(r)
      local k = {}
      for c = 0, s.ranges[r].candidate_count - 1 do k[dispatch.key(s.ranges[r].candidates[c])] = true end
      return k
    end
    local function fitted(t)
      return dispatch.key(dispatch.fit(t, s.plan.config, H200, "want"))
    end
    local function tile(rows, bn, wn, wk, stages, stream_k, ctas)
      local t = policy.mma_tuning(rows, bn, 256, rows, wn, wk, stages, ctas)
      t.stream_k = stream_k
      t.stream_k_sum = stream_k and "workspace" or nil
      return t
    end
    local m8, m16 = keys(0), keys(1)
    -- the tiles that won at M = 1 in session 43 (n = 14336, k = 4096; 4096 x 4096): two and more
    -- fields from the built-in 8 x 128 x 256 with four stages summed
    assert.is_true(m8[fitted(tile(8, 128, 32, 128, 6, false, 1))])
    assert.is_true(m8[fitted(tile(8, 64, 32, 64, 4, false, 1))])
    -- the grid's last tile: the list was not cut at HUM_TUNE_MAX_CANDIDATES
    assert.is_true(m8[fitted(tile(8, 128, 32, 128, 4, true, 2))])
    assert.is_true(m16[fitted(tile(16, 128, 32, 128, 4, true, 2))])
    assert.is_true(m16[fitted(tile(16, 64, 16, 128, 8, false, 1))])
    assert.is_true(s.ranges[0].candidate_count < C.HUM_TUNE_MAX_CANDIDATES)
    assert.is_true(s.ranges[1].candidate_count < C.HUM_TUNE_MAX_CANDIDATES)
  end)

  it("neighbours change one dimension at a time", function()
    local t = policy.mma_tuning(16, 128, 256, 16, 32, 128, 4)
    local n = candidates.neighbours(t)
    assert.is_true(#n >= 10)
    for _, c in ipairs(n) do assert.are_not.same(t, c) end
  end)

  -- the values of `field` among t's neighbours that differ from t's
  local function changed(t, field)
    local seen = {}
    for _, c in ipairs(candidates.neighbours(t)) do
      if c[field] ~= t[field] then seen[#seen + 1] = c[field] end
    end
    return seen
  end

  it("neighbours toggle whole_fill on stream-K summed in the workspace, of any family", function()
    local t = policy.mma_tuning(16, 128, 256, 16, 32, 128, 4)
    t.stream_k_sum = "workspace"
    assert.are.same({ 95 }, changed(t, "whole_fill"))
    t.kernel, t.whole_fill = "wgmma_ws", 95
    assert.are.same({ 0 }, changed(t, "whole_fill"))
    t.stream_k_sum = nil
    assert.are.same({}, changed(t, "whole_fill"))
  end)

  it("neighbours halve and double the tile order's group of m-blocks", function()
    local t = policy.mma_tuning(128, 128, 128, 128, 16, 128, 4)
    assert.are.same({ 4, 16 }, changed(t, "group_m"))
    t.group_m = 1
    assert.are.same({ 2 }, changed(t, "group_m"))
    t.group_m = 48
    assert.are.same({ 24, 64 }, changed(t, "group_m"))
    t.group_m = 64
    assert.are.same({ 32 }, changed(t, "group_m"))
  end)

  it("neighbours toggle weights_ss on wgmma_ws alone", function()
    local t = policy.mma_tuning(128, 128, 128, 128, 16, 128, 4)
    assert.are.same({}, changed(t, "weights_ss"))
    t.kernel = "wgmma_ws"
    assert.are.same({ true }, changed(t, "weights_ss"))
    t.weights_ss = true
    assert.are.same({ false }, changed(t, "weights_ss"))
  end)
end)

describe("the choice per range", function()
  local nan = 0 / 0

  it("keeps the table's tuning unless another is faster in total and no slower at any M", function()
    assert.are.equal(1, tune.choose({ { 10, 20 }, { 9.99, 19.99 } }))      -- under the 1% margin
    assert.are.equal(2, tune.choose({ { 10, 20 }, { 9, 18 }, { 9.5, 19 } }))
    assert.are.equal(3, tune.choose({ { 10, 20 }, { 5, 20.5 }, { 9.5, 19 } })) -- 2 is slower at M 2
    assert.are.equal(3, tune.choose({ { 10, 20 }, { nan, 10 }, { 9.5, 19 } })) -- 2 was dropped
    assert.are.equal(1, tune.choose({ { 10, 20 } }))
    assert.are.equal(1, tune.choose({ { nan, 20 }, { 1, 1 } }))
  end)

  it("ranges take the sample M values inside them and split the last after the largest", function()
    local tbl = { { m_min = 1, m_max = 16, tuning = 1, origin = "a:1" },
                  { m_min = 17, m_max = math.huge, tuning = 2, origin = "a:2" } }
    local r = tune.ranges(tbl, { 300, 1, 16, 16, 17 })
    assert.are.equal(3, #r)
    assert.are.same({ 1, 16 }, r[1].samples)
    assert.are.same({ 17, 300 }, r[2].samples)
    assert.are.same({ 17, 300, 301, math.huge }, { r[2].m_min, r[2].m_max, r[3].m_min, r[3].m_max })
    assert.are.same({}, r[3].samples)
    assert.are.equal(2, r[3].tuning)
  end)
end)

describe("the tuned policy file", function()
  local s, text, origin

  setup(function()
    policy.load(builtin_sources(), {})
    s = session(H200, 8192, 8192)
    set_m(s, { 1, 16, 64, 1024 })
    tune.begin(nil, s)
    -- timings as a GPU would give them: candidate 1 wins M 1..8 (M = 1), the rest keep theirs
    for r = 0, s.range_count - 1 do
      local range = s.ranges[r]
      for c = 0, range.candidate_count - 1 do
        for j = 0, range.sample_count - 1 do
          range.us[c][j] = (r == 0 and c == 1) and 5 or 10 + c
        end
      end
    end
    tune.pick(nil, s)
    s.text_range = -1
    tune.policy_text(nil, s)
    text = ffi.string(s.text)
    origin = "/site/tuned.lua"
  end)

  before_each(function() policy.load({ unpack(builtin_sources()) }, {}) end)

  local function load_tuned()
    local sources = builtin_sources()
    sources[#sources + 1] = source(origin, text)
    policy.load(sources, {})
  end

  it("names the GPU, the class, the date and the times", function()
    assert.matches("^%-%- Written by `hum tune` on NVIDIA H200 %(sm_90, 132 SMs%), "
      .. "%d%d%d%d%-%d%d%-%d%d %d%d:%d%d UTC", text)
    assert.matches("n=8192,k=8192,w=uint4,a=float16,group=128", text, 1, true)
    assert.matches("--   M 1..8: M=1 10.00 -> 5.00: ", text, 1, true)
    assert.matches("nothing beat the table's", text, 1, true)
    assert.matches("not measured: the table's", text, 1, true)
  end)

  it("gives its layer class the chosen tunings from its own lines", function()
    load_tuned()
    local cfg = select(2, require("hum.layer").inputs(s.plan))
    local list, p = policy.tunings(H200, cfg)
    assert.matches("^tuned n=8192", p.name)
    local tbl = dispatch.table(list, s.plan.config, H200, p.name)
    assert.are.equal(dispatch.key(s.ranges[0].candidates[1]), dispatch.key(tbl[1].tuning))
    for _, e in ipairs(tbl) do assert.matches("^/site/tuned%.lua:%d+$", e.origin) end
    for r = 1, s.range_count - 1 do
      local want = s.ranges[r].candidates[0]
      local found = false
      for _, e in ipairs(tbl) do
        if e.m_min <= tonumber(want.m_min) and e.m_max >= tonumber(want.m_max) then
          found = dispatch.key(e.tuning) == dispatch.key(want)
        end
      end
      assert.is_true(found, "range " .. r .. " keeps the table's tuning")
    end
  end)

  it("hands other layers and other GPUs to the built-in table", function()
    load_tuned()
    local other = session(H200, 4096, 8192)
    local cfg = select(2, require("hum.layer").inputs(other.plan))
    local list = policy.tunings(H200, cfg)
    for _, e in ipairs(list) do
      assert.matches("^embedded:policies/sm90%.lua:%d+$", policy.origin_of(e.tuning))
    end
    local h100 = { name = "NVIDIA H100 80GB HBM3", sm = 90, sm_count = 132, smem_per_block = 232448 }
    assert.are.equal("sm90", policy.winner(h100).name)
    local fewer = { name = "NVIDIA H200", sm = 90, sm_count = 66, smem_per_block = 232448 }
    assert.are.equal("sm90", policy.winner(fewer).name)
  end)

  it("keeps comments to comment lines", function()
    local t = tuned_policy.text({
      device = { name = "GPU\nreturn 1 --", sm = 90, sm_count = 1 }, layer = { n = 1 }, spec = "n=1\nk=1",
      date = "today", reps = 1,
      rows = { { m_min = 1, m_max = math.huge, tuning = policy.mma_tuning(16, 64, 64, 16, 16, 64, 2), note = "a\nb" } },
    })
    for line in t:gmatch("[^\n]+") do
      assert.is_true(line:sub(1, 2) == "--" or not line:match("^return 1"), line)
    end
    local p = policy.load({ source("/x.lua", t) }, {}).entries[1]
    assert.is_true(p.applies({ name = "GPU\nreturn 1 --", sm = 90, sm_count = 1 }))
    assert.is_false(p.applies({ name = "GPU", sm = 90, sm_count = 1 }))
  end)
end)
