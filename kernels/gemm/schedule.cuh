// Persistent-CTA work schedule: data-parallel tiles plus stream-K.
//
// A tile is BM x BN of C and takes kKB k-block iterations. With G CTAs and T tiles, the T - T%G
// "data-parallel" tiles are dealt round-robin, whole; the last T%G tiles (all T when T <= G) are
// cut into one flat range of iterations split evenly over min(G, iterations) CTAs, so that every
// SM stays busy for small M (meeting in C, over at most kMaxSlicesInC CTAs per tile: config.cuh).
// A CTA walks its iterations in one loop (the pipeline keeps loading across tile boundaries); each
// run of iterations that ends a tile or the CTA's range is a "segment" and ends with an epilogue.
//
// Segments of one stream-K tile are combined in C (kSumInWorkspace false): they are numbered
// from the END of K (slice 0 holds the last k-blocks, so it is the one its CTA computes first),
// slice i waits until the tile's lock reads i, adds its part, and passes the lock on; the slice
// holding k-block 0 comes last and resets the lock to 0, so the locks are zero between launches
// without any memset. Or in the workspace (kSumInWorkspace, gemm/epilogue.cuh): the CTAs
// c_first .. c_last share the tile's k-blocks in order, c_first holding k-block 0; each of
// c_first + 1 .. c_last reaches the tile in its first segment and leaves its partial sums in its
// own slot (a CTA starts at most one tile it does not finish), and c_first, whose slice number
// c_last - c_first counts them, reaches it in its last segment, adds them and writes C once.
// With A multicast the schedule is the clusters' (kClusterN CTAs side by side along N, tile_coords):
// its "CTAs" are clusters, and a CTA's partial slot, flag and lock are those of its rank (own()).
#pragma once
#include "gemm/rows.cuh"
#include "ptx/cluster.cuh"

namespace gemm {

struct Work {
    int tile;
    int kb;
};

// A segment's place in its tile: a stream-K tile whose k-blocks several CTAs share is `split`
// into slices that take turns on the tile's lock (slice 0 first, `last` resets it).
struct Slice {
    int slice, lock;
    bool split, last;
};

struct Schedule {
    int grid, cta;     // clusters (kClusterN CTAs each) of the launch, and this CTA's
    int rank;          // this CTA's place in its cluster
    int blocks;        // blocks of kBM rows (gemm/rows.cuh)
    int tiles, dp_tiles;
    int dp_count;      // data-parallel tiles of this CTA
    i64 sk_total;      // stream-K iterations of the whole grid
    i64 sk_ctas;       // CTAs that share them
    i64 sk_begin;      // this CTA's first stream-K iteration
    int total;         // iterations of this CTA

    // blocks: the blocks of kBM rows the launch covers (gemm/rows.cuh); stream_k false: every
    // tile runs whole (a launch without the workspace's partial slots, kSumInWorkspace)
    HUM_DEV Schedule(int blocks, bool stream_k)
    {
        // a cluster's CTAs (kClusterN, consecutive in x) walk one schedule over clusters of tiles
        grid = gridDim.x / kClusterN;
        cta = blockIdx.x / kClusterN;
        rank = kClusterN > 1 ? static_cast<int>(cluster_ctarank()) : 0;
        this->blocks = blocks;
        tiles = blocks * (kNB / kClusterN);
        const int sk_tiles = kStreamK && stream_k ? (tiles <= grid ? tiles : tiles % grid) : 0;
        dp_tiles = tiles - sk_tiles;
        dp_count = cta < dp_tiles ? (dp_tiles - cta + grid - 1) / grid : 0;
        sk_total = static_cast<i64>(sk_tiles) * kKB;
        sk_ctas = sk_total < grid ? sk_total : grid;
        if (!kSumInWorkspace && sk_ctas > static_cast<i64>(sk_tiles) * kMaxSlicesInC)
            sk_ctas = static_cast<i64>(sk_tiles) * kMaxSlicesInC;
        i64 sk_end = 0;
        sk_begin = 0;
        if (cta < sk_ctas) {
            sk_begin = cta * sk_total / sk_ctas;
            sk_end = (cta + 1) * sk_total / sk_ctas;
        }
        total = dp_count * kKB + static_cast<int>(sk_end - sk_begin);
    }

    // Work of iteration j, given w = the work of iteration j - 1 (w is ignored for j == 0).
    // The loops visit iterations in order, so this replaces divisions with a step.
    HUM_DEV Work step(Work w, int j) const
    {
        const int dp_iters = dp_count * kKB;
        if (j == dp_iters)
            return Work{dp_tiles + static_cast<int>(sk_begin / kKB), static_cast<int>(sk_begin % kKB)};
        if (j == 0)
            return Work{cta, 0};
        if (++w.kb == kKB) {
            w.kb = 0;
            w.tile += j < dp_iters ? grid : 1;
        }
        return w;
    }

    // The CTA of cluster c with this CTA's rank: the stream-K slices of this CTA's tiles are theirs
    // (its partial slot and flag in the workspace).
    HUM_DEV int own(int c) const
    {
        return c * kClusterN + rank;
    }

    // The cluster whose stream-K range holds iteration `it` (ranges are floor(c * total / ctas)).
    HUM_DEV int owner(i64 it) const
    {
        return static_cast<int>(((it + 1) * sk_ctas - 1) / sk_total);
    }

    // This CTA's slice of `tile`, for the segment that ends there.
    HUM_DEV Slice slice_of(int tile) const
    {
        Slice s{0, 0, false, true};
        if (tile >= dp_tiles) {
            const i64 it0 = static_cast<i64>(tile - dp_tiles) * kKB;
            s.lock = (tile - dp_tiles) * kClusterN + rank;  // the lock of this CTA's tile of the cluster's
            const int c_first = owner(it0), c_last = owner(it0 + kKB - 1);
            if (c_first != c_last) {
                s.split = true;
                s.slice = c_last - cta;
                s.last = cta == c_first;
            }
        }
        return s;
    }
};

// Grouped tile order: kTileGroupM m-blocks at a time, m fastest. With clusters along N (kClusterN)
// a tile of the schedule is a cluster's: its CTAs take consecutive n-blocks, by rank.
HUM_DEV void tile_coords(int tile, int blocks, int &mb, int &nb)
{
    constexpr int kNC = kNB / kClusterN;
    const int group = tile / (kTileGroupM * kNC);
    const int first = group * kTileGroupM;
    const int rows = blocks - first < kTileGroupM ? blocks - first : kTileGroupM;
    const int r = tile - group * kTileGroupM * kNC;
    mb = first + r % rows;
    nb = r / rows;
    if constexpr (kClusterN > 1)
        nb = nb * kClusterN + static_cast<int>(cluster_ctarank());
}

}  // namespace gemm
