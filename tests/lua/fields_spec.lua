-- lua/hum/fields.lua: the config field table of hum.h read through the FFI (every row matches
-- the struct LuaJIT sees, names unique), cdata to policy tables and back, and the errors a
-- policy's tuning table gets for a missing, mistyped or unknown field.
local ffi = require("ffi")
local hum = require("hum")
local fields = require("hum.fields")

local STRUCTS = { layer = "hum_layer_config", compute = "hum_compute_config", tuning = "hum_tuning" }

describe("config fields", function()
  it("name each kernel family as C's family table does (hum_gemm_kernel_name)", function()
    local names
    for _, f in ipairs(fields.list("tuning")) do
      if f.name == "kernel" then names = f.names end
    end
    assert.is_true(#names >= 4)
    for code, name in ipairs(names) do
      assert.are.equal(name, ffi.string(hum.C.hum_gemm_kernel_name(code - 1)))
    end
    assert.is_true(hum.C.hum_gemm_kernel_name(#names) == nil)
    assert.is_true(hum.C.hum_gemm_kernel_name(-1) == nil)
  end)

  it("describe every member of the three structs, at its offset, once", function()
    local count = ffi.new("int32_t[1]")
    local rows = hum.C.hum_config_fields(count)
    local seen, members = {}, 0
    for i = 0, count[0] - 1 do
      local r = rows[i]
      local config = ({ [0] = "layer", "compute", "tuning" })[r.config]
      local name = ffi.string(r.name)
      assert.are.equal(ffi.offsetof(STRUCTS[config], name), tonumber(r.offset), name)
      assert.is_nil(seen[config .. "." .. name])
      seen[config .. "." .. name] = true
      local constant = ffi.string(r.constant)
      if constant ~= "" then
        assert.is_nil(seen[constant], constant)
        seen[constant] = true
      end
    end
    for config, ctype in pairs(STRUCTS) do
      local last = fields.list(config)[#fields.list(config)].name
      -- the last field ends the struct (up to padding): no member is missing from the table
      assert.is_true(ffi.sizeof(ctype) - ffi.offsetof(ctype, last) <= 8, config)
      members = members + #fields.list(config)
    end
    assert.are.equal(count[0], members)
  end)

  it("give policies names for dtypes and enums, booleans and numbers", function()
    local c = ffi.new("hum_layer_config")
    c.n, c.k, c.a_dtype, c.scale_type, c.zero_point, c.has_bias = 4096, 11008, hum.C.HUM_DTYPE_BFLOAT16, 1, 2, 1
    local t = fields.to_table("layer", c)
    assert.are.same({ 4096, 11008, "bfloat16", "group", "float", true, false },
      { t.n, t.k, t.a_dtype, t.scale_type, t.zero_point, t.has_bias, t.act_order })
    assert.is_nil(t.c_dtype)
    assert.are.equal("dense", fields.to_table("compute", ffi.new("hum_compute_config")).gemm_type)
  end)

  it("write a policy's tuning into a hum_tuning, the optional kernel defaulting to mma", function()
    local t = { block_m = 64, block_n = 128, block_k = 128, warp_m = 64, warp_n = 16, warp_k = 128, stages = 5,
                stream_k = true, ctas_per_sm = 1 }
    local c = fields.from_table("tuning", t, ffi.new("hum_tuning"), "here")
    assert.are.same({ 64, 16, 5, 1, 0 }, { c.block_m, c.warp_n, c.stages, c.stream_k, c.kernel })
    t.kernel, t.stream_k = "wgmma", false
    c = fields.from_table("tuning", t, ffi.new("hum_tuning"), "here")
    assert.are.same({ 1, 0 }, { c.kernel, c.stream_k })
    t.stages = nil
    local ok, err = pcall(fields.from_table, "tuning", t, ffi.new("hum_tuning"), "here")
    assert.is_false(ok)
    assert.are.equal(hum.status("HUM_ERR_POLICY"), err.status)
    assert.matches("here: tuning has no 'stages' (required: block_m", err.message, 1, true)
  end)
end)
