//===- Manifest.h - kernel manifest emission --------------------*- C++ -*-===//
//
// Describes, for the runtime, how to run each entry function of a module
// lowered by the fuser GPU pipeline: arguments, buffers to allocate, checks,
// and kernel launches with grids as expressions of the argument sizes. The
// format is documented in docs/manifest.md.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TARGET_MANIFEST_H
#define FUSER_TARGET_MANIFEST_H

#include "fuser/Manifest/Manifest.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::fuser {

/// Builds the manifest model of every public function of `module`. Emits a
/// diagnostic and fails on host code the runtime cannot execute.
FailureOr<::fuser::ManifestModule> buildManifest(ModuleOp module);

/// Prints the manifest of `module` as JSON.
LogicalResult translateToManifest(ModuleOp module, llvm::raw_ostream &os);

} // namespace mlir::fuser

#endif // FUSER_TARGET_MANIFEST_H
