//===- MatmulCluster.h - thread-block clusters of a matmul ------*- C++ -*-===//
//
// Used by fuser-configure-kernels: whether a wgmma_tma matmul runs in
// clusters of blocks that share B by TMA multicast (#fuser.config's
// cluster_m; the lowering, MatmulToGPU, carries it out).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULCLUSTER_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULCLUSTER_H

#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include <string>
#include <utility>

namespace mlir::fuser {

/// The cluster_m of `op` on `rec`'s kernel in `precision` with `tile`
/// ([BM, BN, BK, ...]) and `splitK` slices, and why: a reason for the
/// remark when it clusters, or when `force` (the cluster-m option, 0:
/// heuristic) asks for clusters it cannot have.
std::pair<int64_t, std::string>
clusterChoice(MatmulOp op, const GemmStrategyRecord &rec, StringRef precision,
              ArrayRef<int64_t> tile, int64_t splitK, int64_t force);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULCLUSTER_H
