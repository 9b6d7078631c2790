//===- FoldBroadcastExtracts.cpp - torch-mlir's broadcasts as maps --------===//
//
// See the pass description: a generic's tensor.extract at loop indices,
// constants, or torch-mlir's run-time broadcast select becomes an input
// read through an indexing map, which fusion can take.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFOLDBROADCASTEXTRACTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// The loop of `op` that `v` reads as a `linalg.index` of `op` itself (not
/// of an enclosing generic), if it is one.
static std::optional<unsigned> loopIndexOf(linalg::GenericOp op, Value v) {
  auto index = v.getDefiningOp<linalg::IndexOp>();
  if (index && index->getParentOp() == op.getOperation())
    return index.getDim();
  return std::nullopt;
}

/// A size, normalized so that two ways of writing it compare equal: a
/// constant, a dimension of a tensor no op here sizes (an argument's), or
/// an index value.
struct Size {
  std::optional<int64_t> constant;
  Value base;
  int64_t dim = -1;
  bool operator==(const Size &other) const {
    return constant == other.constant && base == other.base && dim == other.dim;
  }
};

static Size sizeOfDim(Value tensor, int64_t dim);

/// An index value as a Size: a constant, or a tensor.dim followed to the
/// tensor's size.
static Size sizeOfValue(Value v) {
  APInt constant;
  if (matchPattern(v, m_ConstantInt(&constant)))
    return {constant.getSExtValue(), {}, -1};
  if (auto dimOp = v.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> index = dimOp.getConstantIndex())
      return sizeOfDim(dimOp.getSource(), *index);
  return {std::nullopt, v, -1};
}

/// Dimension `dim` of `tensor` as a Size: static, a tensor.empty's size,
/// a destination-style op's result sized as its init, else the dimension.
static Size sizeOfDim(Value tensor, int64_t dim) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return {type.getDimSize(dim), {}, -1};
  if (auto empty = tensor.getDefiningOp<tensor::EmptyOp>())
    return sizeOfValue(empty.getDynamicSize(dim));
  if (auto result = dyn_cast<OpResult>(tensor))
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner()))
      if (OpOperand *init = dps.getTiedOpOperand(result))
        return sizeOfDim(init->get(), dim);
  return {std::nullopt, tensor, dim};
}

/// The extent of loop `loop` of `op`: the size of an operand's dimension
/// that the loop indexes directly, if one does.
static std::optional<Size> loopExtent(linalg::GenericOp op, unsigned loop) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, expr] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(expr); d && d.getPosition() == loop)
        return sizeOfDim(operand.get(), dim);
  }
  return std::nullopt;
}

/// Whether `size` is provably the extent of loop `loop` of `op`.
static bool isLoopExtent(linalg::GenericOp op, unsigned loop, Size size) {
  std::optional<Size> extent = loopExtent(op, loop);
  return extent && *extent == size;
}

/// The map expression of one extract index, if the index is a loop index,
/// a constant, or `select(S == 1, 0, index k)` with S loop k's extent.
static std::optional<AffineExpr> indexExpr(linalg::GenericOp op, Value index) {
  MLIRContext *ctx = op.getContext();
  if (std::optional<unsigned> loop = loopIndexOf(op, index))
    return getAffineDimExpr(*loop, ctx);
  APInt constant;
  if (matchPattern(index, m_ConstantInt(&constant)))
    return getAffineConstantExpr(constant.getSExtValue(), ctx);
  auto select = index.getDefiningOp<arith::SelectOp>();
  if (!select || !matchPattern(select.getTrueValue(), m_Zero()))
    return std::nullopt;
  std::optional<unsigned> loop = loopIndexOf(op, select.getFalseValue());
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!loop || !cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value size = cmp.getLhs();
  if (!matchPattern(cmp.getRhs(), m_One())) {
    if (!matchPattern(cmp.getLhs(), m_One()))
      return std::nullopt;
    size = cmp.getRhs();
  }
  // The size must come from outside the body, where the extent lives.
  if (op->isAncestor(size.getParentRegion()->getParentOp()) ||
      !isLoopExtent(op, *loop, sizeOfValue(size)))
    return std::nullopt;
  return getAffineDimExpr(*loop, ctx);
}

/// Whether `tensor`, read through `map`, has the size of each loop it reads
/// directly: linalg takes loop extents from its operands, so a larger
/// tensor (read in part by the extract) must not become one.
static bool sizedAsLoops(linalg::GenericOp op, Value tensor, AffineMap map) {
  for (auto [dim, expr] : llvm::enumerate(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      if (!isLoopExtent(op, d.getPosition(), sizeOfDim(tensor, dim)))
        return false;
  return true;
}

struct FoldBroadcastExtracts : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Block &body = op.getRegion().front();
    SmallVector<tensor::ExtractOp> extracts;
    SmallVector<AffineMap> maps;
    for (auto extract : body.getOps<tensor::ExtractOp>()) {
      if (op->isAncestor(extract.getTensor().getParentRegion()->getParentOp()))
        continue;
      SmallVector<AffineExpr> exprs;
      for (Value index : extract.getIndices()) {
        std::optional<AffineExpr> e = indexExpr(op, index);
        if (!e)
          break;
        exprs.push_back(*e);
      }
      if (exprs.size() != extract.getIndices().size())
        continue;
      AffineMap map = AffineMap::get(op.getNumLoops(), 0, exprs, getContext());
      if (!sizedAsLoops(op, extract.getTensor(), map))
        continue;
      extracts.push_back(extract);
      maps.push_back(map);
    }
    if (extracts.empty())
      return rewriter.notifyMatchFailure(op, "no extract reads through a map");

    SmallVector<Value> inputs = op.getDpsInputs();
    SmallVector<AffineMap> indexingMaps;
    for (OpOperand *in : op.getDpsInputOperands())
      indexingMaps.push_back(op.getMatchingIndexingMap(in));
    for (auto [extract, map] : llvm::zip(extracts, maps)) {
      inputs.push_back(extract.getTensor());
      indexingMaps.push_back(map);
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      indexingMaps.push_back(op.getMatchingIndexingMap(&init));
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
        indexingMaps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), generic.getRegion(),
                                generic.getRegion().end());
    // The new inputs' arguments go after the old inputs', before the
    // outputs'.
    Block &moved = generic.getRegion().front();
    unsigned position = op.getNumDpsInputs();
    for (tensor::ExtractOp extract : extracts) {
      BlockArgument arg =
          moved.insertArgument(position++, extract.getType(), extract.getLoc());
      rewriter.replaceOp(extract, arg);
    }
    rewriter.replaceOp(op, generic->getResults());
    return success();
  }
};

struct FuserFoldBroadcastExtractsPass
    : fuser::impl::FuserFoldBroadcastExtractsPassBase<
          FuserFoldBroadcastExtractsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBroadcastExtracts>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
