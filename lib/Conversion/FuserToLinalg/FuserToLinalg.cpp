//===- FuserToLinalg.cpp - fusion groups back to linalg ---------*- C++ -*-===//
//
// The CPU reference path: a fused group becomes linalg again (a pointwise
// group one linalg.generic; a matmul group a zero fill, a linalg.matmul and
// one linalg.generic for its epilogue), which upstream bufferization and
// loop lowering run anywhere. Comparing it with the unfused program shows
// that fusion preserved the computation.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTFUSERTOLINALGPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Clones the body of a fusion group into a linalg.generic payload: `args`
/// replace the block arguments in order, fuser.yield becomes linalg.yield.
static void cloneBody(OpBuilder &nb, Location nloc, Block &body,
                      ValueRange args) {
  IRMapping mapping;
  mapping.map(body.getArguments(), args.take_front(body.getNumArguments()));
  for (Operation &inner : body.without_terminator())
    nb.clone(inner, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> values;
  for (Value v : yield.getValues())
    values.push_back(mapping.lookupOrDefault(v));
  linalg::YieldOp::create(nb, nloc, values);
}

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
        cloneBody(nb, nloc, op.getBodyBlock(), args);
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return success();
}

/// fuser.matmul -> linalg.fill(+0.0) + linalg.matmul (B read through
/// (m, n, k) -> (n, k) when transpose_b) + a linalg.generic epilogue. The
/// product sums K in order from +0.0, as the unfused linalg.matmul does, so
/// the CPU results are bit-identical.
LogicalResult lowerMatmul(fuser::MatmulOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto resTy = cast<RankedTensorType>(op.getType());
  SmallVector<Value> dynSizes;
  if (resTy.isDynamicDim(0))
    dynSizes.push_back(tensor::DimOp::create(b, loc, op.getLhs(), 0));
  if (resTy.isDynamicDim(1))
    dynSizes.push_back(
        tensor::DimOp::create(b, loc, op.getRhs(), op.getTransposeB() ? 0 : 1));
  Value empty = tensor::EmptyOp::create(b, loc, resTy, dynSizes);
  Value zero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(resTy.getElementType())));
  Value acc = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  SmallVector<Value> operands{op.getLhs(), op.getRhs()};
  Value product =
      op.getTransposeB()
          ? linalg::MatmulTransposeBOp::create(b, loc, TypeRange{resTy},
                                               operands, acc)
                .getResult(0)
          : linalg::MatmulOp::create(b, loc, TypeRange{resTy}, operands, acc)
                .getResult(0);

  // An epilogue that yields the accumulator needs no generic.
  Block &body = op.getEpilogue().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (&body.front() == yield.getOperation() &&
      yield.getValues()[0] == body.getArgument(0)) {
    op->replaceAllUsesWith(ValueRange{product});
    op->erase();
    return success();
  }

  MLIRContext *ctx = op.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<AffineMap> maps{id};
  for (Attribute m : op.getEpilogueMaps())
    maps.push_back(cast<AffineMapAttr>(m).getValue());
  maps.push_back(id);
  SmallVector<Value> inputs{product};
  llvm::append_range(inputs, op.getEpilogueInputs());
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resTy}, inputs, empty, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        cloneBody(nb, nloc, body, args);
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
      LogicalResult lowered =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([](PointwiseOp pw) { return lowerPointwise(pw); })
              .Case([](fuser::MatmulOp mm) { return lowerMatmul(mm); })
              .Default([](Operation *other) {
                return other->emitOpError()
                       << "has no CPU reference lowering yet";
              });
      if (failed(lowered))
        return signalPassFailure();
    }
  }
};

} // namespace
