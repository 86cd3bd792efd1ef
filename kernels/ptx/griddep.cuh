// Programmatic dependent launch (sm_90+): a kernel launched with the launch attribute
// PROGRAMMATIC_STREAM_SERIALIZATION (hum_launch_config.overlap_previous) may be scheduled while
// the previous kernel of its stream still runs, so that its launch latency hides behind that
// kernel; it must wait for it before reading what it writes. The previous kernel lets it be
// scheduled early by calling grid_dependents_launch. Both are no-ops before sm_90 and when the
// launch did not ask for the overlap.
#pragma once
#include "common.cuh"

// Waits until the previous kernel of the stream has finished and its writes are visible.
HUM_DEV void grid_dependency_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the next kernel of the stream (launched with the overlap) be scheduled now.
HUM_DEV void grid_dependents_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Starts a copy of `bytes` (a multiple of 16) at p, 16-byte aligned, into L2: what a kernel will
// read once the wait above lets it, fetched while it waits (sm_90+; a no-op before).
HUM_DEV void prefetch_l2(const void *p, u32 bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(p), "r"(bytes) : "memory");
#endif
}
