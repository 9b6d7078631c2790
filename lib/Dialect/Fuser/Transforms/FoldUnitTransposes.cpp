//===- FoldUnitTransposes.cpp - transposes of unit dims as reshapes -------===//
//
// See the pass description: a linalg.transpose that moves only dimensions
// of size 1 keeps every element where it is in memory, so it becomes a
// collapse to the dimensions that are not 1 and an expansion to its result
// shape (views), instead of a copy kernel.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFOLDUNITTRANSPOSESPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// `type` without its static dimensions of size 1.
RankedTensorType withoutUnitDims(RankedTensorType type) {
  SmallVector<int64_t> shape;
  for (int64_t size : type.getShape())
    if (size != 1)
      shape.push_back(size);
  return RankedTensorType::get(shape, type.getElementType());
}

struct UnitTransposeAsReshape : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inTy = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto outTy = dyn_cast<RankedTensorType>(op.getInit().getType());
    if (!inTy || !outTy || !op.hasPureTensorSemantics())
      return failure();
    // The input dimensions the result lists, in its order, skipping those
    // of size 1: they must come in the input's order.
    int64_t last = -1;
    for (int64_t d : op.getPermutation()) {
      if (inTy.getDimSize(d) == 1)
        continue;
      if (d < last)
        return rewriter.notifyMatchFailure(op, "moves a dimension not of 1");
      last = d;
    }
    // Each group of the reshapes is one dimension that is not 1 (static or
    // dynamic: its size is the same on both sides) with units beside it.
    RankedTensorType squeezed = withoutUnitDims(inTy);
    if (squeezed.getRank() == 0)
      return rewriter.notifyMatchFailure(op, "every dimension is 1");
    auto collapse = getReassociationIndicesForReshape(inTy, squeezed);
    auto expand = getReassociationIndicesForReshape(outTy, squeezed);
    if (!collapse || !expand)
      return rewriter.notifyMatchFailure(op, "no reassociation");
    Location loc = op.getLoc();
    Value flat = tensor::CollapseShapeOp::create(rewriter, loc, squeezed,
                                                 op.getInput(), *collapse);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outTy, flat,
                                                       *expand);
    return success();
  }
};

class FoldUnitTransposesPass
    : public fuser::impl::FuserFoldUnitTransposesPassBase<
          FoldUnitTransposesPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<UnitTransposeAsReshape>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
