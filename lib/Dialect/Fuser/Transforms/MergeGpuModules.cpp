//===- MergeGpuModules.cpp - one gpu.module per compiled module -*- C++ -*-===//
//
// The runtime loads one PTX image per compiled module, so every kernel,
// whichever lowering produced it, moves into a single gpu.module.
//
// Float constants passed to kernels (the generic fallback's outlined loops
// capture torch-mlir's f64 slopes, say) become immediates in the kernels:
// the kernel manifest cannot describe every scalar type as an argument,
// and an immediate costs nothing.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"

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
    if (sources.empty()) {
      if (target)
        sinkConstantFloatArguments(module, target);
      return;
    }
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
    sinkConstantFloatArguments(module, target);
  }

private:
  /// Float kernel arguments that every launch of the kernel passes the same
  /// constant for are cloned into the kernel and dropped from its signature
  /// and its launches.
  static void sinkConstantFloatArguments(ModuleOp module,
                                         gpu::GPUModuleOp target) {
    DenseMap<StringAttr, SmallVector<gpu::LaunchFuncOp>> launches;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() == target.getNameAttr())
        launches[launch.getKernelName()].push_back(launch);
    });
    for (auto kernel : target.getOps<gpu::GPUFuncOp>()) {
      auto it = launches.find(kernel.getNameAttr());
      if (it == launches.end() || kernel.getBody().empty())
        continue;
      ArrayRef<gpu::LaunchFuncOp> sites = it->second;
      llvm::BitVector sunk(kernel.getNumArguments());
      OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
      for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
        if (!isa<FloatType>(kernel.getArgument(i).getType()))
          continue;
        arith::ConstantOp first;
        bool same = llvm::all_of(sites, [&](gpu::LaunchFuncOp l) {
          if (i >= l.getKernelOperands().size())
            return false;
          auto c = l.getKernelOperands()[i].getDefiningOp<arith::ConstantOp>();
          if (!c || (first && c.getValue() != first.getValue()))
            return false;
          first = first ? first : c;
          return true;
        });
        if (!same || !first)
          continue;
        Value local = b.clone(*first)->getResult(0);
        kernel.getArgument(i).replaceAllUsesWith(local);
        sunk.set(i);
      }
      if (sunk.none())
        continue;
      (void)kernel.eraseArguments(sunk);
      for (gpu::LaunchFuncOp l : sites)
        for (int i = sunk.size() - 1; i >= 0; --i)
          if (sunk.test(i))
            l.getKernelOperandsMutable().erase(i);
    }
  }
};

} // namespace
