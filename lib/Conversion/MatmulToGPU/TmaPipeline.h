//===- TmaPipeline.h - the TMA copy pipeline of wgmma_tma -------*- C++ -*-===//
//
// The pieces of the wgmma_tma kernel's pipeline over its shared-memory
// stages (StageGeometry): the mbarriers, the producer's tensor copies
// (cp.async.bulk.tensor, with cluster multicast), cluster sync, and the
// consumer warpgroups' loop around WgmmaSteps.h. One producer thread (in the
// last warpgroup) keeps STAGES k tiles in flight, each stage completing on
// its "full" mbarrier; the consumers wait on it, run wgmma.mma_async from
// the 128-byte-swizzled stage, and release the stage on its "empty"
// mbarrier once their wgmmas have read it. No block-wide barrier in the
// loop: copies and math only wait for each other stage by stage.
//
// Phases: k tile kt uses stage s = kt % STAGES in round r = kt / STAGES.
// full[s] completes once per round when the tensor copies have landed (A,
// and B, or BN / 32 boxes of an N-major B, and a prologue's input)
// (one arrival, the producer's, plus the expected bytes); empty[s] once per
// round when every consumer warp has released it. The producer waits for
// round r - 1 of empty[s] before refilling; consumers wait for round r of
// full[s]. Parities are r % 2.
//
// In a cluster of blocks sharing B (StageGeometry::clusterM), each block's
// copies of B land in every block: empty[s] then counts the consumer warps
// of the whole cluster, and a block's full[s] may receive another block's
// bytes before its own producer expects them (the transaction count runs
// negative until then, which mbarriers allow). Another block's next copy
// into s needs this block's release of s, so it never lands a round early.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_TMAPIPELINE_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_TMAPIPELINE_H

#include "MmaTiling.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::fuser {

/// The stages' mbarriers, after the stages: full[s], empty[s] and (3xtf32)
/// split[s], 8 bytes each (StageGeometry::sharedBytes counts them). `stages` is
/// the 1024-byte aligned shared base.
struct TmaBarriers {
  Value stages;
  const StageGeometry &t;
  Value full(OpBuilder &b, Location loc, Value stage) const;
  Value empty(OpBuilder &b, Location loc, Value stage) const;
  /// Completes once per round when the splitter has written the stage's
  /// lo parts (t.splitterThreads() arrivals).
  Value split(OpBuilder &b, Location loc, Value stage) const;
};

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

/// A consumer warpgroup's main loop over one output tile, which releases
/// every stage it used; returns the accumulator struct (numAcc f32 in the
/// mma.sync C layout of one 16-row piece per warp).
Value emitTmaConsumer(OpBuilder &b, Location loc, const TmaBarriers &bars,
                      Value numK, Value tid, int64_t numAcc, Value kBase);

/// What a consumer thread computes once: its warpgroup's A offset in a
/// stage, whether it releases stages for its warp, the stages' shared
/// address.
struct ConsumerThread {
  Value aGroupOff, leader, base;
};
ConsumerThread consumerThread(OpBuilder &b, Location loc,
                              const TmaBarriers &bars, Value tid);

/// The top of a consumer's k iteration `it`: wait for round it / STAGES of
/// its stage's barrier `ready` (full, or split with 3xtf32), then the
/// shared addresses of the warpgroup's A rows and of B in that stage.
std::pair<Value, Value>
waitForStage(OpBuilder &b, Location loc, const TmaBarriers &bars,
             const ConsumerThread &c, Value it,
             Value (TmaBarriers::*ready)(OpBuilder &, Location, Value) const);

/// If `cond`, arrives on the empty barrier of k iteration it - back.
void releaseStage(OpBuilder &b, Location loc, const TmaBarriers &bars,
                  Value cond, Value it, int64_t back);

/// Small builders the pipeline pieces share.
namespace tma {
/// try_wait's suspend-time hint (ns), as CUTLASS uses.
constexpr int64_t kWaitTicks = 0x989680;
inline Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
inline Value truncI32(OpBuilder &b, Location loc, Value x) {
  return arith::TruncIOp::create(b, loc, b.getI32Type(), x);
}
/// (x / d) % 2 as the i32 parity mbarrier waits take.
inline Value roundParity(OpBuilder &b, Location loc, Value x, int64_t d) {
  Value r = arith::DivUIOp::create(b, loc, x, constI64(b, loc, d));
  return truncI32(b, loc,
                  arith::AndIOp::create(b, loc, r, constI64(b, loc, 1)));
}
inline Value sharedByte(OpBuilder &b, Location loc, Value base, Value off) {
  return gepElement(b, loc, base, b.getI8Type(), off);
}
} // namespace tma

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_TMAPIPELINE_H
