-- hum tune --candidates: at M <= 8, the table's own tuning against mma_direct tiles (8 rows;
-- 64 or 128 columns, warps of 32 or 64 columns; block K 256 over 4 or 8 warps along K; rings of
-- 2 to 8 items; whole, or stream-K summed in the workspace; one or two CTAs per SM). Other
-- ranges keep the table's own alone.
return function(list, device, layer, range)
  local out = { list[1] }
  if range.m_max > 8 or not layer.kernels.mma_direct then return out end
  local function add(bn, wn, wk, stages, ctas, sk)
    out[#out + 1] = { kernel = "mma_direct", block_m = 8, block_n = bn, block_k = 256, warp_m = 8, warp_n = wn,
                      warp_k = wk, stages = stages, ctas_per_sm = ctas, stream_k = sk,
                      stream_k_sum = sk and "workspace" or "output" }
  end
  for _, sk in ipairs({ false, true }) do
    for _, st in ipairs({ 2, 4, 6, 8 }) do add(64, 64, 32, st, 1, sk) end
    for _, st in ipairs({ 4, 6, 8 }) do add(64, 64, 64, st, 1, sk) end
    for _, st in ipairs({ 4, 6 }) do add(64, 64, 64, st, 2, sk) end
    for _, st in ipairs({ 4, 6 }) do add(128, 64, 64, st, 1, sk) end
    for _, st in ipairs({ 4, 6 }) do add(64, 32, 64, st, 1, sk) end
  end
  return out
end
