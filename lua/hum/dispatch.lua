-- Dispatch tables in Lua's hands: a policy's M ranges and tunings written into a
-- hum_layer_plan, and the fitting of tunings to a layer, which is C's (hum_layer_fit_tuning,
-- hum_layer_fit_plan: every rule of runtime/src/layer/gemm_variant.c, checked once there).
-- hum tune (lua/hum/tune.lua) fits its candidates through here.

local ffi = require("ffi")
local hum = require("hum")
local fields = require("hum.fields")
local policy = require("hum.policy")

local dispatch = {}

local INT64_MAX = 0x7fffffffffffffffLL

local put = hum.put

-- The tuning fields of hum_tuning `c` as a table of numbers (a fitted tuning).
local function numbers(c)
  local t = {}
  for _, f in ipairs(fields.list("tuning")) do t[f.name] = tonumber(c[f.name]) end
  return t
end

local function check(st, where)
  if st ~= 0 then hum.fail(tonumber(st), where .. ": " .. ffi.string(hum.C.hum_last_error()), 0) end
end

-- The arch NVRTC compiles for on `device` (a policy device table).
local function arch_of(device)
  local info = ffi.new("hum_device_info")
  info.sm_major, info.sm_minor = math.floor(device.sm / 10), device.sm % 10
  local out = ffi.new("char[16]")
  check(hum.C.hum_arch_for_device(info, out, 16), "the arch of " .. device.name)
  return ffi.string(out)
end

-- Writes M range m_min..m_max (math.huge: no bound) and tuning `t` (policy spelling, or fitted
-- numbers) into hum_tuning `dst`.
function dispatch.put_tuning(dst, m_min, m_max, t)
  dst.m_min = m_min
  dst.m_max = m_max == math.huge and INT64_MAX or m_max
  if type(t.stream_k) == "boolean" or type(t.kernel) == "string" or t.kernel == nil then
    fields.from_table("tuning", t, dst, "tuning", { origin = true })
  else
    for _, f in ipairs(fields.list("tuning")) do dst[f.name] = t[f.name] end
  end
end

-- Writes a policy's checked list ({m_min, m_max, tuning} ascending, policy.tunings) into a
-- hum_layer_plan as written, with each entry's policy line and the policy `p`, for C to fit.
function dispatch.store(list, plan, p)
  local max = tonumber(hum.C.HUM_LAYER_MAX_ENTRIES)
  if #list > max then
    hum.fail("HUM_ERR_POLICY", string.format("policy '%s' (%s) gives %d M ranges (at most %d)", p.name, p.origin,
      #list, max), 0)
  end
  plan.entry_count = #list
  for i, e in ipairs(list) do
    dispatch.put_tuning(plan.entries[i - 1], e.m_min, e.m_max, e.tuning)
    put(plan.entry_origin[i - 1], policy.origin_of(e.tuning) or "")
  end
  put(plan.policy_name, p.name)
  put(plan.policy_origin, p.origin)
end

-- One policy tuning fitted to the layer of hum_layer_config `cfg` on `device` (a policy device
-- table), by C; raises naming `where` and the rule a tuning breaks. Returns the fitted tuning
-- as numbers.
function dispatch.fit(tuning, cfg, device, where)
  local raw = ffi.new("hum_tuning")
  dispatch.put_tuning(raw, 1, math.huge, tuning)
  local out = ffi.new("hum_tuning")
  check(hum.C.hum_layer_fit_tuning(cfg, ffi.new("hum_compute_config"), raw, arch_of(device), device.smem_per_block,
    device.name, out), where)
  return numbers(out)
end

-- The dispatch table of a policy's checked list for the layer of `cfg` on `device`: each tuning
-- fitted by C, equal neighbours merged (hum_layer_fit_plan). Returns a list of {m_min, m_max,
-- tuning, origin} (tuning as numbers, m_max math.huge for the last; origin the "file:line" of
-- the policy line that chose the first of the merged tunings).
function dispatch.table(list, cfg, device, policy_name)
  local plan = ffi.new("hum_layer_plan")
  plan.config = cfg
  put(plan.arch, arch_of(device))
  put(plan.device_name, device.name)
  plan.smem_per_block = device.smem_per_block
  dispatch.store(list, plan, { name = policy_name, origin = "" })
  check(hum.C.hum_layer_fit_plan(plan), "policy '" .. policy_name .. "'")
  local out = {}
  for i = 0, plan.entry_count - 1 do
    local e = plan.entries[i]
    out[i + 1] = { m_min = tonumber(e.m_min), m_max = e.m_max == INT64_MAX and math.huge or tonumber(e.m_max),
                   tuning = numbers(e), origin = ffi.string(plan.entry_origin[i]) }
  end
  return out
end

-- A fitted tuning (numbers, or a hum_tuning) in policy spelling: stream_k a boolean, kernel a
-- name. Fitting it again gives it back unchanged.
function dispatch.policy_tuning(t)
  local out = {}
  for _, f in ipairs(fields.list("tuning")) do
    local v = tonumber(t[f.name])
    if f.kind == "bool" then v = v ~= 0 elseif f.kind == "enum" then v = f.names[v + 1] end
    out[f.name] = v
  end
  return out
end

-- A string equal for equal fitted tunings.
function dispatch.key(t)
  local parts = {}
  for i, f in ipairs(fields.list("tuning")) do parts[i] = tostring(tonumber(t[f.name])) end
  return table.concat(parts, ",")
end

return dispatch
