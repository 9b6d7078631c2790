//===- GeneralizePooling.cpp - pooling ops as reduction generics ----------===//
//
// See the pass description: linalg's named pooling ops become the
// linalg.generic they stand for, a reduction over the window that
// fuser-configure-kernels gives a reduction kernel.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERGENERALIZEPOOLINGPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

struct FuserGeneralizePoolingPass
    : fuser::impl::FuserGeneralizePoolingPassBase<FuserGeneralizePoolingPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> pools;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getName().getStringRef().starts_with("linalg.pooling_") &&
          op.hasPureTensorSemantics())
        pools.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : pools) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op)))
        op.emitRemark() << "pooling op left as it is: it has no generic form";
    }
  }
};

} // namespace
