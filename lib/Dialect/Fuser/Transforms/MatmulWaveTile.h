//===- MatmulWaveTile.h - tiles that fill the last wave ---------*- C++ -*-===//
//
// Used by fuser-configure-kernels: a GEMM strategy's narrower tile where the
// default's leave much of the last wave of blocks idle (the lowering only
// carries out the config's tile).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULWAVETILE_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULWAVETILE_H

#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::fuser {

/// The output tiles of `op` under `tile` ([BM, BN, ...]), batches included,
/// when its result shape is static.
std::optional<int64_t> staticOutputTiles(MatmulOp op, ArrayRef<int64_t> tile);

/// The tile of `op` on `rec`'s kernel in `precision`: `tile` (the default),
/// or the record's wave tile when its waves of rec.maxGrid blocks, each
/// tile taking rec.waveTileTime of a default one, are predicted at least 5%
/// shorter; with the reason for the remark when it changes. Products that
/// fill at most half a wave are split K's (MatmulSplitK.h), products with a
/// group norm keep the default (its groups sit in the default's columns).
std::pair<SmallVector<int64_t>, std::string>
waveTileChoice(MatmulOp op, const GemmStrategyRecord &rec,
               StringRef precision, ArrayRef<int64_t> tile);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULWAVETILE_H
