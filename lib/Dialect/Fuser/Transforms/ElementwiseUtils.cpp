//===- ElementwiseUtils.cpp - shared elementwise-op matching ----*- C++ -*-===//

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/Debug.h"

#include <cmath>

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

bool fuser::readsEachElementOnce(AffineMap map, Type type,
                                 ArrayRef<int64_t> loopRanges) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() ||
      shaped.getRank() != map.getNumResults() || map.getNumSymbols() != 0 ||
      loopRanges.size() != map.getNumDims())
    return false;
  llvm::SmallBitVector seen(map.getNumDims());
  for (auto [d, range] : llvm::enumerate(loopRanges))
    if (range == 1)
      seen.set(d);
  for (auto [p, e] : llvm::enumerate(map.getResults())) {
    if (auto c = dyn_cast<AffineConstantExpr>(e);
        c && c.getValue() == 0 && shaped.getDimSize(p) == 1)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return false;
    unsigned d = dim.getPosition();
    if (seen.test(d) && loopRanges[d] != 1)
      return false; // read twice
    seen.set(d);
  }
  return seen.all();
}

FailureOr<linalg::GenericOp>
fuser::fuseElementwiseProducer(RewriterBase &rewriter, OpOperand &operand) {
  Operation *consumer = operand.getOwner();
  Operation *producer = operand.get().getDefiningOp();
  rewriter.setInsertionPoint(consumer); // where the fused op goes
  FailureOr<linalg::ElementwiseOpFusionResult> fused =
      linalg::fuseElementwiseOps(rewriter, &operand);
  if (failed(fused))
    return failure();
  for (auto [original, replacement] : fused->replacements)
    rewriter.replaceAllUsesWith(original, replacement);
  rewriter.eraseOp(consumer);
  rewriter.eraseOp(producer);
  auto fusedOp = cast<linalg::GenericOp>(fused->fusedOp);
  FailureOr<linalg::GenericOp> deduplicated =
      linalg::deduplicateOperandsAndRemoveDeadResults(rewriter, fusedOp,
                                                      /*removeOutputs=*/false);
  return succeeded(deduplicated) ? *deduplicated : fusedOp;
}

SmallVector<OpFoldResult> fuser::destinationSizes(OpBuilder &b, Location loc,
                                                  Value v) {
  while (auto dps = v.getDefiningOp<DestinationStyleOpInterface>())
    v = dps.getTiedOpOperand(cast<OpResult>(v))->get();
  return tensor::getMixedSizes(b, loc, v);
}

Value fuser::mapElements(
    OpBuilder &b, Location loc, Value v, Type elementType,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(v.getType());
  Value empty = tensor::EmptyOp::create(b, loc, destinationSizes(b, loc, v),
                                        elementType, type.getEncoding());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{empty.getType()}, ValueRange{v},
             ValueRange{empty}, ArrayRef<AffineMap>{id, id}, parallel,
             [&](OpBuilder &nb, Location at, ValueRange args) {
               linalg::YieldOp::create(nb, at, fn(nb, at, args[0]));
             })
      .getResult(0);
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

/// The constant `v` holds, looking through tensor reshapes of a constant
/// (row-major order is unchanged by them).
static DenseElementsAttr constantTensor(Value v) {
  if (auto reshape = v.getDefiningOp<tensor::ExpandShapeOp>())
    if (DenseElementsAttr src = constantTensor(reshape.getSrc()))
      return src.reshape(reshape.getResultType());
  if (auto reshape = v.getDefiningOp<tensor::CollapseShapeOp>())
    if (DenseElementsAttr src = constantTensor(reshape.getSrc()))
      return src.reshape(reshape.getResultType());
  DenseElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)))
    return attr;
  return {};
}

LogicalResult mlir::fuser::foldScalarBody(Block &body,
                                          DenseMap<Value, Attribute> &value) {
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumResults() == 1 && value.count(inner.getResult(0)))
      continue; // given (linalg.index)
    if (inner.getNumRegions() != 0 || inner.getNumResults() != 1)
      return failure();
    auto known = [&](Value v) {
      Attribute a = value.lookup(v);
      if (!a)
        matchPattern(v, m_Constant(&a));
      return a;
    };
    Attribute result;
    if (auto trunc = dyn_cast<arith::TruncFOp>(inner);
        trunc && !trunc.getRoundingmodeAttr()) {
      // Its folder keeps inexact truncations (0.01 : f64); the op rounds
      // to nearest even.
      auto in = dyn_cast_or_null<FloatAttr>(known(trunc.getIn()));
      if (!in)
        return failure();
      APFloat f = in.getValue();
      bool losesInfo;
      f.convert(cast<FloatType>(trunc.getType()).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &losesInfo);
      result = FloatAttr::get(trunc.getType(), f);
    } else if (auto select = dyn_cast<arith::SelectOp>(inner)) {
      // Its folder reads a constant condition off the value, not the
      // attribute.
      auto cond = dyn_cast_or_null<IntegerAttr>(known(select.getCondition()));
      if (!cond)
        return failure();
      result = known(cond.getValue().isZero() ? select.getFalseValue()
                                              : select.getTrueValue());
    } else if (auto rsqrt = dyn_cast<math::RsqrtOp>(inner)) {
      // No folder upstream: 1 / sqrt(x), rounded once from f64.
      auto in = dyn_cast_or_null<FloatAttr>(known(rsqrt.getOperand()));
      if (!in)
        return failure();
      result = FloatAttr::get(rsqrt.getType(),
                              1.0 / std::sqrt(in.getValueAsDouble()));
    } else {
      SmallVector<Attribute> operands;
      for (Value v : inner.getOperands())
        operands.push_back(known(v));
      SmallVector<OpFoldResult> folded;
      if (failed(inner.fold(operands, folded)) || folded.size() != 1)
        return failure();
      result = dyn_cast<Attribute>(folded[0]);
      if (!result)
        result = known(cast<Value>(folded[0]));
    }
    if (!result || !isa<IntegerAttr, FloatAttr>(result))
      return failure();
    value[inner.getResult(0)] = result;
  }
  return success();
}

/// The elements of `op`'s results, if its body folds at every point.
static std::optional<SmallVector<SmallVector<Attribute>>>
evaluateGeneric(linalg::GenericOp op, int64_t maxElements) {
  if (!op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getRegion().hasOneBlock())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t count = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    count *= r;
  }
  if (count > maxElements || count == 0)
    return std::nullopt;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity() ||
        !op.getMatchingBlockArgument(&init).use_empty())
      return std::nullopt;
  // Inputs: constants only (a scalar, or a tensor read through its map).
  SmallVector<DenseElementsAttr> tensors;
  SmallVector<Attribute> scalars;
  for (OpOperand *in : op.getDpsInputOperands()) {
    Attribute scalar;
    DenseElementsAttr t;
    if (!isa<ShapedType>(in->get().getType())) {
      if (!matchPattern(in->get(), m_Constant(&scalar)))
        return std::nullopt;
    } else if (!(t = constantTensor(in->get()))) {
      return std::nullopt;
    }
    tensors.push_back(t);
    scalars.push_back(scalar);
  }
  Block &body = op.getRegion().front();
  // Only what fusion cannot do better: bodies with linalg.index, or readers
  // of such values. A fill or a splat computation stays, for the groups to
  // make immediates of.
  bool usesIndex = llvm::any_of(body.without_terminator(), [](Operation &o) {
    return isa<linalg::IndexOp>(o);
  });
  bool readsArray = llvm::any_of(
      tensors, [](DenseElementsAttr t) { return t && !t.isSplat(); });
  if (!usesIndex && !readsArray)
    return std::nullopt;
  // Values captured from above must be constants too.
  DenseMap<Value, Attribute> captured;
  for (Operation &inner : body.without_terminator())
    for (Value v : inner.getOperands())
      if (v.getParentRegion() != &op.getRegion() && !captured.count(v)) {
        Attribute a;
        if (!matchPattern(v, m_Constant(&a)))
          return std::nullopt;
        captured[v] = a;
      }

  MLIRContext *ctx = op.getContext();
  SmallVector<SmallVector<Attribute>> results(op->getNumResults());
  SmallVector<int64_t> point(ranges.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rest = linear;
    for (int64_t d = ranges.size() - 1; d >= 0; --d) {
      point[d] = rest % ranges[d];
      rest /= ranges[d];
    }
    DenseMap<Value, Attribute> value(captured);
    for (auto [i, in] : llvm::enumerate(op.getDpsInputOperands())) {
      BlockArgument arg = op.getMatchingBlockArgument(in);
      if (!tensors[i]) {
        value[arg] = scalars[i];
        continue;
      }
      SmallVector<int64_t> at = op.getMatchingIndexingMap(in).compose(point);
      ArrayRef<int64_t> shape = tensors[i].getType().getShape();
      int64_t flat = 0;
      for (auto [x, extent] : llvm::zip(at, shape))
        flat = flat * extent + x;
      value[arg] = tensors[i].getValues<Attribute>()[flat];
    }
    for (Operation &inner : body.without_terminator())
      if (auto idx = dyn_cast<linalg::IndexOp>(inner))
        value[idx] = IntegerAttr::get(IndexType::get(ctx), point[idx.getDim()]);
    if (failed(mlir::fuser::foldScalarBody(body, value)))
      return std::nullopt;
    for (auto [r, yielded] :
         llvm::enumerate(body.getTerminator()->getOperands())) {
      Attribute a = value.lookup(yielded);
      if (!a)
        return std::nullopt;
      results[r].push_back(a);
    }
  }
  return results;
}

/// True if every use of `v` is a linalg op reading it (through tensor
/// reshapes): a constant the function returned would have no kernel to
/// write its result.
static bool onlyReadByLinalg(Value v) {
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
      return onlyReadByLinalg(user->getResult(0));
    return isa<linalg::LinalgOp>(user);
  });
}

unsigned fuser::foldConstantGenerics(
    Operation *root, int64_t maxElements,
    function_ref<void(Operation *, const Twine &)> remark) {
  SmallVector<linalg::GenericOp> ops;
  root->walk([&](linalg::GenericOp op) { ops.push_back(op); });
  unsigned replaced = 0;
  for (linalg::GenericOp op : ops) { // program order: producers first
    if (!llvm::all_of(op->getResults(), onlyReadByLinalg))
      continue;
    std::optional<SmallVector<SmallVector<Attribute>>> values =
        evaluateGeneric(op, maxElements);
    if (!values)
      continue;
    remark(op, "evaluated at compile time (its value depends on constants "
               "and indices only): a constant, no kernel");
    OpBuilder b(op);
    for (auto [result, elems] : llvm::zip(op->getResults(), *values)) {
      auto type = cast<RankedTensorType>(result.getType());
      auto attr = DenseElementsAttr::get(type, elems);
      result.replaceAllUsesWith(
          arith::ConstantOp::create(b, op.getLoc(), type, attr));
    }
    op->erase();
    ++replaced;
  }
  return replaced;
}

std::optional<APFloat> mlir::fuser::getFloatConstant(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto splat = dyn_cast<SplatElementsAttr>(attr))
    attr = splat.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValue();
  return std::nullopt;
}

std::optional<APFloat> mlir::fuser::getFillConstant(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  return getFloatConstant(fill.getInputs()[0]);
}
