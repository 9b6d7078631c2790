//===- KernelImage.cpp - the PTX or cubin of a compiled module ------------===//

#include "fuser/Target/KernelImage.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;

FailureOr<KernelImage> mlir::fuser::getKernelImage(ModuleOp module) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (!module.getOps<gpu::GPUModuleOp>().empty())
    return module.emitError()
           << "the module still holds a gpu.module: run it through "
              "fuser-opt --fuser-gpu-pipeline before translating";
  if (binaries.empty()) {
    // Entry functions without kernels (all sizes, no compute) are fine;
    // a module with neither is most likely not what the user meant.
    if (llvm::none_of(module.getOps<func::FuncOp>(), [](func::FuncOp f) {
          return f.isPublic() && !f.isDeclaration();
        }))
      return module.emitError() << "nothing to translate: the module has no "
                                   "compiled kernels or entry functions";
    return KernelImage{"", true, ""};
  }
  if (binaries.size() > 1)
    return module.emitError() << "expected one gpu.binary, found "
                              << binaries.size()
                              << " (run -fuser-merge-gpu-modules)";
  gpu::BinaryOp binary = binaries.front();
  if (binary.getObjects().size() != 1)
    return binary.emitError() << "expected one object (one target) in the "
                                 "gpu.binary, found "
                              << binary.getObjects().size();
  auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
  KernelImage image;
  image.bytes = object.getObject().getValue().str();
  switch (object.getFormat()) {
  case gpu::CompilationTarget::Assembly:
    image.isPtx = true;
    break;
  case gpu::CompilationTarget::Binary:
    image.isPtx = false;
    break;
  default:
    return binary.emitError()
           << "unsupported gpu.binary format; use format=ptx or format=cubin";
  }
  if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget()))
    image.chip = nvvm.getChip().str();
  return image;
}
