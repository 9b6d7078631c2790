//===- WidenHalfSums.cpp - f16/bf16 sums accumulated in f32 ---------------===//
//
// See the pass description: a sum whose accumulator is f16 or bf16 rounds
// at every term; PyTorch sums such tensors in f32 and rounds once.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERWIDENHALFSUMSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The f32 fill a widened sum starts from: the half fill's constant,
/// extended (exactly).
Value wideFill(RewriterBase &rewriter, Location loc, Value init,
               const APFloat &start) {
  bool losesInfo = false;
  APFloat wide = start;
  wide.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
  Type f32 = rewriter.getF32Type();
  Value c = arith::ConstantOp::create(rewriter, loc, f32,
                                      rewriter.getFloatAttr(f32, wide));
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, destinationSizes(rewriter, loc, init), f32);
  return linalg::FillOp::create(rewriter, loc, c, empty).getResult(0);
}

/// Rewrites the f16/bf16 sum `op` to sum in f32 and round its result once;
/// returns true if done.
bool widen(RewriterBase &rewriter, linalg::GenericOp op) {
  if (op.getNumResults() != 1 || op.getNumReductionLoops() == 0)
    return false;
  Value init = op.getDpsInitOperand(0)->get();
  auto initTy = dyn_cast<RankedTensorType>(init.getType());
  if (!initTy || !isa<Float16Type, BFloat16Type>(initTy.getElementType()))
    return false;
  std::optional<APFloat> start = getFillConstant(init);
  std::string why;
  FailureOr<ReductionShape> shape = analyzeReduction(op, why);
  if (!start || failed(shape) || shape->arg || shape->online ||
      !shape->siblings.empty() || !isa<arith::AddFOp>(shape->combiner))
    return false;
  Block &body = op.getRegion().front();
  Operation *combiner = shape->combiner;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getOperand(0) != combiner->getResult(0))
    return false;

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type f32 = rewriter.getF32Type();
  Value fill = wideFill(rewriter, loc, init, *start);
  unsigned accOperand = shape->accumulatorOperand;
  auto wide = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initTy.clone(f32)}, op.getInputs(),
      ValueRange{fill}, op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location at, ValueRange args) {
        IRMapping map;
        map.map(body.getArguments(), args);
        for (Operation &inner : body.without_terminator()) {
          if (&inner != combiner) {
            b.clone(inner, map);
            continue;
          }
          // The term in its own type, extended; the running sum in f32.
          Value term = arith::ExtFOp::create(
              b, at, f32, map.lookup(combiner->getOperand(1 - accOperand)));
          Value acc = args.back();
          Value sum = accOperand == 0 ? arith::AddFOp::create(b, at, acc, term)
                                      : arith::AddFOp::create(b, at, term, acc);
          map.map(combiner->getResult(0), sum);
        }
        linalg::YieldOp::create(b, at, map.lookup(yield.getOperand(0)));
      });
  Value narrow = mapElements(
      rewriter, loc, wide.getResult(0), initTy.getElementType(),
      [&](OpBuilder &b, Location at, Value x) -> Value {
        return arith::TruncFOp::create(b, at, initTy.getElementType(), x);
      });
  rewriter.replaceOp(op, narrow);
  return true;
}

struct FuserWidenHalfSumsPass
    : fuser::impl::FuserWidenHalfSumsPassBase<FuserWidenHalfSumsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumReductionLoops() > 0)
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates) {
      Location loc = op.getLoc();
      if (widen(rewriter, op) && report)
        emitRemark(loc) << "16-bit sum accumulated in f32 and rounded once, "
                           "as PyTorch sums f16 and bf16 tensors";
    }
  }
};

} // namespace
