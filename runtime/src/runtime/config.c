/* YAML deployment config: libyaml builds the node tree (it keeps each node's line), and
 * table-driven validators turn it into a hum_config. Scalars are typed the way YAML 1.2's core
 * schema types them, so `device: "0"` (a quoted string) is a type error, not an ordinal. */
#include "config.h"

#include "internal.h"
#include "regular_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct parse_ctx {
    const char *name;     /* file name for messages */
    const char *base_dir; /* resolves relative paths; NULL keeps them */
    yaml_document_t *doc;
    hum_config *cfg;
} parse_ctx;

static hum_status fail_at(const parse_ctx *ctx, const yaml_node_t *node, const char *fmt, ...)
    HUM_PRINTF(3, 4);

static hum_status fail_at(const parse_ctx *ctx, const yaml_node_t *node, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return hum_fail(HUM_ERR_CONFIG, "%s:%lu: %s", ctx->name, (unsigned long)node->start_mark.line + 1, msg);
}

static hum_status out_of_memory(const parse_ctx *ctx)
{
    return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: out of memory while reading the config", ctx->name);
}

static const char *scalar(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static int is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int is_null(const yaml_node_t *n)
{
    if (!is_plain(n))
        return 0;
    const char *s = scalar(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* Whether the whole of s matches [-+]? followed by a run of the characters in `digits` (at least
 * one). */
static int signed_run(const char *s, const char *digits)
{
    if (*s == '-' || *s == '+')
        s++;
    size_t n = strspn(s, digits);
    return n > 0 && s[n] == '\0';
}

/* What YAML 1.2's core schema makes of a plain scalar other than null: "a boolean", "an
 * integer", "a number", or NULL for a string. */
static const char *core_type(const yaml_node_t *n)
{
    const char *s = scalar(n);
    static const char *const bools[] = {"true", "True", "TRUE", "false", "False", "FALSE"};
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
        if (!strcmp(s, bools[i]))
            return "a boolean";
    if (signed_run(s, "0123456789") ||
        (s[0] == '0' && s[1] == 'o' && s[2] && s[2 + strspn(s + 2, "01234567")] == '\0') ||
        (s[0] == '0' && s[1] == 'x' && s[2] && s[2 + strspn(s + 2, "0123456789abcdefABCDEF")] == '\0'))
        return "an integer";
    static const char *const special[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                          "-.INF", ".nan", ".NaN", ".NAN"};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (!strcmp(s, special[i]))
            return "a number";
    /* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
    const char *p = s + (*s == '-' || *s == '+');
    size_t whole = strspn(p, "0123456789"), frac = 0;
    p += whole;
    if (*p == '.')
        frac = strspn(++p, "0123456789"), p += frac;
    if (whole == 0 && frac == 0)
        return NULL;
    if (*p == 'e' || *p == 'E')
        return signed_run(p + 1, "0123456789") ? "a number" : NULL;
    return *p == '\0' ? "a number" : NULL;
}

/* How a node that has the wrong type is described in a message. */
static void describe(const yaml_node_t *n, char *out, size_t cap)
{
    if (n->type == YAML_MAPPING_NODE)
        snprintf(out, cap, "a mapping");
    else if (n->type == YAML_SEQUENCE_NODE)
        snprintf(out, cap, "a list");
    else if (is_null(n))
        snprintf(out, cap, "null");
    else if (is_plain(n))
        snprintf(out, cap, "'%.200s'", scalar(n));
    else
        snprintf(out, cap, "the quoted string \"%.200s\"", scalar(n));
}

static hum_status wrong_type(const parse_ctx *ctx, const char *key, const yaml_node_t *n, const char *expected)
{
    char got[256];
    describe(n, got, sizeof got);
    return fail_at(ctx, n, "key '%s': expected %s, got %s", key, expected, got);
}

static hum_status get_string(const parse_ctx *ctx, const char *key, const yaml_node_t *n, const char **out)
{
    if (n->type != YAML_SCALAR_NODE || is_null(n))
        return wrong_type(ctx, key, n, "a string");
    /* the core schema's 5, true or 1e3 is no string: a name that looks like one is quoted */
    const char *type = is_plain(n) ? core_type(n) : NULL;
    if (type)
        return fail_at(ctx, n, "key '%s': expected a string, got %s, %s (quote it for a name: \"%.200s\")", key,
                       type, scalar(n), scalar(n));
    *out = scalar(n);
    return HUM_OK;
}

/* "~/x" -> "$HOME/x"; relative -> base_dir/x; absolute unchanged. Returns a malloc'd path. */
static hum_status resolve_path(const parse_ctx *ctx, const char *key, const yaml_node_t *n, char **out)
{
    const char *p = NULL;
    hum_status st = get_string(ctx, key, n, &p);
    if (st != HUM_OK)
        return st;
    /* "" would resolve to the config's own directory or the working directory: never meant. */
    if (!*p)
        return fail_at(ctx, n, "key '%s': an empty path (remove the key for the default)", key);
    const char *prefix = "";
    const char *sep = "";
    if (p[0] == '~' && (p[1] == '/' || p[1] == '\0')) {
        prefix = getenv("HOME");
        if (!prefix || !*prefix)
            return fail_at(ctx, n, "key '%s': '%s' starts with ~ but HOME is not set", key, p);
        p++;
    } else if (p[0] != '/' && ctx->base_dir && strcmp(ctx->base_dir, ".") != 0) {
        prefix = ctx->base_dir;
        sep = "/";
    }
    size_t len = strlen(prefix) + strlen(sep) + strlen(p) + 1;
    *out = malloc(len);
    if (!*out)
        return out_of_memory(ctx);
    snprintf(*out, len, "%s%s%s", prefix, sep, p);
    return HUM_OK;
}

/* The value of known key `key` (its full name) with an explicit YAML tag (!!int, !!float,
 * !custom) is refused, not read by its text alone as if the tag were not there. Untagged nodes
 * carry libyaml's default tag of their kind, as do explicit !!str, !!seq and !!map (and the
 * non-specific !), which read the same. */
static hum_status check_tag(const parse_ctx *ctx, const char *key, const yaml_node_t *n)
{
    const char *def = n->type == YAML_SCALAR_NODE     ? YAML_DEFAULT_SCALAR_TAG
                      : n->type == YAML_SEQUENCE_NODE ? YAML_DEFAULT_SEQUENCE_TAG
                                                      : YAML_DEFAULT_MAPPING_TAG;
    const char *tag = (const char *)n->tag, *core = "tag:yaml.org,2002:";
    if (!tag || !strcmp(tag, def))
        return HUM_OK;
    const int shorthand = !strncmp(tag, core, strlen(core));
    return fail_at(ctx, n, "key '%s': the YAML tag '%s%.200s' is not read (write the value without it)", key,
                   shorthand ? "!!" : "", shorthand ? tag + strlen(core) : tag);
}

/* Walks a mapping's pairs, rejecting non-scalar and duplicate keys. */
typedef hum_status (*pair_fn)(const parse_ctx *ctx, const char *key, yaml_node_t *key_node,
                              yaml_node_t *value, void *user);

static hum_status each_pair(const parse_ctx *ctx, const char *what, yaml_node_t *map, pair_fn fn, void *user)
{
    if (map->type != YAML_MAPPING_NODE)
        return wrong_type(ctx, what, map, "a mapping");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(ctx->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(ctx->doc, p->value);
        if (k->type != YAML_SCALAR_NODE)
            return fail_at(ctx, k, "in '%s': keys must be plain words", what);
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *prev = yaml_document_get_node(ctx->doc, q->key);
            if (prev->type == YAML_SCALAR_NODE && !strcmp(scalar(prev), scalar(k)))
                return fail_at(ctx, k, "duplicate key '%s' (first at line %lu)", scalar(k),
                               (unsigned long)prev->start_mark.line + 1);
        }
        hum_status st = fn(ctx, scalar(k), k, v, user);
        if (st != HUM_OK)
            return st;
    }
    return HUM_OK;
}

static void join_names(const char *const *names, size_t count, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count && used < cap; i++) {
        int n = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", names[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* --- top-level keys ------------------------------------------------------------------- */

static hum_status parse_device(const parse_ctx *ctx, yaml_node_t *v)
{
    const char *expected = "a non-negative integer (the CUDA device ordinal)";
    if (!is_plain(v) || is_null(v))
        return wrong_type(ctx, "device", v, expected);
    const char *s = scalar(v);
    char *end;
    errno = 0;
    long val = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno || val > INT32_MAX)
        return wrong_type(ctx, "device", v, expected);
    ctx->cfg->device = (int32_t)val;
    return HUM_OK;
}

static hum_status parse_cache_dir(const parse_ctx *ctx, yaml_node_t *v)
{
    char *path;
    hum_status st = resolve_path(ctx, "cache_dir", v, &path);
    if (st != HUM_OK)
        return st;
    free(ctx->cfg->cache_dir);
    ctx->cfg->cache_dir = path;
    return HUM_OK;
}

static hum_status parse_policy_paths(const parse_ctx *ctx, yaml_node_t *v)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return wrong_type(ctx, "policy_paths", v, "a list of files or directories");
    hum_config *c = ctx->cfg;
    size_t count = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
    c->policy_paths = calloc(count ? count : 1, sizeof *c->policy_paths);
    if (!c->policy_paths)
        return out_of_memory(ctx);
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node(ctx->doc, *it);
        hum_status st = check_tag(ctx, "policy_paths", item);
        if (st == HUM_OK)
            st = resolve_path(ctx, "policy_paths", item, &c->policy_paths[c->policy_path_count]);
        if (st != HUM_OK)
            return st;
        c->policy_path_count++;
    }
    return HUM_OK;
}

static hum_status parse_hot_reload(const parse_ctx *ctx, yaml_node_t *v)
{
    static const char *const yes[] = {"true", "True", "TRUE"}, *const no[] = {"false", "False", "FALSE"};
    for (size_t i = 0; is_plain(v) && i < 3; i++) {
        if (!strcmp(scalar(v), yes[i]) || !strcmp(scalar(v), no[i])) {
            ctx->cfg->hot_reload = !strcmp(scalar(v), yes[i]);
            return HUM_OK;
        }
    }
    return wrong_type(ctx, "hot_reload", v, "true or false");
}

/* A limit: a plain integer in 1..max, `unit` naming what it counts ("milliseconds"). */
static hum_status parse_limit(const parse_ctx *ctx, yaml_node_t *v, const char *key, long max, const char *unit,
                              int32_t *out)
{
    char expected[128];
    snprintf(expected, sizeof expected, "an integer number of %s in 1..%ld", unit, max);
    if (!is_plain(v) || is_null(v))
        return wrong_type(ctx, key, v, expected);
    const char *s = scalar(v);
    char *end;
    errno = 0;
    long val = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno || val < 1 || val > max)
        return wrong_type(ctx, key, v, expected);
    *out = (int32_t)val;
    return HUM_OK;
}

static hum_status parse_policy_time_limit(const parse_ctx *ctx, yaml_node_t *v)
{
    return parse_limit(ctx, v, "policy_time_limit_ms", HUM_POLICY_TIME_LIMIT_MAX_MS, "milliseconds",
                       &ctx->cfg->policy_time_limit_ms);
}

static hum_status parse_policy_memory_limit(const parse_ctx *ctx, yaml_node_t *v)
{
    return parse_limit(ctx, v, "policy_memory_limit_mb", HUM_POLICY_MEMORY_LIMIT_MAX_MB, "MiB",
                       &ctx->cfg->policy_memory_limit_mb);
}

static hum_status parse_log_level(const parse_ctx *ctx, yaml_node_t *v)
{
    const char *s = NULL;
    hum_status st = get_string(ctx, "log_level", v, &s);
    if (st != HUM_OK)
        return st;
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, hum_log_level_name((hum_log_level)i))) {
            ctx->cfg->log_level = (hum_log_level)i;
            return HUM_OK;
        }
    return fail_at(ctx, v, "key 'log_level': unknown level '%s' (expected one of error, warn, info, debug)", s);
}

/* --- overrides: <section>: {<key>: <value>} ------------------------------------------- */

/* Activation types a layer can be told to run in. The layer decides at prepare time whether
 * its device and weight type support the choice. */
static const char *const activation_values[] = {"float16", "bfloat16", "e4m3", "e5m2", "int8",
                                                "int4", "mxfp8", "mxfp4", "nvfp4"};
static const struct {
    const char *alias, *canonical;
} value_aliases[] = {{"float8_e4m3fn", "e4m3"}, {"float8_e5m2", "e5m2"}};

typedef struct override_key {
    const char *section, *key;
    const char *const *values;
    size_t value_count;
} override_key;

static const override_key override_keys[] = {
    {"moe", "activation", activation_values, sizeof activation_values / sizeof activation_values[0]},
    {"linear", "activation", activation_values, sizeof activation_values / sizeof activation_values[0]},
};
enum { OVERRIDE_KEY_COUNT = sizeof override_keys / sizeof override_keys[0] };

static hum_status parse_override_value(const parse_ctx *ctx, const char *key, yaml_node_t *kn, yaml_node_t *v,
                                       void *user)
{
    const char *section = user;
    const override_key *ok = NULL;
    const char *names[OVERRIDE_KEY_COUNT];
    size_t n_names = 0;
    for (size_t i = 0; i < OVERRIDE_KEY_COUNT; i++)
        if (!strcmp(override_keys[i].section, section)) {
            names[n_names++] = override_keys[i].key;
            if (!strcmp(override_keys[i].key, key))
                ok = &override_keys[i];
        }
    char list[512];
    if (!ok) {
        join_names(names, n_names, list, sizeof list);
        return fail_at(ctx, kn, "unknown key '%s' in overrides.%s (expected one of %s)", key, section, list);
    }
    char full[256];
    snprintf(full, sizeof full, "overrides.%s.%s", section, key);
    const char *value = NULL;
    hum_status st = check_tag(ctx, full, v);
    if (st == HUM_OK)
        st = get_string(ctx, full, v, &value);
    if (st != HUM_OK)
        return st;
    for (size_t i = 0; i < sizeof value_aliases / sizeof value_aliases[0]; i++)
        if (!strcmp(value, value_aliases[i].alias))
            value = value_aliases[i].canonical;
    size_t i = 0;
    while (i < ok->value_count && strcmp(ok->values[i], value) != 0)
        i++;
    if (i == ok->value_count) {
        join_names(ok->values, ok->value_count, list, sizeof list);
        return fail_at(ctx, v, "key '%s': unknown value '%s' (expected one of %s)", full, value, list);
    }
    hum_config *c = ctx->cfg;
    hum_config_override *o = &c->overrides[c->override_count];
    o->key = malloc(strlen(section) + strlen(key) + 2);
    o->value = strdup(ok->values[i]);
    if (!o->key || !o->value) {
        free(o->key);
        free(o->value);
        o->key = o->value = NULL;
        return out_of_memory(ctx);
    }
    sprintf(o->key, "%s.%s", section, key);
    c->override_count++;
    return HUM_OK;
}

static hum_status parse_override_section(const parse_ctx *ctx, const char *section, yaml_node_t *kn,
                                         yaml_node_t *v, void *user)
{
    const char *names[OVERRIDE_KEY_COUNT];
    size_t n_names = 0;
    int known = 0;
    for (size_t i = 0; i < OVERRIDE_KEY_COUNT; i++) {
        known |= !strcmp(override_keys[i].section, section);
        if (n_names == 0 || strcmp(names[n_names - 1], override_keys[i].section) != 0)
            names[n_names++] = override_keys[i].section;
    }
    if (!known) {
        char list[256];
        join_names(names, n_names, list, sizeof list);
        return fail_at(ctx, kn, "unknown override section '%s' (expected one of %s)", section, list);
    }
    char what[128];
    snprintf(what, sizeof what, "overrides.%s", section);
    hum_status st = check_tag(ctx, what, v);
    return st == HUM_OK ? each_pair(ctx, what, v, parse_override_value, (void *)section) : st;
}

static hum_status parse_overrides(const parse_ctx *ctx, yaml_node_t *v)
{
    hum_config *c = ctx->cfg;
    c->overrides = calloc(OVERRIDE_KEY_COUNT, sizeof *c->overrides);
    if (!c->overrides)
        return out_of_memory(ctx);
    return each_pair(ctx, "overrides", v, parse_override_section, NULL);
}

static const struct {
    const char *key;
    hum_status (*parse)(const parse_ctx *ctx, yaml_node_t *value);
} top_keys[] = {
    {"device", parse_device},           {"cache_dir", parse_cache_dir}, {"policy_paths", parse_policy_paths},
    {"overrides", parse_overrides},     {"hot_reload", parse_hot_reload}, {"log_level", parse_log_level},
    {"policy_time_limit_ms", parse_policy_time_limit}, {"policy_memory_limit_mb", parse_policy_memory_limit},
};
enum { TOP_KEY_COUNT = sizeof top_keys / sizeof top_keys[0] };

static hum_status parse_top(const parse_ctx *ctx, const char *key, yaml_node_t *kn, yaml_node_t *v, void *user)
{
    for (size_t i = 0; i < TOP_KEY_COUNT; i++)
        if (!strcmp(key, top_keys[i].key)) {
            hum_status st = check_tag(ctx, key, v);
            return st == HUM_OK ? top_keys[i].parse(ctx, v) : st;
        }
    const char *names[TOP_KEY_COUNT];
    for (size_t i = 0; i < TOP_KEY_COUNT; i++)
        names[i] = top_keys[i].key;
    char list[256];
    join_names(names, TOP_KEY_COUNT, list, sizeof list);
    return fail_at(ctx, kn, "unknown key '%s' (expected one of %s)", key, list);
}

/* --- entry points ----------------------------------------------------------------------- */

void hum_config_init(hum_config *c)
{
    memset(c, 0, sizeof *c);
    c->device = -1;
    c->log_level = HUM_LOG_WARN;
}

void hum_config_free(hum_config *c)
{
    free(c->cache_dir);
    for (int32_t i = 0; i < c->policy_path_count; i++)
        free(c->policy_paths[i]);
    free(c->policy_paths);
    hum_config_overrides_free(c->overrides, c->override_count);
    hum_config_init(c);
}

void hum_config_overrides_free(hum_config_override *items, int32_t count)
{
    for (int32_t i = 0; i < count; i++) {
        free(items[i].key);
        free(items[i].value);
    }
    free(items);
}

int hum_config_overrides_equal(const hum_config *a, const hum_config *b)
{
    if (a->override_count != b->override_count)
        return 0;
    for (int32_t i = 0; i < a->override_count; i++)
        if (strcmp(a->overrides[i].key, b->overrides[i].key) || strcmp(a->overrides[i].value, b->overrides[i].value))
            return 0;
    return 1;
}

/* Lists and mappings nested deeper than a deployment config's few levels. libyaml's document
 * loader takes time quadratic in the nesting (100,000 "[" took 93 s), while its event parser
 * yields each level as it reads it: one pass over the events refuses such a file at its 65th
 * level. A syntax error ends the pass quietly: the loader reports it. */
#define CONFIG_MAX_DEPTH 64

static hum_status check_depth(const char *text, size_t size, const char *name)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: cannot initialise the YAML parser", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
    hum_status st = HUM_OK;
    for (int depth = 0, end = 0; !end && st == HUM_OK;) {
        yaml_event_t e;
        if (!yaml_parser_parse(&parser, &e))
            break;
        depth += e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT;
        depth -= e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT;
        end = e.type == YAML_STREAM_END_EVENT;
        if (depth > CONFIG_MAX_DEPTH)
            st = hum_fail(HUM_ERR_CONFIG, "%s:%lu:%lu: lists and mappings nested more than %d deep (a deployment "
                          "config has a few levels)", name, (unsigned long)e.start_mark.line + 1,
                          (unsigned long)e.start_mark.column + 1, CONFIG_MAX_DEPTH);
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&parser);
    return st;
}

/* Line and column (from 1) of the parser's error: its mark, but for the reader's errors (bytes that
 * are no text: control characters, invalid UTF-8), which leave the mark unset and give the byte
 * offset alone; counted as libyaml counts its marks: characters (not UTF-8 continuation bytes),
 * after a byte-order mark, with \r, \n and \r\n each one line break. */
static void error_place(const yaml_parser_t *p, const char *text, size_t size, unsigned long *line,
                        unsigned long *column)
{
    *line = (unsigned long)p->problem_mark.line + 1;
    *column = (unsigned long)p->problem_mark.column + 1;
    if (p->error != YAML_READER_ERROR)
        return;
    *line = *column = 1;
    const unsigned char *s = (const unsigned char *)text;
    size_t i = size >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF ? 3 : 0;
    for (; i < p->problem_offset && i < size; i++) {
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= size || s[i + 1] != '\n'))) {
            (*line)++;
            *column = 1;
        } else if (s[i] != '\r' && (s[i] & 0xC0) != 0x80) {
            (*column)++;
        }
    }
}

hum_status hum_config_parse(const char *text, size_t size, const char *name, const char *base_dir,
                            hum_config *out)
{
    if (!text || !name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_config_parse: text, name and out must not be NULL");
    hum_status depth = check_depth(text, size, name);
    if (depth != HUM_OK)
        return depth;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: cannot initialise the YAML parser", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, size);
    /* a config is one document: a second one (after "---") would be read by nothing, its keys
     * unchecked, so it is refused; empty ones after it ("---" closing a templated file) are not
     * documents of keys, and the one without a root is the stream's end */
    const int doc_loaded = yaml_parser_load(&parser, &doc);
    int ok = doc_loaded;
    unsigned long second = 0; /* the line a second document starts on */
    while (ok && !second) {
        yaml_document_t next;
        if (!(ok = yaml_parser_load(&parser, &next)))
            break;
        yaml_node_t *r = yaml_document_get_root_node(&next);
        const int end = r == NULL;
        if (r && !is_null(r))
            second = (unsigned long)next.start_mark.line + 1;
        yaml_document_delete(&next);
        if (end)
            break;
    }
    if (!ok || second) {
        if (doc_loaded)
            yaml_document_delete(&doc);
        unsigned long line, column;
        error_place(&parser, text, size, &line, &column);
        hum_status st = second ? hum_fail(HUM_ERR_CONFIG, "%s:%lu: a second YAML document (a deployment config is "
                                          "one document: merge its keys into the first)", name, second)
                               : hum_fail(HUM_ERR_CONFIG, "%s:%lu:%lu: YAML syntax error: %s%s%s", name, line, column,
                                          parser.problem ? parser.problem : "malformed document",
                                          parser.context ? " " : "", parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return st;
    }
    yaml_parser_delete(&parser);

    hum_config cfg;
    hum_config_init(&cfg);
    parse_ctx ctx = {name, base_dir, &doc, &cfg};
    hum_status st = HUM_OK;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && !is_null(root)) {
        if (root->type != YAML_MAPPING_NODE)
            st = fail_at(&ctx, root, "the config must be a mapping of keys (device, cache_dir, ...)");
        else
            st = each_pair(&ctx, "config", root, parse_top, NULL);
    }
    yaml_document_delete(&doc);
    if (st != HUM_OK) {
        hum_config_free(&cfg);
        return st;
    }
    *out = cfg;
    return HUM_OK;
}

hum_status hum_config_load(const char *path, hum_config *out)
{
    if (!path || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_config_load: path and out must not be NULL");
    const char *why;
    FILE *f = hum_fopen_regular(path, 1, &why);
    if (!f)
        return hum_fail(HUM_ERR_IO, "cannot open config %s: %s", path, why);
    char *text = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size + 4096 + 1 > cap) {
            cap = (cap ? cap * 2 : 8192);
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                fclose(f);
                return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading config %s: out of memory", path);
            }
            text = grown;
        }
        size_t n = fread(text + size, 1, cap - size - 1, f);
        size += n;
        if (n == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(text);
        return hum_fail(HUM_ERR_IO, "cannot read config %s", path);
    }
    char *dir = strdup(path);
    if (!dir) {
        free(text);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "reading config %s: out of memory", path);
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = '\0'; /* "/deploy.yaml" keeps "/" as its directory */
    hum_status st = hum_config_parse(text, size, path, slash ? dir : NULL, out);
    free(dir);
    free(text);
    return st;
}

const char *hum_config_override_value(const hum_config *c, const char *key)
{
    if (!c || !key)
        return NULL;
    for (int32_t i = 0; i < c->override_count; i++)
        if (!strcmp(c->overrides[i].key, key))
            return c->overrides[i].value;
    return NULL;
}
