//===- MatmulSplitK.h - how many slices of K a matmul gets ------*- C++ -*-===//
//
// Used by fuser-configure-kernels: split K as part of the GEMM strategy
// choice (the lowering, MatmulToGPU, carries out the config's split_k).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULSPLITK_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULSPLITK_H

#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include <string>
#include <utility>

namespace mlir::fuser {

/// The split_k of `op` on `rec`'s kernel with `tile` ([BM, BN, BK, ...]),
/// and why: a reason for the remark when it splits, or when `force` (the
/// split-k option, 0: heuristic) asks for a split it cannot have.
std::pair<int64_t, std::string> splitKChoice(MatmulOp op,
                                             const GemmStrategyRecord &rec,
                                             ArrayRef<int64_t> tile,
                                             int64_t force);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULSPLITK_H
