/* Deployment config (runtime/src/runtime/config.c): a good file parses into exactly its values, every
 * key of examples/deploy.yaml is accepted, and each kind of mistake (unknown key, wrong type,
 * bad value, duplicate, YAML syntax) is an error naming the file, line and key, with the output
 * left untouched. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "config.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static hum_status parse(const char *text, const char *base_dir, hum_config *out)
{
    return hum_config_parse(text, strlen(text), "deploy.yaml", base_dir, out);
}

static void test_good_file(void)
{
    const char *text = "# every key\n"
                       "device: 1\n"
                       "cache_dir: /var/cache/hum\n"
                       "policy_paths:\n"
                       "  - site.lua\n"
                       "  - /etc/hum/policies\n"
                       "overrides:\n"
                       "  moe: {activation: mxfp8}\n"
                       "  linear:\n"
                       "    activation: float8_e4m3fn\n"
                       "hot_reload: true\n"
                       "log_level: debug\n"
                       "policy_time_limit_ms: 250\n"
                       "policy_memory_limit_mb: 64\n";
    hum_config c;
    hum_status st = parse(text, "/srv/deploy", &c);
    if (!RT_CHECK(st == HUM_OK, "good file rejected: %s", hum_last_error()))
        return;
    RT_CHECK(c.device == 1, "device %d", c.device);
    RT_CHECK(c.cache_dir && !strcmp(c.cache_dir, "/var/cache/hum"), "cache_dir %s", c.cache_dir);
    RT_CHECK(c.policy_path_count == 2, "policy_path_count %d", c.policy_path_count);
    if (c.policy_path_count == 2) {
        RT_CHECK(!strcmp(c.policy_paths[0], "/srv/deploy/site.lua"), "relative path resolved against the "
                 "config's directory: %s", c.policy_paths[0]);
        RT_CHECK(!strcmp(c.policy_paths[1], "/etc/hum/policies"), "absolute path kept: %s", c.policy_paths[1]);
    }
    const char *moe = hum_config_override_value(&c, "moe.activation");
    const char *linear = hum_config_override_value(&c, "linear.activation");
    RT_CHECK(moe && !strcmp(moe, "mxfp8"), "moe.activation %s", moe ? moe : "(null)");
    RT_CHECK(linear && !strcmp(linear, "e4m3"), "float8_e4m3fn is stored as e4m3: %s", linear ? linear : "(null)");
    RT_CHECK(hum_config_override_value(&c, "moe.weights") == NULL, "unset override is NULL");
    RT_CHECK(c.override_count == 2, "override_count %d", c.override_count);
    RT_CHECK(c.hot_reload == 1, "hot_reload %d", c.hot_reload);
    RT_CHECK(c.log_level == HUM_LOG_DEBUG, "log_level %d", (int)c.log_level);
    RT_CHECK(c.policy_time_limit_ms == 250, "policy_time_limit_ms %d", c.policy_time_limit_ms);
    RT_CHECK(c.policy_memory_limit_mb == 64, "policy_memory_limit_mb %d", c.policy_memory_limit_mb);
    hum_config_free(&c);
}

static void test_defaults_and_paths(void)
{
    hum_config c;
    RT_CHECK(parse("", NULL, &c) == HUM_OK, "empty file: %s", hum_last_error());
    RT_CHECK(c.device == -1 && !c.cache_dir && c.policy_path_count == 0 && c.override_count == 0 && !c.hot_reload &&
                 c.log_level == HUM_LOG_WARN && c.policy_time_limit_ms == 0 &&
                 c.policy_memory_limit_mb == 0,
             "an empty file gives the defaults");
    hum_config_free(&c);
    RT_CHECK(parse("# only a comment\n", NULL, &c) == HUM_OK, "comment-only file: %s", hum_last_error());
    hum_config_free(&c);

    setenv("HOME", "/home/op", 1);
    RT_CHECK(parse("cache_dir: ~/hum-cache\npolicy_paths: [rel/dir]\n", NULL, &c) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(c.cache_dir && !strcmp(c.cache_dir, "/home/op/hum-cache"), "~ expands to HOME: %s", c.cache_dir);
    RT_CHECK(c.policy_path_count == 1 && !strcmp(c.policy_paths[0], "rel/dir"),
             "without a base directory a relative path stays as written");
    hum_config_free(&c);
    RT_CHECK(parse("hot_reload: False\nlog_level: error\ndevice: 0\npolicy_paths: []\n", NULL, &c) == HUM_OK, "%s",
             hum_last_error());
    RT_CHECK(c.hot_reload == 0 && c.log_level == HUM_LOG_ERROR && c.device == 0 && c.policy_path_count == 0,
             "False / error / 0 / []");
    hum_config_free(&c);
    /* a quoted number is a name; plain words the core schema types as strings stay names */
    RT_CHECK(parse("cache_dir: \"5\"\npolicy_paths: [1.2.3, e5, 5a, !!str x.lua]\n", NULL, &c) == HUM_OK, "%s",
             hum_last_error());
    RT_CHECK(c.cache_dir && !strcmp(c.cache_dir, "5") && c.policy_path_count == 4 &&
                 !strcmp(c.policy_paths[0], "1.2.3") && !strcmp(c.policy_paths[1], "e5") &&
                 !strcmp(c.policy_paths[2], "5a") && !strcmp(c.policy_paths[3], "x.lua"),
             "quoted and string-typed names kept");
    hum_config_free(&c);
}

static void test_examples_deploy_yaml(void)
{
    hum_config c;
    hum_status st = hum_config_load(HUM_SOURCE_DIR "/examples/deploy.yaml", &c);
    if (!RT_CHECK(st == HUM_OK, "examples/deploy.yaml rejected: %s", hum_last_error()))
        return;
    RT_CHECK(c.device >= 0, "device set");
    RT_CHECK(c.cache_dir != NULL, "cache_dir set");
    RT_CHECK(c.policy_path_count >= 1, "policy_paths set");
    RT_CHECK(hum_config_override_value(&c, "moe.activation") && hum_config_override_value(&c, "linear.activation"),
             "both overrides set");
    RT_CHECK(c.hot_reload == 1, "hot_reload shown as true");
    RT_CHECK(c.log_level == HUM_LOG_INFO, "log_level shown as info");
    RT_CHECK(c.policy_time_limit_ms == 1000, "policy_time_limit_ms shown as 1000: %d", c.policy_time_limit_ms);
    RT_CHECK(c.policy_memory_limit_mb == 256, "policy_memory_limit_mb shown as 256: %d", c.policy_memory_limit_mb);
    const char *suffix = "/examples/custom_policy.lua";
    int found = 0;
    for (int32_t i = 0; i < c.policy_path_count; i++) {
        size_t n = strlen(c.policy_paths[i]);
        found |= n >= strlen(suffix) && !strcmp(c.policy_paths[i] + n - strlen(suffix), suffix);
    }
    RT_CHECK(found, "policy_paths resolves custom_policy.lua next to the file");
    hum_config_free(&c);
}

/* One bad file: the status, the "deploy.yaml:<line>:" prefix and the key must all appear. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void bad(const char *what, const char *text, hum_status want, const char *where, const char *detail)
{
    hum_config c;
    memset(&c, 0xAB, sizeof c);
    hum_config before = c;
    hum_status st = parse(text, NULL, &c);
    RT_EXPECT_ERROR(st, want, what, where, detail);
    RT_CHECK(memcmp(&c, &before, sizeof c) == 0, "%s: output written on failure", what);
    if (st == HUM_OK)
        hum_config_free(&c);
}

static void test_errors(void)
{
    bad("unknown key", "device: 0\ncache_dri: /x\n", HUM_ERR_CONFIG, "deploy.yaml:2: unknown key 'cache_dri'",
        "(expected one of device, cache_dir, policy_paths, overrides, hot_reload, log_level, policy_time_limit_ms, "
        "policy_memory_limit_mb)");
    bad("quoted device", "\n\ndevice: \"0\"\n", HUM_ERR_CONFIG, "deploy.yaml:3: key 'device'",
        "expected a non-negative integer");
    bad("negative device", "device: -1\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'device'", "got '-1'");
    bad("device too large", "device: 99999999999\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'device'", "integer");
    bad("device as list", "device: [0]\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'device'", "got a list");
    bad("null cache_dir", "cache_dir:\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'cache_dir'", "got null");
    bad("cache_dir as map", "cache_dir: {a: b}\n", HUM_ERR_CONFIG, "key 'cache_dir'", "got a mapping");
    /* "" resolved to the config's directory (or nothing), and `hum cache clear` then emptied that */
    bad("empty cache_dir", "log_level: info\ncache_dir: \"\"\n", HUM_ERR_CONFIG, "deploy.yaml:2: key 'cache_dir'",
        "an empty path");
    bad("empty policy path", "policy_paths: [site.lua, '']\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'policy_paths'",
        "an empty path");
    bad("policy_paths scalar", "policy_paths: /etc/hum\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'policy_paths'",
        "expected a list of files or directories");
    bad("policy_paths item", "policy_paths:\n  - a.lua\n  - {x: 1}\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: key 'policy_paths'", "got a mapping");
    /* a name or path the core schema reads as a number or boolean is no string; tags are refused */
    bad("numeric cache_dir", "cache_dir: 5\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'cache_dir'",
        "expected a string, got an integer, 5 (quote it for a name: \"5\")");
    bad("numeric policy path", "policy_paths: [a.lua, 1e3]\n", HUM_ERR_CONFIG, "key 'policy_paths'",
        "got a number, 1e3");
    bad("boolean log_level", "log_level: false\n", HUM_ERR_CONFIG, "key 'log_level'", "got a boolean, false");
    bad("hex override", "overrides:\n  moe:\n    activation: 0x8\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: key 'overrides.moe.activation'", "got an integer, 0x8");
    bad("tagged device", "device: !!float 0\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'device'",
        "the YAML tag '!!float' is not read");
    bad("tagged override", "overrides:\n  linear:\n    activation: !!int 8\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: key 'overrides.linear.activation'", "the YAML tag '!!int' is not read");
    bad("tagged unknown key", "cach_dir: !!int 5\n", HUM_ERR_CONFIG, "deploy.yaml:1: unknown key 'cach_dir'",
        "(expected one of");
    bad("tagged path", "policy_paths:\n  - a.lua\n  - !custom b.lua\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: key 'policy_paths'", "the YAML tag '!custom' is not read");
    bad("hot_reload yes", "hot_reload: yes\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'hot_reload'", "true or false");
    bad("hot_reload quoted", "hot_reload: 'true'\n", HUM_ERR_CONFIG, "key 'hot_reload'", "quoted string");
    bad("time limit 0", "policy_time_limit_ms: 0\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'policy_time_limit_ms'",
        "expected an integer number of milliseconds in 1..3600000, got '0'");
    bad("time limit too long", "policy_time_limit_ms: 3600001\n", HUM_ERR_CONFIG, "key 'policy_time_limit_ms'",
        "got '3600001'");
    bad("time limit quoted", "policy_time_limit_ms: '100'\n", HUM_ERR_CONFIG, "key 'policy_time_limit_ms'",
        "the quoted string \"100\"");
    bad("memory limit 0", "policy_memory_limit_mb: 0\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'policy_memory_limit_mb'",
        "expected an integer number of MiB in 1..65536, got '0'");
    bad("memory limit as list", "policy_memory_limit_mb: [1]\n", HUM_ERR_CONFIG, "key 'policy_memory_limit_mb'",
        "got a list");
    bad("time limit fraction", "policy_time_limit_ms: 1.5\n", HUM_ERR_CONFIG, "key 'policy_time_limit_ms'",
        "got '1.5'");
    bad("log_level", "log_level: verbose\n", HUM_ERR_CONFIG, "deploy.yaml:1: key 'log_level': unknown level 'verbose'",
        "error, warn, info, debug");
    bad("override section", "overrides:\n  mo: {activation: e4m3}\n", HUM_ERR_CONFIG,
        "deploy.yaml:2: unknown override section 'mo'", "(expected one of moe, linear)");
    bad("override key", "overrides:\n  moe:\n    activaton: e4m3\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: unknown key 'activaton' in overrides.moe", "(expected one of activation)");
    bad("override value", "overrides:\n  linear:\n    activation: fp8\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: key 'overrides.linear.activation': unknown value 'fp8'", "e4m3");
    bad("override not a map", "overrides: [moe]\n", HUM_ERR_CONFIG, "key 'overrides'", "expected a mapping");
    bad("duplicate key", "device: 0\nlog_level: info\ndevice: 1\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: duplicate key 'device'", "first at line 1");
    bad("duplicate override", "overrides:\n  moe: {activation: e4m3, activation: int8}\n", HUM_ERR_CONFIG,
        "deploy.yaml:2: duplicate key 'activation'", "first at line 2");
    bad("not a mapping", "- device\n", HUM_ERR_CONFIG, "deploy.yaml:1:", "must be a mapping");
    bad("syntax", "device: 0\noverrides: {moe: [\n", HUM_ERR_CONFIG, "deploy.yaml:", "YAML syntax error");
    bad("tab indentation", "overrides:\n\tmoe: {}\n", HUM_ERR_CONFIG, "deploy.yaml:2:", "YAML syntax error");
    /* bytes that are no text give the reader's offset alone, which is placed by line and column
     * (the unset mark read as 1:1) */
    bad("control character", "device: 0\nlog_level: in\x01" "fo\n", HUM_ERR_CONFIG, "deploy.yaml:2:14:",
        "control characters are not allowed");
    /* columns in characters, as libyaml's marks count them: "é" is two bytes, one column */
    bad("control character after UTF-8", "cache_dir: /d/\xc3\xa9\xc3\xa9\x01\n", HUM_ERR_CONFIG, "deploy.yaml:1:17:",
        "control characters are not allowed");
    /* refused at its 65th level, in well under a second: libyaml's loader took 93 s over this */
    enum { DEEP = 100000 };
    char *deep = malloc(DEEP + 16);
    if (RT_CHECK(deep != NULL, "deep config: allocation")) {
        memcpy(deep, "device: ", 8);
        memset(deep + 8, '[', DEEP);
        strcpy(deep + 8 + DEEP, "\n");
        const double t0 = now_ms();
        bad("nested 100,000 deep", deep, HUM_ERR_CONFIG, "deploy.yaml:1:72:", "nested more than 64 deep");
        RT_CHECK(now_ms() - t0 < 5000, "nested 100,000 deep: refused after %.0f ms", now_ms() - t0);
        free(deep);
    }
    /* 64 levels are a config's to have (an unknown key then, not the depth) */
    char ok64[256] = "bogus: ";
    for (int i = 0; i < 63; i++)
        strcat(ok64, "[");
    for (int i = 0; i < 63; i++)
        strcat(ok64, "]");
    strcat(ok64, "\n");
    bad("nested 64 deep", ok64, HUM_ERR_CONFIG, "deploy.yaml:1: unknown key 'bogus'", "expected one of");
    /* a second document would be read by nothing, its keys unchecked */
    bad("second document", "---\nlog_level: warn\n---\nlog_level: debug\nbogus_key: 1\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: a second YAML document", "one document");
    bad("syntax in a second document", "log_level: warn\n---\nx: [\n", HUM_ERR_CONFIG, "deploy.yaml:",
        "YAML syntax error");
    bad("a second document after an empty one", "log_level: warn\n---\n---\nbogus_key: 1\n", HUM_ERR_CONFIG,
        "deploy.yaml:3: a second YAML document", "one document");
    /* empty documents after the first (a templated file's closing "---") hold no keys */
    static const char *const one[] = {"log_level: error\n...\n", "log_level: error\n---\n",
                                      "log_level: error\n...\n---\n", "log_level: error\n---\n~\n---\n"};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        hum_config c;
        const hum_status st = parse(one[i], NULL, &c);
        RT_CHECK(st == HUM_OK && c.log_level == HUM_LOG_ERROR, "one document (%zu): %s", i, hum_last_error());
        if (st == HUM_OK)
            hum_config_free(&c);
    }
}

static void test_load_errors(void)
{
    hum_config c;
    RT_EXPECT_ERROR(hum_config_load("/nonexistent/deploy.yaml", &c), HUM_ERR_IO, "missing file",
                    "/nonexistent/deploy.yaml");
    char dir[4096];
    rt_tmpdir("config", dir, sizeof dir);
    const char *path = rt_write(dir, "deploy.yaml", "log_level: info\n\nhot_reload: 1\n");
    RT_EXPECT_ERROR(hum_config_load(path, &c), HUM_ERR_CONFIG, "file error names the path", path,
                    ":3: key 'hot_reload'");
    path = rt_write(dir, "ok.yaml", "cache_dir: cache\n");
    RT_CHECK(hum_config_load(path, &c) == HUM_OK, "%s", hum_last_error());
    char want[4200];
    snprintf(want, sizeof want, "%s/cache", dir);
    RT_CHECK(c.cache_dir && !strcmp(c.cache_dir, want), "cache_dir relative to the file: %s", c.cache_dir);
    hum_config_free(&c);
    /* a pipe (`--config <(...)`) is read to its end; a FIFO nobody writes reads as empty instead of
     * waiting for a writer; a device or a directory is an error */
    char fifo[4200];
    snprintf(fifo, sizeof fifo, "%s/fifo.yaml", dir);
    RT_CHECK(mkfifo(fifo, 0644) == 0, "mkfifo %s", fifo);
    alarm(60); /* an open that waits for a writer fails the test instead of hanging it */
    RT_CHECK(hum_config_load(fifo, &c) == HUM_OK && c.log_level == HUM_LOG_WARN,
             "a FIFO nobody writes: %s", hum_last_error());
    hum_config_free(&c);
    int fds[2];
    RT_CHECK(pipe(fds) == 0, "pipe");
    const char text[] = "log_level: debug\n";
    RT_CHECK(write(fds[1], text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "write to the pipe");
    close(fds[1]);
    char through[64];
    snprintf(through, sizeof through, "/dev/fd/%d", fds[0]);
    RT_CHECK(hum_config_load(through, &c) == HUM_OK && c.log_level == HUM_LOG_DEBUG, "a pipe: %s", hum_last_error());
    hum_config_free(&c);
    close(fds[0]);
    RT_EXPECT_ERROR(hum_config_load("/dev/zero", &c), HUM_ERR_IO, "a device", "/dev/zero",
                    "not a regular file or a pipe");
    RT_EXPECT_ERROR(hum_config_load(dir, &c), HUM_ERR_IO, "a directory", dir, "is a directory");
    alarm(0);
    rt_rmtree(dir);
}

int main(void)
{
    test_good_file();
    test_defaults_and_paths();
    test_examples_deploy_yaml();
    test_errors();
    test_load_errors();
    return rt_test_result("test_config");
}
