# Site policies for a device call's candidates, beside the built-in table:
#   . bench/sweeps/site-policy.sh DIR
#   pol NAME 'if e.m_max <= 16 then t = mma(16, 64, 256, 16, 32, 64, 8) end'
#   hum bench --config DIR/NAME.yaml --layer SPEC ...    (DIR/base.yaml: the built-in policy alone)
# pol writes DIR/NAME/zz-NAME.lua, a policy (sm_90 and newer) whose table is the built-in one with
# its Lua statements run on each entry `e` (e.m_min, e.m_max) and a copy `t` of its tuning, which
# becomes the entry's; helpers: mma(block m, n, k, warp m, n, k, stages) and wg(kernel, block m, n,
# k, stages[, ctas per SM]) tunings (stream-K slices summed in the workspace), whole(t) (no
# stream-K); and DIR/NAME.yaml, the deployment config naming it.
SITE_POLICY_DIR=$1
mkdir -p "$SITE_POLICY_DIR"
printf 'policy_paths: []\n' >"$SITE_POLICY_DIR/base.yaml"
pol() {
    mkdir -p "$SITE_POLICY_DIR/$1"
    cat >"$SITE_POLICY_DIR/$1/zz-$1.lua" <<LUA
local policy = require('hum.policy')
local function mma(m, n, k, wm, wn, wk, s)
  local t = policy.mma_tuning(m, n, k, wm, wn, wk, s, 1); t.stream_k_sum = 'workspace'; return t
end
local function wg(kernel, m, n, k, s, c)
  local t = policy.mma_tuning(m, n, k, m, 16, k, s, c); t.kernel = kernel; t.stream_k_sum = 'workspace'; return t
end
local function whole(t) t.stream_k = false; t.stream_k_sum = nil; return t end
return { name = 'c-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = {}
      for k, v in pairs(e.tuning) do t[k] = v end
      $2
      e.tuning = t
    end
    return list
  end }
LUA
    printf 'policy_paths: [%s]\n' "$SITE_POLICY_DIR/$1" >"$SITE_POLICY_DIR/$1.yaml"
}
