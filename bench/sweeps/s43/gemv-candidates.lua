-- hum tune --candidates: at M <= 16, mma.sync tiles one to two steps from the built-in's (block N
-- 64 / 128, warp N 16 / 32, warp K 64 / 128, 4 / 6 / 8 stages), each whole or under stream-K
-- summed in the workspace, one or two CTAs per SM: the neighbours of hum.candidates change one
-- field at a time, and none of them beat the table at M = 1 (s43-a). Other ranges: unchanged.
return function(list, device, layer, range)
  if range.m_max > 16 then return list end
  local rows = range.m_max <= 8 and 8 or 16
  local out = { list[1] }
  local function add(bn, wn, wk, stages, stream_k, ctas)
    out[#out + 1] = { block_m = rows, block_n = bn, block_k = 256, warp_m = rows, warp_n = wn, warp_k = wk,
                      stages = stages, stream_k = stream_k, stream_k_sum = stream_k and "workspace" or nil,
                      ctas_per_sm = ctas }
  end
  for _, bn in ipairs({ 64, 128 }) do
    for _, wn in ipairs(bn == 64 and { 16, 32 } or { 32 }) do
      for _, wk in ipairs({ 64, 128 }) do
        for _, stages in ipairs({ 4, 6, 8 }) do
          add(bn, wn, wk, stages, false, 1)
          add(bn, wn, wk, stages, true, 1)
          if stages == 4 or bn == 64 and stages == 6 then add(bn, wn, wk, stages, true, 2) end
        end
      end
    end
  end
  return out
end
