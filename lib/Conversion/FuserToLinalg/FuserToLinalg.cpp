//===- FuserToLinalg.cpp - fusion groups back to linalg ---------*- C++ -*-===//
//
// The CPU reference path: a fused group becomes one linalg.generic, which
// upstream bufferization and loop lowering run anywhere. Comparing it with
// the unfused program shows that fusion preserved the computation.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTFUSERTOLINALGPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

LogicalResult lowerPointwise(PointwiseOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  ReifiedRankedShapedTypeDims reified;
  if (failed(op.reifyResultShapes(b, reified)))
    return op.emitOpError() << "cannot compute its result sizes";

  SmallVector<Value> inits;
  for (auto [t, sizes] : llvm::zip(op.getResultTypes(), reified))
    inits.push_back(tensor::EmptyOp::create(
        b, loc, sizes, cast<RankedTensorType>(t).getElementType()));

  unsigned rank = op.getResultTensorType().getRank();
  SmallVector<AffineMap> maps;
  for (unsigned i = 0; i < op.getInputs().size(); ++i)
    maps.push_back(op.getIndexingMap(i));
  maps.append(op.getNumResults(),
              AffineMap::getMultiDimIdentityMap(rank, op.getContext()));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);

  auto generic = linalg::GenericOp::create(
      b, loc, op.getResultTypes(), op.getInputs(), inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        IRMapping mapping;
        Block &body = op.getBodyBlock();
        mapping.map(body.getArguments(),
                    args.take_front(body.getNumArguments()));
        for (Operation &inner : body.without_terminator())
          nb.clone(inner, mapping);
        auto yield = cast<YieldOp>(body.getTerminator());
        SmallVector<Value> values;
        for (Value v : yield.getValues())
          values.push_back(mapping.lookupOrDefault(v));
        linalg::YieldOp::create(nb, nloc, values);
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return success();
}

class ConvertFuserToLinalgPass
    : public fuser::impl::ConvertFuserToLinalgPassBase<
          ConvertFuserToLinalgPass> {
public:
  void runOnOperation() override {
    SmallVector<Operation *> groups;
    getOperation().walk([&](Operation *op) {
      if (isa<PointwiseOp, MatmulOp, GroupNormOp>(op))
        groups.push_back(op);
    });
    for (Operation *op : groups) {
      auto pw = dyn_cast<PointwiseOp>(op);
      if (!pw) {
        op->emitOpError() << "has no CPU reference lowering yet";
        return signalPassFailure();
      }
      if (failed(lowerPointwise(pw)))
        return signalPassFailure();
    }
  }
};

} // namespace
