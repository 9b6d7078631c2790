//===- MergeGpuModules.cpp - one gpu.module per compiled module -*- C++ -*-===//
//
// The runtime loads one PTX image per compiled module, so every kernel,
// whichever lowering produced it, moves into a single gpu.module.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERMERGEGPUMODULESPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

class MergeGpuModulesPass
    : public fuser::impl::FuserMergeGpuModulesPassBase<MergeGpuModulesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> sources;
    gpu::GPUModuleOp target;
    for (auto gm : module.getOps<gpu::GPUModuleOp>()) {
      if (gm.getName() == moduleName)
        target = gm;
      else
        sources.push_back(gm);
    }
    if (sources.empty())
      return;
    if (!target) {
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      target = gpu::GPUModuleOp::create(b, module.getLoc(), moduleName);
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));

    SymbolTable targetSymbols(target);
    // (old module, old kernel) -> new kernel name in the target module.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> renamed;
    for (gpu::GPUModuleOp source : sources) {
      for (Operation &op :
           llvm::make_early_inc_range(source.getBody()->getOperations())) {
        auto symName = op.getAttrOfType<StringAttr>(
            SymbolTable::getSymbolAttrName());
        if (!symName)
          continue;
        Operation *existing = targetSymbols.lookup(symName);
        bool isFunc = isa<gpu::GPUFuncOp>(op);
        if (existing && !isFunc) {
          // Declarations (libdevice functions, say) are shared; keep one.
          if (OperationEquivalence::isEquivalentTo(
                  &op, existing, OperationEquivalence::Flags::IgnoreLocations))
            continue;
          op.emitError() << "cannot merge '" << symName.getValue()
                         << "' into gpu.module @" << moduleName
                         << ": a different symbol of that name exists";
          return signalPassFailure();
        }
        op.remove();
        StringAttr newName = targetSymbols.insert(&op);
        renamed[{source.getNameAttr(), symName}] = newName;
      }
    }

    module.walk([&](gpu::LaunchFuncOp launch) {
      auto key = std::make_pair(launch.getKernelModuleName(),
                                launch.getKernelName());
      if (StringAttr newName = renamed.lookup(key))
        launch.setKernelAttr(SymbolRefAttr::get(
            target.getNameAttr(), {FlatSymbolRefAttr::get(newName)}));
    });
    for (gpu::GPUModuleOp source : sources)
      source.erase();
  }
};

} // namespace
