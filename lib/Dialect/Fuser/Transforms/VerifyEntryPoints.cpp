//===- VerifyEntryPoints.cpp - check entry functions ------------*- C++ -*-===//
//
// The runtime calls a module's public functions with device tensors. This
// pass checks their signatures before any lowering, so that bad input is
// reported against the source rather than failing (or silently producing
// nothing) in a later pass or in fuser-translate.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERVERIFYENTRYPOINTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// The element types the kernel manifest has a dtype for.
static bool isSupportedElementType(Type t) {
  if (t.isF32() || t.isF16() || t.isBF16() || t.isF64())
    return true;
  auto i = dyn_cast<IntegerType>(t);
  return i && i.isSignless() &&
         llvm::is_contained({1u, 8u, 32u, 64u}, i.getWidth());
}

/// Dense ranked tensors only: an encoding (sparse, say) has no manifest
/// layout, and unranked tensors have no shape to size buffers from.
static bool isSupportedEntryType(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && !tensor.getEncoding() &&
         isSupportedElementType(tensor.getElementType());
}

namespace {

class VerifyEntryPointsPass
    : public fuser::impl::FuserVerifyEntryPointsPassBase<
          VerifyEntryPointsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool anyEntry = false, failedAny = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isPrivate() || func.isDeclaration())
        continue;
      anyEntry = true;
      auto check = [&](StringRef what, unsigned i, Type t) {
        if (isSupportedEntryType(t))
          return;
        func.emitError() << "entry function " << what << " #" << i
                         << " has type " << t
                         << "; fuser entry functions take dense ranked "
                            "tensors of f32, f16, bf16, f64, i1, i8, i32 or "
                            "i64";
        failedAny = true;
      };
      for (auto [i, t] : llvm::enumerate(func.getArgumentTypes()))
        check("argument", i, t);
      for (auto [i, t] : llvm::enumerate(func.getResultTypes()))
        check("result", i, t);
    }
    if (!anyEntry) {
      module.emitError() << "nothing to compile: the module has no public "
                            "function with a body (entry functions are "
                            "public func.func ops on tensors)";
      failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
