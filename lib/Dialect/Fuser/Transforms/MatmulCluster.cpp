//===- MatmulCluster.cpp - thread-block clusters of a matmul --------------===//

#include "MatmulCluster.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Blocks per cluster when cluster-m=2 asks for them. Off by default: on
/// W2's shape cuBLAS's tf32 and bf16 GEMMs run 2-block clusters with one
/// operand multicast and read 10-25% fewer L2 bytes than fuser's kernel
/// (ncu, H100, 2026-11-24, bench/results/H100-2026-11-24-no-spills.md), but
/// the same multicast in fuser's kernel (half the L2 reads of B) changed
/// its time by -1.7% to +5.2% over tf32 and bf16 x * W^T at 1024 x 8192 x
/// 8192, 4096^3, 8192^3, 32768 x 1024 x 1024 and 2048 x 2048 x 8192,
/// within the runs' spread but for the tall product in bf16 (H100,
/// 2026-11-25, bench/results/H100-2026-11-25-clusters.md); W2's fused
/// kernels 0.0-0.5% slower, 3xtf32 1-15% slower. L2 is not what bounds it.
constexpr int64_t kClusterBlocks = 2;

} // namespace

std::pair<int64_t, std::string>
mlir::fuser::clusterChoice(MatmulOp op, const GemmStrategyRecord &rec,
                           ArrayRef<int64_t> tile, int64_t splitK,
                           int64_t force) {
  if (force <= 1)
    return {1, ""};
  if (rec.kind != GemmStrategy::wgmma_tma)
    return {1, "only the " +
                   stringifyGemmStrategy(GemmStrategy::wgmma_tma).str() +
                   " kernel runs in clusters (TMA multicast)"};
  std::string why = wgmmaTmaClusterError(op, tile, splitK, kClusterBlocks);
  if (!why.empty())
    return {1, why};
  return {kClusterBlocks, "cluster-m=" + std::to_string(force)};
}
