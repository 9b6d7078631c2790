//===- LowerTensorMapParams.cpp - TMA tensor maps passed by value ---------===//
//
// cp.async.bulk.tensor reads its tensor map through a generic address. A
// map passed as a 128-byte .param and read in place (cvta.param) costs no
// copy to global memory and no per-launch allocation: the runtime encodes
// the map per call and cuLaunchKernel copies it with the parameters.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERLOWERTENSORMAPPARAMSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// CUtensorMap: 128 bytes, 64-byte aligned (cuda.h).
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlign = 64;

class LowerTensorMapParamsPass
    : public fuser::impl::FuserLowerTensorMapParamsPassBase<
          LowerTensorMapParamsPass> {
public:
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto mapTy =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
    WalkResult result = getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto args = func->getAttrOfType<DenseI64ArrayAttr>(kTensorMapArgsAttr);
      if (!args)
        return WalkResult::advance();
      func->removeAttr(kTensorMapArgsAttr);
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName())) {
        func.emitError() << "'" << kTensorMapArgsAttr
                         << "' on a function that is not a kernel";
        return WalkResult::interrupt();
      }
      ArrayRef<Type> params = func.getFunctionType().getParams();
      for (int64_t i : args.asArrayRef()) {
        if (i < 0 || i >= static_cast<int64_t>(params.size()) ||
            !isa<LLVM::LLVMPointerType>(params[i])) {
          func.emitError() << "'" << kTensorMapArgsAttr << "' lists #" << i
                           << ", which is not an !llvm.ptr parameter";
          return WalkResult::interrupt();
        }
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(mapTy));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        IntegerAttr::get(IntegerType::get(ctx, 64),
                                         kTensorMapAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        UnitAttr::get(ctx));
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
