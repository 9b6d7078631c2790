//===- WgmmaTmaLoop.h - warp-specialized TMA + wgmma main loop --*- C++ -*-===//
//
// The main loop of the "wgmma_tma" GEMM kernel. One producer thread (in the
// last warpgroup) keeps STAGES k tiles in flight with cp.async.bulk.tensor
// (TMA), each stage completing on its "full" mbarrier; the consumer
// warpgroups (64 rows each) wait on it, run wgmma.mma_async from the
// 128-byte-swizzled stage, and release the stage on its "empty" mbarrier
// once their wgmmas have read it. No block-wide barrier in the loop: copies
// and math only wait for each other stage by stage.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMATMALOOP_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMATMALOOP_H

#include "MmaGemmKernel.h"

namespace mlir::fuser {

/// Registers per thread after setmaxnreg: consumers hold the accumulators
/// (2 x 128 x 232 + 128 x 40 fits the 64K register file).
constexpr int64_t kTmaConsumerRegs = 232;
constexpr int64_t kTmaProducerRegs = 40;
/// 3xtf32 moves 8 from each consumer to the producer warpgroup, whose
/// splitter then keeps 4 loads in flight instead of 2 (one 16-byte chunk's
/// latency each, from shared memory the tensor cores keep busy): W2 1%,
/// W3 10% faster (H100, 2026-11-24, bench/split_variants.py). The
/// launch's 168 per thread become 56 + 2 x 224.
constexpr int64_t kTmaSplitConsumerRegs = 224;
constexpr int64_t kTmaSplitProducerRegs = 56;

/// BK / kStep wgmma.mma_async of a warpgroup's 64 x BN tile on `acc` (an
/// LLVM struct of f32), A and B at the shared addresses (i64) of their
/// 128-byte-swizzled K-major stage regions (also the cp.async wgmma loop's).
/// `restart`: the first step ignores `acc` (scale-d 0) and starts new sums.
Value emitWgmmaSteps(OpBuilder &b, Location loc, const MmaTiling &t,
                     Value acc, Value aAddr, Value bAddr,
                     bool restart = false);

/// A wgmma shared-memory matrix descriptor of a K-major operand in 128-byte
/// swizzle mode at shared address `addr` (i64).
Value wgmmaDescriptor(OpBuilder &b, Location loc, Value addr);

/// The stages' mbarriers, after the stages: full[s], empty[s] and (3xtf32)
/// split[s], 8 bytes each (MmaTiling::sharedBytes counts them). `stages` is
/// the 1024-byte aligned shared base.
struct TmaBarriers {
  Value stages;
  const MmaTiling &t;
  Value full(OpBuilder &b, Location loc, Value stage) const;
  Value empty(OpBuilder &b, Location loc, Value stage) const;
  /// Completes once per round when the splitter has written the stage's
  /// lo parts (splitterThreads(t) arrivals).
  Value split(OpBuilder &b, Location loc, Value stage) const;
};

/// 3xtf32's splitter: warps 1 and 2 of the producer warpgroup.
constexpr int64_t kSplitterThreads = 64;
/// The splitter's threads for `t`: kSplitterThreads, and with an N-major B
/// (t.transposesB()) also warp 3, which transposes boxes only. The splitter
/// bounds the kernel there: 4096^3 x @ W took 1.677 ms with two warps, 1.494
/// with three (1.354 K-major; H100, 2026-11-24, session 13).
int64_t splitterThreads(const MmaTiling &t);

/// Thread 0 initializes the mbarriers; then a block barrier, and with
/// clusters (tiling.clusterM > 1) a cluster barrier.
void emitTmaBarrierInit(OpBuilder &b, Location loc, const TmaBarriers &bars,
                        Value tid);

/// Every thread of the cluster arrives, then waits for the others
/// (barrier.cluster.arrive / wait: release, acquire).
void emitClusterSync(OpBuilder &b, Location loc);

/// The producer's copies of one output tile: for each k tile, wait until
/// its stage is empty, expect the stage's bytes on full[s] and issue the
/// tensor copies (A at (k0, blockM), B at (k0, blockN); out-of-bounds
/// boxes read zeros). `kBase` counts the k tiles of the block's earlier
/// output tiles: stages and phases run on across tiles. With split K,
/// `kFirst` is the slice's first K tile (null: 0). An N-major B
/// (tiling.transposesB()) is copied as BN / 32 boxes at (blockN + 32 j,
/// bRowK0 + k0): `bRowK0` is its batch's first row of the stacked view
/// (null: 0). With clusters (tiling.clusterM > 1), the block of rank
/// `clusterRank` (i64) copies its share of B (rows, or N-major boxes, rank,
/// rank + clusterM, ...) into every block of the cluster by multicast; each
/// block's full[s] still expects the whole stage. With a prologue
/// (tiling.prologue), `mapP`'s box at A's coordinates lands where A's lo
/// parts go.
void emitTmaProducer(OpBuilder &b, Location loc, const TmaBarriers &bars,
                     Value mapA, Value mapB, Value numK, Value blockM,
                     Value blockN, Value kBase, Value kFirst = {},
                     Value bRowK0 = {}, Value clusterRank = {},
                     Value mapP = {});

/// A's prologue on four elements: A's (vector<4xf32>) and the prologue
/// input's at the same positions (null without one) to the values wgmma
/// reads.
using PrologueFn = llvm::function_ref<Value(OpBuilder &, Location, Value a,
                                            Value p)>;

/// A consumer warpgroup's main loop over one output tile, which releases
/// every stage it used; returns the accumulator struct (numAcc f32 in the
/// mma.sync C layout of one 16-row piece per warp).
Value emitTmaConsumer(OpBuilder &b, Location loc, const TmaBarriers &bars,
                      Value numK, Value tid, int64_t numAcc, Value kBase);

/// 3xtf32 (tiling.splitInShared()): the splitter's pass over one output
/// tile's k tiles. For each, wait until its copies landed, write
/// lo = x - tf32(x) beside each copied x, with tf32(x) what wgmma reads of
/// x (x with its low 13 mantissa bits cleared), so x = tf32(x) + lo
/// exactly, and arrive on split[s]. lo is stored with half a tf32 unit
/// added to its magnitude (an integer add), so that wgmma's truncation
/// rounds it to nearest: truncated, the lo parts' error is biased. An
/// N-major B (tiling.transposesB()) is first transposed in place, box by
/// box, into the K-major rows wgmma reads.
/// `sid` is the thread's index among the splitterThreads(t). With a
/// prologue (tiling.prologue), each chunk of A becomes `prologue(A, P)`
/// first, P the prologue input's chunk in A's lo parts: the result is
/// stored over A and its lo parts over P.
void emitTmaSplitter(OpBuilder &b, Location loc, const TmaBarriers &bars,
                     Value numK, Value sid, Value kBase,
                     PrologueFn prologue = nullptr);

/// emitTmaConsumer for 3xtf32: per k tile, wait for split[s], then three
/// wgmma products (wgmma reads A and B as their tf32 truncations): the
/// small terms A·B_lo + A_lo·B into one set of tensor-core sums, the large
/// term A·B into another, so that the large sums' truncating adds are one
/// per k step, not three. Every promoteTiles() k tiles both are added into
/// fp32 registers (round-to-nearest adds); the large sums restart (scale-d
/// 0 on the chunk's first wgmmas: no registers to zero between them) and
/// the small ones start from what that add rounded away (compensated
/// summation). Returns those sums.
Value emitTmaSplitConsumer(OpBuilder &b, Location loc, const TmaBarriers &bars,
                           Value numK, Value tid, int64_t numAcc, Value kBase);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMATMALOOP_H
