-- hum tune --candidates: at M 9..16, the table's own tile and hum.candidates' grid there (mma.sync,
-- 16 rows), plus two families the M <= 16 grid leaves out for 16-bit A:
-- - wgmma_ws tiles of 16 rows (block N 64 / 128, warp N 16, block K 256, 4 / 6 / 8 stages, whole
--   or under stream-K summed in the workspace);
-- - mma.sync tiles of 8 rows, whole (block N 64 / 128, warps 8 x 32 x 64, 4 / 6 stages): two row
--   blocks at M 9..16, twice the CTAs of a 16-row tile, each n-block's weights read by both (the
--   second from L2: the tile order takes the row blocks of an n-block together).
-- They go right after the table's own entry, ahead of the grid, so that the cap on candidates
-- (HUM_TUNE_MAX_CANDIDATES) cuts the grid's last instead. Other ranges: unchanged.
return function(list, device, layer, range)
  if range.m_min ~= 9 then return list end
  local grid = list
  list = { grid[1] }
  for _, bn in ipairs({ 64, 128 }) do
    for _, stages in ipairs({ 4, 6, 8 }) do
      for _, sk in ipairs({ false, true }) do
        list[#list + 1] = { kernel = "wgmma_ws", block_m = 16, block_n = bn, block_k = 256, warp_m = 16,
                            warp_n = 16, warp_k = 256, stages = stages, ctas_per_sm = 1, stream_k = sk,
                            stream_k_sum = sk and "workspace" or nil }
      end
    end
    for _, stages in ipairs({ 4, 6 }) do
      list[#list + 1] = { kernel = "mma", block_m = 8, block_n = bn, block_k = 256, warp_m = 8, warp_n = 32,
                          warp_k = 64, stages = stages, ctas_per_sm = 1, stream_k = false }
    end
  end
  for i = 2, #grid do list[#list + 1] = grid[i] end
  return list
end
