//===- MatmulSplitK.cpp - how many slices of K a matmul gets --------------===//

#include "MatmulSplitK.h"
#include "MatmulWaveTile.h"

#include "llvm/Support/MathExtras.h"

#include <string>

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Split K. A GEMM whose output tiles fill at most half a wave of blocks
/// leaves SMs idle however long K is: M = N = 256, K = 131072 runs 4 tiles
/// on 132 SMs (4.93 ms, 0.07x cuBLAS SGEMM on an H100). Splitting K into S
/// slices of whole K tiles makes tiles x S blocks, about one wave, at the
/// cost of an [S, M, N] fp32 intermediate (at most one wave of tiles:
/// 8.25 MiB of 128 x 128) and a second kernel that adds the slices. The
/// tile count must be static (M, N): a dynamic M is not split. A slice
/// keeps at least kSplitKMinSliceK of K, so that the pipeline's fill and
/// the promotions stay small beside its main loop (32 K tiles of 32);
/// products that fill at most an eighth of the wave (small layers) keep
/// at least kSplitKMinSmallSliceK (4 K tiles): they gain down to there
/// (Linear 1024 -> 512 at batch 128, 4 tiles: 2.8x faster in 8 slices of
/// 128 than unsplit; 4096 -> 1024 at batch 64: 2.2x faster in 16 slices of
/// 256 than in 4 of 1024; H200, bench/experiments/small_gemm_split.py).
constexpr int64_t kSplitKMinSliceK = 1024;
constexpr int64_t kSplitKMinSmallSliceK = 128;

} // namespace

std::pair<int64_t, std::string>
mlir::fuser::splitKChoice(MatmulOp op, const GemmStrategyRecord &rec,
                          ArrayRef<int64_t> tile, int64_t force) {
  if (force == 1)
    return {1, ""};
  if (!rec.splitK)
    return {1, force > 1 ? "the " + rec.name().str() +
                               " kernel does not split K (" +
                               splitKStrategyNames() + " does)"
                         : ""};
  if (op.hasGroupNorm())
    return {1, force > 1 ? "a group norm needs each row's whole sums in the "
                           "GEMM kernel"
                         : ""};
  // Not implemented: the kernel's (tile, slice) loop and the reduction
  // kernel are 2-D.
  if (op.isBatched())
    return {1, force > 1 ? "a batched product does not split K" : ""};
  if (force > 1)
    return {force, "split-k=" + std::to_string(force)};
  int64_t kSize = cast<ShapedType>(op.getLhs().getType())
                      .getDimSize(op.getLhsKDim());
  std::optional<int64_t> staticTiles = staticOutputTiles(op, tile);
  if (!staticTiles || ShapedType::isDynamic(kSize) || rec.maxGrid <= 0)
    return {1, ""}; // the tiles are known at run time only
  int64_t tiles = *staticTiles;
  int64_t wave = rec.maxGrid;
  int64_t minSlice =
      8 * tiles <= wave ? kSplitKMinSmallSliceK : kSplitKMinSliceK;
  int64_t slices =
      std::min(tiles > 0 ? wave / tiles : int64_t(0), kSize / minSlice);
  if (2 * tiles > wave || slices < 2)
    return {1, ""};
  // Equal slices of whole K tiles, none empty.
  int64_t kTiles = llvm::divideCeil(kSize, tile[2]);
  int64_t sliceTiles = llvm::divideCeil(kTiles, slices);
  slices = llvm::divideCeil(kTiles, sliceTiles);
  return {slices, std::to_string(tiles) + " output tiles for " +
                      std::to_string(wave) + " blocks: K = " +
                      std::to_string(kSize) + " in slices of " +
                      std::to_string(sliceTiles * tile[2]) +
                      ", added by a second kernel"};
}
