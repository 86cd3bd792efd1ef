-- Candidate tunings for `hum tune` (lua/hum/tune.lua): for one M range of one layer on one
-- device, the built-in table's tuning first, then its neighbours (one field doubled or halved,
-- a stage more or less, two CTAs per SM, stream-K toggled, its slices summed in the other
-- place, wgmma_ws's C tile in the last stage's slot or its own, A multicast), then a grid of
-- mma.sync tiles and, on sm_90 and newer, warpgroup-MMA tiles, sized by the M values the range is
-- timed at (at M <= 16 small tiles whole or summed, several fields from the built-in's). The
-- list is raw policy tunings; hum.tune fits each to the layer (hum.dispatch), drops those the
-- kernels refuse and keeps the first of equal fitted ones, so a candidate is timed once.
--
-- A site extends the list with `hum tune --candidates FILE.lua`: FILE returns
--   function(list, device, layer, range) ... return list end
-- where list is this module's list (add or remove tunings), device and layer are the policy's
-- arguments and range is { m_min, m_max, samples = { M, ... } }. Replacing this module through
-- HUM_LUA_PATH replaces the generator altogether.

local fields = require("hum.fields")

local candidates = {}

local function copy(t)
  local c = {}
  for _, f in ipairs(fields.list("tuning")) do c[f.name] = t[f.name] end
  return c
end

local function pow2_at_least(x)
  local p = 1
  while p < x do p = p * 2 end
  return p
end

local function mma(bm, bn, bk, wm, wn, wk, stages)
  return { block_m = bm, block_n = bn, block_k = bk, warp_m = wm, warp_n = wn, warp_k = wk, stages = stages,
           stream_k = true, ctas_per_sm = 1 }
end

local function wgmma(bm, bn, bk, wn, stages)
  local t = mma(bm, bn, bk, bm, wn, bk, stages)
  t.kernel = "wgmma"
  return t
end

-- `t` with fields changed (a fresh table).
local function with(t, changes)
  local c = copy(t)
  for k, v in pairs(changes) do c[k] = v end
  return c
end

-- One step away from `t` in every dimension the kernels take.
function candidates.neighbours(t)
  local out = {}
  local function add(changes) out[#out + 1] = with(t, changes) end
  add({ stages = t.stages + 1 })
  if t.stages > 2 then add({ stages = t.stages - 1 }) end
  add({ block_n = t.block_n * 2, warp_n = t.warp_n * 2 })
  add({ block_n = t.block_n * 2 })
  if t.block_n > 64 then add({ block_n = t.block_n / 2, warp_n = math.max(16, t.warp_n / 2) }) end
  add({ warp_n = t.warp_n * 2 })
  if t.warp_n > 16 then add({ warp_n = t.warp_n / 2 }) end
  add({ block_k = t.block_k * 2, warp_k = t.warp_k * 2 })
  if t.block_k > 64 then add({ block_k = t.block_k / 2, warp_k = math.max(16, t.warp_k / 2) }) end
  if t.kernel ~= "wgmma" then
    add({ warp_k = t.warp_k * 2 })
    if t.warp_k > 16 then add({ warp_k = t.warp_k / 2 }) end
  end
  add({ block_m = t.block_m * 2, warp_m = t.kernel == "wgmma" and t.block_m * 2 or t.warp_m })
  -- mma.sync takes warps of 8 rows (the products transposed)
  if t.block_m > 16 or t.block_m == 16 and (t.kernel or "mma") == "mma" then
    add({ block_m = t.block_m / 2, warp_m = math.min(t.warp_m, t.block_m / 2) })
  end
  add({ ctas_per_sm = 2 })
  -- the tile order's group of m-blocks (group_m, 0: 8) halved or doubled: how much of A and of
  -- the weights the tiles running at once keep in L2
  local group = (t.group_m or 0) > 0 and t.group_m or 8
  if group > 1 then add({ group_m = math.floor(group / 2) }) end
  if group < 64 then add({ group_m = math.min(64, group * 2) }) end
  add({ stream_k = not t.stream_k })
  -- stream-K slices summed in the workspace (8-bit A runs stream-K only so)
  add({ stream_k = true, stream_k_sum = t.stream_k_sum == "workspace" and "output" or "workspace" })
  -- tiles whole where a launch's fill the waves to 95 % (stream-K summed in the workspace on
  -- dense layers, any family: the fit drops it elsewhere), or never
  if t.stream_k and t.stream_k_sum == "workspace" then
    add({ whole_fill = (t.whole_fill or 0) > 0 and 0 or 95 })
  end
  -- wgmma_ws: C staged in the last stage's slot, whose room the tile of its own held (a stage
  -- more where that fits), or back in its own tile
  if t.kernel == "wgmma_ws" then
    if t.c_tile == "stage" then
      add({ c_tile = "own" })
    else
      add({ c_tile = "stage" })
      add({ c_tile = "stage", stages = t.stages + 1 })
    end
    -- A multicast to 2-CTA clusters (dense layers: the fit drops it elsewhere), also on whole tiles
    if t.multicast_a then
      add({ multicast_a = false })
    else
      add({ multicast_a = true })
      if t.stream_k then add({ multicast_a = true, stream_k = false }) end
    end
    -- the weights as wgmma's shared-memory operand by TMA, or as register fragments (dense e4m3
    -- weights beside e4m3 A: the fit drops it elsewhere)
    add({ weights_ss = not t.weights_ss })
  end
  return out
end

-- At M <= 16: mma.sync tiles of 8 rows (to M = 8) or 16, 64 or 128 columns, several warp shapes,
-- 4 / 6 / 8 stages, each whole or under stream-K summed in the workspace, and two CTAs an SM. These
-- lie several fields from the built-in's, where the neighbours change one: at M = 1 they found
-- whole tiles that the neighbours missed (bench/NOTES.md, "Session 43 (lead)", H200: n = 14336,
-- k = 4096 17.71 -> 16.06 µs on 8 x 128 x 256 with six stages, 4096 x 4096 11.66 -> 11.52 on
-- 8 x 64 x 256, warps 8 x 32 x 64). 35 tiles: with the built-in's and its neighbours within
-- HUM_TUNE_MAX_CANDIDATES. At M <= 8 first four mma_direct tiles (8 x 64 x 256 on eight warps
-- along K, rings of 4 and 8, whole or summed; 8 x 128 x 256 on 2 x 4 warps, ring of 4, summed: the
-- ones timed in bench/NOTES.md, "Session 50 (lead)"), which the fit drops where the kernel does
-- not take the layer.
local function small_grid(top)
  local rows = top <= 8 and 8 or 16
  local out = {}
  local function add(bn, wn, wk, stages, stream_k, ctas, kernel)
    local t = mma(rows, bn, 256, rows, wn, wk, stages)
    t.stream_k, t.ctas_per_sm, t.kernel = stream_k, ctas, kernel
    t.stream_k_sum = stream_k and "workspace" or nil
    out[#out + 1] = t
  end
  if rows == 8 then
    add(64, 64, 32, 8, false, 1, "mma_direct")
    add(64, 64, 32, 4, false, 1, "mma_direct")
    add(64, 64, 32, 4, true, 1, "mma_direct")
    add(128, 64, 64, 4, true, 1, "mma_direct")
  end
  for _, w in ipairs({ { 64, 16, 128 }, { 64, 32, 64 }, { 64, 32, 128 }, { 128, 32, 64 }, { 128, 32, 128 } }) do
    for _, stages in ipairs({ 4, 6, 8 }) do
      add(w[1], w[2], w[3], stages, false, 1)
      add(w[1], w[2], w[3], stages, true, 1)
    end
    add(w[1], w[2], w[3], 4, true, 2)
  end
  return out
end

-- A grid of tiles for M up to `top` on `device`.
function candidates.grid(device, top)
  if top <= 16 then return small_grid(top) end
  local out = {}
  local m = pow2_at_least(math.max(top, 16))
  for _, bm in ipairs({ 16, 32, 64, 128 }) do
    if bm <= m and bm * 4 >= math.min(m, 128) then
      local wm = math.min(bm, 64)
      for _, shape in ipairs({ { 128, 32 }, { 256, 64 } }) do
        for _, bk in ipairs({ 128, 256 }) do
          for _, stages in ipairs({ 3, 4, 5 }) do
            out[#out + 1] = mma(bm, shape[1], bk, wm, shape[2], bk / 2, stages)
          end
        end
      end
    end
  end
  if device.sm >= 90 and top > 16 then
    for _, bm in ipairs({ 32, 64, 128, 256 }) do
      if bm <= math.max(64, m) and bm * 4 >= math.min(m, 256) then
        for _, bk in ipairs({ 64, 128 }) do
          for _, stages in ipairs({ 3, 4, 5 }) do out[#out + 1] = wgmma(bm, 128, bk, 16, stages) end
          out[#out + 1] = wgmma(bm, 256, bk, 32, 4)
        end
      end
    end
  end
  return out
end

-- The raw candidate list of a range: `builtin` (the built-in table's tuning for it) first.
-- `range` = { m_min, m_max, samples = { M, ... } } (samples ascending, at least one).
function candidates.generate(device, layer, range, builtin)
  local list = { copy(builtin) }
  for _, t in ipairs(candidates.neighbours(copy(builtin))) do list[#list + 1] = t end
  for _, t in ipairs(candidates.grid(device, range.samples[#range.samples])) do list[#list + 1] = t end
  return list
end

return candidates
