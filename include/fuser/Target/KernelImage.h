//===- KernelImage.h - the PTX or cubin of a compiled module ----*- C++ -*-===//

#ifndef FUSER_TARGET_KERNELIMAGE_H
#define FUSER_TARGET_KERNELIMAGE_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::fuser {

/// What `gpu-module-to-binary` produced for the module's kernels.
struct KernelImage {
  std::string bytes; ///< PTX text or cubin bytes
  bool isPtx;        ///< true for PTX (format=isa)
  std::string chip;  ///< e.g. "sm_90a"
};

/// Returns the image of the module's single gpu.binary. A module with no
/// kernels (nothing to run on the GPU) has an empty PTX image; one with no
/// entry functions either is an error.
FailureOr<KernelImage> getKernelImage(ModuleOp module);

} // namespace mlir::fuser

#endif // FUSER_TARGET_KERNELIMAGE_H
