//===- WidenBoolReductions.cpp - i1 all/any reductions in i32 -------------===//
//
// See the pass description: the reduction kernel takes accumulators of
// whole bytes; an i1 `all` or `any` (sdpa's check for rows of -inf scores)
// accumulates in i32 and is truncated once.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERWIDENBOOLREDUCTIONSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The combiner of an i1 reduction `op` that the rewrite takes: its yield's
/// value, an andi, ori or xori of the accumulator and a term computed from
/// the inputs alone (the accumulator has no other use); null otherwise.
Operation *boolCombiner(linalg::GenericOp op) {
  if (op.getNumResults() != 1 || op.getNumReductionLoops() == 0 ||
      !op.hasPureTensorSemantics())
    return nullptr;
  auto initTy =
      dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  if (!initTy || !initTy.getElementType().isInteger(1))
    return nullptr;
  Block &body = op.getRegion().front();
  Value acc = body.getArguments().back();
  Operation *combiner = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(combiner))
    return nullptr;
  // The accumulator is read once, by the combiner.
  if (!acc.hasOneUse() || acc.getUses().begin()->getOwner() != combiner)
    return nullptr;
  // ... and its result only by the yield: no i1 user is left to clone.
  if (!combiner->getResult(0).hasOneUse())
    return nullptr;
  for (Operation &inner : body.without_terminator())
    if (!isPure(&inner) || inner.getNumRegions() != 0)
      return nullptr;
  return combiner;
}

/// Rewrites the i1 reduction `op` to accumulate in i32 from a widened init
/// and truncates its result; returns true if done.
bool widen(RewriterBase &rewriter, linalg::GenericOp op) {
  Operation *combiner = boolCombiner(op);
  if (!combiner)
    return false;
  Value init = op.getDpsInitOperand(0)->get();
  auto initTy = cast<RankedTensorType>(init.getType());
  Block &body = op.getRegion().front();
  Value acc = body.getArguments().back();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type i32 = rewriter.getI32Type();
  SmallVector<OpFoldResult> sizes = destinationSizes(rewriter, loc, init);
  // The init, extended: a fill of a constant stays a fill, for the kernel
  // to take as a constant.
  Value wideInit;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  IntegerAttr start;
  if (fill && matchPattern(fill.value(), m_Constant(&start))) {
    Value c = arith::ConstantIntOp::create(rewriter, loc, i32,
                                           start.getValue().getZExtValue());
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes, i32,
                                          initTy.getEncoding());
    wideInit = linalg::FillOp::create(rewriter, loc, c, empty).getResult(0);
  } else {
    wideInit = mapElements(rewriter, loc, init, i32,
                           [&](OpBuilder &b, Location at, Value x) -> Value {
                             return arith::ExtUIOp::create(b, at, i32, x);
                           });
  }
  auto wide = linalg::GenericOp::create(
      rewriter, loc, TypeRange{initTy.clone(i32)}, op.getInputs(),
      ValueRange{wideInit}, op.getIndexingMapsArray(),
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location at, ValueRange args) {
        IRMapping map;
        map.map(body.getArguments(), args);
        for (Operation &inner : body.without_terminator()) {
          if (&inner != combiner) {
            b.clone(inner, map);
            continue;
          }
          // The term extended to 0 or 1; the same bitwise op on the i32
          // accumulator keeps it 0 or 1.
          Value termI1 = combiner->getOperand(0) == acc
                             ? combiner->getOperand(1)
                             : combiner->getOperand(0);
          Value term =
              arith::ExtUIOp::create(b, at, i32, map.lookupOrDefault(termI1));
          Operation *combined =
              b.create(at, combiner->getName().getIdentifier(),
                       ValueRange{args.back(), term}, TypeRange{i32});
          map.map(combiner->getResult(0), combined->getResult(0));
        }
        linalg::YieldOp::create(
            b, at, map.lookup(body.getTerminator()->getOperand(0)));
      });
  Value narrow = mapElements(
      rewriter, loc, wide.getResult(0), initTy.getElementType(),
      [&](OpBuilder &b, Location at, Value x) -> Value {
        return arith::TruncIOp::create(b, at, initTy.getElementType(), x);
      });
  rewriter.replaceOp(op, narrow);
  return true;
}

struct FuserWidenBoolReductionsPass
    : fuser::impl::FuserWidenBoolReductionsPassBase<
          FuserWidenBoolReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (boolCombiner(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates) {
      Location loc = op.getLoc();
      if (widen(rewriter, op) && report)
        emitRemark(loc) << "i1 reduction accumulated in i32 for the "
                           "reduction kernel";
    }
  }
};

} // namespace
