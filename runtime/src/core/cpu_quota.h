/* The CPU time a container's cgroup allows this process, in whole CPUs: a quota without a cpuset
 * (Kubernetes' CPU limit, `docker run --cpus`) leaves every CPU in the affinity mask while the
 * process may only use a few, and a pool sized by the mask then runs its threads in time slices
 * of that quota. */
#ifndef HUM_CPU_QUOTA_H
#define HUM_CPU_QUOTA_H

#include <stdint.h>

/* ceil(quota / period) of the tightest CPU quota on the process's cgroup path and its ancestors
 * up to the hierarchy's mount (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` over
 * `cpu.cfs_period_us`; the tighter of the two where both are mounted), at least 1; 0 when none
 * is set or none can be read (a quota on an ancestor outside a cgroup namespace is not visible). `root` prefixes every path read ("" on a running system; tests pass a folder
 * holding proc/self/mountinfo, proc/self/cgroup and the cgroup files). */
int32_t hum_cgroup_cpu_limit(const char *root);

#endif
