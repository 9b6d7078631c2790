//===- ReductionLoopsInnermost.cpp - parallel loops first for the fallback ===//
//
// The generic fallback's grid covers the parallel loops that lead a linalg
// op's loop nest; a reduction loop before a parallel one serialises the
// rest. Interchanging the loops (parallel first, then reduction, each in
// its order) makes every output element a thread.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERREDUCTIONLOOPSINNERMOSTPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// The loops of `op` reordered parallel first, or empty when they already
/// are.
SmallVector<unsigned> parallelLoopsFirst(linalg::GenericOp op) {
  SmallVector<unsigned> order;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it != utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, loop] : llvm::enumerate(order))
    if (loop != i)
      return order;
  return {};
}

class ReductionLoopsInnermostPass
    : public fuser::impl::FuserReductionLoopsInnermostPassBase<
          ReductionLoopsInnermostPass> {
public:
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      SmallVector<unsigned> order = parallelLoopsFirst(op);
      if (order.empty())
        continue;
      rewriter.setInsertionPoint(op);
      if (failed(linalg::interchangeGenericOp(rewriter, op, order))) {
        op.emitError("cannot reorder the loops parallel first");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
