-- Written by `hum tune` on NVIDIA H200 (sm_90, 132 SMs), 2026-12-01 16:34 UTC, for the layer class of
-- n=8192,k=8192,w=uint4,a=float16,group=128 (every LayerConfig field in CLASS below). Other layers and other GPUs get the
-- table of the policy files loaded before this one. Load it through HUM_POLICY_PATH or the
-- config's policy_paths (docs/policies.md).
-- Times: median microseconds of 50 CUDA-graph replays, L2 flushed before each (hum bench's
-- protocol), the table in force before -> this file:
--   M 1..16: M=1 24.48, M=16 26.46: nothing beat the table's mma 16x128x256/4 (embedded:policies/sm90.lua:27)
--   M 17..32: M=32 35.31 -> 34.37: mma 32x128x256/4 replaces the table's mma 32x128x256/4 (embedded:policies/sm90.lua:28)
--   M 33..64: M=64 36.35 -> 33.92: wgmma 64x128x256/4 replaces the table's wgmma 64x128x128/5 (embedded:policies/sm90.lua:29)
--   M 65..128: M=128 44.48: nothing beat the table's wgmma 128x128x128/4 (embedded:policies/sm90.lua:30)
--   M 129..4096: M=256 71.01 -> 70.66, M=1024 223.62 -> 214.21, M=4096 858.51 -> 812.38: wgmma 256x128x128/3 replaces the table's wgmma 256x128x64/4 (embedded:policies/sm90.lua:31)
--   M 4097..inf: not measured: the table's wgmma 256x128x64/4 (embedded:policies/sm90.lua:31)
local policy = require("hum.policy")
local tuning = policy.tuning

local DEVICE = { name = "NVIDIA H200", sm = 90, sm_count = 132 }
local CLASS = {
  a_dtype = "float16",
  act_order = false,
  c_dtype = "float16",
  exp_compensation = 0,
  group_size = 128,
  group_size_n = 0,
  has_bias = false,
  has_global_scale = false,
  has_scale = true,
  has_zero_point = false,
  k = 8192,
  kernel_group = 128,
  n = 8192,
  num_experts = 0,
  padded_k = 8192,
  padded_n = 8192,
  param_dtype = "float16",
  scale_dtype = "float16",
  scale_rows = 64,
  scale_type = "group",
  weight_bits = 4,
  weight_dtype = "uint4",
  weight_exp = 0,
  weight_float = false,
  zero_point = "none",
}

local function in_class(layer)
  for key, value in pairs(CLASS) do
    if layer[key] ~= value then return false end
  end
  return true
end

return {
  name = "tuned n=8192,k=8192,w=uint4,a=float16,group=128 on NVIDIA H200",
  description = "hum tune, 2026-12-01 16:34 UTC",
  applies = function(device)
    return device.name == DEVICE.name and device.sm == DEVICE.sm and device.sm_count == DEVICE.sm_count
  end,
  tunings = function(device, layer)
    if not in_class(layer) then return policy.below(device, layer) end
    return {
      { m_min = 1, m_max = 16, tuning = tuning({ block_m = 16, block_n = 128, block_k = 256, warp_m = 16, warp_n = 32, warp_k = 128, stages = 4, stream_k = true, ctas_per_sm = 1, kernel = "mma" }) },
      { m_min = 17, m_max = 32, tuning = tuning({ block_m = 32, block_n = 128, block_k = 256, warp_m = 32, warp_n = 32, warp_k = 128, stages = 4, stream_k = true, ctas_per_sm = 1, kernel = "mma" }) },
      { m_min = 33, m_max = 64, tuning = tuning({ block_m = 64, block_n = 128, block_k = 256, warp_m = 64, warp_n = 16, warp_k = 256, stages = 4, stream_k = true, ctas_per_sm = 1, kernel = "wgmma" }) },
      { m_min = 65, m_max = 128, tuning = tuning({ block_m = 128, block_n = 128, block_k = 128, warp_m = 128, warp_n = 16, warp_k = 128, stages = 4, stream_k = true, ctas_per_sm = 1, kernel = "wgmma" }) },
      { m_min = 129, m_max = 4096, tuning = tuning({ block_m = 256, block_n = 128, block_k = 128, warp_m = 256, warp_n = 16, warp_k = 128, stages = 3, stream_k = true, ctas_per_sm = 1, kernel = "wgmma" }) },
      { m_min = 4097, m_max = math.huge, tuning = tuning({ block_m = 256, block_n = 128, block_k = 64, warp_m = 256, warp_n = 16, warp_k = 64, stages = 4, stream_k = true, ctas_per_sm = 1, kernel = "wgmma" }) },
    }
  end,
}
