// Basic types for hum's kernels. NVRTC compiles these sources without the C or CUDA standard
// headers, so fixed-width names are declared here and every vector access goes through PTX
// (kernels/ptx/).
#pragma once

typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;
typedef long long i64;
typedef unsigned long long u64;

#define HUM_DEV __device__ __forceinline__

// Compile-time loop: calls f(int_c<I>{}) for I = B .. E-1, so that indices reach templates.
template <int V>
struct int_c {
    static constexpr int value = V;
};

template <int B, int E, typename F>
HUM_DEV void static_for(F &&f)
{
    if constexpr (B < E) {
        f(int_c<B>{});
        static_for<B + 1, E>(f);
    }
}
