//===- ConfigureMatmul.h - configs of matmul kernels ------------*- C++ -*-===//
//
// Used by fuser-configure-kernels: each fuser.matmul's strategy, precision,
// tile, split K, clusters and tile order, chosen among GemmStrategy.h's
// records for the chip.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREMATMUL_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREMATMUL_H

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include <optional>

namespace mlir::fuser {

/// fuser-configure-kernels' matmul options (Passes.td describes each).
struct MatmulConfigOptions {
  const ChipInfo *chip = nullptr;
  StringRef chipName;
  StringRef precision;
  /// auto, 3xtf32, fp64 or ffma.
  StringRef fp32Kernel;
  /// tensor-core-kernel: the strategy it forces, nullopt for auto.
  std::optional<GemmStrategy> tensorCoreKernel;
  ArrayRef<int64_t> tileSizes;
  int64_t promoteEvery = -1, splitK = 0, clusterM = 0;
  bool report = false;

  /// Whether the options allow wgmma_tma (auto, or forced).
  bool tmaAllowed() const {
    return !tensorCoreKernel || *tensorCoreKernel == GemmStrategy::wgmma_tma;
  }
};

/// Attaches the #fuser.config of `op` unless it has one (chosen earlier or
/// by the user); false after a diagnostic.
bool configureMatmul(MatmulOp op, const MatmulConfigOptions &opts);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREMATMUL_H
