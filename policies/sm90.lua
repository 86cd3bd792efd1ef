-- Hopper (H100, H200; sm_90) and newer until a file of their own exists: 227 KiB of shared
-- memory per block, 132 SMs on H100/H200. The mma.sync path. Tuned on an H200 for
-- n=k=8192 uint4 g128 float16 (bench/NOTES.md): block K 256 halves the per-stage overhead at
-- small M; the layer falls back to block K 128 when the padded K is not a multiple of 256.
-- From M = 17 on, a layer the warpgroup-MMA kernel (kernels/gemm/gemm_wgmma.cu) takes on this
-- target (layer.kernels.wgmma, which C's rules decide; act-order layers too: their A is permuted
-- once per forward, kernels/prep/permute_a.cu) runs it, warp-specialised (wgmma_ws): 32 x 128 x
-- 256 tiles up to M = 32, 64 x 128 x 256 up to M = 64, 128 x 128 x 128 up to M = 384 (4-bit
-- weights; 128 with wider ones), 256 x 128 x 128 above (256 x 128 x 64 where three such stages
-- do not fit), narrow layers and 8-bit A as said below (bench/NOTES.md, "wgmma
-- kernel", "tile sweep", "session 3" and "session 5"); mma.sync stays faster up to M = 16 (wgmma
-- 16 x 128 x 256: 28.5 us at M = 1 against 24.8).
-- Figures below: H200, us, built-in of main 4d2f36c against the choice, from the files of
-- bench/results/H200-2026-12-02/ (session 5).
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning

-- At most a quarter as many 128-column tiles as the device has SMs (N <= 4224 on 132 SMs: each
-- tile's K shared by ~4 CTAs or more under stream-K, whose fix-ups are the chain to shorten).
local function narrow(device, layer) return layer.padded_n / 128 * 4 <= device.sm_count end

-- K at most 4096: what sets 4096 x 4096 (its narrow rules below) apart from n = 4096, k = 14336,
-- whose deep K gives each stream-K CTA of a 128-column tile ~14 k-blocks of 256 (4096 x 4096: ~4).
-- The one bound both layers were timed on (candidates.txt; s6-final-45ce098's `la`); narrow layers
-- with K between them, or K >= 2 N but short (n = 1024, k = 4096), are untimed either way.
local function short_k(layer) return layer.padded_k <= 4096 end

-- M <= 16: 16 x 128 x 256 tiles, stream-K slices summed in the workspace: they meet in parallel
-- instead of one after the other through C (a8perf.log: uint4 g128 bf16 8192 x 8192 M 1/16
-- 24.29/26.50 -> 22.67/22.91; fp16 4096 x 4096 14.24/15.33 -> 13.07/13.12), K-group scales too (their
-- promotions apply them before the slices meet). Narrow layers too, whose 64-column tiles halved the
-- fix-up chain through C (bench/NOTES.md, perf-3): with the sums in parallel the wider tile wins
-- (s6-final-45ce098, extra.txt `dense-l14a`: n = 4096, k = 14336 uint4 g128 fp16 M 1 / 16 26.32 /
-- 26.45 -> 22.19 / 22.53; bench/results/H200-2026-12-02/s8-dense9/call2/, `wide-l4k`: 4096 x 4096
-- M = 1 13.33 -> 12.46; at M 9..16 4-bit codes take the 64-column tile again, whole on two 8-row
-- blocks: small_short_k).
-- Act-order layers keep the narrow tile there (untimed).
-- Four warps along K (warp 16 x 32 x 64: 16 warps at 128 registers, as many per scheduler as
-- Humming's kernel at M = 1) lost on every layer timed (bench/NOTES.md, "Session 15 (lead)": uint2
-- channel M = 1 19.44 / 19.26 -> 20.51 / 20.42 us, uint4 g128 20.77 -> 22.62).
-- `rows`: 16, or 8 at M <= 8, where the same tile on blocks and warps of 8 rows runs its products
-- transposed (kernels/gemm/gemm_mma.cu, kSwapAB: the weights as the m16 operand, half the MMAs,
-- accumulators and A registers per warp; bench/NOTES.md, "Session 23 (lead)", H200, n = k = 8192
-- but where said, µs at M 1 / 4 / 8, 16 rows -> 8: uint4 g128 fp16 20.98 / 21.25 / 21.17 -> 19.81 /
-- 19.92 / 19.94, bf16 21.34 / 21.26 / 21.42 -> 19.47 / 19.60 / 19.58, uint8 channel 29.46 / 29.55 /
-- 29.62 -> 28.98 / 29.20 / 29.25, 4096 x 4096 12.42 / 12.43 / 12.48 -> 11.79 / 11.94 / 11.95,
-- n = 4096, k = 14336 20.05 / 20.26 / 20.29 -> 18.98 / 19.17 / 19.18; at M = 16 two blocks of 8
-- rows lost, 21.55 -> 28.82). 2-bit codes, with the least decode per weight timed, run two such
-- CTAs per SM (uint2 channel 19.58 / 19.54 / 19.52 -> one CTA 17.89 / 17.95 / 17.98, two 17.01 /
-- 17.18 / 17.28; timed on 8192 x 8192 channel only, other uint2 layers untimed); wider codes lost
-- with two (uint4 g128 20.94 / 21.02 / 21.12, 4096 x 4096 13.60, uint8 30.43 / 30.11 / 30.30).
-- 1-bit codes gain as much (session 24, bench/results/H200-2026-12-04/s24-call1/, two rounds,
-- uint1 channel 8192 x 8192, M 1 / 2 / 4 / 8: 17.73 / 17.78 / 17.89 / 17.95 and 17.86 / 17.90 /
-- 17.94 / 18.08 -> 16.42 / 16.56 / 16.59 / 16.75 and 16.16 / 16.38 / 16.50 / 16.70). Act-order
-- layers keep 16 rows (8192 x 8192 uint4 g128 fp16, M 1 / 4 / 8: 22.35 / 22.72 / 23.07 -> 25.41 /
-- 26.72 / 27.25 on 8; s23-call3/, cause not looked into). Where one row block's 64-column tiles
-- fill the SMs (n = 8192: 128 on 132), 2-bit codes run them whole on one CTA an SM instead, each
-- CTA over the whole K (bench/results/H100-2026-12-07/s47-a-03d184cf923f/, H100, uint2 channel
-- 8192 x 8192, M = 1: `hum tune` 17.47 -> 17.12; side-by-side.py, three rounds: 18.50, 18.82,
-- 18.82 -> 17.66, 17.98, 17.98; Humming 18.88, 18.94, 18.94), and at M 9..16 16-row ones, warps
-- 16 x 32 x 64 (bench/results/H100-2026-12-07/s47-c-11085a6/: `hum tune` M 9 / 16 19.46 / 19.55 ->
-- 19.36 / 19.14; side-by-side.py, two rounds, M 9 / 16: 20.26, 20.61 / 20.45, 20.70 -> 20.19, 20.13
-- / 20.00, 20.00; Humming 20.16, 19.90 / 20.51, 20.29); timed on channel scales at k = 8192
-- alone (other K, group scales and zero points take it untimed); 1-bit codes keep two CTAs.
local function rows8(layer) return not layer.act_order end
-- Whether `tiles` tiles fill the device's SMs one each, with at most `idle` tenths of them idle
-- (default 1).
local function fills(device, tiles, idle)
  return tiles <= device.sm_count and tiles * 10 >= device.sm_count * (10 - (idle or 1))
end

-- `t` without stream-K: every tile whole, on one CTA.
local function whole(t)
  t.stream_k = false
  return t
end

-- At M <= 16, 16-bit A with integer codes of 3 bits or more (2 bits and fewer run two CTAs an SM)
-- and K at most 4096, the small tiles `rows` high that time best:
-- - where the 128-column tiles fill 80 % of the SMs or more, one each (n = 14336: 112 of 132):
--   those tiles whole, every CTA reading its columns' whole K and writing C, with no stream-K
--   slices to sum; six stages on 8 rows (bench/results/H200-2026-12-06/s43-b-0f232b4420af/, H200,
--   n = 14336, k = 4096 uint4 g128 fp16, M = 1, side-by-side.py's two rounds, µs: 19.46, 19.42 ->
--   17.44, 17.28; Humming 20.03, 19.81; `hum tune` over 46 tiles: 17.71 -> 16.06), four on 16
--   (bench/results/H100-2026-12-07/s45-a-55d40500bd13/, H100, the same layer at M = 16, two rounds:
--   23.71, 23.68 summed -> 21.12, 21.12 whole; Humming 23.97, 23.90; the tune's pick of 49 tiles);
-- - on narrow layers whose 64-column tiles are at least 45 % of the SMs (4096 x 4096: 64 on 132;
--   fewer, n = 1024, would leave most SMs idle whole, and are untimed): at M <= 8 those tiles
--   whole, four stages, warps 8 x 32 x 64 (fitted per code width), half the SMs idle (s43-b:
--   12.96, 12.86 -> 12.70, 12.64; Humming 13.25, 12.90; the tune 11.66 -> 11.52); at M 9..16 the
--   same tile for 4-bit codes, on two row blocks of 8 (twice the tiles, so 90 % of the SMs or
--   more: 4096 x 4096 128 on 132), each n-block's weights read by both (bench/results/
--   H100-2026-12-07/s47-a-03d184cf923f/, H100, uint4 g128 fp16: `hum tune` over the grid plus
--   16-row wgmma_ws and 8-row mma.sync tiles picked it, M 9 / 16 13.41 / 13.38 -> 12.10 / 12.10;
--   side-by-side.py, three rounds, M 16: 14.66, 14.62 -> 13.06, 12.99; Humming 14.21, 14.34,
--   14.34), where session 45's 16 x 64 x 256 tile summed in the workspace had read 14.88 (s45-a);
--   other codes there take the 16-row rules below (untimed).
-- Timed on uint4 g128 at k = 4096 alone: 3-bit and wider codes take it untimed, deeper K keeps
-- the 128-column slices (n = 4096, k = 14336 lost on these tiles in s43-b's tune, as n = k = 8192
-- on 64-column tiles whole at 97 %).
local function small_short_k(device, layer, rows)
  if layer.a8 or layer.act_order or not layer.weight_bits or layer.weight_float or layer.weight_bits <= 2
      or not short_k(layer) then
    return nil
  end
  if layer.padded_n % 128 == 0 and fills(device, layer.padded_n / 128, 2) then
    return whole(rows == 8 and mma(8, 128, 256, 8, 32, 128, 6) or mma(16, 128, 256, 16, 32, 128, 4))
  end
  if narrow(device, layer) and layer.padded_n / 64 * 20 >= device.sm_count * 9 then
    if rows == 8 or layer.weight_bits == 4 then
      return whole(mma(8, 64, 256, 8, 32, 64, 4))
    end
  end
end

-- M <= 8 where mma_direct takes the layer (16-bit A, integer codes with scales, no act-order:
-- layer.kernels.mma_direct) with codes of 3 bits or more on an H100 and of 8 bits elsewhere
-- (below), scale groups of a multiple of 32 (its warps of 32 of K apply one scale per column), and
-- 64-column tiles that fill the SMs one each (n = 8192: 128 on 132): the mma.sync kernel's 8-row
-- warps reading their weights, scales and A straight into registers, no stages in shared memory
-- and no CTA barrier in the main loop (kernels/gemm/gemm_mma.cu, kDirectB), 8 x 64 x 256 tiles
-- whole, eight warps along K of 32, rings of eight items (fewer where they would not fit the
-- registers: 8-bit codes five).
-- bench/results/H100-2026-12-07/s50-b-d27f63933437/sbs-small.json, H100, side-by-side.py, two
-- rounds, better of each, µs at M 1 / 8, the staged tiles before -> rings of four / eight; Humming:
-- n = k = 8192 uint4 g128 fp16 24.93 / 25.02 -> 22.50 / 23.46, 22.46 / 23.14 (25.54 / 26.05);
-- int zero points 25.57 / 25.66 -> 23.94 / 24.90, 24.00 / 24.54 (25.66 / 26.08); uint8 channel
-- 38.59 / 38.62 -> 31.62 / 32.16, 31.58 / 31.94 (39.07 / 39.30). Where the tiles do not fill the
-- SMs whole, stream-K slices (summed in the workspace) lost to the staged tiles: 4096 x 4096 12.83
-- -> 14.98, 14336 x 4096 20.77 -> 25.15, 4096 x 14336 23.65 -> 24.64 (8 x 128 x 256 tiles on 2 x
-- 4 warps: 23.42); and 2-bit codes, which the staged kernel runs two CTAs an SM, lost whole too
-- (uint2 channel 17.76 -> 19.33).
-- On the H200 only 8-bit codes keep it: bench/results/H200-2026-12-07/s51-a-54fda5f8e59f/, H200,
-- side-by-side.py, two rounds, M 1 / 8, mma_direct against Humming: uint4 g128 fp16 21.76 / 22.50
-- (21.31 / 21.95), bf16 21.73 / 22.50 (21.57 / 21.82), int zero points 23.10 / 24.06 (21.89 /
-- 22.21), uint8 channel 24.90 / 25.92 (30.75 / 31.10), where the staged tiles had read 20.26,
-- 20.61, 20.69 and 29.86 at M 1 (bench/results/H200-2026-12-07/s46-b-c13ac70c45b5/; Humming 21.60,
-- 21.70, 21.92, 30.85). Its ncu there (s51-a, direct-m1): instruction fetch 33 % of the warp
-- stalls, global loads 7 % (bench/NOTES.md, "Session 51 (lead)"). Names holding "H100" take the
-- H100's rule (H100 NVL, untimed, and the nominal sm_90 device of hum compile --arch); other sm_90
-- parts, untimed, the H200's, which is ahead of Humming on both cards.
local function direct8(device, layer)
  local bits = device.name:find("H100", 1, true) and 3 or 8
  if not (layer.kernels.mma_direct and layer.weight_bits >= bits and layer.kernel_group % 32 == 0
      and fills(device, layer.padded_n / 64)) then
    return nil
  end
  local t = mma(8, 64, 256, 8, 64, 32, 8)
  t.kernel = "mma_direct"
  return whole(t)
end

local function small_m(device, layer, rows)
  local t = rows == 8 and direct8(device, layer) or small_short_k(device, layer, rows)
  if t then return t end
  if layer.act_order and layer.weight_bits == 4 and narrow(device, layer) and short_k(layer) then
    t = mma(16, 64, 256, 16, 16, 128, 6) -- act-order: 16 rows at any M (rows8)
  else
    if not layer.act_order and layer.weight_bits == 2 and layer.padded_n % 64 == 0
        and fills(device, layer.padded_n / 64) then
      return whole(rows == 8 and mma(8, 64, 256, 8, 32, 128, 4) or mma(16, 64, 256, 16, 32, 64, 4))
    end
    local two = rows == 8 and not layer.a8 and layer.weight_bits and layer.weight_bits <= 2
    t = mma(rows, 128, 256, rows, 32, 128, 4, two and 2 or 1)
  end
  t.stream_k_sum = "workspace"
  return t
end

-- A warpgroup-MMA tuning of `kernel` ("wgmma" or "wgmma_ws"): block M x N x K, stages, CTAs per
-- SM (default 1); warp N 16 (a warp spans block_m and block_k).
local function wg(kernel, block_m, block_n, block_k, stages, ctas_per_sm)
  local t = mma(block_m, block_n, block_k, block_m, 16, block_k, stages, ctas_per_sm)
  t.kernel = kernel
  return t
end

-- `t` with its stream-K slices summed in the workspace (in parallel) instead of through C.
local function summed(t)
  t.stream_k_sum = "workspace"
  return t
end

-- `t` under stream-K, but whole (each tile on one CTA) in launches whose tiles fill the SMs' waves
-- to 95 % (whole_fill: the launch decides by M; docs/policies.md).
local function filled(t)
  t.whole_fill = 95
  return t
end

-- `t` with C staged in its last stage's slot (c_tile "stage"), `stages` stages (default: t's)
-- and A multicast to 2-CTA clusters unless `multicast` is false.
local function staged(t, stages, multicast)
  t.c_tile = "stage"
  t.stages = stages or t.stages
  t.multicast_a = multicast ~= false
  return t
end

return {
  name = "sm90",
  description = "Hopper and newer: 227 KiB shared memory, mma.sync with block K 256 for small M, "
    .. "wgmma from M = 17 on sm_90",
  applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    -- Expert GEMMs (docs/moe.md): M counts rows per expert, and a MoE layer's gate/up and down
    -- GEMMs share one align, so block_m follows M and the layer's facts (compute.moe_*, over both
    -- GEMMs), never one GEMM's own: an odd intermediate size keeps wgmma from the down GEMM alone,
    -- 8-bit A falls back on it alone (act-order experts run mma.sync on both). Qwen3-30B-A3B gate/up
    -- on the H200 (moegemm-2, GEMM-only): two CTAs per SM from 2 rows per expert (M = 128: 91
    -- against 110 us; M = 1 kept one then, 18 against 21 under stream-K), 128 x 256 x 64 tiles
    -- above 64 rows (M = 4096: 539 against 645 us
    -- for 128 x 128 x 128, 1391 for 256-row blocks, whose padding per expert costs more than the
    -- larger tile saves). The session-5 sweep (bench/moe-sweep/README.md) changed 33..64 only.
    -- Up to 16 rows per expert the tiles run whole, without stream-K (bench/sweeps/moe7.sh `dp`,
    -- bench/results/H200-2026-12-02/s7-call2-moe7-fbfcfbd/moe7.txt; gate_up at M = 1, 8, 128:
    -- 17.92 / 51.04 / 92.27 -> 14.02 / 47.09 / 86.75 us, down 15.01 / 38.64 / 61.65 -> 9.95 /
    -- 32.75 / 53.89; stream-K slices summed in the workspace: 16.22 / 46.75 / 87.60 and 12.86 /
    -- 32.56 / 57.36): M = 1's 8 blocks x 12 (16) column tiles of 8 (3) k-blocks fill 96 (128) of
    -- the 132 SMs whole, where stream-K's slices met through C one after the other. Two CTAs per
    -- SM from one row per expert on (bench/sweeps/moe9.sh `dp2`, s8-moe9/call1/moe9.txt: M = 8's
    -- ~600 gate_up tiles over 264 slots instead of 132, gate_up 46.78 -> 40.05, down 32.69 ->
    -- 27.30; M = 1 14.24 -> 13.92 and 9.92 either way: its 96 (128) tiles still one per SM).
    -- Above 32 rows, 16-bit A: wgmma_ws at block K 128, 96 x 256 x 128 and 128 x 256 x 128 with
    -- three stages (moe9.sh `ws5`, s8-moe9/call1: M = 1024 / 4096 gate_up 196.86 / 541.54 ->
    -- 181.70 / 506.46, down 124.91 / 371.15 -> 119.17 / 324.82; session 7's call: 198.27 / 543.20
    -- -> 183.01 / 510.24 and 126.34 / 344.22 -> 119.82 / 353.52), half the stages per tile of block
    -- K 64 with the copies on the producer warpgroup. 4-bit weights with scale groups of 32 or
    -- more, as the dense rule's three 256 x 128 x 128 stages below (wider codes fit two stages of
    -- 128 x 256 x 128); 8-bit A keeps the plain wgmma tiles (its promoted accumulators), both untimed
    -- on these. Session 9 (bench/sweeps/moe10.sh, s9-moe10/call1; Humming 0.1.20 picks 16 x 256 x
    -- 128 with four 64-row slabs per warp at 8 rows per expert and 80 x 256 x 64 at 64, moe10-humming.py):
    -- 2..16 rows, 16-bit A and 4-bit weights: plain wgmma 16 x 256 x 128, one warpgroup of four
    -- slabs (warp n 64), two CTAs per SM, whole (M = 128: gate_up 86.82 -> 77.06, down 54.37 ->
    -- 49.65 us): half the tiles of 16 x 128, each staging its 16 rows of A once for 256 columns.
    -- 33..64 rows: plain wgmma 80 x 256 x 64, two warpgroups of two slabs, two CTAs per SM, whole
    -- (M = 1024: gate_up 161.86 -> 146.88, down 108.54 -> 97.06): ~64 rows per expert pad to one
    -- block of 80 instead of 96, and two CTAs per SM hide each other's fill and epilogue (ncu of
    -- the 96-row wgmma_ws tile: 3 warps and 0.42 issued instructions per scheduler per cycle, no
    -- eligible warp 58 % of cycles); 64-row blocks (Humming's older cap) 163.90 / 100.18 with two
    -- warpgroups, 177.62 / 108.37 with one of four slabs; stream-K on the plain tile 201.70 / 118.34.
    -- Session 10 (bench/sweeps/moe11.sh, s10-moe11/call1, two readings each, main's tiles first;
    -- Humming 0.1.20 in the same call gate_up 137.41 / 423.94 us at M = 1024 / 4096, down 82.14 /
    -- 245.28), 16-bit A and 4-bit weights, Humming's tiles above 32 rows (moe10's `ws80w`, `big96`),
    -- whole, checked in that call (test_expert_gemm's small and Qwen3 cases, the layer at M = 1024
    -- and 4096 against float64):
    -- 33..64 rows: wgmma_ws 80 x 256 x 64 with four stages, one CTA (M = 1024 gate_up 147.46,
    -- 146.90 -> 140.46, 141.07; down 91.07, 90.42 -> 86.58, 85.97; two CTAs of 80 x 128 x 64:
    -- 182.78 / 98.02).
    -- 65.. rows: wgmma_ws 96 x 256 x 64 / 4 (M = 4096 gate_up 484.83, 484.74 -> 470.64, 472.37; down
    -- 342.96, 322.02 -> 281.78, 280.32): 256 +- 16 rows per expert pad to three blocks of 96 where
    -- those of 128 take two or three; two CTAs of 96 x 128 x 64 554.32 / 306.74.
    -- Session 11 (bench/sweeps/moe12-call1.sh, moe12-call2.sh; bench/results/H200-2026-12-03/
    -- s11-moe12: main's table as a site file on the same binary, main's figure first; call 1's
    -- two readings, call 2's one; each tile checked in its call: test_expert_gemm's cases on this
    -- table, the layer against float64 at M 1 / 8 / 128 / 1024 / 4096), 16-bit A and 4-bit
    -- weights, whole, two CTAs per SM up to 16 rows:
    -- 1 row: block M 8 (one m64n8k16 per k16 step and slab; a block of 16 pads half its rows at
    -- ~0.5 rows per expert), 8 x 128 x 256, four stages; plain wgmma on a deep K (gate/up, K =
    -- 2048: M = 1 14.10, 14.02; 13.95 -> 13.34, 13.17; 13.25; M = 8 within the noise: 40.46,
    -- 39.92; 46.35 -> 40.50, 42.94; 43.12), wgmma_ws on a short one (down, K = 768: three k-blocks
    -- per tile, over before a plain pipeline fills, while the producer runs on into the next tile
    -- as the math warps write C: M = 8 27.50, 27.71; 27.36 -> 25.73, 25.06; 23.73).
    -- 2..16 rows: wgmma_ws 16 x 256 x 128, four slabs per warp (M = 128 gate_up 76.80, 76.29;
    -- 76.72 -> 72.00, 71.58; 71.95, down 49.78, 49.57; 50.16 -> 45.39, 44.78; 44.78).
    -- 33..64 rows: six stages (M = 1024, call 2: gate_up 138.90 -> 138.40, down 86.13 -> 82.70;
    -- call 1 beside four: 138.48 -> 135.95, 85.07 -> 82.72).
    -- 96.. rows: 144-row blocks, wgmma_ws 144 x 256 x 64 / 4: 256 +- 16 rows per expert pad to two
    -- of 144 as to three of 96, and each weight tile is dequantized once for 144 rows (M = 4096
    -- gate_up 470.86, 465.82; 468.13 -> 429.15, 427.25; 426.35, down 276.66, 278.11; 278.13 ->
    -- 272.72, 272.74; 269.54; M = 1536, 96 rows, where half the experts take two blocks of 96:
    -- 238.69 -> 215.54, 143.41 -> 137.65). Below 96 rows one block of 96 holds most experts and
    -- costs less than one of 144 (M = 1100, 69 rows: gate_up 162.77 against 212.77, down 101.84
    -- against 134.21); between 69 and 96 rows only those two points are timed.
    -- Session 12 (bench/sweeps/moe13-call4.sh, bench/results/H200-2026-12-03/s12-moe13t: candidate
    -- tables as site files, each timed twice beside this table's, whose nine readings come first as
    -- range or median; each candidate's layer checked against float64 at M 1 / 8 / 1024 / 4096):
    -- 1 row: wgmma_ws 8 x 128 x 256, three stages, three CTAs per SM, on both GEMMs: M = 8's ~600
    -- gate/up tiles over 396 slots instead of 264 (gate/up M = 8 39.5 .. 43.7, median 40.5 -> 38.85,
    -- 38.99, M = 1 13.1 .. 13.3 -> 13.06, 13.02; two CTAs of the same tile 41.44, 41.12; plain
    -- wgmma at three CTAs 36.06, 40.38 but 14.18, 14.11 at M = 1; down M = 8 22.3 .. 25.9, median
    -- 24.3 -> 21.95, 23.65, 23.98, 24.05, M = 1 9.6 .. 10.0 -> 9.65 .. 9.90).
    -- 33..64 rows: block K 128, four stages (M = 1024 gate/up 136.4 .. 154.6, median 137.0 ->
    -- 131.82, 132.50; down median 82.6 -> 82.74, 82.67): half the k-blocks per tile; eight stages
    -- of 64, as much K in flight, 136.06, 136.80; two CTAs of 80 x 128 x 64 150.98, 150.62.
    -- 96.. rows: 144 x 256 x 64 / 4 stays (M = 4096 gate/up median 428.6, down 272.6): three stages
    -- 439.52 / 273.31, five 435.26 / 277.28, 144 x 128 x 64 / 6 615.73 / 354.77, two CTAs of 96 x
    -- 128 x 64 508.94 / 296.94, 128 x 256 x 128 / 3 471.58 / 296.29, stream-K summed in the
    -- workspace 441.71 / 282.08, through C 433.71 / 290.22 (first readings).
    if compute and compute.gemm_type ~= "dense" then
      local w = compute.moe_wgmma
      local plain = compute.moe_a8 or not (compute.moe_weight_bits <= 4 and compute.moe_kernel_group >= 32)
      -- a wgmma tuning of `kernel`: block M x N x K, warp N (16 rows of each of warp_n / 16 slabs)
      local function tile(kernel, block_m, block_n, block_k, warp_n, stages, ctas_per_sm)
        local t = mma(block_m, block_n, block_k, block_m, warp_n, block_k, stages, ctas_per_sm)
        t.kernel = kernel
        return t
      end
      local small = whole(mma(16, 128, 256, 16, 32, 128, 4, 2))
      -- One row per expert on 8-row warps, the products transposed (session 24, bench/results/
      -- H200-2026-12-04/s24-call1/, Qwen3-30B-A3B's MoE layer, E = 128, top-k 8, whole layer,
      -- two rounds, µs at M = 1 / 8: uint8 weights 36.18, 36.24 / 95.39, 102.22 -> 32.62, 32.53 /
      -- 90.35, 98.82; uint4 g128 under moe.activation = mxfp8 42.69, 42.80 / 139.26, 119.81 ->
      -- 40.32, 40.26 / 124.22, 124.58; e4m3 and int8 weights with 8-bit A untimed). 16 rows per
      -- expert keep 16-row warps (two blocks of 8 rows lost on dense layers at M = 16), and so do
      -- act-order experts (rows8: 8 rows lost on dense act-order layers).
      local small8 = whole(mma(8, 128, 256, 8, 32, 128, 4, 2))
      local ws = w and not plain -- the warp-specialised tiles timed on 16-bit A and 4-bit weights
      local one = whole(tile("wgmma_ws", 8, 128, 256, 32, 3, 3))
      -- above 64 rows: wgmma_ws block_m x 256 x 64 / 4 whole where `ws`, else 128-row tiles
      local function big(block_m)
        return ws and whole(tile("wgmma_ws", block_m, 256, 64, 32, 4)) or w and tile("wgmma", 128, 256, 64, 32, 4)
          or mma(128, 256, 128, 64, 64, 128, 4)
      end
      return ranges({
        { 1, ws and one or rows8(layer) and small8 or small },
        { 16, ws and whole(tile("wgmma_ws", 16, 256, 128, 64, 4, 2)) or small },
        { 32, w and wg("wgmma", 32, 128, 256, 5) or mma(32, 128, 256, 32, 32, 64, 4) },
        -- 33..64 rows, plain: c6, 96-row tiles two per SM (moe/gateup-c6.txt, down-c6.txt: M = 1024
        -- gate_up 290.69 -> 196.83, down 208.06 -> 124.86)
        { 64, w and (plain and wg("wgmma", 96, 128, 64, 4, 2) or whole(tile("wgmma_ws", 80, 256, 128, 32, 4)))
          or mma(64, 128, 256, 64, 32, 128, 3) },
        { 95, big(96) },
        { math.huge, big(144) },
      })
    end
    local a8 = layer.a8
    local list
    if layer.kernels.wgmma then
      -- three 256 x 128 x 128 stages fit 227 KiB with 4-bit weights and scale groups of 32 or
      -- more (wgmma_ws; beside its own epilogue tile, two: `last` below stages C in the third's
      -- slot for integer codes); wider weights or finer groups take
      -- four 256 x 128 x 64 stages, with 16-bit A on plain wgmma, but 8-bit integer weights on
      -- wgmma_ws with the three that fit (s6-final-45ce098, extra.txt `dense-w8a`: uint8 channel
      -- fp16 8192 x 8192, M 1024 / 8192 224.99 / 1697.70 -> 204.74 / 1518.02; M 65..128's
      -- 128 x 128 x 64 / 6 no better: 45.30 against 45.12; float8 weights untimed, keep plain wgmma)
      local deep = layer.weight_bits and layer.weight_bits <= 4 and layer.kernel_group >= 32
      local w8 = layer.weight_bits == 8 and not layer.weight_float
      -- 16-bit A: wgmma_ws from M = 17 (perf-ws.txt, 8192 x 8192 uint4 g128 fp16, M 32 / 128 /
      -- 1024 / 8192: 27.76 / 43.90 / 213.42 / 1614.16 -> 24.22 / 37.98 / 199.34 / 1609.98, every
      -- M 32..8192 and the Llama layers at M 128 and 1024 faster). 8-bit A too, with its stream-K
      -- sums in the workspace (a8ws/a8ws.txt, 8192 x 8192, M 128 / 1024 / 8192: e4m3 x e4m3
      -- 47.73 / 214.43 / 1657.23 -> 42.80 / 170.40 / 1379.30, e2m1 g32 x e4m3 52.50 / 290.86 /
      -- 2279.15 -> 45.22 / 237.54 / 1855.86), scales along K (FP8 block-wise, MXFP8) too, their
      -- factors staged with the codes (bench/NOTES.md, session 6, kgws).
      local family = "wgmma_ws"
      -- Narrow layers (16-bit A) with a short K: 64-row tiles at M 65..128, twice the CTAs
      -- (candidates.txt, wgmma_ws: 4096 x 4096 fp16 M = 128 28.22 -> 19.25 against 128 rows
      -- summed through C; a deep K takes 128 rows summed in the workspace instead, tile128s
      -- below), 64 x 64 tiles at M 33..64 (20.86 -> 16.45) and 128-row tiles above M = 128 (M 256 /
      -- 1024: 25.79 / 58.37, the 256-row tile 60.29 at 1024).
      local thin = not a8 and narrow(device, layer)
      local short = thin and short_k(layer)
      -- Above M = 128, 128-row tiles up to M = 384 (8192 x 8192 fp16, M 256 / 384: 68.51 /
      -- 111.34 -> 58.91 / 84.75; 128 x 128 x 256 with three stages 63.98 at 256), where the
      -- 256-row tiles leave half the SMs without a tile of their own.
      local mid = not a8 and deep
      local tile128 = wg(family, 128, 128, 128, 4)
      -- M 65..384 (16-bit A, but short narrow layers, untimed): that tile with
      -- its stream-K slices summed in the workspace, on narrow layers with a deep K too, where
      -- 64-row tiles ran up to M = 128 (bench/sweeps/dense9.sh; bench/results/H200-2026-12-02/
      -- s8-dense9/call1/, µs at M = 128: n = 4096, k = 14336 uint4 g128 fp16 39.95 (64 x 128 x
      -- 256) -> 35.23; 8192 x 8192 uint4 g128 bf16 37.78 -> 36.50, uint8 channel fp16 44.72 ->
      -- 42.85 (three stages fit); 128 x 256 x 64, Humming's tile there, 45.90 / 42.78 / 59.49;
      -- call2/: 8192 x 8192 fp16 M 128 / 256 37.70 / 58.24 -> 35.82 / 58.67, zp=int M = 128 36.22,
      -- uint2 channel 36.53 -> 34.02, n = 14336, k = 4096 33.38 -> 32.96). Act-order layers too:
      -- the workspace holds their permuted rows beside the partials, as at M <= 16.
      local sums = not a8 and not short
      local tile128s = sums and summed(wg(family, 128, 128, 128, 4)) or tile128
      -- 8-bit A: 128-row tiles with four stages above M = 128 too. e4m3's promoted accumulators
      -- cap block M at 128, and C's fit of the 256-row entries kept their stages: W4A8 (4-bit
      -- weights, the deep entry) ran three where seven fit (bench/NOTES.md, "w4a8"); W8A8 fitted
      -- to this tile already. int8's 256-row tiles on wgmma_ws have not run on a GPU.
      local function big()
        return a8 and tile128 or deep and wg(family, 256, 128, 128, 3) or w8 and wg(family, 256, 128, 64, 3)
          or wg("wgmma", 256, 128, 64, 4)
      end
      -- 16-bit A with integer weights on wgmma_ws runs its tiles above M = 384 whole, without
      -- stream-K, narrow layers with a deep K too (their slices summed in the workspace had won
      -- over sums through C: s6-final-45ce098, extra.txt `dense-l14a`, n = 4096, k = 14336 uint4
      -- g128 fp16 M = 1024 188.46 -> 178.00): stream-K's slices start at k-blocks of their own,
      -- so the CTAs sweep K out of step and each column tile
      -- reads A (M = 1024, k = 14336: 29 MB) from DRAM where whole tiles, walking K together, share
      -- it in L2 (ncu, n = 4096, k = 14336, M = 1024 summed: 228 MB of DRAM traffic for 67 MB of A,
      -- weights and C, L2 hit rate 70 %; bench/sweeps/dense10.sh, bench/results/H200-2026-12-02/s9-dense10/call1/: that layer at
      -- M = 1024 187.44 -> 156.11 us, 8192 x 8192 at M = 512 111.12 -> 94.96 (128 tiles on 132 SMs),
      -- 128 x 256 x 128 summed 166.99 and 100.83; call2/, main's entry at M - 1 beside: 8192 x 8192
      -- fp16 M 512 / 1024 / 2048 / 8192 107.81 / 200.80 / 374.24 / 1404.70 -> 95.94 / 179.20 / 355.17 /
      -- 1411.06, bf16 M = 1024 202.03 -> 178.14, uint2 channel 183.07 -> 165.31, uint8 channel 196.94 ->
      -- 184.77 (its M = 8192 untimed), n = 4096, k = 14336 187.76 -> 156.29). Act-order layers too
      -- (bench/sweeps/ao13-call4.sh, bench/results/H200-2026-12-03/s12-ao13/, 8192 x 8192 uint4
      -- g128 fp16, two rounds, the permutation included: M 512 / 1024 / 2048 119.55 / 214.30 /
      -- 430.43 -> 102.34 / 194.26 / 392.03 us, 1.10 / 1.09 / 1.05 of the plain layer; M 4096
      -- 1.5 % slower, 853.49 / 841.04 -> 864.88 / 861.20 in the two rounds, 8192 level).
      local whole_big = not a8 and (deep or w8)
      -- 8-bit codes' whole tiles stage C in their last stage's slot (c_tile "stage"), five stages
      -- of block K 64 where a C tile of their own left three, and multicast A to 2-CTA clusters
      -- (n = k = 8192 fp16, side-by-side.py, bench/results/H200-2026-12-05/s26-call3-ab/, two
      -- rounds, M 2048 / 8192 us: own C tile 409.4, 418.2 / 1683.2, 1767.4; C in the stage 402.4,
      -- 417.4 / 1693.1, 1742.6; with multicast 395.2, 407.1 / 1649.5, 1690.0; Humming 401.2, 401.0 /
      -- 1569.6, 1676.9; M = 512, one round, s26-call2-ebc8854/, C in the stage: 95.74, with
      -- multicast 97.66, Humming 111.71). 3- and 4-bit integer codes stage C in the slot too, on
      -- three 256 x 128 x 128 stages where a C tile of their own left two. On an H200 in session 26
      -- that lost at M = 8192 (1635.0, 1657.2 against 1576.3, 1591.3; cause not measured) and
      -- was level with multicast (1575.7, 1602.0). Since 11085a6 releases the slot once C is read
      -- back, without multicast it wins at M 512 / 1024 on an H100, within the rounds' spread
      -- (up to 10 % at M 8192 on that card) above (bench/results/H100-2026-12-07/
      -- s48-a-5c437b621762/ab.txt, n = k = 8192, hum bench, three rounds, µs, own C tile -> slot:
      -- uint4 g128 fp16 M 512 93.25, 93.33, 93.42 -> 89.81, 89.70, 89.66; 1024 176.19, 176.21,
      -- 176.35 -> 173.86, 174.46, 174.14; 2048 355.25, 347.65, 347.70 -> 348.82, 352.43, 349.17;
      -- 8192 1545.2, 1595.9, 1612.4 -> 1577.4, 1594.6, 1432.2; bf16 M 1024 174.24, 173.73, 174.03
      -- -> 168.69, 169.76, 168.93, 8192 1463.6, 1356.0, 1507.2 -> 1496.2, 1560.0, 1362.8; int zero
      -- points M 1024 178.02, 178.24, 178.69 -> 173.79, 174.66, 174.22, 8192 1553.8, 1428.8,
      -- 1402.6 -> 1418.7, 1406.0, 1418.4). Untimed: uint3; multicast with the early release; the
      -- H200 since 11085a6. e2m1 codes with 16-bit A (untimed) keep their own C tile. 2-bit codes
      -- and fewer (a quarter of uint8's weight bytes) stage C in the slot with multicast and keep
      -- block K 128:
      -- three stages (bench/results/H100-2026-12-05/s29-a/ and s29-b/, H100, uint2 channel
      -- 8192 x 8192, hum bench, two rounds each, µs, own C tile -> C in the slot with multicast:
      -- M 512 89.33, 89.07 -> 86.29, 86.78; 1024 168.03, 167.47 -> 167.34, 167.10; 2048 338.59,
      -- 338.27 -> 326.78, 325.23; 4096 694.77, 666.16 -> 649.34, 656.22; 8192 1450.70, 1465.28,
      -- 1483.62, 1501.79 -> 1356.61, 1443.70, 1487.82, 1501.60; the slot without multicast lost at
      -- 8192: 1482.62, 1467.01, 1509.86, 1513.31; block K 64 with six or five stages lost at 8192
      -- too). uint1 untimed.
      local two = layer.weight_bits and layer.weight_bits <= 2
      local last = short and tile128
        or whole_big and whole(w8 and staged(big(), 5) or two and staged(big())
          or not layer.weight_float and staged(big(), 3, false) or big())
        or big()
      -- W8A8 e4m3 above M = 1024: 192-row tiles, the promoted accumulators' two sets of 96 within
      -- the 232 registers of wgmma_ws's math threads (fewer bytes of A and weights per multiply-add;
      -- H200, n = k = 8192, bench/results/H200-2026-12-02/a8-2/: M 2048 / 4096 / 8192 285.17 /
      -- 556.42 / 1112.61 us against 128 rows' 316.35 / 618.45 / 1238.48, M 1024 160.54 against
      -- 161.81; C's fit keeps 128 rows where scales along K need the registers). W4A8 MXFP4 (e2m1
      -- with e8m0 groups folded, e4m3 A) too: a decoded weight fragment serves 192 tokens instead of
      -- 128 in a loop issue-bound on the decode (bench/results/H200-2026-12-02/s8-w4a8/call1/, M 1024
      -- / 2048 / 8192: 191.74 / 367.84 / 1498.88 -> 186.54 / 333.60 / 1256.30), but with e4m3 A
      -- per token it takes 256 rows (below). whole_fill 95 on the 192-row W8A8 entry is untaken:
      -- one round each, mixed (bench/results/H200-2026-12-05/s30-a-6a400dd/ab.txt, µs, M 1152 140.13
      -- -> 136.48, 1536 185.42 -> 180.30, 1920 228.90 -> 230.72; every tile whole at 8192, a 99 %
      -- fill, 1063.17 -> 1093.06 in s29-d-73afc08/extra.txt). W8A8 (channel or tensor weight
      -- scales) stages C there in the last stage's slot, five stages where its own C tile left four,
      -- without multicast (bench/results/H100-2026-12-07/s48-a-5c437b621762/ab.txt, H100, n = k =
      -- 8192, hum bench, three rounds, µs: M 2048 245.28, 244.69, 244.75 -> 241.97, 242.27,
      -- 242.50; 8192 892.59, 973.42, 959.34 -> 883.92, 881.94, 897.52; H200 untimed; FP8
      -- block-wise keeps its own C tile, untimed in the slot)
      local e2m1_e4m3 = layer.a_dtype == "float8_e4m3fn" and layer.weight_float and layer.weight_bits == 4
        and layer.scale_dtype == "float8_e8m0"
      local mxfp4 = e2m1_e4m3 and layer.kernel_group < layer.padded_k
      local w8a8 = layer.a_dtype == "float8_e4m3fn" and layer.weight_float and layer.weight_bits == 8
      local rows192 = mxfp4 or w8a8
      -- W4A8 MXFP4 from M = 385: 256-row tiles, half their totals in shared memory
      -- (kernels/gemm/gemm_wgmma.cu, kSmemTotals; three stages): a decoded weight fragment serves
      -- 256 tokens, a quarter of the promotions' adds in a loop bound by issue
      -- (bench/results/H200-2026-12-03/s15-call2/, n = k = 8192, M 512 / 1024 / 2048 / 8192, two
      -- rounds, every 512 of K: 192 rows 86.8 / 155.1 / 277.8, 296.2 / 1159.3, 1196.2 -> 75.0 /
      -- 139.5 / 273.2, 276.3 / 1090.3, 1126.5 us; every 256 83.1 / 155.4 / 319.8 / 1224.7).
      -- Promoted every 1024 of K (bench/sweeps/next-whole-tiles.sh, bench/results/H200-2026-12-04/
      -- s18-call1/, two rounds, M 1024 / 8192: every 512 139.26, 138.45 / 978.26, 1049.70 -> 130.27,
      -- 130.18 / 957.63, 914.11 us). Its error at K = 8192 stays under test_gemm_a8's 1e-3 (its
      -- K = 8192 case runs this entry at M = 520, bfloat16 out): 8.77e-04, 8.73e-04 in session 18's two
      -- labels (s18-call2-e2bd988/, s18-call4-a77f32a/), 7.1e-04 every 512 (s15-call2/, where W8A8
      -- e4m3 missed the bar every 512, 1.06e-03). Every entry of the table is promoted so (below).
      local mx = mxfp4 and layer.kgroup_k == 0
      local mx_big = mx and wg(family, 256, 128, 128, 3)
      -- e2m1 with e8m0 scales (folded groups or channels) and e4m3 A at M <= 16: the 16-row wgmma_ws
      -- tile (the M 17..32 tile's, six stages), whose wgmma takes e4m3 as it is where mma.sync on
      -- sm_90 multiplies float16 conversions of both operands (bench/results/H200-2026-12-02/
      -- s9-a8small/call2/, MXFP4 n = k = 8192, M 1 / 16: 28.18 / 29.10 -> 25.42 / 26.45 us; W8A8
      -- e4m3 30.66 / 31.63 either way, kept); MXFP4 at M <= 8 the 8-row one (wgmma's smallest N:
      -- half the activation rows read from shared memory per wgmma; s15-call2/, three rounds, M 1 / 8:
      -- 22.56, 22.61, 22.67 / 23.26, 23.36, 23.12 -> 22.27, 22.21, 22.11 / 23.04, 23.04, 22.86; uint2,
      -- uint4 and W8A8 gained nothing from it, s15-call1/)
      local mx_tiles = e2m1_e4m3 and layer.kgroup_k == 0
      -- W8A8 e4m3 (channel or tensor weight scales) and W4A8 MXFP4 where 64-column tiles fill the
      -- SMs one each (n = 8192 on 132 SMs): tiles whole at the M below (W8A8 to M = 384, MXFP4 to
      -- 512: every row block one wave of tiles), with no stream-K slices to meet in the workspace nor
      -- their uneven ends; two row blocks of 128-column tiles where N is whole such tiles (cols128).
      -- Timed at n = k = 8192 on the H200 alone (other N fill other GPUs; other K untimed).
      local cols64 = fills(device, layer.padded_n / 64)
      local cols128 = layer.padded_n % 128 == 0
      local w8a8_fills = w8a8 and layer.kgroup_k == 0 and cols64
      -- FP8 block-wise (128 x 128 weight blocks, A in 1 x 128 groups) at M <= 128 on W8A8's
      -- 64-column tiles below, whole, where they leave at most a fifth of the SMs idle: no stream-K
      -- slices to meet over a short K (bench/sweeps/s37-b.sh, bench/results/H100-2026-12-06/
      -- s37-b-40ac19931b02/ab.txt, H100, one round, site policies, µs, the table's 128-column
      -- tiles under stream-K -> these: n = 7168, k = 2048 (112 tiles on 132 SMs) M 1 17.02 ->
      -- 13.89, 16 17.46 -> 13.76, 32 17.31 -> 12.93, 64 18.45 -> 13.73, 128 21.86 -> 15.65;
      -- n = k = 8192 M 1 40.66 -> 36.75, 16 40.69 -> 37.70, 32 40.70 -> 36.88, 64 42.11 -> 37.76,
      -- 128 45.62 -> 40.24; the same tiles under stream-K 16.77 .. 19.86 / 39.46 .. 44.83).
      -- Other N untimed.
      local blk_fills = w8a8 and layer.kgroup_k == 128 and fills(device, layer.padded_n / 64, 2)
      local a8_fills = w8a8_fills or blk_fills
      -- 8-bit integer codes with 16-bit A where two row blocks of 128-column tiles fill the SMs one
      -- each (n = 8192 on 132 SMs): 192 x 128 x 64 tiles whole, five stages, at M 129..192 and
      -- 257..384, and the 128 x 128 x 128 tile summed in the workspace at 193..256, where the
      -- 256-row tile's three stages under stream-K ran a row block and a half at M 257..384 in twice
      -- the time of M = 256 (bench/results/H100-2026-12-05/s33-c-f18d6ccb0611/ and
      -- s33-d-f18d6ccb0611/, H100, uint8 channel fp16 n = k = 8192, hum bench, µs, 256 rows -> 192
      -- whole / 128 summed: M 160 75.38 -> 67.14 / 79.47; 192 71.87 -> 65.44 / 73.90; 224 69.68 ->
      -- 101.70 / 68.66; 256 69.81, 69.52, 69.42 -> 84.16, 84.37, 84.93 / 63.55, 63.66, 63.36; 288
      -- 145.78 -> 69.30 / 91.68; 320 142.13, 141.68, 142.42 -> 71.73, 71.28, 70.45 / 86.66; 352
      -- 135.41 -> 71.90 / 85.89; 384 130.58, 130.66, 131.02 -> 74.54, 74.24, 73.28 / 85.90).
      local w8_192 = w8 and not a8 and not thin and not layer.act_order and fills(device, 2 * layer.padded_n / 128)
        and whole(wg(family, 192, 128, 64, 5))
      local mx_fills = mx and cols64
      -- W4A8 MXFP4 at M <= 8 there: 8 x 64 x 256 tiles with eight stages (s17-call3/ and
      -- bench/results/H200-2026-12-04/s18-call1/, M 1 / 8, built-in 22.10, 22.13, 22.32, 22.24 /
      -- 22.90, 22.99, 23.46, 22.88 -> 21.95, 22.16, 22.10 / 22.91, 23.04, 23.07 us)
      local mx8 = mx and (mx_fills and whole(wg(family, 8, 64, 256, 8)) or wg(family, 8, 128, 256, 6))
      local mx_small = mx_tiles and wg(family, 16, 128, 256, 6)
      -- W4A8 MXFP4 where 64-column tiles fill the SMs, promoted every 1024 of K as every entry
      -- (bench/results/H200-2026-12-04/s19-call2/request.sh, site policies; n = k = 8192, two
      -- rounds, the table promoted every 1024 -> the tile, µs): M 9..16 on 16 x 64 x 256 whole, eight
      -- stages (M = 16 23.60, 23.39 -> 23.01, 22.94); M 17..32 on 32 x 64 x 256 whole, six (M = 32
      -- 24.38, 24.26 -> 24.00, 24.00); M 129..256 on 256 x 64 x 128 whole, four, one row block of
      -- 128 tiles (M = 256 44.50, 44.32 -> 42.62, 42.77; two of 128 x 128 x 128); M 257..384 on
      -- 192 x 128 x 128 whole, four, two row blocks of 64 (M = 384 68.40, 68.32 -> 53.47, 53.70;
      -- 128 x 128 x 128 under stream-K). 256 x 128 x 128 under stream-K at M 129..384 lost (s19-call1/,
      -- M 256 / 384 47.39 / 81.30 against 44.70 / 68.64), as did 64 x 256 x 128 at M 33..64 and
      -- 32 x 256 x 256 at 17..32 (Humming's 256 columns: 30.08 / 26.37 against 26.74 / 24.86).
      -- M 33..64 on 64 x 64 x 256 whole, five stages, as W8A8 (bench/results/H200-2026-12-04/s19-call3-a50e399/,
      -- M = 64 26.43, 26.40 -> 26.11, 26.24; promoted every 256 it had lost, s18-call1/); M 65..128 on
      -- 128 x 64 x 256 whole, four (M = 128 32.83, 32.85 -> 31.41, 31.14)
      local mx16 = mx_fills and whole(wg(family, 16, 64, 256, 8))
      -- M 17..128 there (s18-call1/, two rounds, n = k = 8192, µs): W8A8 at M 32 on 32 x 64 x 256 with six
      -- stages 31.95, 31.92 -> 28.80, 29.06; at M 64 on 64 x 64 x 256 with five 32.85, 32.91 -> 30.11,
      -- 29.94; at M 128 on 128 x 64 x 128 with six 37.86, 37.97 -> 34.27, 34.45 (W4A8 MXFP4, then promoted
      -- every 128 / 256: at M 128 on the last 34.94, 34.90 -> 33.23, 32.86; at M 32 and 64 nothing,
      -- 25.01 -> 24.99 / 28.06 -> 28.96, 28.50 on 64 x 64 x 256; every 1024 its tiles are those above)
      local a8_32 = (a8_fills or mx_fills) and whole(wg(family, 32, 64, 256, 6))
      local a8_64 = (a8_fills or mx_fills) and whole(wg(family, 64, 64, 256, 5))
      local a8_128 = mx_fills and whole(wg(family, 128, 64, 256, 4)) or a8_fills and whole(wg(family, 128, 64, 128, 6))
      -- M 129..256 there: W8A8 on two row blocks of 128 x 128 x 128 tiles (four stages), one wave
      -- whole where N is whole 128-column tiles (bench/results/H200-2026-12-04/s18-call3/, two rounds,
      -- M = 256: 46.91, 46.82 -> 43.09, 42.78 us; at M = 512 its four row blocks whole were level,
      -- 78.99, 78.91 -> 78.91, 78.78; promoted every 256 there 44.86, 44.51, or on 256 x 64 x 128
      -- 48.30, 48.24: s19-call2/); W4A8 MXFP4 on one row block of 256 x 64 x 128 (above)
      local a8_256 = mx_fills and whole(wg(family, 256, 64, 128, 4))
        or w8a8_fills and cols128 and whole(wg(family, 128, 128, 128, 4))
      -- M 257..384 there: two row blocks of 192 x 128 x 128 tiles whole, four stages, where N is whole
      -- 128-column tiles (one wave of 128): MXFP4 (above), W8A8 too (bench/results/H200-2026-12-04/
      -- s20-call4-b26e872/, two rounds, M = 384: 128 x 128 x 128 under stream-K 63.06, 63.01 -> 54.00,
      -- 54.08 us). W4A8 MXFP4 at M 385..512: two row blocks of 256 x 128 x 128 whole, three stages
      -- (its entry above M = 384 without stream-K; same call, M = 512: 71.10, 71.10 -> 64.80, 65.07)
      local a8_384 = (w8a8_fills or mx_fills) and cols128 and whole(wg(family, 192, 128, 128, 4))
      local mx512 = mx_fills and cols128 and whole(wg(family, 256, 128, 128, 3))
      -- W4A8 MXFP4 at M 513..768 there: 192 x 128 x 128 tiles, four stages, whole where they fill
      -- the waves to 95 % (M 641..768: four row blocks of 64, 97 %), where 256-row ones leave three
      -- row blocks (73 %) to stream-K (bench/results/H100-2026-12-05/s33-c-f18d6ccb0611/ and
      -- s33-d-f18d6ccb0611/, H100, n = k = 8192, hum bench, µs, 256 rows -> 192: M 544 117.92 ->
      -- 80.77; 576 112.45 -> 81.90; 640 106.58 -> 96.98; 704 102.22 -> 96.10; 768 103.07, 103.20,
      -- 103.12 -> 95.95, 95.92, 96.02; above it 256 rows win: 832 126.91 -> 128.82, 896 122.02 ->
      -- 127.18, 1024 121.95, 121.95 -> 138.85, 139.54)
      local mx768 = mx_fills and cols128 and filled(wg(family, 192, 128, 128, 4))
      -- FP8 block-wise (128 x 128 weight blocks, A in 1 x 128 groups) at M 129..1024: six
      -- 128 x 128 x 128 stages, C in the last stage's slot, whole where the tiles fill the waves to
      -- 95 % (bench/sweeps/s37-a.sh, bench/results/H100-2026-12-06/s37-a-5a26b9259f08/ab.txt, H100,
      -- one round, site policies, µs, four stages under stream-K -> this: n = k = 8192, M 256 55.71
      -- -> 48.75, 512 92.69 -> 85.89, 1024 168.90 -> 165.60; n = 7168, k = 2048, M 256 24.61 ->
      -- 23.55, 512 31.94 -> 31.55, 1024 51.12 -> 50.50). It lost at M = 128 (45.66 -> 47.12, 21.49 ->
      -- 21.82: one row block, under stream-K) and was mixed above 1024 (M 2048 319.41 -> 325.46,
      -- 85.28 -> 81.52; 8192 1369.20 -> 1401.87, 307.20 -> 304.80); multicast untimed.
      local blk_mid = w8a8 and layer.kgroup_k == 128 and filled(staged(wg(family, 128, 128, 128, 6), 6, false))
      -- Short narrow layers at M 65..128 (16-bit A with integer weights, but act-order layers,
      -- untimed): 64 x 64 x 256 tiles whole, without stream-K, where their 2 N / 64 tiles fill the
      -- SMs one each (4096 x 4096: 128 tiles on 132 SMs). The 64 x 128 x 256 tile before it cut each
      -- of its 64 tiles over ~2 CTAs, whose slices took turns on C (ncu of M = 128: SMs active 75 % of
      -- the kernel, 1.65 long-scoreboard stalls per instruction); whole, the tiles' CTAs meet nowhere
      -- (bench/sweeps/dense11.sh, bench/results/H200-2026-12-02/s10-dense11/call1/, uint4 g128 fp16
      -- M = 128: 19.10 / 19.28 -> 15.33 us; the same tile summed in the workspace 19.98).
      local tiles64 = 2 * layer.padded_n / 64
      local fill64 = short and not layer.act_order and layer.weight_bits and not layer.weight_float
        and fills(device, tiles64)
      -- W8A8 e4m3 (channel or tensor weight scales) at M <= 16 where 64-column tiles fill the SMs
      -- one each (n = 8192 on 132 SMs): those tiles whole, eight stages, warps 16 x 32 x 64, with
      -- no stream-K slices to meet in the workspace nor their uneven ends (ncu of the built-in's
      -- GEMM at M = 1: 57 % of DRAM bandwidth, 27 % of the warps' samples waiting for their
      -- stages; more stages alone did not help; bench/results/H200-2026-12-03/s17-call3/, n = k = 8192,
      -- M 1 / 16, built-in twice: 30.51, 30.26 / 31.02, 31.33 -> 28.54 / 29.34 us; the same tile
      -- with stream-K 30.00 / 30.62; 16-bit A with uint4 g128, bound by its decode, lost: 20.64,
      -- 20.85 / 21.22, 21.20 -> 21.68 / 21.58). Untimed on other GPUs (other N fill theirs) and K.
      -- At M <= 8 on 8 rows, as small_m's (s23-call1/: 29.10 / 29.17 / 29.34 -> 28.19 / 28.99 /
      -- 28.90 at M 1 / 4 / 8). Two CTAs per SM read 27.04 / 27.57 / 29.86 in one round: faster at
      -- M 1 / 4, slower at 8; not taken before a second round splits the range.
      local function w8a8_fill(rows) return a8_fills and whole(mma(rows, 64, 256, rows, 32, 64, 8)) end
      local rows = {}
      if mx8 then
        rows[1] = { 8, mx8 }
      elseif not (mx16 or mx_small) and rows8(layer) then
        rows[1] = { 8, w8a8_fill(8) or small_m(device, layer, 8) }
      end
      for _, row in ipairs({
        { 16, mx16 or mx_small or w8a8_fill(16) or small_m(device, layer, 16) },
        { 32, a8_32 or wg(family, 32, 128, 256, 5) },
        { 64, a8_64 or short and wg(family, 64, 64, 256, 5) or wg(family, 64, 128, 256, 4) },
        { 128, a8_128 or fill64 and whole(wg(family, 64, 64, 256, 5)) or short and wg(family, 64, 128, 256, 4) or tile128s },
      }) do rows[#rows + 1] = row end
      if a8_256 then
        rows[#rows + 1] = { 256, a8_256 }
      elseif w8_192 then
        rows[#rows + 1] = { 192, w8_192 }
        rows[#rows + 1] = { 256, tile128s }
      end
      rows[#rows + 1] = { 384, blk_mid or a8_384 or w8_192 or short and tile128 or mid and tile128s or big() }
      if mx512 then rows[#rows + 1] = { 512, mx512 } end
      if mx768 then rows[#rows + 1] = { 768, mx768 } end
      -- W8A8 e4m3 (channel or tensor weight scales) at M 385..1024: 128 x 128 x 128 tiles, six
      -- stages, C in the last stage's slot, A multicast to 2-CTA clusters (cuBLASLt fp8 runs its
      -- 128 x 128 tiles in 2 x 1 clusters there), whole where the tiles fill the waves of the SMs
      -- to 95 % (whole_fill: one kernel, chosen at launch), else under stream-K
      -- (bench/results/H100-2026-12-05/s29-b/ and s29-c/, H100, n = k = 8192, hum bench, two
      -- rounds, µs, built-in four stages under stream-K -> whole / stream-K, each its own kernel:
      -- M 512 (97 % fill) 83.95, 84.27 -> 73.22, 73.07 / 79.57, 79.58; 640 (81 %) 98.59, 98.58 ->
      -- 105.15, 104.98 / 97.74, 97.92; 768 (97 %) 113.95, 113.50 -> 106.98, 106.93 / 112.03,
      -- 111.76; 896 (85 %) 131.26, 131.31 -> 139.04, 136.69 / 130.98, 129.34; 1024 (97 %) 146.74,
      -- 146.30, 146.10, 146.32 -> 138.86, 138.90, 137.79, 137.71 / 144.19, 145.30, 143.07, 142.51;
      -- multicast on the 192-row tiles above lost: M 2048 257.7 -> 282.3, 279.2; fills between 85
      -- and 95 % untimed). The choice at launch matches those kernels (bench/results/
      -- H200-2026-12-05/s30-a-6a400dd/ab.txt, H200, two rounds, µs, this entry -> compiled whole /
      -- whole_fill 0: M 512 70.59, 70.75 -> 70.34, 70.30 / 75.14, 74.58; 640 95.04, 94.82 -> 103.01,
      -- 102.61 / 95.17, 94.85; 768 105.41, 105.95 -> 104.74, 103.95 / 109.14, 108.54; 896 127.42,
      -- 126.11 -> 138.30, 134.21 / 131.02, 126.26; 1024 141.92, 138.27 -> 139.02, 137.52 / 144.35,
      -- 141.95). Other N untimed (the fit narrows the tiles where padded N is no multiple of 128
      -- and drops multicast where it is none of 256).
      if w8a8 and layer.kgroup_k == 0 then
        rows[#rows + 1] = { 1024, filled(staged(wg(family, 128, 128, 128, 6))) }
      elseif blk_mid then
        rows[#rows + 1] = { 1024, blk_mid }
      elseif not mxfp4 then
        rows[#rows + 1] = { rows192 and 1024 or math.huge, last }
      end
      -- W4A8 MXFP4 at M 513..2048: its 256 x 128 x 128 tiles whole where they fill the waves to
      -- 95 % (s29-c/, H100, n = k = 8192, two rounds, µs, under stream-K -> whole: M 768 (73 %
      -- fill) 104.48, 104.42 -> 117.01, 116.91; 1024 (97 %) 131.23, 131.06 -> 121.95, 122.03; 2048
      -- (97 %) 243.31, 242.66 -> 231.92, 242.11; above 2048 whole was level on an H200,
      -- bench/results/H200-2026-12-05/s29-d-73afc08/extra.txt: 4096 444.64 -> 441.49, 8192
      -- 1003.65 -> 1010.40; A multicast lost, s29-b/: M 1024 130.98, 130.40 -> 133.82, 133.58).
      -- The choice at launch (s30-a-6a400dd/ab.txt, H200, two rounds, µs, this entry -> compiled
      -- whole / whole_fill 0): M 768 101.17, 101.10 -> 115.38, 115.18 / 101.20, 101.31; 1024
      -- 120.66, 120.82 -> 119.81, 118.67 / 127.60, 127.34; 1536 176.06, 176.08 -> 178.05, 176.67 /
      -- 180.21, 179.62; 2048 236.45, 255.06 -> 242.86, 242.91 / 258.37, 256.32. whole_fill 95 above
      -- M = 2048 lost (one round: 4096 505.26 -> 531.28, 8192 1040.80 -> 1091.49).
      if mx then rows[#rows + 1] = { 2048, filled(wg(family, 256, 128, 128, 3)) } end
      if rows192 then
        local t = wg(family, 192, 128, 128, 4)
        rows[#rows + 1] = { math.huge, mx_big or w8a8 and layer.kgroup_k == 0 and staged(t, 5, false) or t }
      end
      list = ranges(rows)
      -- W8A8 e4m3: the wgmma_ws entries take their weights by TMA as wgmma's shared-memory operand
      -- (weights_ss: no fragments for the math warps to load, no cp.async for the producer;
      -- bench/results/H100-2026-12-05/s31-b-85b985a/ab.txt, H100, n = k = 8192, two rounds, µs,
      -- register fragments -> weights_ss: M 256 48.42, 48.35 -> 47.62, 47.57; 512 74.77, 74.96 ->
      -- 72.98, 72.96; 1024 145.55, 141.89 -> 140.54, 136.86; 8192 1081.12, 1080.22 -> 1059.63,
      -- 1045.71; M <= 128 level). At M 257..384 they lost while a stage waited at its second step
      -- (54.19, 54.34 -> 55.09, 55.60) and win since its steps are issued together (kBatch,
      -- s32-b-8201d21/ab.txt and s32-c-8201d21/cand.txt, H100, M = 384: 54.05, 54.27 -> 53.26, 53.23;
      -- M = 320 level, 59.04 -> 59.12).
      -- Above M = 1024 the 192-row tiles, too wide for the stage sets' registers, drain and promote
      -- every other stage (promote_k 256; every 512 misses test_gemm_a8's 1e-3 at K = 8192,
      -- docs/policies.md; every 256 there 8.75e-04 at M = 1100 in s32-d's label), three rounds, µs,
      -- every 128 -> every 256: M 8192 1025.09, 1040.26, 1040.96 -> 972.11, 1023.28, 1006.45; 4096
      -- 502.67, 485.55 -> 499.87, 495.04; 2048 245.92, 246.22, 246.37 -> 248.10, 249.34, 247.42
      -- (s32-c-8201d21/cand.txt, s32-d-20f2fce/ab.txt, H100).
      -- There too the GEMM quantizes its own A (quantize_a, where the weights have no block scales,
      -- untimed there; the fit keeps it where A is per token, not per tensor nor in groups along
      -- K): the rows of later m-blocks while the first are multiplied, where a quantizer kernel
      -- held every SM first. Since the first rows are taken after
      -- setmaxnreg (no spill) the fused kernel runs within ~1 % of the plain one where it quantizes
      -- nothing (bench/results/H100-2026-12-07/s45-a-55d40500bd13/ab-v2.txt, H100, n = k = 8192,
      -- one round, µs, quantizer kernel first -> quantize_a: M 8192 977.86 -> 916.29, A given
      -- quantized 887.06 -> 896.86; M 2048 255.84 -> 255.94); on the H200, whose HBM makes the
      -- quantizer kernel cheaper, level (bench/results/H200-2026-12-07/s46-a-81340038a9fc/ab-head*.txt,
      -- two runs: M 8192 997.5, 998.4 -> 988.7, 1012.3; 2048 266.7, 268.8 -> 265.7, 266.5). W4A8
      -- MXFP4 gained nothing on the H100 (8192 942.77 -> 948.54, 2048 236.43 -> 237.54) and loses on
      -- the H200 (8192 992.4, 1002.4 -> 1029.9, 1042.6; ncu there, s46-b-c13ac70c45b5/ncu-mx-qa*.txt:
      -- the GEMM runs 5.6 % more cycles with the rows than on A given quantized): off. At M 512 and
      -- 1024 the fused path lost for W8A8 and MXFP4 alike on the H200 (s46-b, W8A8 66.05 / 128.38
      -- -> 71.30 / 133.09).
      if w8a8 then
        for _, e in ipairs(list) do
          if e.tuning.kernel == "wgmma_ws" then
            e.tuning.weights_ss = true
            if e.m_min > 1024 then
              e.tuning.promote_k = 256
              e.tuning.quantize_a = layer.kgroup_k == 0
            end
          end
        end
      end
      -- W4A8 MXFP4 promoted every 1024 of K on every entry: no stage sets, whose 128-row kernels
      -- spilled 564 .. 836 bytes (bench/results/H200-2026-12-04/s19-call1/ and s19-call2/, their
      -- request.sh: site policies; n = k = 8192, two rounds each, every 128 or 256 -> every 1024, µs: M 1 22.05,
      -- 22.21, 22.16, 22.14 -> 21.28, 21.47, 21.25, 21.12; M 8 22.86, 23.26, 23.01, 22.93 -> 22.22,
      -- 22.11, 22.08, 21.95; M 64 28.03, 28.21, 28.22, 28.06 -> 26.74, 26.72, 26.30, 26.19; M 128 and
      -- 1024 level). Its error at K = 8192 (test_gemm_a8's built-in pass: n = 1024, M 1 / 7 / 48 / 200
      -- / 520, the entries to 8, 33..64, 65..384 and above; bfloat16 out) 8.66e-04 in s19-call2/,
      -- under the 1e-3 bar
      if mx then
        for _, e in ipairs(list) do e.tuning.promote_k = 1024 end
      end
    else
      local rows = rows8(layer) and { { 8, small_m(device, layer, 8) } } or {}
      for _, row in ipairs({
        { 16, small_m(device, layer, 16) },
        { 32, mma(32, 128, 256, 32, 32, 64, 4) },
        { 128, mma(64, 128, 256, 64, 32, 128, 3) },
        { math.huge, mma(128, 256, 128, 64, 64, 128, 4) },
      }) do rows[#rows + 1] = row end
      list = ranges(rows)
    end
    -- The last entry of a wgmma table (M from 385, from 1025 for W8A8, from 2049 for W4A8
    -- MXFP4) where K is above 4096: the tile order's groups of four m-blocks, not eight
    -- (group_m), so that the tiles running at once keep half as much of A in L2 beside the
    -- weights (at K = 8192 eight 256-row blocks of 16-bit A are 33.5 MB of its 50 MB on an
    -- H100). bench/results/H100-2026-12-06/
    -- s38-b-6d5f824120fd/ab.txt, H100, n = k = 8192, three rounds, µs, 8 -> 4: M 4096 uint4 g128
    -- fp16 703.7, 697.0, 696.4 -> 685.4, 682.6, 690.4; W8A8 481.6, 483.0, 482.8 -> 475.4, 476.8,
    -- 473.2; uint2 639.0, 637.1, 636.1 -> 632.6, 632.2, 635.6; uint8 and W4A8 MXFP4 level; M 8192
    -- within its 4 % spread between rounds, where ncu at its locked clock read uint2's DRAM reads
    -- 711 -> 515 MB in the same cycles (2,221.8 k / 2,221.7 k; uint8 level); M 2048 level
    -- (s38-a-19192613b6f2/ab.txt); two m-blocks lost W8A8 1.4 % at M 4096. FP8 block-wise,
    -- act-order and other shapes untimed.
    -- Entries whose M spans at most four m-blocks take it too: it changes nothing there, and an
    -- entry the fit makes the last's twin stays one kernel with it.
    local last = list[#list].tuning
    if layer.kernels.wgmma and last.kernel ~= "mma" and not short_k(layer) then
      for i, e in ipairs(list) do
        if i == #list or e.m_max <= 4 * e.tuning.block_m then
          local t = {}
          for k, v in pairs(e.tuning) do t[k] = v end
          t.group_m = 4
          e.tuning = t
        end
      end
    end
    -- 8-bit A: stream-K with its slices summed in the workspace on
    -- every entry that has stream-K (C's fit drops stream-K otherwise: through the 16-bit C they would round once
    -- per slice) (a8perf.log,
    -- 8192 x 8192 e4m3 x e4m3 M 1/128/1024/8192: 37.39/62.90/221.62/1736.48 -> 33.70/47.73/
    -- 214.43/1657.23; e2m1 g32 x e4m3 55.02/80.43/301.73/2390.78 -> 36.05/52.50/290.86/2279.15)
    if a8 then
      for _, e in ipairs(list) do e.tuning.stream_k_sum = "workspace" end
    end
    return list
  end,
}
