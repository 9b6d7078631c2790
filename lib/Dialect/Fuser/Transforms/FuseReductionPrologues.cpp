//===- FuseReductionPrologues.cpp - producers into reductions -------------===//
//
// Folds elementwise producers into the reductions that read them with
// upstream's elementwise fusion, so a transposed copy or a widening before
// a sum never goes through memory (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEREDUCTIONPROLOGUESPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether `v` is a tensor of whole-byte elements.
bool isByteTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  Type e = t ? t.getElementType() : Type();
  return t && e.isIntOrFloat() && e.getIntOrFloatBitWidth() % 8 == 0;
}

/// Whether the i1 tensor `mask` comes from an elementwise op that the
/// reduction absorbs right after the op reading it: all-parallel, reading
/// whole-byte tensors (`x.abs() < beta` in a Huber loss, `target !=
/// ignore_index` in a loss's sum and count). A mask with other users is
/// recomputed for each (fuseOneProducer).
bool isFusableMask(Value mask) {
  auto producer = mask.getDefiningOp<linalg::LinalgOp>();
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      producer->getNumResults() != 1 || isa<linalg::FillOp>(producer))
    return false;
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (producer.payloadUsesValueFromOperand(&init))
      return false;
  return llvm::all_of(producer.getDpsInputOperands(), [&](OpOperand *in) {
    return isByteTensor(in->get()) || !producer.payloadUsesValueFromOperand(in);
  });
}

/// The elementwise producer of `operand` as a linalg.generic (a named
/// elementwise op, transpose or broadcast generalized first), or null.
linalg::GenericOp elementwiseProducer(RewriterBase &rewriter,
                                      OpOperand &operand) {
  auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      isa<linalg::FillOp>(producer))
    return {};
  // What the fused reduction reads must suit a reduction kernel: tensors
  // of whole-byte elements (an i1 mask only where its own producer is
  // absorbed next; other masks stay in pointwise groups, which load them
  // as bytes), and the producer must not read its own output.
  for (OpOperand *in : producer.getDpsInputOperands())
    if (!isByteTensor(in->get()) && !isFusableMask(in->get()))
      return {};
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (producer.payloadUsesValueFromOperand(&init))
      return {};
  if (auto generic = dyn_cast<linalg::GenericOp>(producer.getOperation()))
    return generic;
  if (!isa<linalg::TransposeOp, linalg::BroadcastOp>(producer) &&
      !linalg::isElementwise(producer))
    return {};
  rewriter.setInsertionPoint(producer);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, producer);
  return succeeded(generic) ? *generic : linalg::GenericOp();
}

/// Whether recomputing `producer` in a reduction reads no more memory than
/// reading its result would: per result element, the bytes of its inputs
/// that span every loop (broadcast ones are small and cached) at most the
/// result's. A transposed copy or a widening to f64 qualifies; a chain over
/// several full-size tensors does not.
bool cheapToRecompute(linalg::GenericOp producer) {
  auto bytes = [](Type t) {
    Type e = getElementTypeOrSelf(t);
    return e.isIntOrFloat() ? std::max(1u, e.getIntOrFloatBitWidth() / 8)
                            : 8u; // index: as wide as it gets
  };
  unsigned read = 0;
  for (OpOperand *in : producer.getDpsInputOperands()) {
    if (!isa<RankedTensorType>(in->get().getType()) ||
        producer.getMatchingBlockArgument(in).use_empty())
      continue;
    AffineMap map = producer.getMatchingIndexingMap(in);
    if (map.getNumDims() == 0 || static_cast<unsigned>(llvm::count_if(
                                     map.getResults(), [](AffineExpr e) {
                                       return isa<AffineDimExpr>(e);
                                     })) == producer.getNumLoops())
      read += bytes(in->get().getType());
  }
  return read <= bytes(producer->getResult(0).getType());
}

/// Fuses one producer into `consumer`; returns the fused op or null.
linalg::GenericOp fuseOneProducer(RewriterBase &rewriter,
                                  linalg::GenericOp consumer) {
  for (OpOperand *operand : consumer.getDpsInputOperands()) {
    // Read through a permutation only (unit dimensions at 0 aside: a loss's
    // row statistics as 32768 x 1): through a broadcast over the reduction
    // loops, the producer would run once per reduced element.
    if (!readsEachElementOnce(consumer.getMatchingIndexingMap(operand),
                              operand->get().getType(),
                              consumer.getStaticLoopRanges()))
      continue;
    linalg::GenericOp producer = elementwiseProducer(rewriter, *operand);
    if (!producer || !linalg::areElementwiseOpsFusable(operand))
      continue;
    // A producer with other users stays for them; where recomputing it is
    // cheap the reduction fuses a copy of its own, so the fused op has the
    // reduction's result alone. An i1 mask is recomputed whatever its
    // inputs: otherwise it stays an op of its own, its bytes written and
    // read back by a kernel more (a loss's `target != ignore_index`, whose
    // targets its readers read anyway).
    Value original = operand->get();
    linalg::GenericOp copy;
    if (!producer->hasOneUse()) {
      bool mask = getElementTypeOrSelf(original.getType()).isInteger(1);
      if (producer->getNumResults() != 1 ||
          (!mask && !cheapToRecompute(producer)))
        continue;
      rewriter.setInsertionPoint(producer);
      copy = cast<linalg::GenericOp>(rewriter.clone(*producer));
      rewriter.modifyOpInPlace(consumer, [&] {
        operand->set(copy->getResult(cast<OpResult>(original).getResultNumber()));
      });
      producer = copy;
    }
    FailureOr<linalg::GenericOp> fused =
        fuseElementwiseProducer(rewriter, *operand);
    if (succeeded(fused))
      return *fused;
    if (copy) { // the reduction reads the original again
      rewriter.modifyOpInPlace(consumer, [&] { operand->set(original); });
      rewriter.eraseOp(copy);
    }
  }
  return {};
}

class FuseReductionProloguesPass
    : public fuser::impl::FuserFuseReductionProloguesPassBase<
          FuseReductionProloguesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumReductionLoops() > 0)
        reductions.push_back(op);
    });
    for (linalg::GenericOp op : reductions) {
      unsigned absorbed = 0;
      while (linalg::GenericOp fused = fuseOneProducer(rewriter, op)) {
        op = fused;
        ++absorbed;
      }
      if (report && absorbed)
        op.emitRemark() << "fused " << absorbed
                        << " elementwise producer(s) into this reduction";
    }
  }
};

} // namespace
