/* The runtime object without a GPU (the CUDA driver is hidden with HUM_CUDA_DRIVER): create with
 * defaults and with a config, policy layering (built-in, HUM_POLICY_PATH, site files), reload
 * that keeps the old policies on a syntax error, a run-time error or a bad table (with
 * file:line), hot reload, overrides reaching Lua, and hum_lua_call's error and re-entry paths.
 * Lua is observed through a probe module put on HUM_LUA_PATH. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "hum/hum.h"
#include "lua_bridge.h"
#include "rt_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct rt_probe {
    char arch[16];
    char name[64];
    char origin[512];
    int32_t entries;
    int32_t block_n;
    int32_t status;
    char override[32];
} rt_probe;

static const char PROBE_LUA[] =
    "local ffi = require('ffi')\n"
    "local hum = require('hum')\n"
    "local policy = require('hum.policy')\n"
    "ffi.cdef[[typedef struct rt_probe { char arch[16]; char name[64]; char origin[512];\n"
    "  int32_t entries; int32_t block_n; int32_t status; char override[32]; } rt_probe;]]\n"
    "local M = {}\n"
    "local function put(dst, size, s) ffi.copy(dst, s:sub(1, size - 1)) end\n"
    "function M.winner(rt, p)\n"
    "  local list, pol = policy.tunings(policy.nominal_device(ffi.string(p.arch)),\n"
    "    { n = 4096, k = 4096, kernels = { mma = true, wgmma = false } })\n"
    "  put(p.name, 64, pol.name)\n"
    "  put(p.origin, 512, pol.origin)\n"
    "  p.entries = #list\n"
    "  p.block_n = list[1].tuning.block_n\n"
    "  put(p.override, 32, policy.override('moe.activation') or '')\n"
    "end\n"
    "function M.reenter(rt, p) p.status = hum.C.hum_runtime_reload_policies(rt) end\n"
    "function M.fail(rt, p)\n"
    "  hum.fail('HUM_ERR_FORMAT', 'probe says no')\n"
    "end\n"
    "return M\n";

/* A site policy for sm >= min_sm whose first tuning has block_n = bn. */
static char *site_policy(const char *name, int min_sm, int bn)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "return {\n"
             "  name = '%s',\n"
             "  applies = function(device) return device.sm >= %d end,\n"
             "  tunings = function(device, layer)\n"
             "    return { { m_min = 1, m_max = math.huge, tuning = { block_m = 16, block_n = %d, block_k = 64,\n"
             "      warp_m = 16, warp_n = 16, warp_k = 64, stages = 3, stream_k = true, ctas_per_sm = 1 } } }\n"
             "  end,\n"
             "}\n",
             name, min_sm, bn);
    return text;
}

static char lua_dir[4200];

static hum_status probe(hum_runtime *rt, const char *arch, rt_probe *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->arch, sizeof p->arch, "%s", arch);
    return hum_lua_call(rt, "rt_probe", "winner", "rt_probe *", p);
}

/* Checks that `arch` is served by policy `name` whose first tuning has block_n = bn (bn 0: a
 * built-in policy, whose tuning values are the GEMM's to change, so only the name is checked). */
static void expect_winner(hum_runtime *rt, const char *what, const char *arch, const char *name, int bn)
{
    rt_probe p;
    hum_status st = probe(rt, arch, &p);
    if (!RT_CHECK(st == HUM_OK, "%s: probe failed: %s", what, hum_last_error()))
        return;
    RT_CHECK(!strcmp(p.name, name), "%s: %s is served by '%s', expected '%s'", what, arch, p.name, name);
    RT_CHECK(bn == 0 || p.block_n == bn, "%s: block_n %d, expected %d", what, p.block_n, bn);
}

static hum_runtime *create_with_config(const char *config_path)
{
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = config_path;
    hum_runtime *rt = NULL;
    hum_status st = hum_runtime_create(&o, &rt);
    RT_CHECK(st == HUM_OK, "create with %s: %s", config_path, hum_last_error());
    return rt;
}

static void test_defaults(void)
{
    hum_runtime *rt = NULL;
    hum_status st = hum_runtime_create(NULL, &rt);
    if (!RT_CHECK(st == HUM_OK, "create(NULL): %s", hum_last_error()))
        return;
    static const char *builtin[] = {"sm75", "sm80", "sm86", "sm89", "sm90"};
    RT_CHECK(hum_runtime_policy_count(rt) == 5, "built-in policies: %d", hum_runtime_policy_count(rt));
    for (int i = 0; i < 5 && i < hum_runtime_policy_count(rt); i++) {
        char want[64];
        snprintf(want, sizeof want, "embedded:policies/%s.lua", builtin[i]);
        RT_CHECK(!strcmp(hum_runtime_policy_origin(rt, i), want), "origin %d: %s", i, hum_runtime_policy_origin(rt, i));
    }
    RT_CHECK(hum_runtime_policy_origin(rt, 5) == NULL && hum_runtime_policy_origin(rt, -1) == NULL, "out of range");
    const char *cache = getenv("HUM_CACHE_DIR");
    RT_CHECK(cache && !strcmp(hum_runtime_cache_dir(rt), cache), "cache dir %s", hum_runtime_cache_dir(rt));
    RT_CHECK(hum_runtime_config_path(rt) == NULL, "no config");
    RT_CHECK(hum_runtime_override(rt, "moe.activation") == NULL, "no overrides");
    hum_device_info info;
    RT_EXPECT_ERROR(hum_runtime_device(rt, &info), HUM_ERR_NO_DEVICE, "device without a driver", "no CUDA driver");
    expect_winner(rt, "built-in", "sm_75", "sm75", 0);
    expect_winner(rt, "built-in", "sm_80", "sm80", 0);
    expect_winner(rt, "built-in", "sm_86", "sm86", 0);
    expect_winner(rt, "built-in", "sm_89", "sm89", 0);
    expect_winner(rt, "built-in", "sm_90a", "sm90", 0);
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK && hum_runtime_policy_count(rt) == 5, "plain reload: %s",
             hum_last_error());
    hum_runtime_destroy(rt);
    hum_runtime_destroy(NULL);
}

static void test_options(void)
{
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    RT_CHECK(o.device_ordinal == -1 && !o.config_path && !o.cache_dir, "options_init");
    o.cache_dir = "/tmp/hum-rt-explicit-cache";
    hum_runtime *rt = NULL;
    if (RT_CHECK(hum_runtime_create(&o, &rt) == HUM_OK, "%s", hum_last_error())) {
        RT_CHECK(!strcmp(hum_runtime_cache_dir(rt), o.cache_dir), "explicit cache dir: %s", hum_runtime_cache_dir(rt));
        hum_runtime_destroy(rt);
    }
    o.device_ordinal = -2;
    rt = (hum_runtime *)&o;
    RT_EXPECT_ERROR(hum_runtime_create(&o, &rt), HUM_ERR_INVALID_ARG, "ordinal -2", "device_ordinal -2");
    RT_CHECK(rt == NULL, "out is NULL on failure");
    RT_EXPECT_ERROR(hum_runtime_create(NULL, NULL), HUM_ERR_INVALID_ARG, "out NULL", "out is NULL");
    RT_EXPECT_ERROR(hum_runtime_reload_policies(NULL), HUM_ERR_INVALID_ARG, "reload NULL", "NULL");
}

static void test_layers_and_reload(const char *dir)
{
    char site[4200], yaml[8600];
    snprintf(site, sizeof site, "%s/site", dir);
    const char *hopper = rt_write(site, "a_hopper.lua", site_policy("site-hopper", 90, 64));
    char hopper_path[4200];
    snprintf(hopper_path, sizeof hopper_path, "%s", hopper);
    snprintf(yaml, sizeof yaml, "cache_dir: cache\npolicy_paths: [site]\noverrides:\n  moe: {activation: mxfp8}\n");
    const char *config = rt_write(dir, "deploy.yaml", yaml);
    hum_runtime *rt = create_with_config(config);
    if (!rt)
        return;
    char want[8600];
    snprintf(want, sizeof want, "%s/cache", dir);
    RT_CHECK(!strcmp(hum_runtime_cache_dir(rt), want), "config cache_dir: %s", hum_runtime_cache_dir(rt));
    RT_CHECK(hum_runtime_policy_count(rt) == 6, "5 built-in + 1 site: %d", hum_runtime_policy_count(rt));
    RT_CHECK(hum_runtime_policy_origin(rt, 5) && !strcmp(hum_runtime_policy_origin(rt, 5), hopper_path),
             "site origin %s", hum_runtime_policy_origin(rt, 5));
    RT_CHECK(hum_runtime_override(rt, "moe.activation") && !strcmp(hum_runtime_override(rt, "moe.activation"), "mxfp8"),
             "override via C");
    expect_winner(rt, "site layer wins where it applies", "sm_90a", "site-hopper", 64);
    expect_winner(rt, "built-in stays where the site file does not apply", "sm_80", "sm80", 0);
    rt_probe p;
    RT_CHECK(probe(rt, "sm_90a", &p) == HUM_OK && !strcmp(p.override, "mxfp8"), "override reaches Lua: '%s'",
             p.override);

    struct {
        const char *what, *text, *detail;
    } broken[] = {
        {"syntax error", "return {\n  name = 'x',\n  applies = function(d) return true end end,\n}\n", ":3:"},
        {"run-time error", "local t = {}\nlocal n = t.missing.field\nreturn {}\n", ":2: attempt to index"},
        {"error()", "\n\nerror('deliberate failure')\n", ":3: deliberate failure"},
        {"not a table", "return 42\n", "a policy file must return a table"},
        {"unknown field", "return { name = 'x', applies = function() return true end,\n"
                          "  tunings = function() end, tuning = {} }\n",
         "unknown field 'tuning'"},
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        rt_write(site, "a_hopper.lua", broken[i].text);
        RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_POLICY, broken[i].what, hopper_path, broken[i].detail);
        RT_CHECK(hum_runtime_policy_count(rt) == 6, "%s: policy count changed", broken[i].what);
        expect_winner(rt, broken[i].what, "sm_90a", "site-hopper", 64);
    }

    rt_write(site, "a_hopper.lua", site_policy("site-hopper", 90, 128));
    rt_write(site, "b_ampere.lua", site_policy("site-ampere", 80, 32));
    rt_write(site, ".hidden.lua", "this is not lua");
    rt_write(site, "notes.txt", "not a policy");
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "fixed reload: %s", hum_last_error());
    RT_CHECK(hum_runtime_policy_count(rt) == 7, "a_hopper + b_ampere: %d", hum_runtime_policy_count(rt));
    expect_winner(rt, "later site file wins", "sm_90a", "site-ampere", 32);
    expect_winner(rt, "site file for >= 80", "sm_80", "site-ampere", 32);
    expect_winner(rt, "nothing for sm75 in the site layer", "sm_75", "sm75", 0);

    /* a *.lua name that is no regular file is named (skipped, it hid a policy; a FIFO would
     * block the read), and the policies in force stay */
    char odd[4300];
    snprintf(odd, sizeof odd, "%s/sub.lua", site);
    RT_CHECK(mkdir(odd, 0755) == 0, "mkdir %s", odd);
    RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_IO, "a directory named *.lua", "sub.lua is a directory");
    RT_CHECK(hum_runtime_policy_count(rt) == 7, "a directory named *.lua: policy count changed");
    rmdir(odd);
    snprintf(odd, sizeof odd, "%s/pipe.lua", site);
    RT_CHECK(mkfifo(odd, 0644) == 0, "mkfifo %s", odd);
    RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_IO, "a FIFO named *.lua", "pipe.lua is a FIFO");
    unlink(odd);
    snprintf(odd, sizeof odd, "%s/gone.lua", site);
    RT_CHECK(symlink("nowhere.lua", odd) == 0, "symlink %s", odd);
    RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_IO, "a broken link named *.lua",
                    "gone.lua is a broken symbolic link");
    unlink(odd);
    expect_winner(rt, "the policies in force stayed", "sm_90a", "site-ampere", 32);

    /* A bad table only shows when tunings run: the error names the policy file, and the
     * policy set stays loaded. */
    rt_write(site, "b_ampere.lua",
             "return { name = 'gappy', applies = function(d) return d.sm == 80 end,\n"
             "  tunings = function() return {\n"
             "    { m_min = 1, m_max = 16, tuning = { block_m = 16, block_n = 128, block_k = 64, warp_m = 16,\n"
             "      warp_n = 32, warp_k = 64, stages = 3, stream_k = true, ctas_per_sm = 1 } },\n"
             "    { m_min = 20, m_max = math.huge, tuning = {} } } end }\n");
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "gappy loads: %s", hum_last_error());
    RT_EXPECT_ERROR(probe(rt, "sm_80", &p), HUM_ERR_POLICY, "gap in M ranges", "policy 'gappy'", "b_ampere.lua",
                    "tunings entry 2", "m_min = 20, expected 17");
    expect_winner(rt, "other devices unaffected", "sm_90a", "site-hopper", 128);
    hum_runtime_destroy(rt);
}

static void test_hot_reload(const char *dir)
{
    char site[4200];
    snprintf(site, sizeof site, "%s/hot", dir);
    const char *policy = rt_write(site, "hot.lua", site_policy("hot-v1", 75, 64));
    char policy_path[4200];
    snprintf(policy_path, sizeof policy_path, "%s", policy);
    rt_set_mtime(policy_path, 1000000);
    const char *config = rt_write(dir, "hot.yaml", "policy_paths: [hot]\nhot_reload: true\nlog_level: error\n");
    hum_runtime *rt = create_with_config(config);
    if (!rt)
        return;
    expect_winner(rt, "hot v1", "sm_80", "hot-v1", 64);
    rt_write(site, "hot.lua", site_policy("hot-v2", 75, 32));
    rt_set_mtime(policy_path, 1000100);
    expect_winner(rt, "changed file is picked up by the next Lua entry", "sm_80", "hot-v2", 32);
    rt_write(site, "hot.lua", "return {\n  name = 'broken'\n  applies = nil,\n}\n");
    rt_set_mtime(policy_path, 1000200);
    expect_winner(rt, "a broken edit keeps the old policies", "sm_80", "hot-v2", 32);
    RT_EXPECT_ERROR(hum_runtime_reload_policies(rt), HUM_ERR_POLICY, "explicit reload reports it", policy_path, ":3:");
    rt_write(site, "hot.lua", site_policy("hot-v3", 75, 16));
    rt_set_mtime(policy_path, 1000300);
    expect_winner(rt, "fixed file", "sm_80", "hot-v3", 16);
    rt_write(site, "new.lua", site_policy("hot-new", 75, 256));
    expect_winner(rt, "a file added to the directory", "sm_80", "hot-new", 256);
    /* nothing enters Lua now: the runtime's watcher thread finds the new file by itself */
    const int32_t files = hum_runtime_policy_count(rt);
    rt_write(site, "newer.lua", site_policy("hot-newer", 75, 128));
    int32_t seen = files;
    for (int i = 0; i < 100 && seen == files; i++) {
        nanosleep(&(struct timespec){0, 50000000}, NULL);
        seen = hum_runtime_policy_count(rt);
    }
    RT_CHECK(seen == files + 1, "the watcher did not load the added file within 5 s (%d files, %d before)", seen,
             files);
    hum_runtime_destroy(rt);
    char newer[4300];
    snprintf(newer, sizeof newer, "%s/newer.lua", site);
    remove(newer);

    config = rt_write(dir, "cold.yaml", "policy_paths: [hot]\n");
    rt = create_with_config(config);
    if (!rt)
        return;
    rt_write(site, "new.lua", site_policy("cold-edit", 75, 128));
    rt_set_mtime(policy_path, 1000400);
    expect_winner(rt, "without hot_reload a change waits for an explicit reload", "sm_80", "hot-new", 256);
    RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "%s", hum_last_error());
    expect_winner(rt, "after the reload", "sm_80", "cold-edit", 128);
    hum_runtime_destroy(rt);
}

static void test_bridge(void)
{
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return;
    rt_probe p;
    memset(&p, 0, sizeof p);
    RT_CHECK(hum_lua_call(rt, "rt_probe", "reenter", "rt_probe *", &p) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(p.status == HUM_ERR_INTERNAL, "reload from inside Lua is refused, not a deadlock: %d", p.status);
    RT_EXPECT_ERROR(hum_lua_call(rt, "rt_probe", "fail", NULL, NULL), HUM_ERR_FORMAT, "hum.fail keeps its status",
                    "rt_probe.lua:19: probe says no");
    RT_EXPECT_ERROR(hum_lua_call(rt, "rt_probe", "nope", NULL, NULL), HUM_ERR_INTERNAL, "missing function",
                    "module 'rt_probe' has no function 'nope'");
    RT_EXPECT_ERROR(hum_lua_call(rt, "no.such.module", "f", NULL, NULL), HUM_ERR_POLICY, "missing module",
                    "module 'no.such.module' not found", "lua/no/such/module.lua");
    RT_EXPECT_ERROR(hum_lua_call(rt, NULL, "f", NULL, NULL), HUM_ERR_INVALID_ARG, "NULL module", "NULL");
    RT_EXPECT_ERROR(probe(rt, "sm_70", &p), HUM_ERR_INVALID_ARG, "no nominal device", "arch 'sm_70'");
    hum_runtime_destroy(rt);
}

static void test_failed_create(const char *dir)
{
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    hum_runtime *rt = (hum_runtime *)&o;
    o.config_path = rt_write(dir, "typo.yaml", "log_level: info\ncache_dri: /x\n");
    RT_EXPECT_ERROR(hum_runtime_create(&o, &rt), HUM_ERR_CONFIG, "bad config", "typo.yaml:2: unknown key 'cache_dri'");
    RT_CHECK(rt == NULL, "out NULL");
    rt_write(dir, "broken/x.lua", "return {\n  name = 'x',,\n}\n");
    o.config_path = rt_write(dir, "broken.yaml", "policy_paths: [broken]\n");
    RT_EXPECT_ERROR(hum_runtime_create(&o, &rt), HUM_ERR_POLICY, "broken site policy at create", "broken/x.lua:2:");
    o.config_path = rt_write(dir, "missing.yaml", "policy_paths: [does-not-exist]\n");
    RT_EXPECT_ERROR(hum_runtime_create(&o, &rt), HUM_ERR_IO, "missing policy path", "does-not-exist",
                    "No such file or directory");
    o.config_path = "/nonexistent/deploy.yaml";
    RT_EXPECT_ERROR(hum_runtime_create(&o, &rt), HUM_ERR_IO, "missing config", "/nonexistent/deploy.yaml");
    setenv("HUM_CONFIG", o.config_path, 1);
    RT_EXPECT_ERROR(hum_runtime_create(NULL, &rt), HUM_ERR_IO, "HUM_CONFIG is read", "/nonexistent/deploy.yaml");
    unsetenv("HUM_CONFIG");
}

static void test_policy_path_env(const char *dir)
{
    char dev[4200];
    snprintf(dev, sizeof dev, "%s/dev-policies", dir);
    rt_write(dev, "sm90.lua", site_policy("dev-sm90", 90, 32));
    rt_write(dev, "zz_turing.lua", site_policy("dev-turing", 75, 16));
    setenv("HUM_POLICY_PATH", dev, 1);
    hum_runtime *rt = NULL;
    if (RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error())) {
        RT_CHECK(hum_runtime_policy_count(rt) == 6, "5 names + 1 new: %d", hum_runtime_policy_count(rt));
        char want[4300];
        snprintf(want, sizeof want, "%s/sm90.lua", dev);
        RT_CHECK(hum_runtime_policy_origin(rt, 4) && !strcmp(hum_runtime_policy_origin(rt, 4), want),
                 "sm90.lua comes from HUM_POLICY_PATH: %s", hum_runtime_policy_origin(rt, 4));
        RT_CHECK(!strcmp(hum_runtime_policy_origin(rt, 0), "embedded:policies/sm75.lua"), "others stay embedded");
        expect_winner(rt, "last built-in file that applies", "sm_90a", "dev-turing", 16);
        hum_runtime_destroy(rt);
    }
    /* a missing directory is skipped (with a warning), as in HUM_KERNEL_PATH and the others */
    setenv("HUM_POLICY_PATH", "/nonexistent/policies", 1);
    if (RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "HUM_POLICY_PATH missing: %s", hum_last_error())) {
        RT_CHECK(hum_runtime_policy_count(rt) == 5 &&
                     !strcmp(hum_runtime_policy_origin(rt, 4), "embedded:policies/sm90.lua"),
                 "the built-in policies without the missing directory: %d", hum_runtime_policy_count(rt));
        hum_runtime_destroy(rt);
    }
    unsetenv("HUM_POLICY_PATH");
}

/* LuaJIT shortens chunk names past 59 characters; messages must still carry the full path. */
static void test_long_path(const char *dir)
{
    char deep[4200];
    snprintf(deep, sizeof deep, "%s/a-rather-long-directory-name/and-another-long-directory-name", dir);
    const char *path = rt_write(deep, "site-policy-with-a-long-name.lua", "return {\n\n  = 1 }\n");
    char full[4200];
    snprintf(full, sizeof full, "%s", path);
    char yaml[4400];
    snprintf(yaml, sizeof yaml, "policy_paths: [%s]\n", full);
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = rt_write(dir, "long.yaml", yaml);
    hum_runtime *rt = NULL;
    char want[4300];
    snprintf(want, sizeof want, "%s:3:", full);
    RT_EXPECT_ERROR(hum_runtime_create(&o, &rt), HUM_ERR_POLICY, "long path", want);
}

/* Origins read on one thread while another reloads: every string read must stay readable
 * (the sanitizer build turns a read of a freed list into a failure). */
static void *reload_loop(void *arg)
{
    for (int i = 0; i < 40; i++)
        if (hum_runtime_reload_policies(arg) != HUM_OK)
            return (void *)1;
    return NULL;
}

static void test_origins_beside_reload(void)
{
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "create: %s", hum_last_error()))
        return;
    pthread_t t;
    if (RT_CHECK(pthread_create(&t, NULL, reload_loop, rt) == 0, "pthread_create")) {
        size_t total = 0;
        for (int i = 0; i < 4000; i++) {
            const int32_t n = hum_runtime_policy_count(rt);
            for (int32_t j = 0; j < n; j++) {
                const char *o = hum_runtime_policy_origin(rt, j);
                total += o ? strlen(o) : 0;
            }
        }
        void *failed = NULL;
        pthread_join(t, &failed);
        RT_CHECK(failed == NULL, "a reload failed: %s", hum_last_error());
        RT_CHECK(total > 0, "origins were read");
    }
    hum_runtime_destroy(rt);
}

int main(void)
{
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");
    char dir[4096];
    rt_tmpdir("runtime", dir, sizeof dir);
    snprintf(lua_dir, sizeof lua_dir, "%s/lua", dir);
    rt_write(lua_dir, "rt_probe.lua", PROBE_LUA);
    setenv("HUM_LUA_PATH", lua_dir, 1);

    test_defaults();
    test_options();
    test_layers_and_reload(dir);
    test_hot_reload(dir);
    test_bridge();
    test_failed_create(dir);
    test_policy_path_env(dir);
    test_long_path(dir);
    test_origins_beside_reload();
    rt_rmtree(dir);
    return rt_test_result("test_runtime");
}
