/* The cgroup CPU quota the thread pool obeys (core/cpu_quota.c), read from trees laid out as
 * /proc and /sys/fs/cgroup are on cgroup v2, v1 and hybrid hosts, with and without a cgroup
 * namespace: the tightest ancestor wins, quotas round up, "max" / -1 and unreadable files mean
 * none, and a v1 cpuset mount is not the cpu controller. */
#include "cpu_quota.h"
#include "formats_support.h"
#include "threadpool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p of root + path */
static void make_dirs(const char *root, const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s%s", root, path);
    for (char *s = p + strlen(root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            FMT_CHECK(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s", p);
            *s = '/';
        }
    FMT_CHECK(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s", p);
}

static void put(const char *root, const char *path, const char *text)
{
    char p[4096];
    snprintf(p, sizeof p, "%s%s", root, path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    make_dirs(root, dir);
    FMT_CHECK(fmt_write_text(p, text) == 0, "writing %s", p);
}

static const char *V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
static const char *V1_MOUNTS =
    "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:7 - cgroup cgroup rw,cpu,cpuacct\n";

/* A fresh tree for one case. */
static char *tree(const char *tag, const char *mountinfo, const char *cgroup)
{
    char *root = fmt_tmpdir(tag);
    put(root, "/proc/self/mountinfo", mountinfo);
    put(root, "/proc/self/cgroup", cgroup);
    return root;
}

static void done(char *root)
{
    fmt_rmtree(root);
    free(root);
}

static void expect(const char *root, int32_t want, const char *what)
{
    const int32_t got = hum_cgroup_cpu_limit(root);
    FMT_CHECK(got == want, "%s: %d CPUs, expected %d", what, got, want);
}

static void check_v2(void)
{
    /* a container's view (cgroup namespace): its cgroup is the mount's root */
    char *r = tree("quota-v2", V2_MOUNT, "0::/\n");
    put(r, "/sys/fs/cgroup/cpu.max", "250000 100000\n");
    expect(r, 3, "v2 2.5 CPUs at the root");
    put(r, "/sys/fs/cgroup/cpu.max", "max 100000\n");
    expect(r, 0, "v2 max");
    put(r, "/sys/fs/cgroup/cpu.max", "garbage\n");
    expect(r, 0, "v2 unreadable cpu.max");
    put(r, "/sys/fs/cgroup/cpu.max", "100000 100000\n");
    expect(r, 1, "v2 one CPU");
    put(r, "/sys/fs/cgroup/cpu.max", "1000 100000\n");
    expect(r, 1, "v2 a hundredth of a CPU rounds up to one");
    done(r);

    /* a host's view: the tightest of the path's folders, an ancestor's included */
    r = tree("quota-v2-nested", V2_MOUNT, "0::/kubepods.slice/pod1/ctr\n");
    put(r, "/sys/fs/cgroup/kubepods.slice/pod1/ctr/cpu.max", "max 100000\n");
    put(r, "/sys/fs/cgroup/kubepods.slice/pod1/cpu.max", "400000 100000\n");
    put(r, "/sys/fs/cgroup/kubepods.slice/cpu.max", "1600000 100000\n");
    expect(r, 4, "v2 the pod's quota above the container");
    put(r, "/sys/fs/cgroup/kubepods.slice/pod1/ctr/cpu.max", "150000 50000\n");
    expect(r, 3, "v2 the container's own, tighter");
    done(r);

    r = tree("quota-v2-none", V2_MOUNT, "0::/user.slice\n");
    make_dirs(r, "/sys/fs/cgroup/user.slice");
    expect(r, 0, "v2 no cpu.max anywhere");
    done(r);
}

static void check_v1(void)
{
    char *r = tree("quota-v1", V1_MOUNTS, "12:cpuset:/\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/\n");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "50000\n");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
    expect(r, 1, "v1 half a CPU");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "-1\n");
    expect(r, 0, "v1 -1");
    /* a quota without its period is unreadable */
    put(r, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "700000\n");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "\n");
    expect(r, 0, "v1 quota without a period");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
    expect(r, 7, "v1 seven CPUs");
    done(r);

    /* without a cgroup namespace a container's mount shows its own folder (mountinfo's root),
     * below which /proc/self/cgroup's path lies */
    r = tree("quota-v1-bind",
             "35 31 0:32 /docker/abc /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpuacct,cpu\n",
             "4:cpuacct,cpu:/docker/abc\n");
    put(r, "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n");
    put(r, "/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    expect(r, 2, "v1 the mount's own folder");
    done(r);

    /* only cpuset mounted: "cpuset" is not "cpu" */
    r = tree("quota-cpuset", "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n", "12:cpuset:/\n");
    put(r, "/sys/fs/cgroup/cpuset/cpu.cfs_quota_us", "100000\n");
    put(r, "/sys/fs/cgroup/cpuset/cpu.cfs_period_us", "100000\n");
    expect(r, 0, "v1 cpuset alone");
    done(r);
}

static void check_hybrid(void)
{
    /* systemd's hybrid layout: v2 mounted without the cpu controller, v1 holding it */
    char mounts[1024];
    snprintf(mounts, sizeof mounts, "%s%s",
             "29 23 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n", V1_MOUNTS);
    char *r = tree("quota-hybrid", mounts, "4:cpu,cpuacct:/svc\n0::/svc\n");
    make_dirs(r, "/sys/fs/cgroup/unified/svc");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_quota_us", "300000\n");
    put(r, "/sys/fs/cgroup/cpu,cpuacct/svc/cpu.cfs_period_us", "100000\n");
    expect(r, 3, "hybrid: v1's quota");
    put(r, "/sys/fs/cgroup/unified/svc/cpu.max", "200000 100000\n");
    expect(r, 2, "hybrid: the tighter of both");
    done(r);

    r = fmt_tmpdir("quota-empty");
    expect(r, 0, "no /proc at all");
    done(r);
}

int main(void)
{
    check_v2();
    check_v1();
    check_hybrid();
    /* the running system: whatever its quota, the pool stays within it and the affinity mask */
    const int32_t quota = hum_cgroup_cpu_limit("");
    const int32_t threads = hum_parallel_threads(1 << 20, 0);
    FMT_CHECK(threads >= 1 && (quota == 0 || threads <= quota), "pool of %d threads under a quota of %d", threads,
              quota);
    return fmt_finish("test_cpu_quota");
}
