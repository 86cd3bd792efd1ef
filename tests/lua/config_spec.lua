-- The deployment config as a host meets it, through libhum's public API over the FFI
-- (HUM_LIB): validation errors name the file, line and key and create nothing; a good file's
-- overrides and policy files reach the runtime.
local ffi = require("ffi")
local hum = require("hum")
local C = hum.C

local root = os.getenv("HUM_SOURCE_DIR") or "."
local tmp = os.tmpname()

local function write(text)
  local f = assert(io.open(tmp, "wb"))
  f:write(text)
  f:close()
  return tmp
end

-- hum_runtime_create with config `text`: the status, the message, and the runtime or nil.
local function create(text)
  local opts = ffi.new("hum_runtime_options")
  C.hum_runtime_options_init(opts)
  opts.config_path = write(text)
  local out = ffi.new("hum_runtime *[1]")
  local st = C.hum_runtime_create(opts, out)
  local rt = out[0] ~= nil and ffi.gc(out[0], C.hum_runtime_destroy) or nil
  return tonumber(st), ffi.string(C.hum_last_error()), rt
end

describe("deployment config", function()
  teardown(function() os.remove(tmp) end)

  local cases = {
    { "unknown key", "device: 0\ncache_dri: /x\n", ":2: unknown key 'cache_dri' (expected one of device, cache_dir" },
    { "wrong type", "log_level: info\nhot_reload: 1\n", ":2: key 'hot_reload': expected true or false, got '1'" },
    { "quoted integer", "device: '1'\n", ":1: key 'device': expected a non-negative integer" },
    { "list expected", "policy_paths: site.lua\n", ":1: key 'policy_paths': expected a list" },
    { "bad override", "overrides:\n  moe:\n    activation: fp6\n",
      ":3: key 'overrides.moe.activation': unknown value 'fp6'" },
    { "unknown section", "overrides:\n  attention: {activation: e4m3}\n", ":2: unknown override section 'attention'" },
  }
  for _, case in ipairs(cases) do
    it("rejects " .. case[1] .. " with file:line and the key", function()
      local st, msg, rt = create(case[2])
      assert.are.equal(tonumber(C.HUM_ERR_CONFIG), st)
      assert.is_nil(rt)
      assert.matches(tmp .. case[3], msg, 1, true)
    end)
  end

  it("hands overrides and site policies to the runtime", function()
    local st, msg, rt = create(string.format(
      "device: 0\npolicy_paths: [%s/examples/custom_policy.lua]\noverrides:\n  moe: {activation: mxfp8}\n"
      .. "  linear: {activation: float8_e4m3fn}\nlog_level: error\n", root))
    assert.are.equal(0, st, msg)
    assert.are.equal("mxfp8", ffi.string(C.hum_runtime_override(rt, "moe.activation")))
    assert.are.equal("e4m3", ffi.string(C.hum_runtime_override(rt, "linear.activation")))
    assert.is_true(C.hum_runtime_override(rt, "moe.weights") == nil)
    assert.are.equal(6, C.hum_runtime_policy_count(rt))
    assert.matches("examples/custom_policy.lua$", ffi.string(C.hum_runtime_policy_origin(rt, 5)))
  end)

  it("accepts examples/deploy.yaml as shipped", function()
    local opts = ffi.new("hum_runtime_options")
    C.hum_runtime_options_init(opts)
    opts.config_path = root .. "/examples/deploy.yaml"
    local out = ffi.new("hum_runtime *[1]")
    assert.are.equal(0, tonumber(C.hum_runtime_create(opts, out)), ffi.string(C.hum_last_error()))
    C.hum_runtime_destroy(out[0])
  end)
end)
