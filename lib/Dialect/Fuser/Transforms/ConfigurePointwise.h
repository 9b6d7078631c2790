//===- ConfigurePointwise.h - configs of pointwise kernels ------*- C++ -*-===//
//
// Used by fuser-configure-kernels: the block, vector width, grid and tile of
// each fuser.pointwise group's kernel (the grid-stride kernel, or the
// shared-memory transpose for groups reading an input transposed).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREPOINTWISE_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREPOINTWISE_H

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

namespace mlir::fuser {

/// fuser-configure-kernels' pointwise options; a negative or zero value
/// takes the heuristic (ConfigurePointwise.cpp).
struct PointwiseConfigOptions {
  int64_t blockSize = 0, vectorWidth = 0, vectorsPerThread = 0;
  int64_t l2Prefetch = -1, maxGrid = -1;
  StringRef precision;
  /// The chip compiled for: its measured pointwise block, if any.
  const ChipInfo *chip = nullptr;
};

/// Attaches the #fuser.config of `op` unless it has one (chosen earlier or
/// by the user); false after a diagnostic.
bool configurePointwise(PointwiseOp op, const PointwiseConfigOptions &opts);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREPOINTWISE_H
