/* `hum demo --moe` (demo_moe.c). */
#ifndef HUM_DEMO_MOE_H
#define HUM_DEMO_MOE_H

#include "hum/hum_tools.h"

/* Writes the MoE checkpoint into `dir` (an empty directory; keep: the user keeps it), runs the
 * demo on the runtime's GPU, or without one compiles for no_gpu_arch and checks on the CPU.
 * Returns the exit code. */
int demo_moe(hum_runtime *rt, const char *dir, int keep, const char *no_gpu_arch);

#endif
