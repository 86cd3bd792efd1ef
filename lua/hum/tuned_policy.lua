-- The policy files `hum tune` writes (docs/policies.md): for one GPU (name, SM version, SM
-- count) and one layer class (every field of the LayerConfig the policies see: N, K, dtypes,
-- scales, zero point, bias, act-order, experts, and whatever fields describe the GEMM), a
-- table of M ranges; every other layer, and every other GPU, gets the table of the files
-- loaded before it (policy.below).

local fields = require("hum.fields")

local tuned_policy = {}

local function literal(v)
  -- %q continues a string over a real line break; "\n" keeps each literal on its line
  if type(v) == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  if type(v) == "number" then
    if v == math.huge then return "math.huge" end
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", v) end
    return string.format("%.17g", v)
  end
  return tostring(v)
end

-- Facts of one checkpoint's values rather than of its layer's class: fold_window (MXFP4's groups
-- all in e4m3 A's byte tables' window, which spares the kernels a test) holds for the generated
-- weights a table is tuned on and for most checkpoints' alike, and may fail for one stray group.
local NOT_CLASS = { fold_window = true }

-- The fields of a LayerConfig table that identify its class, sorted: {key, value}.
function tuned_policy.class(layer)
  local out = {}
  for k, v in pairs(layer) do
    local t = type(v)
    if type(k) == "string" and not NOT_CLASS[k] and (t == "number" or t == "string" or t == "boolean") then
      out[#out + 1] = { k, v }
    end
  end
  table.sort(out, function(a, b) return a[1] < b[1] end)
  return out
end

-- Text for a comment line: no line breaks or other control characters.
local function comment(s)
  return (tostring(s):gsub("%c", " "))
end

local function tuning_literal(t)
  local parts = {}
  for _, f in ipairs(fields.list("tuning")) do
    if t[f.name] ~= nil then parts[#parts + 1] = f.name .. " = " .. literal(t[f.name]) end
  end
  return "tuning({ " .. table.concat(parts, ", ") .. " })"
end

-- The text of the policy file. `w` = {
--   device = the policy device table (name, sm, sm_count),
--   layer = the LayerConfig table the policies see for the tuned layer,
--   spec = the layer SPEC, date = "2026-12-01 15:40 UTC", reps = timed calls per median,
--   rows = { { m_min, m_max, tuning (policy spelling), note = "one line" }, ... } ascending,
--          contiguous from 1 to math.huge }.
function tuned_policy.text(w)
  local out = {}
  local function line(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  line("-- Written by `hum tune` on %s (sm_%d, %d SMs), %s, for the layer class of", comment(w.device.name),
    w.device.sm, w.device.sm_count, comment(w.date))
  line("-- %s (every LayerConfig field in CLASS below). Other layers and other GPUs get the", comment(w.spec))
  line("-- table of the policy files loaded before this one. Load it through HUM_POLICY_PATH or the")
  line("-- config's policy_paths (docs/policies.md).")
  line("-- Times: median microseconds of %d CUDA-graph replays, L2 flushed before each (hum bench's", w.reps)
  line("-- protocol), the table in force before -> this file:")
  for _, r in ipairs(w.rows) do
    line("--   M %d..%s: %s", r.m_min, r.m_max == math.huge and "inf" or tostring(r.m_max), comment(r.note))
  end
  line("local policy = require(\"hum.policy\")")
  line("local tuning = policy.tuning")
  line("")
  line("local DEVICE = { name = %s, sm = %d, sm_count = %d }", literal(w.device.name), w.device.sm,
    w.device.sm_count)
  line("local CLASS = {")
  for _, kv in ipairs(tuned_policy.class(w.layer)) do line("  %s = %s,", kv[1], literal(kv[2])) end
  line("}")
  line("")
  line("local function in_class(layer)")
  line("  for key, value in pairs(CLASS) do")
  line("    if layer[key] ~= value then return false end")
  line("  end")
  line("  return true")
  line("end")
  line("")
  line("return {")
  -- a policy's name holds no control characters (hum.policy): a device's or SPEC's become spaces
  line("  name = %s,", literal((string.format("tuned %s on %s", w.spec, w.device.name):gsub("%c", " "))))
  line("  description = %s,", literal("hum tune, " .. w.date))
  line("  applies = function(device)")
  line("    return device.name == DEVICE.name and device.sm == DEVICE.sm and device.sm_count == DEVICE.sm_count")
  line("  end,")
  line("  tunings = function(device, layer)")
  line("    if not in_class(layer) then return policy.below(device, layer) end")
  line("    return {")
  for _, r in ipairs(w.rows) do
    line("      { m_min = %d, m_max = %s, tuning = %s },", r.m_min, literal(r.m_max), tuning_literal(r.tuning))
  end
  line("    }")
  line("  end,")
  line("}")
  return table.concat(out, "\n") .. "\n"
end

return tuned_policy
