//===- SinkIntoExtracts.cpp - gathered elements from their producers ------===//
//
// See the pass description: an element a generic's body extracts from an
// elementwise generic's result is computed from that producer's inputs, so
// that a gather of a few elements does not need the whole tensor.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERSINKINTOEXTRACTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// The number of iterations of `op`'s loops, if static.
static std::optional<int64_t> staticTripCount(linalg::GenericOp op) {
  int64_t count = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    count *= range;
  }
  return count;
}

/// Whether `producer` is elementwise in the sense the rewrite needs: only
/// parallel loops, its result written through the identity, its inputs
/// read through projected permutations (constant 0s allowed), its body
/// pure and not reading the output.
static bool isSinkableProducer(linalg::GenericOp producer) {
  if (!producer.hasPureTensorSemantics() ||
      producer.getNumLoops() != producer.getNumParallelLoops())
    return false;
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (!producer.getMatchingIndexingMap(&init).isIdentity() ||
        producer.payloadUsesValueFromOperand(&init))
      return false;
  for (OpOperand *in : producer.getDpsInputOperands())
    if (!producer.getMatchingIndexingMap(in).isProjectedPermutation(
            /*allowZeroInResults=*/true))
      return false;
  for (Operation &inner : producer.getBody()->without_terminator())
    if (!isPure(&inner) || inner.getNumRegions() != 0)
      return false;
  return true;
}

/// An extract of `tensor` at `indices` before `at` in its block: the one
/// already there, else a new one. Reusing them keeps a producer that reads
/// a tensor twice (x * x) from doubling the extracts at every level.
static Value extractBefore(PatternRewriter &rewriter, Operation *at,
                           Value tensor, ArrayRef<Value> indices) {
  for (Operation &op : *at->getBlock()) {
    if (&op == at)
      break;
    auto extract = dyn_cast<tensor::ExtractOp>(op);
    auto sameIndex = [](Value a, Value b) {
      APInt x, y;
      return a == b || (matchPattern(a, m_ConstantInt(&x)) &&
                        matchPattern(b, m_ConstantInt(&y)) && x == y);
    };
    if (extract && extract.getTensor() == tensor &&
        llvm::equal(extract.getIndices(), indices, sameIndex))
      return extract.getResult();
  }
  return tensor::ExtractOp::create(rewriter, at->getLoc(), tensor, indices)
      .getResult();
}

struct SinkIntoExtract : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto consumer = extract->getParentOfType<linalg::GenericOp>();
    if (!consumer)
      return rewriter.notifyMatchFailure(extract, "not in a generic's body");
    auto producer = extract.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!producer || !isSinkableProducer(producer))
      return rewriter.notifyMatchFailure(extract, "no elementwise producer");
    std::optional<int64_t> gathered = staticTripCount(consumer);
    std::optional<int64_t> computed = staticTripCount(producer);
    if (gathered && computed && *gathered > *computed)
      return rewriter.notifyMatchFailure(
          extract, "gathers more elements than the producer computes");

    Location loc = extract.getLoc();
    // Loop k of the producer is the extract's index k (identity output).
    ValueRange at = extract.getIndices();
    IRMapping map;
    for (OpOperand *in : producer.getDpsInputOperands()) {
      BlockArgument arg = producer.getMatchingBlockArgument(in);
      if (!isa<RankedTensorType>(in->get().getType())) {
        map.map(arg, in->get()); // a scalar input
        continue;
      }
      SmallVector<Value> indices;
      for (AffineExpr e : producer.getMatchingIndexingMap(in).getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          indices.push_back(at[dim.getPosition()]);
        else
          indices.push_back(arith::ConstantIndexOp::create(
              rewriter, loc, cast<AffineConstantExpr>(e).getValue()));
      }
      map.map(arg, extractBefore(rewriter, extract, in->get(), indices));
    }
    Block *body = producer.getBody();
    for (Operation &inner : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), at[index.getDim()]);
        continue;
      }
      rewriter.clone(inner, map);
    }
    auto result = cast<OpResult>(extract.getTensor());
    Value yielded = body->getTerminator()->getOperand(result.getResultNumber());
    rewriter.replaceOp(extract, map.lookupOrDefault(yielded));
    return success();
  }
};

struct FuserSinkIntoExtractsPass
    : fuser::impl::FuserSinkIntoExtractsPassBase<FuserSinkIntoExtractsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkIntoExtract>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
