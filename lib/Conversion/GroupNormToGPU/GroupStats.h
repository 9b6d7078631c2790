//===- GroupStats.h - pieces of the group-norm kernels ----------*- C++ -*-===//
//
// Shared by the forward (GroupNormToGPU.cpp) and the input-gradient
// (GroupNormGradToGPU.cpp) kernels of group norms: the config checks, the
// threads' (sample, group) assignment, the per-group statistics (shifted
// sums merged with Chan's formula), element reads through input maps, and
// the host-side input checks, allocation and launch.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_GROUPNORMTOGPU_GROUPSTATS_H
#define FUSER_LIB_CONVERSION_GROUPNORMTOGPU_GROUPSTATS_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fuser::group_norm {

constexpr int64_t kWarpSize = 32;
/// Slice moments each lane loads before it merges them (mergeSliceMoments).
constexpr int64_t kMergeBatch = 8;

/// The static facts of one group-norm kernel.
struct GroupShape {
  int64_t rank, channels, groups, groupSize, spatial;
  SmallVector<int64_t> sizes; ///< the input's sizes (dim 0 dynamic or not)
  int64_t block, width;
  /// Threads per group: the block, or (config tile = [T]) a power of two
  /// up to a warp, block / T groups per block.
  int64_t threads;
  /// Blocks per group (config tile = [B, P]): a group too large for one
  /// block's pass is split into P consecutive slices, one block each; a
  /// statistics kernel writes each slice's moments, the normalizing kernel
  /// merges them. 1: one kernel, one block per group.
  int64_t slices = 1;
  int64_t groupsPerBlock() const { return block / threads; }
  /// Warps a group spans: 1 when it has a warp or less.
  int64_t warpsPerGroup() const {
    return threads > kWarpSize ? threads / kWarpSize : 1;
  }
};

/// Fails with a diagnostic on `op` unless it has a config of `strategy`.
LogicalResult checkStrategy(Operation *op, KernelConfigAttr config,
                            StringRef strategy);

/// Fails with a diagnostic on `op` unless the kernel supports `input`
/// split into `groups` with `config` (static sizes past N, block, tile,
/// vector width); fills `s`.
LogicalResult checkShape(Operation *op, KernelConfigAttr config,
                         RankedTensorType input, int64_t groups, GroupShape &s);

/// Workgroup memory for `perWarp` floats of each warp of a group.
MemRefType perWarpBuffer(MLIRContext *ctx, const GroupShape &s,
                         int64_t perWarp);

/// The kernel's name: the enclosing function's, then `suffix`.
std::string kernelName(Operation *op, StringRef suffix);

/// Running statistics of a set of elements: count, mean (relative to the
/// group's first element) and sum of squared deviations.
struct Moments {
  Value count, mean, m2;
};

/// Builds a kernel that gives each (sample, group) `s.threads` threads.
/// Subclasses read the kernel arguments (setting `n`), then call
/// emitGroupIndex and emitStatistics before their own passes.
class GroupKernelEmitter {
protected:
  GroupKernelEmitter(const GroupShape &s, gpu::GPUFuncOp kernel, Location loc)
      : s(s), kernel(kernel), b(kernel.getContext()), loc(loc) {}

  /// Sets the insertion point and types; returns the entry block.
  Block &beginKernel();
  /// The thread's group (`groupIndex`, `sample`, `group`, `base`), its
  /// index `tid` among the group's threads and the vectors of the group it
  /// walks: `firstVec`, `firstVec + threads`, ... below `endVec` (its
  /// block's slice of the group when split). `valid` is false for a shared
  /// block's spare threads (null with one group per block), which do no
  /// work. A split group's blocks go slice by slice across the groups of
  /// all samples when `slicesAcrossSamples`, else group by group.
  void emitGroupIndex(bool slicesAcrossSamples = false);
  /// Fills `x0`, `m` (the group's moments, every thread of the group alike)
  /// and `rstd`. Needs workgroup attribution 0 (perWarpBuffer(3)) when a
  /// group spans warps.
  void emitStatistics(Value xPtr, double eps);
  /// Fills `x0` and `m` with the moments of the vectors this block walks
  /// (the whole group unless split), every thread alike. Needs workgroup
  /// attribution 0 (perWarpBuffer(3)) when a group spans warps.
  void emitMoments(Value xPtr);
  /// Fills `x0`, `m` and `rstd` from the moments of a split group's
  /// slices, `partials[(groupIndex * slices + slice) * 3 + k]`: each warp
  /// merges them alike, in a fixed order, so every block of the group
  /// normalizes with bit-identical statistics.
  void mergeSliceMoments(Value xPtr, Value partials, double eps);
  /// Merges `m` across `lanes` consecutive lanes (a power of two up to a
  /// warp) by a butterfly, lower lane first: each lane ends bit-identical.
  void mergeAcrossLanes(int64_t lanes);
  /// `rstd` from `m` and the group size.
  void emitRstd(double eps);
  /// Leader lanes store `values` at smem[warp * size + k]; then a barrier.
  void publishPerWarp(ArrayRef<Value> values, Value smem);
  /// Warp `w`'s value `k` of `size`, as publishPerWarp stored it.
  Value readPerWarp(Value smem, int64_t w, int64_t k, int64_t size);

  /// Row-major strides of each tensor input, per map result.
  void hoistInputStrides(ValueRange inputs, ArrayAttr maps);
  /// Maps `body`'s arguments from `firstArg` on to the elements of `inputs`
  /// (kernel arguments `args`) at position `i` of the group, of channel
  /// `c`: `known[k]` when set, a scalar's argument, else a load.
  void mapInputs(IRMapping &mapping, Block &body, unsigned firstArg,
                 ValueRange inputs, ArrayAttr maps, ArrayRef<Value> args,
                 Value c, Value i, ArrayRef<Value> known = {});
  /// The channel of position `i` of the group.
  Value channelOf(Value i);
  /// (n, c, spatial...) of position `i` of the group, channel `c`.
  SmallVector<Value> coordinates(Value c, Value i);

  /// ((x - x0) - mean) * rstd.
  Value normalized(Value x);
  /// Chan et al.'s pairwise merge; `a` first, so the order is fixed.
  Moments merge(const Moments &a, const Moments &o);
  Value shuffle(Value v, int64_t offset);
  Value horizontalSum(Value v);
  /// Lane `l` of a `s.width`-wide vector (the value itself for width 1).
  Value laneOf(Value v, int64_t l);
  /// A `s.width`-wide f32 vector of `lanes`.
  Value pack(ArrayRef<Value> lanes);

  Value load(Value ptr, Value idx, Type t);
  Value splat(Value x);
  Value toI64(Value idx);
  Value toIndex(Value v);
  Value c64(int64_t v);
  Value f32c(double v);
  Value add(Value x, Value y);
  Value sub64(Value x, Value y);
  Value mul(Value x, Value y);
  Value divf(Value x, Value y);
  Value maxf(Value x, Value y);

  const GroupShape &s;
  gpu::GPUFuncOp kernel;
  OpBuilder b;
  Location loc;
  Type f32, i64, vecTy;
  Value n, thread, lane, tid, valid, groupIndex, sample, group, base;
  Value slice, firstVec, endVec;
  Value x0, rstd;
  Moments m;
  DenseMap<unsigned, SmallVector<Value>> strides;
};

/// Host side: appends the kernel arguments of `inputs` (read through
/// `maps` from the input's iteration space) to `args`, asserting their
/// sizes; `what` names them in the messages, `space` the iteration space.
void appendInputArgs(OpBuilder &b, Location loc, ValueRange inputs,
                     ArrayAttr maps, const GroupShape &s, Value n,
                     StringRef what, StringRef space,
                     SmallVectorImpl<Value> &args);

/// Host side: a 64-byte aligned buffer of `type`, dimension 0 of size `n`.
Value allocOutput(OpBuilder &b, Location loc, RankedTensorType type, Value n);

/// Host side: launches `kernel` on the n * groups groups (each `s.slices`
/// blocks).
void launchGroups(OpBuilder &b, Location loc, gpu::GPUFuncOp kernel,
                  const GroupShape &s, Value n, ValueRange args);

} // namespace mlir::fuser::group_norm

#endif // FUSER_LIB_CONVERSION_GROUPNORMTOGPU_GROUPSTATS_H
