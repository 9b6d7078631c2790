//===- MatmulCluster.cpp - thread-block clusters of a matmul --------------===//

#include "MatmulCluster.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Blocks per cluster. On W2's shape (1024 x 8192 x 8192) cuBLAS's tf32 and
/// bf16 GEMMs run 2-block clusters with one operand multicast and read
/// 10-25% fewer L2 bytes than fuser's unclustered kernel, which keeps the
/// tensor pipe 86-91% busy against cuBLAS's 96% (ncu, H100, 2026-11-24,
/// bench/results/H100-2026-11-24-session11.md).
constexpr int64_t kClusterBlocks = 2;
/// The precisions whose kernels wait on L2 (one tensor-core product per
/// copied byte); 3xtf32 makes three, and its shared memory is the bound.
constexpr StringLiteral kClusterPrecisions[] = {"tf32", "bf16", "f16"};
/// Rounding M tiles up to whole clusters adds a tile (of zeros, stored
/// nowhere) per N tile when their count is odd: a static M gets clusters
/// only where that adds at most one in kMinMTilesForOdd. A dynamic M (the
/// batch) gets them: the extra tiles cost time only where they make another
/// wave (M <= 128 with N above 66 tiles of 256; 1/3 more tiles at M <= 384),
/// and the kernel of a large batch is where the multicast pays.
constexpr int64_t kMinMTilesForOdd = 8;

} // namespace

std::pair<int64_t, std::string>
mlir::fuser::clusterChoice(MatmulOp op, const GemmStrategyRecord &rec,
                           StringRef precision, ArrayRef<int64_t> tile,
                           int64_t splitK, int64_t force) {
  auto no = [&](const std::string &why) -> std::pair<int64_t, std::string> {
    return {1, force > 1 ? why : ""};
  };
  if (force == 1)
    return {1, ""};
  if (rec.kind != GemmStrategy::wgmma_tma)
    return no("only the " + stringifyGemmStrategy(GemmStrategy::wgmma_tma).str() +
              " kernel runs in clusters (TMA multicast)");
  if (splitK > 1)
    return no("its K is split, and a cluster shares one K loop");
  if (op.isBatched())
    return no("a batched product's tiles are not paired");
  int64_t bn = tile[1];
  if (bn % (kClusterBlocks * 8) ||
      (!op.getTransposeB() && (bn / 32) % kClusterBlocks))
    return no("B tiles of " + std::to_string(bn) +
              " columns do not split into a share per block");
  if (force > 1)
    return {kClusterBlocks, "cluster-m=" + std::to_string(force)};
  if (!llvm::is_contained(kClusterPrecisions, precision))
    return {1, ""};
  int64_t mSize =
      cast<ShapedType>(op.getLhs().getType()).getDimSize(op.getLhsMDim());
  int64_t mTiles = ShapedType::isDynamic(mSize)
                       ? kMinMTilesForOdd
                       : llvm::divideCeil(mSize, tile[0]);
  if (mTiles < kClusterBlocks ||
      (mTiles % kClusterBlocks && mTiles < kMinMTilesForOdd))
    return {1, ""};
  return {kClusterBlocks,
          std::to_string(kClusterBlocks) +
              "-block clusters share each B tile by TMA multicast: half the "
              "L2 reads of B"};
}
