//===- MatmulCluster.h - thread-block clusters of a matmul ------*- C++ -*-===//
//
// Used by fuser-configure-kernels: whether a wgmma_tma matmul runs in
// clusters of blocks that share B by TMA multicast (#fuser.config's
// cluster_m, on request only; the lowering, MatmulToGPU, carries it out).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULCLUSTER_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULCLUSTER_H

#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include <string>
#include <utility>

namespace mlir::fuser {

/// The cluster_m of `op` on `rec`'s kernel with `tile` ([BM, BN, BK,
/// ...]) and `splitK` slices, and why: 2 where `force` (the cluster-m
/// option; 0, the default, and 1: none) asks for clusters and the kernel
/// can pair its blocks, else 1 with the reason it cannot.
std::pair<int64_t, std::string> clusterChoice(MatmulOp op,
                                              const GemmStrategyRecord &rec,
                                              ArrayRef<int64_t> tile,
                                              int64_t splitK, int64_t force);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULCLUSTER_H
