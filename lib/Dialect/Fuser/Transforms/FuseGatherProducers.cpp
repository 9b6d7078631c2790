//===- FuseGatherProducers.cpp - index producers into gathers -------------===//
//
// See the pass description: a gather (an all-parallel linalg.generic whose
// body extracts elements) computes its indices from their elementwise
// producers' inputs, with upstream's elementwise fusion, so the indices are
// never a kernel and a tensor of their own.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEGATHERPRODUCERSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

bool allParallel(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops();
}

/// A gather: all-parallel, its body extracting from a tensor. (Without an
/// extract it is elementwise, and fuser-fuse-pointwise groups it.)
bool isGather(linalg::GenericOp op) {
  if (!allParallel(op))
    return false;
  WalkResult found = op.getRegion().walk([](tensor::ExtractOp) {
    return WalkResult::interrupt();
  });
  return found.wasInterrupted();
}

/// An elementwise producer the gather can absorb: all-parallel, read by
/// the gather alone and once per element (through a broadcast it would run
/// once per gathered element), its own inputs read through dimensions and
/// constants (what the gather kernel indexes), not reading its output.
bool isAbsorbable(linalg::GenericOp producer, OpOperand &use,
                  linalg::GenericOp gather) {
  if (!producer || !allParallel(producer) || !producer->hasOneUse() ||
      producer->getNumResults() != 1 ||
      !readsEachElementOnce(gather.getMatchingIndexingMap(&use),
                            use.get().getType(), gather.getStaticLoopRanges()))
    return false;
  for (OpOperand *in : producer.getDpsInputOperands())
    if (!producer.getMatchingIndexingMap(in).isProjectedPermutation(
            /*allowZeroInResults=*/true))
      return false;
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (producer.payloadUsesValueFromOperand(&init))
      return false;
  return true;
}

/// Fuses one producer into `gather`; returns the fused op or null.
linalg::GenericOp fuseOneProducer(RewriterBase &rewriter,
                                  linalg::GenericOp gather) {
  for (OpOperand *operand : gather.getDpsInputOperands()) {
    auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
    if (!isAbsorbable(producer, *operand, gather) ||
        !linalg::areElementwiseOpsFusable(operand))
      continue;
    FailureOr<linalg::GenericOp> fused =
        fuseElementwiseProducer(rewriter, *operand);
    if (succeeded(fused))
      return *fused;
  }
  return {};
}

class FuseGatherProducersPass
    : public fuser::impl::FuserFuseGatherProducersPassBase<
          FuseGatherProducersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> gathers;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isGather(op))
        gathers.push_back(op);
    });
    for (linalg::GenericOp op : gathers) {
      unsigned absorbed = 0;
      while (linalg::GenericOp fused = fuseOneProducer(rewriter, op)) {
        op = fused;
        ++absorbed;
      }
      if (report && absorbed)
        op.emitRemark() << "fused " << absorbed
                        << " elementwise producer(s) of its indices into this "
                           "gather";
    }
  }
};

} // namespace
