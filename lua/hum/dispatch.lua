-- Dispatch tables: a policy's M-range tunings fitted to one layer and to the kernel's shape
-- rules (kernels/gemm/config.cuh, checked in C by hum_layer_tuning_check), with neighbouring
-- ranges that end up with the same kernel merged, so that a layer compiles as few kernels as
-- its policy really asks for.

local ffi = require("ffi")
local hum = require("hum")
local fields = require("hum.fields")

local dispatch = {}

local INT64_MAX = 0x7fffffffffffffffLL

local function container_bits(bits)
  local c = 1
  while c < bits do c = c * 2 end
  return c
end

local function same(a, b)
  for _, f in ipairs(fields.list("tuning")) do
    if a[f.name] ~= b[f.name] then return false end
  end
  return true
end

-- Shared memory and threads of tuning `t` (a Lua table) for the config, or raises
-- HUM_ERR_UNSUPPORTED naming `where` and the rule it breaks.
local function measure(cfg, t, where)
  local tuning = ffi.new("hum_tuning")
  for _, f in ipairs(fields.list("tuning")) do tuning[f.name] = t[f.name] end
  local smem, threads = ffi.new("int64_t[1]"), ffi.new("int32_t[1]")
  local st = hum.C.hum_layer_tuning_check(cfg, tuning, smem, threads)
  if st ~= 0 then
    hum.fail(tonumber(st), where .. ": " .. ffi.string(hum.C.hum_last_error()), 0)
  end
  return tonumber(smem[0]), threads[0]
end

-- One policy tuning adapted to the layer: block N divides the padded N, warp N covers whole
-- repacked words, block K nests with the scale group, and the stage count shrinks until
-- ctas_per_sm CTAs fit the device's shared memory. `cfg` is the hum_layer_config (derived
-- fields filled), `device` the policy's device table.
function dispatch.fit(tuning, cfg, device, where)
  local c = fields.from_table("tuning", tuning, ffi.new("hum_tuning"), where)
  local t = {}
  for _, f in ipairs(fields.list("tuning")) do t[f.name] = tonumber(c[f.name]) end
  local wgmma = t.kernel == tonumber(hum.C.HUM_GEMM_KERNEL_WGMMA)
  local padded_n, padded_k = tonumber(cfg.padded_n), tonumber(cfg.padded_k)
  local bits = cfg.weight_bits

  t.block_n = math.max(64, t.block_n)
  while t.block_n > 64 and padded_n % t.block_n ~= 0 do t.block_n = t.block_n / 2 end
  if not wgmma then
    -- an mma.sync warp covers whole repacked words (whole 64-column units for odd widths)
    local cont = container_bits(bits)
    local min_warp_n = cont ~= bits and 64 or math.max(16, 64 / cont)
    t.warp_n = math.min(math.max(t.warp_n, min_warp_n), t.block_n)
  end

  t.block_k = (t.block_k >= 256 and padded_k % 256 == 0) and 256 or (t.block_k >= 128 and 128 or 64)
  local group = tonumber(cfg.kernel_group)
  if group < padded_k and group % t.block_k ~= 0 and t.block_k % group ~= 0 then t.block_k = 64 end
  t.warp_k = math.min(t.warp_k, t.block_k)
  while t.block_k / t.warp_k > 4 do t.warp_k = t.warp_k * 2 end
  if wgmma then
    -- a warp spans the whole block in M and K; a narrower block N keeps whole warpgroups
    t.warp_m, t.warp_k = t.block_m, t.block_k
    t.warp_n = math.max(16, math.min(t.warp_n, t.block_n / 4))
  end

  local budget = device.smem_per_block
  local smem = measure(cfg, t, where)
  local min_stages = wgmma and 3 or 2
  while smem * t.ctas_per_sm > budget and t.stages > min_stages do
    t.stages = t.stages - 1
    smem = measure(cfg, t, where)
  end
  if smem * t.ctas_per_sm > budget then
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("%s: %d CTAs of %d bytes of shared memory do not fit the %d bytes "
      .. "of %s", where, t.ctas_per_sm, smem, budget, device.name), 0)
  end
  return t
end

-- The dispatch table of a policy's list ({m_min, m_max, tuning} ascending): each tuning
-- fitted, equal neighbours merged. Returns a list of {m_min, m_max, tuning} (tuning fields
-- as numbers, m_max math.huge for the last).
function dispatch.table(list, cfg, device, policy_name)
  local out = {}
  for i, e in ipairs(list) do
    local where = string.format("policy '%s', M %d..%s", policy_name, e.m_min, tostring(e.m_max))
    local t = dispatch.fit(e.tuning, cfg, device, where)
    local last = out[#out]
    if last and same(last.tuning, t) then
      last.m_max = e.m_max
    else
      out[#out + 1] = { m_min = e.m_min, m_max = e.m_max, tuning = t, line = e.line }
    end
    if i == #list and #out > tonumber(hum.C.HUM_LAYER_MAX_ENTRIES) then
      hum.fail("HUM_ERR_POLICY", string.format("policy '%s' gives %d distinct kernels for one layer (at most %d)",
        policy_name, #out, tonumber(hum.C.HUM_LAYER_MAX_ENTRIES)), 0)
    end
  end
  return out
end

-- Writes a dispatch table into a hum_layer_plan.
function dispatch.store(tbl, plan)
  plan.entry_count = #tbl
  for i, e in ipairs(tbl) do
    local dst = plan.entries[i - 1]
    dst.m_min = e.m_min
    dst.m_max = e.m_max == math.huge and INT64_MAX or e.m_max
    dst.policy_line = e.line or 0
    for _, f in ipairs(fields.list("tuning")) do dst.tuning[f.name] = e.tuning[f.name] end
  end
end

return dispatch
