//===- FoldUnitExpands.cpp - elementwise ops in their expanded shape ------===//
//
// See the pass description: an elementwise linalg.generic whose one use is
// a tensor.expand_shape adding size-1 dimensions is rebuilt in the expanded
// shape. Its consumers then read it through a broadcast map, which
// fuser-fuse-pointwise fuses, where the reshape between them stopped it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFOLDUNITEXPANDSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// For each dimension of `expand`'s source, the result dimension that
/// carries it: the one of its reassociation group that is not a static 1
/// (the group's first where all are). None where a group has two (a real
/// split of a dimension, not a broadcast view).
std::optional<SmallVector<int64_t>> carriedDims(tensor::ExpandShapeOp expand) {
  RankedTensorType resultTy = expand.getResultType();
  SmallVector<int64_t> carried;
  for (const ReassociationIndices &group : expand.getReassociationIndices()) {
    std::optional<int64_t> real;
    for (int64_t d : group) {
      if (resultTy.getDimSize(d) == 1)
        continue;
      if (real)
        return std::nullopt;
      real = d;
    }
    carried.push_back(real.value_or(group.front()));
  }
  return carried;
}

/// Rebuilds `expand`'s producer in the expanded shape where it is an
/// elementwise op of the same block that `expand` alone reads and `expand`
/// only adds size-1 dimensions.
void foldUnitExpand(RewriterBase &rewriter, tensor::ExpandShapeOp expand) {
  auto producer = expand.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!producer || producer->getBlock() != expand->getBlock() ||
      producer->getNumResults() != 1 ||
      !producer->getResult(0).hasOneUse() ||
      !whyNotElementwise(producer).empty() ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
    return;
  std::optional<SmallVector<int64_t>> carried = carriedDims(expand);
  if (!carried)
    return;

  MLIRContext *ctx = expand.getContext();
  RankedTensorType resultTy = expand.getResultType();
  unsigned rank = resultTy.getRank();
  // The producer's loops, from the expanded op's: loop i is the result
  // dimension that carries source dimension i.
  SmallVector<AffineExpr> sourceLoops;
  for (int64_t d : *carried)
    sourceLoops.push_back(getAffineDimExpr(d, ctx));
  AffineMap toSource = AffineMap::get(rank, 0, sourceLoops, ctx);
  SmallVector<AffineMap> maps;
  for (OpOperand *input : producer.getDpsInputOperands())
    maps.push_back(producer.getMatchingIndexingMap(input).compose(toSource));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));

  Location loc = producer.getLoc();
  rewriter.setInsertionPoint(expand);
  Value init = tensor::EmptyOp::create(
      rewriter, loc, expand.getMixedOutputShape(), resultTy.getElementType());
  auto expanded = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultTy}, producer.getDpsInputs(),
      ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel));
  IRMapping mapping;
  producer.getRegion().cloneInto(&expanded.getRegion(), mapping);
  Value oldInit = producer.getDpsInits()[0];
  rewriter.replaceOp(expand, expanded->getResults());
  rewriter.eraseOp(producer);
  if (Operation *empty = oldInit.getDefiningOp<tensor::EmptyOp>();
      empty && empty->use_empty())
    rewriter.eraseOp(empty);
}

struct FuserFoldUnitExpandsPass
    : fuser::impl::FuserFoldUnitExpandsPassBase<FuserFoldUnitExpandsPass> {
  void runOnOperation() override {
    SmallVector<tensor::ExpandShapeOp> expands;
    getOperation().walk(
        [&](tensor::ExpandShapeOp op) { expands.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (tensor::ExpandShapeOp expand : expands)
      foldUnitExpand(rewriter, expand);
  }
};

} // namespace
