/* Policy files attacking the process that runs them (issue 13), through the public API and
 * hum_lua_call, without a GPU: os.exit, loops at the top level, in applies, in tunings and in
 * an error value's __tostring (stopped by policy_time_limit_ms, the Lua lock released), memory
 * exhaustion (refused past policy_memory_limit_mb), writes
 * to globals, libraries and hum's helpers (seen by no other file nor by hum), errors of every
 * type (HUM_ERR_POLICY with file:line and the type), hum errors raised through a policy
 * (HUM_ERR_POLICY whatever their status), reloads beside probes on other threads while such
 * files come and go, and the memory a reload keeps. */
#define _GNU_SOURCE /* mallinfo2 */
#include "hum/hum.h"
#include "lua_bridge.h"
#include "rt_test.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A policy file that reaches the host's exit() ends this process before rt_test_result: make
 * that a failure whatever status it exits with. */
static int finished;
static void exit_guard(void)
{
    if (!finished) {
        fprintf(stderr, "test_policy_sandbox: the process exited from inside a policy file\n");
        _exit(1);
    }
}

typedef struct sb_probe {
    char arch[16];
    char name[64];
    int32_t block_n;
    char leaks[128];
} sb_probe;

static const char PROBE_LUA[] =
    "local ffi = require('ffi')\n"
    "local policy = require('hum.policy')\n"
    "ffi.cdef[[typedef struct sb_probe { char arch[16]; char name[64]; int32_t block_n; char leaks[128]; } "
    "sb_probe;]]\n"
    "local M = {}\n"
    "function M.winner(rt, p)\n"
    "  local list, pol = policy.tunings(policy.nominal_device(ffi.string(p.arch)), { n = 4096, k = 4096 })\n"
    "  ffi.copy(p.name, pol.name:sub(1, 63))\n"
    "  p.block_n = list[1].tuning.block_n\n"
    "end\n"
    "-- What hum's own Lua sees of a policy file's writes.\n"
    "function M.leaks(rt, p)\n"
    "  local seen = {}\n"
    "  if rawget(_G, 'leak') ~= nil or rawget(_G, 'leak2') ~= nil then seen[#seen + 1] = '_G' end\n"
    "  if rawget(string, 'leak') ~= nil or rawget(string, 'leak2') ~= nil then seen[#seen + 1] = 'string' end\n"
    "  if math.pi < 3.14 or rawget(math, 'leak') ~= nil then seen[#seen + 1] = 'math' end\n"
    "  if type(policy.ranges) ~= 'function' then seen[#seen + 1] = 'hum.policy' end\n"
    "  if type(require) ~= 'function' then seen[#seen + 1] = 'require' end\n"
    "  ffi.copy(p.leaks, table.concat(seen, ','))\n"
    "end\n"
    "function M.collect() collectgarbage('collect') collectgarbage('collect') end\n"
    "return M\n";

static const char TUNING[] = "{ block_m = 16, block_n = %d, block_k = 64, warp_m = 16, warp_n = 32, warp_k = 64, "
                             "stages = 3, stream_k = true, ctas_per_sm = 1 }";

/* A policy file named `name`: `top` at its top level (line 1), `applies` and `tunings` the
 * bodies of those functions (lines 4 and 6); NULL parts are a policy for every device whose
 * one range has block_n = 64. */
static const char *policy_text(const char *name, const char *top, const char *applies, const char *tunings)
{
    static char text[4][4096];
    static int next;
    char *out = text[next++ % 4];
    char tuning[512], body[1024];
    snprintf(tuning, sizeof tuning, TUNING, 64);
    snprintf(body, sizeof body, "return { { m_min = 1, m_max = math.huge, tuning = %s } }", tuning);
    snprintf(out, sizeof text[0],
             "%s\n"
             "return {\n"
             "  name = '%s',\n"
             "  applies = function(device) %s end,\n"
             "  tunings = function(device, layer, overrides)\n"
             "    %s\n"
             "  end,\n"
             "}\n",
             top ? top : "", name, applies ? applies : "return true", tunings ? tunings : body);
    return out;
}

static char dir[4096];

static hum_runtime *create(const char *config, hum_status want, const char *what, const char *detail1,
                           const char *detail2)
{
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = config;
    hum_runtime *rt = NULL;
    hum_status st = hum_runtime_create(&o, &rt);
    if (want == HUM_OK)
        RT_CHECK(st == HUM_OK, "%s: create: %s", what, hum_last_error());
    else
        RT_EXPECT_ERROR(st, want, what, detail1, detail2);
    return rt;
}

/* A config whose site layer is directory `site` of the scratch directory, with a time limit
 * of 50 ms unless `extra` sets one. */
static const char *config_for(const char *site, const char *extra)
{
    char text[512];
    snprintf(text, sizeof text, "policy_paths: [%s]\nlog_level: error\n%s%s", site, extra ? extra : "",
             extra && strstr(extra, "policy_time_limit_ms") ? "" : "policy_time_limit_ms: 50\n");
    char name[128];
    snprintf(name, sizeof name, "%s.yaml", site);
    return rt_write(dir, name, text);
}

static hum_status probe(hum_runtime *rt, const char *arch, sb_probe *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->arch, sizeof p->arch, "%s", arch);
    return hum_lua_call(rt, "sb_probe", "winner", "sb_probe *", p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One bad site file at create: HUM_ERR_POLICY with the two details. */
static void rejected_at_create(const char *site, const char *text, const char *detail1, const char *detail2)
{
    char sub[64];
    snprintf(sub, sizeof sub, "%s/x.lua", site);
    const char *path = rt_write(dir, sub, text);
    char where[4300];
    snprintf(where, sizeof where, "%s%s", path, detail1);
    hum_runtime *rt = create(config_for(site, NULL), HUM_ERR_POLICY, site, where, detail2);
    hum_runtime_destroy(rt);
}

static void test_exit(void)
{
    rejected_at_create("exit-top", policy_text("x", "os.exit(0)", NULL, NULL), ":1: os.exit is not available",
                       NULL);
    rejected_at_create("execute-top", policy_text("x", "os.execute('kill -9 $PPID')", NULL, NULL),
                       ":1: os.execute is not available", NULL);
    rejected_at_create("ffi-top", policy_text("x", "require('ffi').C.exit(0)", NULL, NULL),
                       ":1: require('ffi'): a policy file may require only", NULL);
    rejected_at_create("io-top", policy_text("x", "io.open('/tmp/x', 'w')", NULL, NULL), ":1: io is not available",
                       NULL);

    /* In tunings: only preparing a layer runs it; the call fails and this process goes on. */
    const char *path = rt_write(dir, "exit-tunings/x.lua", policy_text("x", NULL, NULL, "os.exit(0)"));
    hum_runtime *rt = create(config_for("exit-tunings", NULL), HUM_OK, "exit in tunings", NULL, NULL);
    if (!rt)
        return;
    sb_probe p;
    char where[4300];
    snprintf(where, sizeof where, "%s:6: os.exit is not available", path);
    RT_EXPECT_ERROR(probe(rt, "sm_90a", &p), HUM_ERR_POLICY, "os.exit in tunings", where,
                    "(in tunings(device, layer, overrides, compute))");
    hum_runtime_destroy(rt);
}

/* A loop is stopped after the limit with the file, line, function and limit named, and the
 * runtime stays usable: the lock is free, the policies in force stay, a fixed file loads. */
static void test_loops(void)
{
    double t0 = now_s();
    rejected_at_create("loop-top", policy_text("x", "while true do end", NULL, NULL), ":1: the file's top level",
                       "ran past the policy time limit of 50 ms (policy_time_limit_ms)");
    rejected_at_create("loop-tostring",
                       policy_text("x", "error(setmetatable({}, { __tostring = function() while true do end end }))",
                                   NULL, NULL),
                       ":1: the file's top level: an error value of type table, whose __tostring failed",
                       ":1: the error value's __tostring ran past the policy time limit of 50 ms");
    rejected_at_create("loop-pcall",
                       policy_text("x", "while true do pcall(function() while true do end end) end", NULL, NULL),
                       ":1: the file's top level", "ran past the policy time limit of 50 ms");
    RT_CHECK(now_s() - t0 < 30, "three loops stopped in %.1f s", now_s() - t0);

    const char *path = rt_write(dir, "loop-calls/x.lua", policy_text("x", NULL, NULL, NULL));
    hum_runtime *rt = create(config_for("loop-calls", NULL), HUM_OK, "loop in calls", NULL, NULL);
    if (!rt)
        return;
    rt_write(dir, "loop-calls/x.lua",
             policy_text("loops", NULL, "if device.sm == 80 then while true do end end return true",
                         "if device.sm == 89 then local i = 0 while true do i = i + 1 end end\n"
                         "    return require('hum.policy').ranges({ { math.huge, require('hum.policy').mma_tuning("
                         "16, 32, 64, 16, 32, 64, 3) } })"));
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "loops load: %s", hum_last_error());
    sb_probe p;
    char where[4300];
    snprintf(where, sizeof where, "%s:4: applies(device) ran past the policy time limit of 50 ms", path);
    RT_EXPECT_ERROR(probe(rt, "sm_80", &p), HUM_ERR_POLICY, "loop in applies", where, NULL);
    RT_CHECK(hum_runtime_policy_count(rt) == 6, "the lock is free after a stopped applies");
    snprintf(where, sizeof where,
             "%s:6: tunings(device, layer, overrides, compute) ran past the policy time limit of 50 ms", path);
    RT_EXPECT_ERROR(probe(rt, "sm_89", &p), HUM_ERR_POLICY, "loop in tunings", where, NULL);
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.name, "loops") && p.block_n == 32,
             "other devices still served: %s %s %d", hum_last_error(), p.name, p.block_n);
    rt_write(dir, "loop-calls/x.lua", policy_text("fixed", "while true do end", NULL, NULL));
    RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_POLICY, "looping reload", path, "ran past");
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.name, "loops"), "the old set stays: %s",
             hum_last_error());
    rt_write(dir, "loop-calls/x.lua", policy_text("fixed", NULL, NULL, NULL));
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "fixed: %s", hum_last_error());
    RT_CHECK(probe(rt, "sm_80", &p) == HUM_OK && !strcmp(p.name, "fixed") && p.block_n == 64, "fixed file serves: %s",
             hum_last_error());
    hum_runtime_destroy(rt);
}

/* A pattern that backtracks for ever inside one string.find (where no hook runs) is refused
 * before it starts, through the library and a string's methods, from a policy's tail call, on a
 * number's text, for a %b scan; patterns whose bound is small (a device name split in three, a
 * trim, a plain find and a repeat-free pattern over a long string) run; hum's own code run by a
 * policy call (hum.policy.below) keeps the plain functions, so an earlier policy's long error comes
 * through as it was raised. */
static void test_patterns(void)
{
    double t0 = now_s();
    static const struct {
        const char *site, *top, *detail;
    } refused[] = {
        {"pattern-find", "local _ = string.find(string.rep('a', 26), string.rep('a*', 26) .. 'c')",
         "string.find: this pattern (26 repeated or optional items, 53 characters) over 26 characters"},
        {"pattern-method", "local _ = ('a'):rep(30):match(('[a%]]-'):rep(9) .. 'c')",
         "string.match: this pattern (9 repeated"},
        {"pattern-gsub", "local _ = ('ab'):rep(5000):gsub('(a*b*a*b*)$', '')",
         "string.gsub: this pattern (4 repeated or optional items, 11 characters) over 10000 characters"},
        {"pattern-gmatch", "for _ in ('x'):rep(20000):gmatch('x-y') do end", "string.gmatch: this pattern (1"},
        {"pattern-number", "local _ = string.find(-1.2345678901234e+300, string.rep('.-', 12) .. 'x')",
         "over 21 characters"},
        {"pattern-balanced", "local _ = ('('):rep(100000):find('%b()')", "string.find: this pattern (0"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        rejected_at_create(refused[i].site, policy_text("x", refused[i].top, NULL, NULL), ":1: the file's top level",
                           refused[i].detail);
    RT_CHECK(now_s() - t0 < 30, "six patterns refused in %.1f s", now_s() - t0);

    const char *fine = "assert(('NVIDIA H100 80GB HBM3'):match('^(%S+)%s+(%S+)%s+(%S+)') == 'NVIDIA')\n"
                       "assert(select(2, ('model.layers.0.weight'):gsub('%.', '/')) == 3)\n"
                       "assert((' ' .. ('x'):rep(98) .. ' '):match('^%s*(.-)%s*$') == ('x'):rep(98))\n"
                       "assert(('x'):rep(9999):find('%s+') == nil)\n"
                       "assert(string.rep('a', 1000000):find('aab', 1, true) == nil)\n"
                       "assert(string.rep('a', 1000000):find('b') == nil)";
    const char *path = rt_write(dir, "pattern-fine/x.lua",
                                policy_text("fine", fine, NULL,
                                            "assert(('gemm_wgmma'):find('^gemm_(.*)$')) return require("
                                            "'hum.policy').ranges({ { math.huge, require('hum.policy').mma_tuning("
                                            "16, 32, 64, 16, 32, 64, 3) } })"));
    /* (a limit that the sanitizers' slower matching stays within: the point is the guard's bound) */
    hum_runtime *rt = create(config_for("pattern-fine", "policy_time_limit_ms: 20000\n"), HUM_OK, path, NULL, NULL);
    if (!rt)
        return;
    sb_probe p;
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.name, "fine") && p.block_n == 32,
             "patterns with small bounds run: %s", hum_last_error());
    /* tunings' tail call: the sandbox's frame stands where the policy's was */
    rt_write(dir, "pattern-fine/x.lua",
             policy_text("fine", NULL, NULL, "return string.find(('a'):rep(40), ('a*'):rep(8) .. 'c')"));
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "reload: %s", hum_last_error());
    char where[4300];
    snprintf(where, sizeof where, "%s: tunings(device, layer, overrides, compute): string.find", path);
    RT_EXPECT_ERROR(probe(rt, "sm_90a", &p), HUM_ERR_POLICY, "a pattern in tunings' tail call", where,
                    "8 repeated or optional items");
    hum_runtime_destroy(rt);

    /* an earlier policy's error of some 3 KB through hum.policy.below: hum's own messages (a
     * pattern over the message, hum.fix_location) are not the guard's */
    char earlier[1024];
    snprintf(earlier, sizeof earlier, "error(string.rep('x', 3000) .. ' the earlier site policy refuses this layer')");
    rt_write(dir, "pattern-nested/a.lua", policy_text("a", NULL, NULL, earlier));
    rt_write(dir, "pattern-nested/b.lua",
             policy_text("b", NULL, NULL, "return require('hum.policy').below(device, layer)"));
    rt = create(config_for("pattern-nested", NULL), HUM_OK, "nested", NULL, NULL);
    if (!rt)
        return;
    RT_EXPECT_ERROR(probe(rt, "sm_90a", &p), HUM_ERR_POLICY, "an earlier policy's long error",
                    "the earlier site policy refuses this layer", NULL);
    RT_CHECK(!strstr(hum_last_error(), "string.match"), "the guard replaced the error: %.300s", hum_last_error());
    hum_runtime_destroy(rt);
}

/* Memory: one huge allocation and a doubling loop are refused past policy_memory_limit_mb,
 * and the runtime goes on. */
static void test_memory(void)
{
    static const struct {
        const char *site, *top;
    } cases[] = {
        {"memory-rep", "local s = string.rep('x', 2^30)"},
        {"memory-doubling", "local s = 'x' for i = 1, 40 do s = s .. s end"},
        {"memory-table", "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 65536) .. i end"},
    };
    /* A time limit no allocation loop reaches, so that the memory limit is what stops it. */
    const char *limits = "policy_memory_limit_mb: 16\npolicy_time_limit_ms: 60000\n";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s/x.lua", cases[i].site);
        const char *path = rt_write(dir, sub, policy_text("x", cases[i].top, NULL, NULL));
        char where[4300];
        snprintf(where, sizeof where, "%s", path);
        hum_runtime *rt = create(config_for(cases[i].site, limits), HUM_ERR_POLICY, cases[i].site, where,
                                 "the file's top level used more than 16 MiB, the policy memory limit "
                                 "(policy_memory_limit_mb)");
        hum_runtime_destroy(rt);
    }

    /* In a runtime that serves: the refused reload keeps the set in force, and the next
     * calls into Lua have their memory again. */
    const char *path = rt_write(dir, "memory-after/x.lua", policy_text("good", NULL, NULL, NULL));
    hum_runtime *rt = create(config_for("memory-after", limits), HUM_OK, "memory-after", NULL, NULL);
    if (!rt)
        return;
    rt_write(dir, "memory-after/x.lua", policy_text("x", cases[1].top, NULL, NULL));
    RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_POLICY, "doubling on reload", path,
                    "used more than 16 MiB");
    sb_probe p;
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.name, "good"), "after a refused reload: %s",
             hum_last_error());
    rt_write(dir, "memory-after/x.lua", policy_text("fixed", NULL, NULL, NULL));
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "fixed: %s", hum_last_error());
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.name, "fixed"), "%s", hum_last_error());
    hum_runtime_destroy(rt);

    /* A call nested in another (policy.below runs the earlier files' tunings) shares the outer
     * call's budget: 6 MiB strings (and the buffer that builds them) here and there exceed 16 MiB,
     * either alone does not. */
    rt_write(dir, "memory-nested/a_base.lua",
             policy_text("base", NULL, NULL,
                         "local s = string.rep('a', 6 * 2^20)\n"
                         "    return require('hum.policy').ranges({ { math.huge, require('hum.policy').mma_tuning("
                         "16, 32, 64, 16, 32, 64, 3) } })"));
    rt_write(dir, "memory-nested/b_top.lua",
             policy_text("top", NULL, NULL,
                         "local s = string.rep('b', 6 * 2^20)\n"
                         "    local list = require('hum.policy').below(device, layer) return list"));
    rt = create(config_for("memory-nested", limits), HUM_OK, "memory-nested", NULL, NULL);
    if (!rt)
        return;
    RT_EXPECT_ERROR(probe(rt, "sm_90a", &p), HUM_ERR_POLICY, "nested calls share the budget", "b_top.lua:7:",
                    "a_base.lua", "used more than 16 MiB");
    hum_runtime_destroy(rt);
}

static const char WRITER_TOP[] = "_G.leak = 'global'\n"
                                 "leak2 = 'global'\n"
                                 "rawset(string, 'leak', 'rawset')\n"
                                 "rawset(math, 'pi', 3)\n"
                                 "pcall(function() string.leak2 = 'string' end)\n"
                                 "pcall(function() math.leak = 'math' end)\n"
                                 "pcall(function() require('hum.policy').ranges = nil end)\n"
                                 "pcall(function() getmetatable('').__index.leak = 1 end)\n"
                                 "_G.require = nil";

static const char READER_TOP[] =
    "local function check()\n"
    "  local seen = {}\n"
    "  if leak ~= nil or leak2 ~= nil or _G.leak ~= nil then seen[#seen + 1] = 'globals' end\n"
    "  if string.leak ~= nil or string.leak2 ~= nil or ('').leak ~= nil then seen[#seen + 1] = 'string' end\n"
    "  if math.pi < 3.14 or math.leak ~= nil then seen[#seen + 1] = 'math' end\n"
    "  if type(require) ~= 'function' or type(require('hum.policy').ranges) ~= 'function' then\n"
    "    seen[#seen + 1] = 'require'\n"
    "  end\n"
    "  if #seen > 0 then error('sees the writer: ' .. table.concat(seen, ', ')) end\n"
    "end\n"
    "check()";

static void expect_no_leaks(hum_runtime *rt, const char *what)
{
    sb_probe p;
    memset(&p, 0, sizeof p);
    hum_status st = hum_lua_call(rt, "sb_probe", "leaks", "sb_probe *", &p);
    RT_CHECK(st == HUM_OK && p.leaks[0] == '\0', "%s: hum sees a policy file's writes: '%s' %s", what, p.leaks,
             st == HUM_OK ? "" : hum_last_error());
}

static void test_globals(void)
{
    rt_write(dir, "globals/a_writer.lua", policy_text("writer", WRITER_TOP, "return false", NULL));
    rt_write(dir, "globals/b_reader.lua", policy_text("reader", READER_TOP, NULL, NULL));
    hum_runtime *rt = create(config_for("globals", NULL), HUM_OK, "writer and reader", NULL, NULL);
    if (!rt)
        return;
    sb_probe p;
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.name, "reader"), "reader serves, hum's require works: %s",
             hum_last_error());
    expect_no_leaks(rt, "after the load");
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "reload: %s", hum_last_error());
    expect_no_leaks(rt, "after a reload");
    char path[4200];
    snprintf(path, sizeof path, "%s/globals/a_writer.lua", dir);
    unlink(path);
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK && hum_runtime_policy_count(rt) == 6,
             "writer deleted: %s", hum_last_error());
    expect_no_leaks(rt, "writer deleted");
    hum_runtime_destroy(rt);

    rejected_at_create("readonly", policy_text("x", "string.upper = nil", NULL, NULL),
                       ":1: string is read-only in a policy file (assigning 'upper')", NULL);
}

static void test_error_values(void)
{
    static const struct {
        const char *site, *top, *detail;
    } cases[] = {
        {"err-table", "error({ code = 7 })", ":1: the file's top level: an error value of type table"},
        {"err-nil", "error(nil)", ":1: the file's top level: an error value of type nil"},
        {"err-function", "error(print)", ":1: the file's top level: an error value of type function"},
        {"err-tostring", "error(setmetatable({}, { __tostring = function() return 'no' end }))",
         ":1: the file's top level: an error value of type table: no"},
        /* hum errors of other statuses, and hum.fail, never leave a policy file as such */
        {"err-hum", "require('hum').fail('HUM_ERR_NO_DEVICE', 'no GPU')", ":1: require('hum'): a policy file may"},
        {"err-helper", "require('hum.policy').nominal_device('sm_1')", ":1: the file's top level: policy: no nominal"},
        {"err-string",
         "return { name = 'x', applies = function() return true end, tunings = function() return "
         "{ { m_min = 1, m_max = math.huge, tuning = { block_m = 16, block_n = '128', block_k = 64, "
         "warp_m = 16, warp_n = 32, warp_k = 64, stages = 3, stream_k = true, ctas_per_sm = 1 } } } end }",
         NULL},
    };
    for (size_t i = 0; i + 1 < sizeof cases / sizeof cases[0]; i++)
        rejected_at_create(cases[i].site, policy_text("x", cases[i].top, NULL, NULL), cases[i].detail, NULL);

    const char *path = rt_write(dir, "err-string/x.lua", cases[6].top);
    hum_runtime *rt = create(config_for("err-string", NULL), HUM_OK, "block_n as a string", NULL, NULL);
    if (!rt)
        return;
    sb_probe p;
    RT_EXPECT_ERROR(probe(rt, "sm_80", &p), HUM_ERR_POLICY, "block_n = '128'", path,
                    "tuning.block_n = \"128\" (a string): expected an integer");
    hum_runtime_destroy(rt);
}

/* --- reloads beside probes, while attacking files come and go ---------------------------- */

typedef struct stress {
    hum_runtime *rt;
    atomic_int stop;
    /* read by the main thread, which waits for enough of them */
    atomic_int reloads, reload_errors, probes;
    int bad_status;
    int probe_errors;
    char reload_error[512], probe_error[512]; /* the last of each thread's failures */
} stress;

static void *reloader(void *arg)
{
    stress *s = arg;
    while (!atomic_load(&s->stop)) {
        hum_status st = hum_runtime_reload_policies(s->rt);
        /* HUM_ERR_IO: a file listed, then removed before it was read (the old set stays). */
        if (st == HUM_ERR_POLICY || st == HUM_ERR_IO)
            atomic_fetch_add(&s->reload_errors, 1);
        else if (st != HUM_OK) {
            s->bad_status++;
            snprintf(s->reload_error, sizeof s->reload_error, "%s", hum_last_error());
        }
        atomic_fetch_add(&s->reloads, 1);
        /* Back-to-back reloads hold the policy lock almost always, and a mutex is not fair: under
         * a sanitizer on two cores the prober then got one turn in five seconds. */
        usleep(1000);
    }
    return NULL;
}

static void *prober(void *arg)
{
    stress *s = arg;
    while (!atomic_load(&s->stop)) {
        sb_probe p;
        /* With hot_reload on, a probe may run the reload itself and report nothing: the policy
         * in force stays the good one either way. */
        hum_status st = probe(s->rt, "sm_90a", &p);
        atomic_fetch_add(&s->probes, 1);
        if (st != HUM_OK || strcmp(p.name, "good")) {
            s->probe_errors++;
            snprintf(s->probe_error, sizeof s->probe_error, "%d %s (%s)", st, p.name, hum_last_error());
        }
        int32_t n = hum_runtime_policy_count(s->rt);
        for (int32_t i = 0; i < n; i++) {
            const char *o = hum_runtime_policy_origin(s->rt, i);
            if (o && !o[0])
                s->probe_errors++;
        }
    }
    return NULL;
}

static void test_stress(void)
{
    rt_write(dir, "stress/z_good.lua", policy_text("good", NULL, NULL, NULL));
    static const struct {
        const char *name, *top, *tunings;
    } attackers[] = {
        {"a_exit.lua", "os.exit(0)", NULL},
        {"b_loop.lua", "while true do end", NULL},
        {"c_globals.lua", WRITER_TOP, NULL},
        {"d_tunings.lua", NULL, "os.exit(0)"},
    };
    hum_runtime *rt = create(config_for("stress", "hot_reload: true\n"), HUM_OK, "stress", NULL, NULL);
    if (!rt)
        return;
    stress s = {.rt = rt};
    atomic_init(&s.stop, 0);
    atomic_init(&s.reloads, 0);
    atomic_init(&s.reload_errors, 0);
    atomic_init(&s.probes, 0);
    pthread_t threads[2];
    int started = pthread_create(&threads[0], NULL, reloader, &s) == 0;
    started += pthread_create(&threads[1], NULL, prober, &s) == 0;
    RT_CHECK(started == 2, "pthread_create");
    char stash[4200], live[4200];
    for (int round = 0; round < 12; round++) {
        size_t i = (size_t)round % (sizeof attackers / sizeof attackers[0]);
        /* c_globals applies to nothing and d_tunings to nothing the prober asks for, so the
         * good file keeps serving; the others make every load fail until they go. */
        const char *text = policy_text(attackers[i].name, attackers[i].top,
                                       i >= 2 ? "return device.sm == 75" : NULL, attackers[i].tunings);
        snprintf(stash, sizeof stash, "%s", rt_write(dir, "stash.lua", text));
        snprintf(live, sizeof live, "%s/stress/%s", dir, attackers[i].name);
        rename(stash, live);
        /* at least 120 ms, and until two reloads have ended since (the first may have listed the
         * folder before the rename): a loaded machine made as few as three in all the rounds,
         * so the attackers went unseen; at most 5 s */
        const int seen = atomic_load(&s.reloads) + 2;
        for (int waited_ms = 0; waited_ms < 120 || (atomic_load(&s.reloads) < seen && waited_ms < 5000);
             waited_ms += 10)
            usleep(10 * 1000);
        unlink(live);
        usleep(30 * 1000);
    }
    /* The rounds take 1.8 s; a slow machine (CI's two cores under TSan) may need longer for the
     * prober's share, and for a reload of the good set alone (a loaded one made only three to
     * five reloads in the rounds, each beside an attacking file), so wait for both, with a bound
     * so that a starved thread still fails. */
    for (int waited_ms = 0;
         (atomic_load(&s.probes) <= 10 || atomic_load(&s.reloads) <= atomic_load(&s.reload_errors)) &&
         waited_ms < 30000;
         waited_ms += 10)
        usleep(10 * 1000);
    atomic_store(&s.stop, 1);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    const int reloads = atomic_load(&s.reloads), rejected = atomic_load(&s.reload_errors);
    RT_CHECK(s.bad_status == 0 && s.probe_errors == 0,
             "reloads %d (%d rejected, %d other: %s), probes %d (%d bad: %s)", reloads, rejected, s.bad_status,
             s.reload_error, atomic_load(&s.probes), s.probe_errors, s.probe_error);
    RT_CHECK(rejected > 0 && reloads > rejected && atomic_load(&s.probes) > 10,
             "the attacking files were seen and the good set loaded: %d reloads, %d rejected, %d probes", reloads,
             rejected, atomic_load(&s.probes));
    expect_no_leaks(rt, "after the stress");
    hum_runtime_destroy(rt);
}

/* --- what a reload keeps ---------------------------------------------------------------- */

/* The C heap after a full collection of the Lua state (whose memory is on it too). */
static size_t heap_in_use(hum_runtime *rt)
{
    RT_CHECK(hum_lua_call(rt, "sb_probe", "collect", NULL, NULL) == HUM_OK, "collect: %s", hum_last_error());
    return mallinfo2().uordblks;
}

static void test_reload_memory(void)
{
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "create: %s", hum_last_error()))
        return;
    const char *first = hum_runtime_policy_origin(rt, 0);
    /* Warm-up: LuaJIT compiles hum's hot Lua over the first few hundred reloads, and keeps
     * the traces (on the same heap, as the Lua state's allocator is malloc). */
    for (int i = 0; i < 800; i++)
        hum_runtime_reload_policies(rt);
    size_t before = heap_in_use(rt);
    enum { RELOADS = 400 };
    for (int i = 0; i < RELOADS; i++)
        RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "reload %d: %s", i, hum_last_error());
    size_t after = heap_in_use(rt);
    RT_CHECK(hum_runtime_policy_origin(rt, 0) == first, "a reload of the same files reuses their origin strings");
    /* Before the pool, each reload kept its whole origin list (about 315 bytes for the 5
     * built-in files) until destroy: 126 KB here. */
    RT_CHECK(after < before + RELOADS * 16, "heap grew by %zu bytes over %d reloads", after - before, RELOADS);
    hum_runtime_destroy(rt);
}

int main(void)
{
    alarm(600); /* a loop the time limit fails to stop fails the test instead of hanging it */
    atexit(exit_guard);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");
    rt_tmpdir("policy-sandbox", dir, sizeof dir);
    char lua_dir[4200];
    snprintf(lua_dir, sizeof lua_dir, "%s/lua", dir);
    rt_write(lua_dir, "sb_probe.lua", PROBE_LUA);
    setenv("HUM_LUA_PATH", lua_dir, 1);

    test_exit();
    test_loops();
    test_patterns();
    test_memory();
    test_globals();
    test_error_values();
    test_stress();
    test_reload_memory();
    rt_rmtree(dir);
    finished = 1;
    return rt_test_result("test_policy_sandbox");
}
