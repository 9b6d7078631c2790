//===- ConfigureNorms.h - configs of group-norm kernels ---------*- C++ -*-===//
//
// Used by fuser-configure-kernels: fuser.group_norm and
// fuser.group_norm_grad, which read their groups alike.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGURENORMS_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGURENORMS_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

namespace mlir::fuser {

/// The config of a group norm or its gradient (`strategy`) on `type` split
/// into `groups`, or null after a diagnostic on `op`.
KernelConfigAttr groupNormConfig(Operation *op, RankedTensorType type,
                                 int64_t groups, StringRef strategy,
                                 StringRef precision);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGURENORMS_H
