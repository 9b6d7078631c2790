//===- UnitParallelLoop.cpp - one thread for a loop nest without parallel loops
//===//
//
// See the pass description: the generic fallback maps parallel loops to
// threads; a generic with none (a reduction to a scalar that no reduction
// kernel took) gets one of extent 1, so that it runs in a kernel of one
// thread instead of on the host.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERUNITPARALLELLOOPPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// `op` with a leading parallel loop of extent 1 that indexes a new leading
/// unit dimension of each output (a view of it); fails when an output's
/// view cannot be expressed.
LogicalResult addUnitParallelLoop(RewriterBase &rewriter,
                                  linalg::GenericOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  unsigned loops = op.getNumLoops() + 1;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(in).shiftDims(1));
  SmallVector<Value> inits;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<MemRefType>(init.get().getType());
    if (!type || !type.hasStaticShape())
      return failure();
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    SmallVector<ReassociationIndices> reassociation;
    for (int64_t d = 0; d < type.getRank(); ++d)
      reassociation.push_back(d == 0 ? ReassociationIndices{0, 1}
                                     : ReassociationIndices{d + 1});
    FailureOr<MemRefType> expanded =
        memref::ExpandShapeOp::computeExpandedType(type, shape, reassociation);
    if (failed(expanded))
      return failure();
    inits.push_back(memref::ExpandShapeOp::create(rewriter, loc, *expanded,
                                                  init.get(), reassociation));
    SmallVector<AffineExpr> results{getAffineDimExpr(0, ctx)};
    llvm::append_range(
        results, op.getMatchingIndexingMap(&init).shiftDims(1).getResults());
    maps.push_back(AffineMap::get(loops, 0, results, ctx));
  }
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel};
  llvm::append_range(iterators, op.getIteratorTypesArray());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange(), op.getDpsInputs(), inits, maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                              generic.getRegion().end());
  generic.walk(
      [&](linalg::IndexOp index) { index.setDim(index.getDim() + 1); });
  rewriter.eraseOp(op);
  return success();
}

class UnitParallelLoopPass
    : public fuser::impl::FuserUnitParallelLoopPassBase<UnitParallelLoopPass> {
public:
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumParallelLoops() == 0)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp linalgOp : ops) {
      // Named ops (a 1-D linalg.dot, a linalg.reduce to a scalar) as the
      // generic they stand for.
      rewriter.setInsertionPoint(linalgOp);
      auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
      if (!op) {
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, linalgOp);
        if (failed(generic)) {
          linalgOp.emitError("cannot run this op without parallel loops in "
                             "the generic fallback");
          return signalPassFailure();
        }
        op = *generic;
      }
      rewriter.setInsertionPoint(op);
      if (failed(addUnitParallelLoop(rewriter, op))) {
        op.emitError("cannot give this loop nest a parallel loop for the "
                     "generic fallback (an output of dynamic shape)");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
