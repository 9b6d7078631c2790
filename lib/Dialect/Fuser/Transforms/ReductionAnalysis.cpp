//===- ReductionAnalysis.cpp - reductions fuser gives a kernel ------------===//

#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

/// The identity of `combiner` on `type`, or null when it is no associative,
/// commutative combiner fuser reduces in parallel.
static TypedAttr combinerIdentity(Operation *combiner, Type type) {
  Builder b(combiner->getContext());
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    auto f = [&](const APFloat &v) { return b.getFloatAttr(ft, v); };
    return TypeSwitch<Operation *, TypedAttr>(combiner)
        .Case<arith::AddFOp>([&](auto) { return f(APFloat::getZero(sem)); })
        .Case<arith::MulFOp>([&](auto) { return f(APFloat::getOne(sem)); })
        .Case<arith::MaximumFOp, arith::MinimumFOp>([&](auto op) {
          // Types without infinities (f8E4M3FN) have no identity here.
          APFloat inf = APFloat::getInf(sem, isa<arith::MaximumFOp>(op));
          return inf.isInfinity() ? f(inf) : TypedAttr();
        })
        // maxnum(NaN, x) = x: NaN is their identity.
        .Case<arith::MaxNumFOp, arith::MinNumFOp>(
            [&](auto) { return f(APFloat::getQNaN(sem)); })
        .Default([](Operation *) { return TypedAttr(); });
  }
  auto it = dyn_cast<IntegerType>(type);
  if (!it)
    return {};
  unsigned w = it.getWidth();
  auto i = [&](const APInt &v) { return b.getIntegerAttr(it, v); };
  return TypeSwitch<Operation *, TypedAttr>(combiner)
      .Case<arith::AddIOp, arith::OrIOp, arith::XOrIOp, arith::MaxUIOp>(
          [&](auto) { return i(APInt::getZero(w)); })
      .Case<arith::MulIOp>([&](auto) { return i(APInt(w, 1)); })
      .Case<arith::AndIOp, arith::MinUIOp>(
          [&](auto) { return i(APInt::getAllOnes(w)); })
      .Case<arith::MaxSIOp>(
          [&](auto) { return i(APInt::getSignedMinValue(w)); })
      .Case<arith::MinSIOp>(
          [&](auto) { return i(APInt::getSignedMaxValue(w)); })
      .Default([](Operation *) { return TypedAttr(); });
}

/// Whether `v` is `linalg.index d` cast to an integer, with d a reduction
/// loop; sets `loop` to d.
static bool isReductionIndex(linalg::GenericOp op, Value v, unsigned &loop) {
  if (auto cast = v.getDefiningOp<arith::IndexCastOp>())
    v = cast.getIn();
  else if (auto castUI = v.getDefiningOp<arith::IndexCastUIOp>())
    v = castUI.getIn();
  auto index = v.getDefiningOp<linalg::IndexOp>();
  if (!index || index->getBlock() != &op.getRegion().front())
    return false;
  loop = index.getDim();
  return op.getIteratorTypesArray()[loop] == utils::IteratorType::reduction;
}

/// Matches the body of a value-and-index reduction (ArgReduction):
///   best = max(v, accValue)            (maximumf, minimumf, maxsi, minsi)
///   better = cmp(v, accValue)          (strictly better, either order)
///   index = select(better, i(d), accIndex)
/// with the running results read nowhere else.
static LogicalResult matchArgReduction(linalg::GenericOp op,
                                       ReductionShape &shape,
                                       std::string &why) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  for (unsigned valueResult : {0u, 1u}) {
    unsigned indexResult = 1 - valueResult;
    BlockArgument accValue =
        op.getMatchingBlockArgument(op.getDpsInitOperand(valueResult));
    BlockArgument accIndex =
        op.getMatchingBlockArgument(op.getDpsInitOperand(indexResult));
    Operation *combiner = yield.getValues()[valueResult].getDefiningOp();
    auto select =
        yield.getValues()[indexResult].getDefiningOp<arith::SelectOp>();
    if (!combiner || !select || combiner->getBlock() != &body ||
        select->getBlock() != &body ||
        !isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxSIOp,
             arith::MinSIOp>(combiner) ||
        select.getFalseValue() != accIndex || !accIndex.hasOneUse() ||
        !combiner->getResult(0).hasOneUse() ||
        !select->getResult(0).hasOneUse())
      continue;
    bool seeksMax = isa<arith::MaximumFOp, arith::MaxSIOp>(combiner);
    unsigned accOperand = combiner->getOperand(0) == accValue ? 0 : 1;
    if (combiner->getOperand(accOperand) != accValue)
      continue;
    Value value = combiner->getOperand(1 - accOperand);
    Operation *cmp = select.getCondition().getDefiningOp();
    if (!cmp || !cmp->getResult(0).hasOneUse() || cmp->getNumOperands() != 2)
      continue;
    // The comparison asks "value strictly better than the running one".
    bool valueFirst =
        cmp->getOperand(0) == value && cmp->getOperand(1) == accValue;
    bool accFirst =
        cmp->getOperand(0) == accValue && cmp->getOperand(1) == value;
    if (!valueFirst && !accFirst)
      continue;
    bool wantsGreater = seeksMax == valueFirst;
    bool strict = false;
    if (auto f = dyn_cast<arith::CmpFOp>(cmp))
      strict = f.getPredicate() == (wantsGreater ? arith::CmpFPredicate::OGT
                                                 : arith::CmpFPredicate::OLT);
    else if (auto i = dyn_cast<arith::CmpIOp>(cmp))
      strict = i.getPredicate() == (wantsGreater ? arith::CmpIPredicate::sgt
                                                 : arith::CmpIPredicate::slt);
    unsigned loop = 0;
    if (!strict || !isReductionIndex(op, select.getTrueValue(), loop) ||
        op.getNumReductionLoops() != 1)
      continue;
    if (llvm::any_of(accValue.getUsers(), [&](Operation *user) {
          return user != combiner && user != cmp;
        }))
      continue;
    auto indexTy = dyn_cast<IntegerType>(accIndex.getType());
    if (!indexTy || indexTy.getWidth() < 32 || indexTy.getWidth() > 64)
      continue;
    shape.combiner = combiner;
    shape.accumulatorOperand = accOperand;
    shape.arg = ArgReduction{valueResult, indexResult, loop, seeksMax};
    shape.accumulating = {combiner, cmp, select};
    return success();
  }
  why = "the body of two results is no value-and-index reduction (max or "
        "min of a value, and the index where it was strictly better)";
  return failure();
}

/// The online softmax form (OnlineSoftmax in ReductionAnalysis.h) that
/// fuser-online-softmax builds and marks: result 0 yields maximumf(m, x)
/// for a value x that reads neither running result, both results f32;
/// results 2, ... (fuser-merge-sibling-reductions) each fold a value that
/// reads no running result into their own accumulator. `accumulating` gets
/// every body op that reads a running result.
static LogicalResult matchOnlineSoftmax(linalg::GenericOp op,
                                        ReductionShape &shape,
                                        std::string &why) {
  why = "the body of two results is no value-and-index reduction (max or "
        "min of a value, and the index where it was strictly better)";
  if (!op->hasAttr(kOnlineSoftmaxAttrName))
    return failure();
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  BlockArgument accMax = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  BlockArgument accSum = op.getMatchingBlockArgument(op.getDpsInitOperand(1));
  auto combiner = yield.getValues()[0].getDefiningOp<arith::MaximumFOp>();
  why = "a reduction marked '" + kOnlineSoftmaxAttrName.str() +
        "' does not yield maximumf(running maximum, value) and an f32 sum";
  if (!combiner || combiner->getBlock() != &body || !accMax.getType().isF32() ||
      !accSum.getType().isF32())
    return failure();
  unsigned accOperand = combiner.getLhs() == accMax ? 0 : 1;
  if (combiner->getOperand(accOperand) != accMax)
    return failure();
  // The ops that read a running result, directly or not.
  DenseSet<Value> tainted;
  for (OpOperand &init : op.getDpsInitsMutable())
    tainted.insert(op.getMatchingBlockArgument(&init));
  for (Operation &inner : body.without_terminator())
    if (llvm::any_of(inner.getOperands(),
                     [&](Value v) { return tainted.contains(v); })) {
      shape.accumulating.push_back(&inner);
      tainted.insert(inner.result_begin(), inner.result_end());
    }
  if (tainted.contains(combiner->getOperand(1 - accOperand)))
    return failure();
  for (unsigned k = 2; k < op.getNumDpsInits(); ++k) {
    BlockArgument acc = op.getMatchingBlockArgument(op.getDpsInitOperand(k));
    Operation *fold = yield.getValues()[k].getDefiningOp();
    why = "a result of a reduction marked '" + kOnlineSoftmaxAttrName.str() +
          "' after its maximum and sum does not fold a value into its own "
          "accumulator";
    if (!fold || fold->getBlock() != &body || fold->getNumOperands() != 2 ||
        !acc.hasOneUse() || acc.getUses().begin()->getOwner() != fold ||
        !fold->getResult(0).hasOneUse())
      return failure();
    unsigned operand = fold->getOperand(0) == acc ? 0 : 1;
    if (tainted.contains(fold->getOperand(1 - operand)))
      return failure();
    shape.siblings.push_back({fold, operand, TypedAttr()});
  }
  shape.combiner = combiner;
  shape.accumulatorOperand = accOperand;
  shape.online = OnlineSoftmax{0, 1};
  return success();
}

SmallVector<std::pair<unsigned, int64_t>>
mlir::fuser::windowTerms(AffineExpr e) {
  if (auto dim = dyn_cast<AffineDimExpr>(e))
    return {{dim.getPosition(), 1}};
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return {};
  if (bin.getKind() == AffineExprKind::Add) {
    auto lhs = windowTerms(bin.getLHS()), rhs = windowTerms(bin.getRHS());
    if (lhs.empty() || rhs.empty())
      return {};
    lhs.append(rhs);
    return lhs;
  }
  auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
  auto dim = dyn_cast<AffineDimExpr>(bin.getLHS());
  if (bin.getKind() == AffineExprKind::Mul && c && dim && c.getValue() > 0)
    return {{dim.getPosition(), c.getValue()}};
  return {};
}

/// Whether `map` reads a static `type` through a window map: every result a
/// constant or windowTerms, each loop read by one result at most.
static bool isWindowRead(AffineMap map, ShapedType type) {
  if (!type.hasStaticShape())
    return false;
  llvm::SmallDenseSet<unsigned> seen;
  for (AffineExpr e : map.getResults()) {
    if (isa<AffineConstantExpr>(e))
      continue;
    auto terms = windowTerms(e);
    if (terms.empty())
      return false;
    for (auto [d, c] : terms)
      if (!seen.insert(d).second)
        return false;
  }
  return true;
}

FailureOr<ReductionShape> mlir::fuser::analyzeReduction(linalg::GenericOp op,
                                                        std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  unsigned results = op->getNumResults();
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != results ||
      results == 0 || results > kMaxSiblingReductions)
    return fail("a reduction kernel takes one tensor result, a value and "
                "its index, or up to " +
                Twine(kMaxSiblingReductions) + " independent reductions");
  if (op.getNumReductionLoops() == 0)
    return fail("not a reduction");
  if (op.getNumLoops() != op.getNumParallelLoops() + op.getNumReductionLoops())
    return fail("only parallel and reduction loops");
  // Operands: whole-byte elements, or i1 inputs (masks, a byte each in
  // memory, as PyTorch's bool), read through loops or constant 0s on size-1
  // dimensions.
  for (OpOperand &operand : op->getOpOperands()) {
    auto t = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!t)
      return fail("a scalar input");
    Type e = t.getElementType();
    bool mask = e.isInteger(1) && op.isDpsInput(&operand);
    if (!e.isIntOrFloat() || (e.getIntOrFloatBitWidth() % 8 != 0 && !mask))
      return fail("an element type of fewer than 8 bits");
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) &&
        (op.isDpsInit(&operand) || !isWindowRead(map, t)))
      return fail("an operand read through a map that is neither a projected "
                  "permutation nor a window (stride * i + dilation * k) of a "
                  "static shape");
    for (auto [p, e] : llvm::enumerate(map.getResults()))
      if (isa<AffineConstantExpr>(e) && t.getDimSize(p) != 1)
        return fail("a constant index into a dimension of size other than 1");
  }
  // Each output element is one point of the parallel loops, the same
  // point in every output.
  OpOperand *init = op.getDpsInitOperand(0);
  for (OpOperand &other : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&other) != op.getMatchingIndexingMap(init))
      return fail("the outputs are indexed differently");
  unsigned outLoops = 0;
  for (AffineExpr e : op.getMatchingIndexingMap(init).getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      continue;
    if (!(op.getIteratorTypesArray()[dim.getPosition()] ==
          utils::IteratorType::parallel))
      return fail("the output is indexed by a reduction loop");
    ++outLoops;
  }
  if (outLoops != op.getNumParallelLoops())
    return fail("the output is not indexed by every parallel loop");

  // yield combiner(value, acc), with acc used nowhere else, or the arg
  // form.
  ReductionShape shape;
  Block &body = op.getRegion().front();
  // Result k folds one value into its own accumulator: yield[k] =
  // combiner(value, acc_k), acc_k read there only, the value reading no
  // accumulator.
  auto matchFolds = [&]() -> LogicalResult {
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    DenseSet<Value> accs;
    for (OpOperand &out : op.getDpsInitsMutable())
      accs.insert(op.getMatchingBlockArgument(&out));
    SmallVector<ReductionShape::Fold> folds;
    shape.accumulating.clear();
    for (auto [k, out] : llvm::enumerate(op.getDpsInitsMutable())) {
      BlockArgument acc = op.getMatchingBlockArgument(&out);
      Operation *combiner = yield.getValues()[k].getDefiningOp();
      if (!combiner || combiner->getBlock() != &body ||
          combiner->getNumOperands() != 2 || !acc.hasOneUse() ||
          acc.getUses().begin()->getOwner() != combiner ||
          !combiner->getResult(0).hasOneUse())
        return fail(results == 1 ? "the body does not fold one value into the "
                                   "accumulator"
                                 : "the body does not fold one value into each "
                                   "accumulator");
      unsigned accOperand = combiner->getOperand(0) == acc ? 0 : 1;
      Value value = combiner->getOperand(1 - accOperand);
      if (Operation *def = value.getDefiningOp();
          accs.contains(value) ||
          (def && llvm::any_of(def->getOperands(),
                               [&](Value v) { return accs.contains(v); })))
        return fail("a reduction's value reads another's accumulator");
      folds.push_back({combiner, accOperand, TypedAttr()});
      shape.accumulating.push_back(combiner);
    }
    shape.combiner = folds[0].combiner;
    shape.accumulatorOperand = folds[0].accumulatorOperand;
    shape.siblings.assign(folds.begin() + 1, folds.end());
    return success();
  };
  if (results >= 2 && op->hasAttr(kOnlineSoftmaxAttrName)) {
    if (failed(matchOnlineSoftmax(op, shape, why)))
      return failure();
  } else if (results == 2 && succeeded(matchArgReduction(op, shape, why))) {
  } else if (failed(matchFolds())) {
    if (results == 2)
      why = "the body of two results is no value-and-index reduction (max or "
            "min of a value, and the index where it was strictly better), no "
            "online softmax and no two independent folds";
    return failure();
  }
  for (Operation &inner : body.without_terminator()) {
    // The kernel clones the body op by op: no nested regions.
    if (inner.getNumRegions() != 0)
      return fail("the body has an op with regions");
    if (!isa<linalg::IndexOp>(inner) && !isMemoryEffectFree(&inner))
      return fail("the body has side effects");
    for (Value v : inner.getOperands())
      if (v.getParentRegion() != &op.getRegion() &&
          (!matchPattern(v, m_Constant()) ||
           !(v.getType().isIntOrIndexOrFloat())))
        return fail("the body reads a value from outside that is no "
                    "scalar constant");
  }
  Operation *combiner = shape.combiner;
  shape.identity = combinerIdentity(
      combiner, combiner->getOperand(shape.accumulatorOperand).getType());
  if (!shape.identity)
    return fail(Twine("'") + combiner->getName().getStringRef() +
                "' is no associative combiner with an identity");
  for (ReductionShape::Fold &fold : shape.siblings) {
    fold.identity = combinerIdentity(
        fold.combiner,
        fold.combiner->getOperand(fold.accumulatorOperand).getType());
    if (!fold.identity)
      return fail(Twine("'") + fold.combiner->getName().getStringRef() +
                  "' is no associative combiner with an identity");
  }

  // Loop order: as the widest input lays them out, loops it does not read
  // outermost; within a window result (i + k) the window loop outside the
  // output's, so neighbouring outputs are neighbouring threads.
  auto loopsRead = [&](OpOperand *in) {
    AffineMap map = op.getMatchingIndexingMap(in);
    return llvm::count_if(llvm::seq<unsigned>(0, op.getNumLoops()),
                          [&](unsigned d) { return map.isFunctionOfDim(d); });
  };
  OpOperand *primary = nullptr;
  for (OpOperand *in : op.getDpsInputOperands())
    if (!primary || loopsRead(in) > loopsRead(primary))
      primary = in;
  // Loops of static extent 1 do not decide the layout (a sum over dim 0
  // of ?x1 is a row sum in memory).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> order;
  auto iterators = op.getIteratorTypesArray();
  if (primary)
    for (AffineExpr e : op.getMatchingIndexingMap(primary).getResults()) {
      auto terms = windowTerms(e);
      llvm::stable_sort(terms, [&](auto a, auto b) {
        return iterators[a.first] == utils::IteratorType::reduction &&
               iterators[b.first] == utils::IteratorType::parallel;
      });
      for (auto [d, c] : terms)
        if (ranges[d] != 1)
          order.push_back(d);
    }
  SmallVector<unsigned> all;
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    if (!llvm::is_contained(order, d))
      all.push_back(d);
  all.append(order);
  for (unsigned d : all)
    ((iterators[d] == utils::IteratorType::parallel) ? shape.parallelLoops
                                                     : shape.reductionLoops)
        .push_back(d);
  shape.innermostReduces = !order.empty() && (iterators[order.back()] ==
                                              utils::IteratorType::reduction);
  return shape;
}

std::optional<unsigned>
mlir::fuser::windowRowLoop(linalg::GenericOp op, const ReductionShape &shape) {
  if (shape.innermostReduces || shape.parallelLoops.empty())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(shape.reductionLoops, [&](unsigned d) {
        return ShapedType::isDynamic(ranges[d]);
      }))
    return std::nullopt;
  // Whether some read input's index expression adds to `row` (with its
  // stride) a reduction loop d (with its dilation) for which `holds`.
  auto anyWindowTerm =
      [&](unsigned row,
          function_ref<bool(int64_t, unsigned, int64_t)> holds) {
        for (OpOperand *in : op.getDpsInputOperands()) {
          if (op.getMatchingBlockArgument(in).use_empty())
            continue;
          for (AffineExpr e : op.getMatchingIndexingMap(in).getResults()) {
            auto terms = windowTerms(e);
            auto rowTerm =
                llvm::find_if(terms, [&](auto t) { return t.first == row; });
            if (rowTerm == terms.end())
              continue;
            for (auto [d, dilation] : terms)
              if (op.getIteratorTypesArray()[d] ==
                      utils::IteratorType::reduction &&
                  holds(rowTerm->second, d, dilation))
                return true;
          }
        }
        return false;
      };
  // The window spans more than one of `row`'s input rows.
  auto windowed = [&](unsigned row) {
    return anyWindowTerm(
        row, [&](int64_t, unsigned d, int64_t) { return ranges[d] != 1; });
  };
  // The next output's window starts on one of this one's rows.
  auto overlaps = [&](unsigned row) {
    return !ShapedType::isDynamic(ranges[row]) && ranges[row] >= 2 &&
           anyWindowTerm(row, [&](int64_t stride, unsigned d,
                                  int64_t dilation) {
             return stride % dilation == 0 &&
                    stride <= dilation * (ranges[d] - 1);
           });
  };
  // The rows of a 2-D or 3-D window first; where the window has a single
  // row (a 1-D window, torch-mlir's 1 x K pool), its columns.
  int64_t n = shape.parallelLoops.size();
  if (n >= 2 && overlaps(shape.parallelLoops[n - 2]))
    return shape.parallelLoops[n - 2];
  if ((n < 2 || !windowed(shape.parallelLoops[n - 2])) &&
      overlaps(shape.parallelLoops[n - 1]))
    return shape.parallelLoops[n - 1];
  return std::nullopt;
}

std::optional<unsigned>
mlir::fuser::windowColumnLoop(linalg::GenericOp op, const ReductionShape &shape,
                              int64_t width) {
  std::optional<unsigned> row = windowRowLoop(op, shape);
  if (!row || *row == shape.parallelLoops.back())
    return std::nullopt;
  unsigned col = shape.parallelLoops.back();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamic(ranges[col]) || ranges[col] < width)
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  Block &body = op.getRegion().front();
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (body.getArgument(in->getOperandNumber()).use_empty())
      continue;
    auto type = cast<ShapedType>(in->get().getType());
    if (!type.hasStaticShape() || type.getRank() == 0 ||
        paddedRead(in->get()) ||
        type.getElementType().getIntOrFloatBitWidth() * width != 128 ||
        type.getShape().back() % width != 0)
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(in);
    auto terms = windowTerms(map.getResults().back());
    if (terms.size() != 2)
      return std::nullopt;
    if (terms[0].first != col)
      std::swap(terms[0], terms[1]);
    auto [kw, dilation] = terms[1];
    if (terms[0] != std::make_pair(col, int64_t(1)) || dilation != 1 ||
        iterators[kw] != utils::IteratorType::reduction)
      return std::nullopt;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(col) || e.isFunctionOfDim(kw))
        return std::nullopt;
  }
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == 0)
      return std::nullopt;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!dim || dim.getPosition() != col)
      return std::nullopt;
  }
  return col;
}

int64_t mlir::fuser::reductionVectorWidth(linalg::GenericOp op,
                                          const ReductionShape &shape) {
  if (!shape.innermostReduces || shape.reductionLoops.empty())
    return 1;
  unsigned inner = shape.reductionLoops.back();
  int64_t extent = op.getStaticLoopRanges()[inner];
  if (ShapedType::isDynamic(extent))
    return 1;
  int64_t widest = 1;
  Block &body = op.getRegion().front();
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (body.getArgument(in->getOperandNumber()).use_empty())
      continue;
    if (paddedRead(in->get()))
      return 1; // read element by element, with bounds
    AffineMap map = op.getMatchingIndexingMap(in);
    for (auto [p, e] : llvm::enumerate(map.getResults())) {
      // Contiguous only as the innermost result, the loop alone: not read
      // across it, nor through a window (a global pool's 1-wide output
      // leaves the window's loop innermost) or a stride.
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (e.isFunctionOfDim(inner) && (!dim || p + 1 != map.getNumResults()))
        return 1;
    }
    Type t = cast<ShapedType>(in->get().getType()).getElementType();
    widest = std::max<int64_t>(
        widest, std::max(1u, t.getIntOrFloatBitWidth() / 8)); // i1: a byte
  }
  // 16-byte loads, at most 4 elements (the widest vector a config holds:
  // f16 and bf16 inputs load 8 bytes).
  int64_t width = std::min<int64_t>(4, 16 / widest);
  while (width > 1 && extent % width != 0)
    width /= 2;
  return width;
}

std::optional<PaddedRead> mlir::fuser::paddedRead(Value input) {
  auto pad = input.getDefiningOp<tensor::PadOp>();
  // A source of no elements has no element 0 to clamp reads to.
  if (!pad || !pad.getSourceType().hasStaticShape() ||
      pad.getSourceType().getNumElements() == 0 ||
      !pad.getResultType().hasStaticShape() || !pad.getLow().empty() ||
      !pad.getHigh().empty())
    return std::nullopt;
  Value padding = pad.getConstantPaddingValue();
  if (!padding || !matchPattern(padding, m_Constant()))
    return std::nullopt;
  return PaddedRead{pad.getSource(), SmallVector<int64_t>(pad.getStaticLow()),
                    padding};
}
