//===- ConfigureReductions.h - configs of reduction kernels -----*- C++ -*-===//
//
// Used by fuser-configure-kernels: the reductions no fusion group took.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREREDUCTIONS_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREREDUCTIONS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::fuser {

struct ChipInfo;

/// Gives every linalg.generic reduction in `module` that analyzeReduction
/// accepts a #fuser.config of strategy "reduction" (the discardable
/// attribute kReductionConfigAttrName): `block = [B, 1, 1]`, `tile = [S,
/// D]`, S threads per output element D apart in the block: 1 when they
/// are consecutive (they read consecutive elements), B / S when each warp
/// spans neighbouring outputs; `tile = [S, D, P]` with P > 1 for two
/// stages, P blocks per output each reducing a slice of its extent and a
/// second kernel combining their P partials (ConfigureReductions.cpp says
/// when). A reduction whose broadcast consumer (ReductionEpilogue.h) its
/// kernel computes too gets strategy kReductionEpilogueStrategy instead,
/// when it runs in one stage and the elements it reads again fit in
/// `chip`'s L2. With `report`, a remark on each reduction says which, or
/// why it stays with the generic fallback.
void configureReductions(ModuleOp module, const ChipInfo &chip, bool report);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGUREREDUCTIONS_H
