//===- VerifyEntryPoints.cpp - check entry functions ------------*- C++ -*-===//
//
// The runtime calls a module's public functions with device tensors. This
// pass checks their signatures before any lowering, so that bad input is
// reported against the source rather than failing (or silently producing
// nothing) in a later pass or in fuser-translate.
//
// A scalar argument nothing reads (torch.export specialises a Python float
// into the body and leaves its f64 argument unused) is dropped from the
// signature, with a remark: the compiled function takes the tensors only.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"

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
      if (SymbolTable::symbolKnownUseEmpty(func, module))
        dropUnusedScalarArguments(func);
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

private:
  /// Erases the scalar (integer, index or float) arguments of `func` that
  /// nothing reads; the manifest describes tensor arguments only. Only for
  /// functions nothing in the module calls, so no call site changes.
  static void dropUnusedScalarArguments(func::FuncOp func) {
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument arg : func.getArguments()) {
      Type t = arg.getType();
      if (!arg.use_empty() || !(t.isIntOrIndexOrFloat()))
        continue;
      unused.set(arg.getArgNumber());
      func.emitRemark() << "entry function argument #" << arg.getArgNumber()
                        << " (" << t
                        << ") is never read and is dropped: the compiled "
                           "function takes its tensor arguments only";
    }
    if (unused.any())
      (void)func.eraseArguments(unused);
  }
};

} // namespace
