//===- ElementwiseUtils.cpp - shared elementwise-op matching ----*- C++ -*-===//

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fuser-elementwise"

using namespace mlir;

bool fuser::isBroadcastRead(AffineMap map, Type type) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return false;
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return map.getNumResults() == 0;
  if (!shaped.hasRank() || shaped.getRank() != map.getNumResults())
    return false;
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (isa<AffineConstantExpr>(expr) && shaped.getDimSize(i) != 1)
      return false; // a slice of a longer (or dynamic) dimension
  return true;
}

std::pair<Value, AffineMap>
fuser::dropUnitDimReads(OpBuilder &builder, Value value, AffineMap map) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || map.isProjectedPermutation())
    return {value, map};
  assert(isBroadcastRead(map, type) && "not a broadcast read");
  // Each kept dimension forms one reassociation group with the unit
  // dimensions after it; leading unit dimensions join the first group. With
  // no dimension kept, there is no group: the result has rank 0.
  SmallVector<ReassociationIndices> groups;
  SmallVector<AffineExpr> kept;
  bool lastHasKept = false;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    bool isKept = !isa<AffineConstantExpr>(expr);
    if (isKept)
      kept.push_back(expr);
    if (groups.empty() || (isKept && lastHasKept)) {
      groups.emplace_back();
      lastHasKept = false;
    }
    groups.back().push_back(i);
    lastHasKept |= isKept;
  }
  if (kept.empty())
    groups.clear();
  AffineMap keptMap =
      AffineMap::get(map.getNumDims(), 0, kept, map.getContext());
  // A dense constant is reshaped as a constant, so that the splat ones
  // still become immediates (fuser-simplify-group-bodies).
  DenseElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense))) {
    SmallVector<int64_t> shape;
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (!isa<AffineConstantExpr>(expr))
        shape.push_back(type.getDimSize(i));
    auto viewTy = RankedTensorType::get(shape, type.getElementType());
    return {arith::ConstantOp::create(builder, value.getLoc(),
                                      dense.reshape(viewTy)),
            keptMap};
  }
  Value collapsed =
      tensor::CollapseShapeOp::create(builder, value.getLoc(), value, groups);
  return {collapsed, keptMap};
}

std::string fuser::whyNotElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics())
    return "it operates on buffers, not tensors";
  if (op.getNumParallelLoops() != op.getNumLoops())
    return "it has reduction iterators";
  if (op.getNumDpsInits() == 0)
    return "it has no outputs";
  auto firstInit = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!firstInit)
    return "its output is not a ranked tensor";
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return "it writes an output through a non-identity map";
    if (cast<RankedTensorType>(init.get().getType()).getShape() !=
        firstInit.getShape())
      return "its outputs have different shapes";
  }
  for (OpOperand *in : op.getDpsInputOperands()) {
    Type t = in->get().getType();
    if (isa<ShapedType>(t) && !isa<RankedTensorType>(t))
      return "it reads an unranked or non-tensor shaped input";
    if (!isBroadcastRead(op.getMatchingIndexingMap(in), t))
      return "it reads an input through a map that is not a broadcast or "
             "transpose";
  }
  Region &body = op.getRegion();
  for (Operation &inner : body.front().without_terminator()) {
    if (isa<linalg::IndexOp>(inner))
      return "its body uses linalg.index";
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            inner.getDialect()))
      return "its body uses '" + inner.getName().getStringRef().str() +
             "', which is not an arith or math op";
    if (inner.getNumRegions() != 0)
      return "its body has an op with regions";
    for (Value v : inner.getOperands())
      if (isa<ShapedType>(v.getType()))
        return "its body computes on shaped values";
  }
  return "";
}

bool fuser::isGeneralizableElementwise(linalg::LinalgOp op) {
  return !isa<linalg::GenericOp>(op) && op.hasPureTensorSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         op->getNumResults() > 0;
}

linalg::GenericOp fuser::generalizeIfElementwise(RewriterBase &rewriter,
                                                 linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  if (!isGeneralizableElementwise(op))
    return nullptr;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic)) {
    LLVM_DEBUG(llvm::dbgs() << "cannot generalize " << op << "\n");
    return nullptr;
  }
  return *generic;
}

void fuser::generalizeElementwiseNamedOps(Operation *root) {
  SmallVector<linalg::LinalgOp> named;
  root->walk([&](linalg::LinalgOp op) {
    if (isGeneralizableElementwise(op))
      named.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (linalg::LinalgOp op : named)
    (void)generalizeIfElementwise(rewriter, op);
}

SmallVector<OpOperand *> fuser::getReadOperands(linalg::GenericOp op) {
  SmallVector<OpOperand *> result = op.getDpsInputOperands();
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.payloadUsesValueFromOperand(&init))
      result.push_back(&init);
  return result;
}
