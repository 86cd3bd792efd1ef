-- `hum tune`'s decisions (runtime/cli/cmd_tune.c runs the mechanics: compiles, checks, times).
-- Over one hum_tune_session (hum.h):
--   begin        plans the layer with the policies in force; each range of that table is timed
--                at the --m values inside it (the last range is split after the largest M, so
--                that M beyond what was measured keeps the table in force); per range the
--                candidates of hum.candidates, fitted to the layer, distinct, the table's own
--                tuning first
--   pick         per range the candidate the tuned file gives it: the fastest in total over the
--                range's M values among those no slower than the table's tuning at any of them,
--                and only when at least 1% faster in total; else the table's own
--   policy_text  a policy file (hum.tuned_policy) for the session's device and layer class
--
-- Functions taking (rt, session) are called from C through hum_lua_call.

local ffi = require("ffi")
local hum = require("hum")
local policy = require("hum.policy")
local dispatch = require("hum.dispatch")
local layer = require("hum.layer")
local candidates = require("hum.candidates")
local tuned_policy = require("hum.tuned_policy")

local tune = {}

-- A tuned range must beat the table in force by this fraction of its total time.
tune.MARGIN = 0.01

local MAX_CANDIDATES = tonumber(hum.C.HUM_TUNE_MAX_CANDIDATES)
local MAX_SAMPLES = tonumber(hum.C.HUM_TUNE_MAX_SAMPLES)
local MAX_RANGES = tonumber(hum.C.HUM_LAYER_MAX_ENTRIES)

local function m_max_of(t)
  local m = t.m_max
  if type(m) ~= "number" then m = tonumber(m) end -- int64 cdata
  return m >= 2 ^ 62 and math.huge or m
end

-- The session's device table and LayerConfig table.
local function target(s)
  return layer.inputs(s.plan)
end

-- Ranges {m_min, m_max, tuning, origin, samples} from the table in force and the M values.
function tune.ranges(tbl, ms)
  local ranges = {}
  for i, e in ipairs(tbl) do
    ranges[i] = { m_min = e.m_min, m_max = e.m_max, tuning = e.tuning, origin = e.origin, samples = {} }
  end
  local sorted = {}
  for i, m in ipairs(ms) do sorted[i] = m end
  table.sort(sorted)
  for i, m in ipairs(sorted) do
    if m ~= sorted[i - 1] then
      for _, r in ipairs(ranges) do
        if m >= r.m_min and m <= r.m_max then
          if #r.samples == MAX_SAMPLES then
            hum.fail("HUM_ERR_INVALID_ARG", string.format("hum tune: more than %d M values in M %d..%s",
              MAX_SAMPLES, r.m_min, tostring(r.m_max)), 0)
          end
          r.samples[#r.samples + 1] = m
        end
      end
    end
  end
  local last = ranges[#ranges]
  local top = last.samples[#last.samples]
  if top and last.m_max == math.huge and #ranges < MAX_RANGES then
    ranges[#ranges + 1] = { m_min = top + 1, m_max = math.huge, tuning = last.tuning, origin = last.origin,
                            samples = {} }
    last.m_max = top
  end
  return ranges
end

-- A site's extension of the candidate list: the function its file returns. The caller read the
-- file (hum_file_read: refused or consumed before any GPU work, and never a device or a FIFO
-- waited on); Lua opens no file here.
local function extension(s)
  if s.candidates_file == nil then return nil end
  local path = ffi.string(s.candidates_file)
  if s.candidates_text == nil then
    hum.fail("HUM_ERR_INVALID_ARG", "hum_tune_begin: candidates_file " .. path
      .. " comes without candidates_text (expected the file's text, as hum_file_read gives it)", 0)
  end
  local text = ffi.string(s.candidates_text, s.candidates_size)
  local ok, fn = pcall(hum.load_chunk(text, path, setmetatable({}, { __index = _G })))
  if not ok then hum.fail("HUM_ERR_POLICY", hum.message(fn), 0) end
  if type(fn) ~= "function" then
    hum.fail("HUM_ERR_POLICY", path .. ": a candidates file returns function(list, device, layer, range), got "
      .. type(fn), 0)
  end
  return fn
end

-- The fitted, distinct candidates of a range (at most HUM_TUNE_MAX_CANDIDATES, the table's
-- tuning first) from raw tunings; those the layer's kernels refuse are left out.
function tune.fit_all(raw, cfg, device)
  local out, seen = {}, {}
  for i, t in ipairs(raw) do
    local ok, fitted = pcall(dispatch.fit, t, cfg, device, string.format("candidate %d", i))
    if ok then
      local key = dispatch.key(fitted)
      if not seen[key] and #out < MAX_CANDIDATES then
        seen[key] = true
        out[#out + 1] = fitted
      end
    elseif i == 1 then
      error(fitted, 0) -- the table in force's own tuning: it fitted once, it must again
    end
  end
  return out
end

function tune.begin(rt, s)
  local device, cfg, compute = target(s)
  local list, p = policy.tunings(device, cfg, compute)
  local tbl = dispatch.table(list, s.plan.config, device, p.name)
  local ms = {}
  for i = 1, s.m_count do ms[i] = tonumber(s.m_values[i - 1]) end
  local extend = extension(s)
  local ranges = tune.ranges(tbl, ms)
  s.range_count = #ranges
  for i, r in ipairs(ranges) do
    local dst = s.ranges[i - 1]
    dst.sample_count = #r.samples
    for j, m in ipairs(r.samples) do dst.samples[j - 1] = m end
    local list = { dispatch.policy_tuning(r.tuning) }
    if #r.samples > 0 then
      local view = { m_min = r.m_min, m_max = r.m_max, samples = r.samples }
      list = candidates.generate(device, cfg, view, list[1])
      if extend then list = extend(list, device, cfg, view) end
      if type(list) ~= "table" or type(list[1]) ~= "table" then
        hum.fail("HUM_ERR_POLICY", "hum tune: the candidates file must return the list, its first entry kept", 0)
      end
      list[1] = dispatch.policy_tuning(r.tuning)
    end
    local fitted = tune.fit_all(list, s.plan.config, device)
    dst.candidate_count = #fitted
    for j, t in ipairs(fitted) do dispatch.put_tuning(dst.candidates[j - 1], r.m_min, r.m_max, t) end
    hum.put(dst.builtin_origin, r.origin)
    dst.winner = 0
  end
end

-- The winner among candidates timed as us[c][j] (c = 1..n, j = 1..samples; NaN: dropped):
-- candidate 1 is the table's own.
function tune.choose(us)
  local base = us[1]
  local function total(times)
    local sum = 0
    for j = 1, #base do
      if not (times[j] == times[j]) then return nil end
      sum = sum + times[j]
    end
    return sum
  end
  local base_total = total(base)
  if not base_total then return 1 end
  local best, best_total = 1, base_total * (1 - tune.MARGIN)
  for c = 2, #us do
    local t = total(us[c])
    local no_slower = t ~= nil
    for j = 1, #base do
      if no_slower and us[c][j] > base[j] then no_slower = false end
    end
    if no_slower and t < best_total then best, best_total = c, t end
  end
  return best
end

function tune.pick(rt, s)
  for i = 0, s.range_count - 1 do
    local r = s.ranges[i]
    local us = {}
    for c = 0, r.candidate_count - 1 do
      us[c + 1] = {}
      for j = 0, r.sample_count - 1 do us[c + 1][j + 1] = r.us[c][j] end
    end
    r.winner = r.sample_count > 0 and tune.choose(us) - 1 or 0
  end
end

local function tuning_text(t)
  local pt = dispatch.policy_tuning(t)
  return string.format("%s %dx%dx%d/%d", pt.kernel or "mma", pt.block_m, pt.block_n, pt.block_k, pt.stages)
end

-- The comment of one range of the tuned file: its times, what it runs and why.
local function range_note(r)
  local times = {}
  for j = 0, r.sample_count - 1 do
    local base, won = r.us[0][j], r.us[r.winner][j]
    times[#times + 1] = r.winner == 0 and string.format("M=%d %.2f", tonumber(r.samples[j]), base)
      or string.format("M=%d %.2f -> %.2f", tonumber(r.samples[j]), base, won)
  end
  local origin = ffi.string(r.builtin_origin)
  if r.sample_count == 0 then
    return string.format("not measured: the table's %s (%s)", tuning_text(r.candidates[0]), origin)
  end
  if r.winner == 0 then
    return string.format("%s: nothing beat the table's %s (%s)", table.concat(times, ", "),
      tuning_text(r.candidates[0]), origin)
  end
  return string.format("%s: %s replaces the table's %s (%s)", table.concat(times, ", "),
    tuning_text(r.candidates[r.winner]), tuning_text(r.candidates[0]), origin)
end

function tune.policy_text(rt, s)
  local device, cfg = target(s)
  local rows = {}
  if s.text_range >= 0 then
    local t = s.ranges[s.text_range].candidates[s.text_candidate]
    rows[1] = { m_min = 1, m_max = math.huge, tuning = dispatch.policy_tuning(t),
                note = "candidate " .. s.text_candidate .. " of M range " .. s.text_range }
  else
    for i = 0, s.range_count - 1 do
      local r = s.ranges[i]
      rows[i + 1] = { m_min = tonumber(r.candidates[0].m_min), m_max = m_max_of(r.candidates[0]),
                      tuning = dispatch.policy_tuning(r.candidates[r.winner]), note = range_note(r) }
    end
  end
  local text = tuned_policy.text({
    device = device, layer = cfg, spec = ffi.string(s.spec), rows = rows, reps = s.reps,
    date = os.date("!%Y-%m-%d %H:%M UTC"),
  })
  if #text >= ffi.sizeof(s.text) then
    hum.fail("HUM_ERR_INTERNAL", string.format("hum tune: the policy file is %d bytes (at most %d)", #text,
      ffi.sizeof(s.text) - 1), 0)
  end
  ffi.copy(s.text, text)
end

return tune
