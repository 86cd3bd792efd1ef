#include "cpu_quota.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Paths longer than this are not followed: no limit is read from them. */
enum { PATH_CAP = 4096 };

typedef struct hierarchy {
    char root[PATH_CAP];  /* the folder of the hierarchy the mount shows (mountinfo's 4th field) */
    char point[PATH_CAP]; /* where it is mounted */
    int found;
} hierarchy;

/* Whether the comma-separated `list` holds `word`. */
static int has_word(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static FILE *open_under(const char *root, const char *path)
{
    char full[PATH_CAP];
    const int n = snprintf(full, sizeof full, "%s%s", root, path);
    return n > 0 && (size_t)n < sizeof full ? fopen(full, "re") : NULL;
}

static void keep(hierarchy *h, const char *root, const char *point)
{
    if (h->found || strlen(root) >= PATH_CAP || strlen(point) >= PATH_CAP)
        return;
    strcpy(h->root, root);
    strcpy(h->point, point);
    h->found = 1;
}

/* The first cgroup v2 mount and the first v1 mount holding the cpu controller, from mountinfo
 * (proc(5): ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS). */
static void find_mounts(const char *root, hierarchy *v2, hierarchy *v1)
{
    FILE *f = open_under(root, "/proc/self/mountinfo");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        char *field[64], *save = NULL;
        int n = 0;
        for (char *t = strtok_r(line, " \n", &save); t && n < 64; t = strtok_r(NULL, " \n", &save))
            field[n++] = t;
        int dash = 6;
        while (dash < n && strcmp(field[dash], "-") != 0)
            dash++;
        if (dash + 3 >= n)
            continue;
        const char *fstype = field[dash + 1], *super = field[dash + 3];
        if (strcmp(fstype, "cgroup2") == 0)
            keep(v2, field[3], field[4]);
        else if (strcmp(fstype, "cgroup") == 0 && has_word(super, "cpu"))
            keep(v1, field[3], field[4]);
    }
    free(line);
    fclose(f);
}

/* The process's cgroup path in the v2 hierarchy ("0::PATH") or in v1's cpu one
 * ("ID:CONTROLLERS:PATH", CONTROLLERS holding cpu): 1 when found. */
static int find_path(const char *root, int v2, char out[PATH_CAP])
{
    FILE *f = open_under(root, "/proc/self/cgroup");
    if (!f)
        return 0;
    int found = 0;
    char *line = NULL;
    size_t cap = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const int match = v2 ? strcmp(line, "0") == 0 && c1[1] == '\0' : has_word(c1 + 1, "cpu");
        if (match && strlen(c2 + 1) < PATH_CAP) {
            strcpy(out, c2 + 1);
            found = 1;
        }
    }
    free(line);
    fclose(f);
    return found;
}

/* ceil(quota / period) of cgroup folder `dir`, 0 where it sets no quota or cannot be read. */
static int64_t folder_limit(const char *dir, int v2)
{
    char path[PATH_CAP + 32];
    long long quota = -1, period = 0;
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        FILE *f = fopen(path, "re");
        if (!f)
            return 0;
        char q[32] = "";
        if (fscanf(f, "%31s %lld", q, &period) != 2 || strcmp(q, "max") == 0)
            period = 0;
        else
            quota = strtoll(q, NULL, 10);
        fclose(f);
    } else {
        snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
        FILE *f = fopen(path, "re");
        if (!f)
            return 0;
        if (fscanf(f, "%lld", &quota) != 1)
            quota = -1;
        fclose(f);
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        if (!(f = fopen(path, "re")))
            return 0;
        if (fscanf(f, "%lld", &period) != 1)
            period = 0;
        fclose(f);
    }
    if (quota <= 0 || period <= 0)
        return 0;
    const long long cpus = quota / period + (quota % period != 0);
    return cpus > 0 ? cpus : 1;
}

/* The tightest limit on the process's folder of hierarchy h and its ancestors up to the mount. */
static int64_t hierarchy_limit(const char *root, const hierarchy *h, int v2)
{
    char path[PATH_CAP], dir[PATH_CAP];
    if (!h->found || !find_path(root, v2, path))
        return 0;
    /* the path below the mount's root; a mount showing a folder the path is not under (a
     * container's own cgroup, mounted at its root without a cgroup namespace) is the process's */
    const size_t rn = strcmp(h->root, "/") == 0 ? 0 : strlen(h->root);
    const char *below = "";
    if (rn == 0)
        below = path;
    else if (strncmp(path, h->root, rn) == 0 && (path[rn] == '/' || path[rn] == '\0'))
        below = path + rn;
    const int base = snprintf(dir, sizeof dir, "%s%s", root, h->point);
    const int n = snprintf(dir + base, sizeof dir - (size_t)base, "%s", below);
    if (base < 0 || n < 0 || (size_t)(base + n) >= sizeof dir)
        return 0;
    int64_t limit = 0;
    for (size_t len = strlen(dir);;) {
        while (len > (size_t)base && dir[len - 1] == '/')
            dir[--len] = '\0';
        const int64_t l = folder_limit(dir, v2);
        if (l > 0 && (limit == 0 || l < limit))
            limit = l;
        if (len <= (size_t)base)
            break;
        char *slash = strrchr(dir + base, '/');
        len = slash ? (size_t)(slash - dir) : (size_t)base;
        dir[len] = '\0';
    }
    return limit;
}

int32_t hum_cgroup_cpu_limit(const char *root)
{
    hierarchy v2 = {.found = 0}, v1 = {.found = 0};
    find_mounts(root, &v2, &v1);
    const int64_t a = hierarchy_limit(root, &v2, 1), b = hierarchy_limit(root, &v1, 0);
    const int64_t limit = a > 0 && (b == 0 || a < b) ? a : b;
    return limit > INT32_MAX ? INT32_MAX : (int32_t)limit;
}
