//===- ConfigureNorms.cpp - configs of group-norm kernels -----------------===//

#include "ConfigureNorms.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// GroupNorm and its input gradient: one block per (sample, group), threads
/// striding over the group with 128-bit accesses when its size allows. The
/// block is sized for about 2 vectors per thread, so small groups still put
/// many loads in flight: one warp for W3's 16 elements, 128 threads for
/// 1024, at most 512 threads (64K elements: 32 vectors per thread).
constexpr int64_t kGroupNormMaxBlock = 512;
constexpr int64_t kGroupNormVectorsPerThread = 2;
/// Threads per block when several small groups share one.
constexpr int64_t kGroupNormSharedBlock = 256;
/// A forward group larger than kGroupNormSplitAbove elements is split over
/// blocks of about kGroupNormSliceElements each (16 vectors per thread of
/// a 512-thread block), at least two: one block per group leaves the chip
/// idle when the groups are few (LayerNorm over a whole image: 16 groups
/// of 4M elements, on 132 SMs) and costs nothing in traffic when they are
/// many; the split costs one more launch. Each normalizing block first
/// merges its group's slice moments, so fewer, larger slices cost less
/// there: H200, 2026-12-02 (config variants), LayerNorm over (64, 256,
/// 256) on 16 samples, slices of 16384 0.222 ms (normalizing kernel 147
/// us), 32768 0.217 (143), 65536 0.220; GroupNorm(8, 64) on 112 x 64 x 512
/// x 512, 16384 5.368 ms, 32768 5.381, 65536 5.442.
constexpr int64_t kGroupNormSplitAbove = 16384;
constexpr int64_t kGroupNormSliceElements = 32768;

} // namespace

KernelConfigAttr mlir::fuser::groupNormConfig(Operation *op,
                                              RankedTensorType type,
                                              int64_t groups,
                                              StringRef strategy,
                                              StringRef precision) {
  int64_t groupSize = 1;
  for (int64_t d : type.getShape().drop_front())
    groupSize = ShapedType::isDynamic(d) || ShapedType::isDynamic(groupSize)
                    ? ShapedType::kDynamic
                    : groupSize * d;
  int64_t width = 1, block = kGroupNormMaxBlock;
  SmallVector<int64_t> tile;
  if (!ShapedType::isDynamic(groupSize)) {
    groupSize /= groups;
    width = groupSize % 4 == 0 ? 4 : groupSize % 2 == 0 ? 2 : 1;
    int64_t perThread =
        llvm::divideCeil(groupSize / width, kGroupNormVectorsPerThread);
    int64_t threads = llvm::PowerOf2Ceil(perThread);
    block = std::clamp<int64_t>(threads, 32, kGroupNormMaxBlock);
    // Groups smaller than a warp's work share a block (tile = [threads per
    // group]) instead of one block each.
    if (threads < 32) {
      block = kGroupNormSharedBlock;
      tile.push_back(threads);
    }
    // Large forward groups: P blocks per group (tile = [block, P]).
    if (strategy == "group_norm" && groupSize > kGroupNormSplitAbove)
      tile = {block, std::max<int64_t>(2, llvm::divideCeil(
                                              groupSize,
                                              kGroupNormSliceElements))};
  }
  return KernelConfigAttr::getChecked(
      [&] { return op->emitError(); }, op->getContext(), strategy,
      ArrayRef<int64_t>{block, 1, 1}, width, /*max_grid=*/int64_t(0),
      ArrayRef<int64_t>(tile), /*min_blocks_per_sm=*/int64_t(0), precision,
      /*promote_every=*/int64_t(0));
}
