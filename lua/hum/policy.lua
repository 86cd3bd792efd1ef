-- Policies: which tuning (tile shape, stages, stream-K, CTAs per SM) each range of M gets for
-- a layer on a device. docs/policies.md describes the file format; in short a policy file
-- returns
--   { name = "sm90",
--     applies = function(device) return device.sm >= 90 end,
--     tunings = function(device, layer, overrides, compute)
--       return { { m_min = 1, m_max = 16, tuning = {...} }, ..., { m_min = 129, m_max = math.huge, tuning = {...} } }
--     end }
--
-- Layers (runtime/src/runtime/runtime_policies.c collects them): the built-in files, then the site
-- files of the config's policy_paths, then the config's overrides. For a device, the last file
-- whose applies(device) is true wins. policy.load compiles and checks a whole new set before
-- anything changes, so a broken file leaves the set in force untouched.

local ffi = require("ffi")
local hum = require("hum")
local sandbox = require("hum.sandbox")
local fields = require("hum.fields")

local policy = {}

local POLICY_FIELDS = { name = true, description = true, applies = true, tunings = true }

local function is_int(x)
  return type(x) == "number" and x == math.floor(x) and x > -math.huge and x < math.huge
end

local function bad(where, msg)
  hum.fail("HUM_ERR_POLICY", where .. ": " .. msg, 0)
end

local show = fields.show

-- Reads one tuning table as a hum_tuning (hum.fields): the fields and their types (its `origin`
-- is the policy line it came from). Whether the values suit a layer and a kernel is C's to
-- check when the table is fitted. `where` names the policy file and entry.
local function check_tuning(t, where)
  fields.from_table("tuning", t, ffi.new("hum_tuning"), where, { origin = true })
end

-- Checks a tunings list: entries {m_min, m_max, tuning}, ranges ascending and contiguous from
-- 1 to math.huge. `p` is the policy that produced it ({name, origin}).
function policy.validate_tunings(list, p)
  local where = string.format("policy '%s' (%s): tunings", p.name, p.origin)
  if type(list) ~= "table" or #list == 0 then
    bad(where, "must return a non-empty list of { m_min = ..., m_max = ..., tuning = {...} }, got "
      .. (type(list) == "table" and "an empty table" or type(list)))
  end
  for k in pairs(list) do
    if not (is_int(k) and k >= 1 and k <= #list) then
      bad(where, "the list has a non-sequence key " .. (type(k) == "string" and ("'" .. k .. "'") or show(k)))
    end
  end
  local expect = 1
  -- every index up to #list, which a list with a hole may report past it
  for i = 1, #list do
    local e = list[i]
    local at = string.format("%s entry %d", where, i)
    if e == nil then bad(at, "is missing (nil): the list has a gap") end
    if type(e) ~= "table" then bad(at, "expected a table, got " .. type(e)) end
    for k in pairs(e) do
      if k ~= "m_min" and k ~= "m_max" and k ~= "tuning" then
        bad(at, "has an unknown field " .. (type(k) == "string" and ("'" .. k .. "'") or show(k))
          .. " (an entry holds m_min, m_max and tuning)")
      end
    end
    if e.m_min ~= expect then
      bad(at, string.format("m_min = %s, expected %d (ranges start at 1 and follow each other without gaps "
        .. "or overlaps)", show(e.m_min), expect))
    end
    if i == #list then
      if e.m_max ~= math.huge then
        bad(at, string.format("m_max = %s: the last range must end at math.huge", show(e.m_max)))
      end
    elseif not (is_int(e.m_max) and e.m_max >= e.m_min and e.m_max < 2 ^ 53) then
      -- 2^53: every integer below is exact in a Lua number and in the plan's int64 bounds
      bad(at, string.format("m_max = %s: expected an integer >= m_min (%d) and below 2^53 (math.huge ends the "
        .. "last range)", show(e.m_max), e.m_min))
    end
    check_tuning(e.tuning, string.format("%s (m %d..%s)", at, e.m_min, tostring(e.m_max)))
    expect = e.m_max + 1
  end
  return list
end

-- Builds a tunings list from rows { upper bound of M, tuning } in ascending order, the last
-- bound math.huge: { {16, t1}, {64, t2}, {math.huge, t3} } -> m 1..16, 17..64, 65..inf.
function policy.ranges(rows)
  local list, m_min = {}, 1
  for i, row in ipairs(rows) do
    list[i] = { m_min = m_min, m_max = row[1], tuning = row[2] }
    m_min = row[1] + 1
  end
  return list
end

-- The tunings() call running now: { fn, origin, set, index }, nil outside one.
local active

-- Records in t.origin the "file:line" of the running tunings() function's line that is
-- building `t` (a constructor called from it, directly or through a helper of the policy
-- file), for hum_layer_describe and `hum info --layer`. A field, not a side table: the sandbox
-- copies what a policy returns. hum's own Lua keeps the debug library that policies lack.
local function note_origin(t)
  if not active or t.origin ~= nil then return t end
  for level = 2, 64 do
    local info = debug.getinfo(level, "fl")
    if not info then break end
    if info.func == active.fn then
      t.origin = active.origin .. ":" .. info.currentline
      break
    end
  end
  return t
end

-- The "file:line" a tuning came from (its origin field), or nil for a table no policy returned.
function policy.origin_of(t) return type(t) == "table" and type(t.origin) == "string" and t.origin or nil end

-- A tuning from a table of fields (copied), so that hum_layer_describe names the line that
-- built it: `tuning { block_m = 16, ... }`. Checked like any other when tunings() returns.
function policy.tuning(fields)
  if type(fields) ~= "table" then
    hum.fail("HUM_ERR_POLICY", "policy.tuning: expected a table of tuning fields, got " .. type(fields), 2)
  end
  local t = {}
  for k, v in pairs(fields) do t[k] = v end
  return note_origin(t)
end

-- A tuning for the mma.sync kernel, so that policy files list shapes, not field names: block
-- M x N x K, warp M x N x K, stages, then CTAs per SM (default 1), with stream-K on, as every
-- built-in policy has it. The table is fresh; a caller may add fields (sm90.lua sets
-- kernel = "wgmma" on it).
function policy.mma_tuning(block_m, block_n, block_k, warp_m, warp_n, warp_k, stages, ctas_per_sm)
  return note_origin({ block_m = block_m, block_n = block_n, block_k = block_k, warp_m = warp_m, warp_n = warp_n,
                       warp_k = warp_k, stages = stages, stream_k = true, ctas_per_sm = ctas_per_sm or 1 })
end

local function check_device(device)
  if type(device) ~= "table" or not is_int(device.sm) or type(device.name) ~= "string" then
    hum.fail("HUM_ERR_INVALID_ARG", "policy: a device is a table with at least name (string) and sm (e.g. 90)", 0)
  end
end

local function copy(t)
  if type(t) ~= "table" then return t end
  local c = {}
  for k, v in pairs(t) do c[k] = copy(v) end
  return c
end

-- A set of loaded policies plus the overrides: what one load produces.
local Set = {}
Set.__index = Set

local function new_set(entries, overrides, limits)
  local nested = {}
  for key, value in pairs(overrides) do
    local section, name = key:match("^([^.]+)%.(.+)$")
    if not section then
      hum.fail("HUM_ERR_INVALID_ARG", "policy: override key '" .. key .. "' is not <section>.<key>", 0)
    end
    nested[section] = nested[section] or {}
    nested[section][name] = value
  end
  return setmetatable({ entries = entries, flat = copy(overrides), nested = nested, limits = limits }, Set)
end

-- The policy in force for `device` (the last that applies) and its index, or nil. `below`
-- (default: past the last) considers only the files before that index.
function Set:winner(device, below)
  check_device(device)
  for i = (below or #self.entries + 1) - 1, 1, -1 do
    local p = self.entries[i]
    local applies = sandbox.call(p.origin, "applies(device)", self.limits, p.applies, copy(device))
    if type(applies) ~= "boolean" then
      bad(string.format("policy '%s' (%s)", p.name, p.origin), "applies(device) must return true or false, got "
        .. type(applies))
    end
    if applies then return p, i end
  end
  return nil
end

-- Whether tuning `t` names, as its origin, a line of a file that policy.below consulted while
-- its fields differ from every tuning that line gave there (`given`: copies of them): a file
-- that tunes the table below it is where the changed entries come from, not the line they
-- started at.
local function changed_below(t, given)
  local from = false
  for _, g in ipairs(given) do
    if g.origin == t.origin then
      from = true
      local same = true
      for k, v in pairs(g) do same = same and t[k] == v end
      for k, v in pairs(t) do same = same and g[k] == v end
      if same then return false end
    end
  end
  return from
end

-- The checked M-range list of the winning policy (among the files before index `below`) for
-- `layer` (the LayerConfig table) and `compute` (the ComputeConfig table) on `device`, and that
-- policy. Every tuning of the list has an origin afterwards: the line that built it, else the
-- line that defines the policy's tunings function, which is also where a tuning that
-- policy.below gave and this policy changed comes from (`changed_below`).
function Set:tunings(device, layer, compute, below)
  local p, index = self:winner(device, below)
  if not p then
    local names = {}
    for i, e in ipairs(self.entries) do names[i] = e.name end
    hum.fail("HUM_ERR_UNSUPPORTED", string.format("no policy applies to device '%s' (sm %d); loaded: %s%s",
      device.name, device.sm, #names > 0 and table.concat(names, ", ") or "none",
      below and string.format(" (below %s)", self.entries[below].name) or ""), 0)
  end
  local outer = active
  local call = { fn = p.tunings, origin = p.origin, set = self, index = index, compute = compute, below = {} }
  active = call
  local ok, list = pcall(sandbox.call, p.origin, "tunings(device, layer, overrides, compute)", self.limits,
    p.tunings, copy(device), copy(layer), copy(self.nested), copy(compute))
  active = outer
  if not ok then error(list, 0) end
  policy.validate_tunings(list, p)
  local defined = p.origin .. ":" .. debug.getinfo(p.tunings, "S").linedefined
  for _, e in ipairs(list) do
    if type(e.tuning.origin) ~= "string" or changed_below(e.tuning, call.below) then e.tuning.origin = defined end
  end
  return list, p
end

function Set:override(key) return self.flat[key] end

local current = new_set({}, {}, sandbox.limits())

-- What `require("hum.policy")` gives a policy file: these functions, read-only.
local HELPERS = { "ranges", "mma_tuning", "tuning", "below", "nominal_device" }

local function helpers()
  local t = {}
  for _, name in ipairs(HELPERS) do t[name] = policy[name] end
  return t
end

-- Compiles and runs one source {origin, text, layer} in a sandbox of its own (lua/hum/sandbox.lua)
-- into a policy entry; raises HUM_ERR_POLICY naming the file.
local function compile(src, limits)
  local chunk = sandbox.load(src.text, src.origin, { ["hum.policy"] = helpers() })
  local p = sandbox.call(src.origin, "the file's top level", limits, chunk)
  local where = src.origin
  if type(p) ~= "table" then
    bad(where, "a policy file must return a table { name = ..., applies = function(device) ..., "
      .. "tunings = function(device, layer, overrides, compute) ... }, got " .. type(p))
  end
  for k in pairs(p) do
    if not POLICY_FIELDS[k] then
      bad(where, "unknown field " .. (type(k) == "string" and ("'" .. k .. "'") or show(k))
        .. " (expected name, description, applies, tunings)")
    end
  end
  if type(p.name) ~= "string" or p.name == "" then
    bad(where, "'name' must be a non-empty string, got " .. show(p.name))
  end
  -- printed as it is by hum info and in every policy error
  if p.name:find("%c") then
    bad(where, "'name' must hold no control characters, got '" .. p.name:gsub("%c", function(c)
      return string.format("\\x%02x", c:byte())
    end) .. "'")
  end
  if p.description ~= nil and type(p.description) ~= "string" then
    bad(where, "'description' must be a string, got " .. show(p.description))
  end
  if type(p.applies) ~= "function" then bad(where, "'applies' must be a function(device), got " .. show(p.applies)) end
  if type(p.tunings) ~= "function" then
    bad(where, "'tunings' must be a function(device, layer, overrides, compute), got " .. show(p.tunings))
  end
  return { name = p.name, description = p.description, origin = src.origin, layer = src.layer,
           applies = p.applies, tunings = p.tunings }
end

-- A file an operator added (HUM_POLICY_PATH, policy_paths) that applies to a nominal device but
-- wins on none was meant to win somewhere: a file later in the order shadows it (a HUM_POLICY_PATH
-- file named to sort before a built-in one of the same devices, say). Warns naming both files.
-- A failing applies() ends the check of that file: the calls that plan layers report it.
local function warn_never_wins(set)
  for _, p in ipairs(set.entries) do
    if not p.origin:match("^embedded:") then
      local shadowed, wins = {}, false
      for _, arch in ipairs(policy.nominal_archs()) do
        local device = policy.nominal_device(arch)
        local ok, applies = pcall(sandbox.call, p.origin, "applies(device)", set.limits, p.applies, device)
        local found, winner = false, nil
        if ok and applies == true then found, winner = pcall(set.winner, set, device) end
        if not ok or (applies == true and not found) then break end
        if winner == p then
          wins = true
        elseif winner then
          shadowed[#shadowed + 1] = string.format("%s: '%s' (%s)", arch, winner.name, winner.origin)
        end
      end
      if not wins and #shadowed > 0 then
        hum.log("warn", string.format("policy '%s' (%s) never wins: where it applies, a file later in the order "
          .. "wins (%s); rename it to sort after that file, or list it in the config's policy_paths", p.name,
          p.origin, table.concat(shadowed, "; ")))
      end
    end
  end
end

-- Replaces the policies in force with `sources` ({origin, text, layer} in layering order) and
-- `overrides` ({["moe.activation"] = "mxfp8"}); every call into a policy file runs under
-- `limits` ({time_ms =, memory_mb =}, the config's; nil or 0: sandbox.DEFAULT_LIMITS). Every
-- file is compiled and checked before anything changes; on any error the old set stays. The
-- runtime then re-plans the prepared layers with the new set (and puts the old one back with
-- policy.use if that fails). Returns the new set; a file that never wins is warned about
-- (warn_never_wins).
function policy.load(sources, overrides, limits)
  limits = sandbox.limits(limits)
  local entries = {}
  for i, src in ipairs(sources) do entries[i] = compile(src, limits) end
  local candidate = new_set(entries, overrides or {}, limits)
  current = candidate
  warn_never_wins(candidate)
  return candidate
end

-- Inside a policy's tunings(device, layer): the M-range list the files before it give for the
-- same device and layer, i.e. what the table would be without this file. A file that tunes
-- some layers returns it for the others. Raises outside a tunings() call, and when no earlier
-- file applies.
function policy.below(device, layer)
  if not active then
    hum.fail("HUM_ERR_POLICY", "policy.below: call it from a policy's tunings(device, layer, overrides, compute)", 2)
  end
  local list = active.set:tunings(device, layer, active.compute, active.index)
  for _, e in ipairs(list) do active.below[#active.below + 1] = copy(e.tuning) end
  return list
end

-- The policies in force.
function policy.current() return current end
-- Puts a set policy.current() returned back in force: a reload whose layers failed to re-plan
-- undoes itself with it (runtime/src/runtime_policies.c).
function policy.use(set) current = set end
function policy.tunings(device, layer, compute) return current:tunings(device, layer, compute) end
function policy.winner(device) return current:winner(device) end
-- An override's value ("moe.activation" -> "mxfp8"), or nil.
function policy.override(key) return current:override(key) end

-- {name, origin, layer} of each policy in force, in layering order.
function policy.loaded()
  local list = {}
  for i, e in ipairs(current.entries) do list[i] = { name = e.name, origin = e.origin, layer = e.layer } end
  return list
end

-- The device table policies see, from a hum_device_info.
function policy.device(info)
  return {
    name = ffi.string(info.name),
    ordinal = info.ordinal,
    sm = info.sm_major * 10 + info.sm_minor,
    sm_count = info.sm_count,
    smem_per_block = tonumber(info.max_smem_per_block_optin),
    l2_bytes = tonumber(info.l2_bytes),
    memory_bytes = tonumber(info.total_memory_bytes),
  }
end

-- The runtime's GPU as a device table, or nil when it has none.
function policy.runtime_device(rt)
  local info = ffi.new("hum_device_info")
  local st = hum.C.hum_runtime_device(rt, info)
  if st == hum.status("HUM_ERR_NO_DEVICE") then return nil end
  hum.check(st, "querying the runtime's device")
  return policy.device(info)
end

-- The policy in force for the nominal device of `arch` ("sm_80"), or without `arch` for the
-- runtime's own GPU: its name and origin (nil when there is no GPU or none applies).
function policy.winner_of(arch)
  local device
  if arch then device = policy.nominal_device(arch) else device = policy.runtime_device(hum.runtime()) end
  if not device then return nil end
  local p = current:winner(device)
  if not p then return nil end
  return p.name, p.origin
end

-- Typical devices of each architecture, for choosing tunings when compiling for an arch with
-- no such GPU present (hum compile --arch, CI). Numbers from the vendors' data sheets.
local MiB = 1024 * 1024
local NOMINAL = {
  [75] = { name = "nominal sm_75 (Tesla T4)", sm_count = 40, smem_per_block = 64 * 1024, l2_bytes = 4 * MiB },
  [80] = { name = "nominal sm_80 (A100 SXM)", sm_count = 108, smem_per_block = 163 * 1024, l2_bytes = 40 * MiB },
  [86] = { name = "nominal sm_86 (RTX A6000)", sm_count = 84, smem_per_block = 99 * 1024, l2_bytes = 6 * MiB },
  [89] = { name = "nominal sm_89 (L40S)", sm_count = 142, smem_per_block = 99 * 1024, l2_bytes = 96 * MiB },
  [90] = { name = "nominal sm_90 (H100 SXM)", sm_count = 132, smem_per_block = 227 * 1024, l2_bytes = 50 * MiB },
}

-- The archs with a nominal device, in ascending order ("sm_75", ..., "sm_90a").
function policy.nominal_archs()
  local sms = {}
  for sm in pairs(NOMINAL) do sms[#sms + 1] = sm end
  table.sort(sms)
  local archs = {}
  for i, sm in ipairs(sms) do archs[i] = string.format("sm_%d%s", sm, sm >= 90 and "a" or "") end
  return archs
end

-- The nominal device of an arch name ("sm_80", "sm_90a").
function policy.nominal_device(arch)
  local sm = tonumber(tostring(arch):match("^sm_(%d+)a?$"))
  local d = sm and NOMINAL[sm]
  if not d then
    hum.fail("HUM_ERR_INVALID_ARG", "policy: no nominal device for arch '" .. tostring(arch)
      .. "' (expected sm_75, sm_80, sm_86, sm_89 or sm_90a)", 0)
  end
  local device = copy(d)
  device.sm = sm
  device.ordinal = -1
  return device
end

return policy
