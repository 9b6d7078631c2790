//===- CHeader.h - embeddable C header emission -----------------*- C++ -*-===//
//
// A self-contained C/C++ header: the PTX as a string and, per entry
// function, a typed launcher that loads the module once, validates sizes,
// allocates intermediates and launches the kernels on a caller's stream.
// It needs only cuda.h and libcuda.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TARGET_CHEADER_H
#define FUSER_TARGET_CHEADER_H

#include "fuser/Manifest/Manifest.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::fuser {

/// Writes the header for a manifest model and its PTX. `prefix` starts every
/// exported symbol (`<prefix>_<function>`).
LogicalResult emitCHeader(const ::fuser::ManifestModule &manifest,
                          StringRef ptx,
                          StringRef prefix, llvm::raw_ostream &os,
                          function_ref<InFlightDiagnostic()> emitError);

/// Builds the manifest of `module` and writes its header.
LogicalResult translateToCHeader(ModuleOp module, StringRef prefix,
                                 llvm::raw_ostream &os);

} // namespace mlir::fuser

#endif // FUSER_TARGET_CHEADER_H
