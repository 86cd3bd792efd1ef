-- hum tune --candidates: at M 9..16, the table's own tile and hum.candidates' grid there (mma.sync),
-- plus wgmma_ws tiles of 16 rows (block N 64 / 128, warp N 16, block K 256, 4 / 6 / 8 stages,
-- whole or under stream-K summed in the workspace), which the M <= 16 grid leaves out for 16-bit
-- A. Other ranges: unchanged.
return function(list, device, layer, range)
  if range.m_min ~= 9 then return list end
  for _, bn in ipairs({ 64, 128 }) do
    for _, stages in ipairs({ 4, 6, 8 }) do
      for _, sk in ipairs({ false, true }) do
        list[#list + 1] = { kernel = "wgmma_ws", block_m = 16, block_n = bn, block_k = 256, warp_m = 16,
                            warp_n = 16, warp_k = 256, stages = stages, ctas_per_sm = 1, stream_k = sk,
                            stream_k_sum = sk and "workspace" or nil }
      end
    end
  end
  return list
end
