//===- ConfigureScans.h - configs of scan kernels ---------------*- C++ -*-===//
//
// Used by fuser-configure-kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGURESCANS_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGURESCANS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::fuser {

struct ChipInfo;

/// Gives every fuser.scan in `module` without one a #fuser.config:
/// `scan_rows` (T threads per row, each V consecutive elements of a chunk)
/// when the scanned dimension is innermost and its elements are 32 or 64
/// bits, else `scan_serial` (a thread per line). With `report`, a remark on
/// each says which, and warns where too few lines keep the GPU busy.
void configureScans(ModuleOp module, const ChipInfo &chip, bool report);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_CONFIGURESCANS_H
