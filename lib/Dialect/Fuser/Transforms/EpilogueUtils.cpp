//===- EpilogueUtils.cpp - building fusion group epilogues ------*- C++ -*-===//

#include "EpilogueUtils.h"

#include "ElementwiseUtils.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;
using namespace mlir::fuser;

std::optional<MappedValue> fuser::matchCopy(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  OpOperand *in = op.getDpsInputOperand(0);
  OpOperand *out = op.getDpsInitOperand(0);
  AffineMap inMap = op.getMatchingIndexingMap(in);
  if (!op.getMatchingIndexingMap(out).isIdentity() ||
      !isBroadcastRead(inMap, in->get().getType()))
    return std::nullopt;
  Block *body = op.getBlock();
  if (!body || body->getOperations().size() != 1)
    return std::nullopt;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != op.getMatchingBlockArgument(in))
    return std::nullopt;
  return MappedValue{in->get(), inMap};
}

DenseElementsAttr fuser::convertConstantExactly(Value v, Type to) {
  DenseElementsAttr attr;
  auto floatTy = dyn_cast<FloatType>(to);
  auto vTy = dyn_cast<RankedTensorType>(v.getType());
  // Through reshapes of the constant (the views torch-mlir reads an index
  // vector through): the row-major order of the elements is unchanged.
  Value root = v;
  while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
      root.getDefiningOp()))
    root = root.getDefiningOp()->getOperand(0);
  if (!floatTy || !vTy || !matchPattern(root, m_Constant(&attr)) ||
      !attr.getElementType().isIntOrFloat() ||
      attr.getNumElements() > (int64_t(1) << 20))
    return {};
  attr = attr.reshape(
      RankedTensorType::get(vTy.getShape(), attr.getElementType()));
  Type from = attr.getElementType();
  const llvm::fltSemantics &sem = floatTy.getFloatSemantics();
  SmallVector<APFloat> values;
  bool exact = true;
  auto convert = [&](Attribute a) {
    APFloat f(sem);
    if (auto i = dyn_cast<IntegerAttr>(a)) {
      // i1 is 0 or 1; wider integers are signed (fptosi converts back).
      bool isSigned = !from.isInteger(1);
      exact &= f.convertFromAPInt(i.getValue(), isSigned,
                                  APFloat::rmNearestTiesToEven) ==
               APFloat::opOK;
    } else {
      f = cast<FloatAttr>(a).getValue();
      bool losesInfo = false;
      f.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
      exact &= !losesInfo;
    }
    return f;
  };
  if (attr.isSplat()) {
    values.push_back(convert(attr.getSplatValue<Attribute>()));
  } else {
    for (Attribute a : attr.getValues<Attribute>())
      if (values.push_back(convert(a)), !exact)
        return {};
  }
  if (!exact)
    return {};
  auto type = RankedTensorType::get(attr.getType().getShape(), to);
  return attr.isSplat() ? DenseElementsAttr::get(type, values.front())
                        : DenseElementsAttr::get(type, values);
}

Epilogue::Epilogue(MLIRContext *ctx, Type accType, Location loc)
    : block(new Block()), builder(ctx) {
  block->addArgument(accType, loc);
  builder.setInsertionPointToStart(block);
}

Value Epilogue::read(Value v, AffineMap map) {
  if (Value h = hoisted.lookup(v))
    return h;
  Type acc = block->getArgument(0).getType();
  auto tensorTy = dyn_cast<RankedTensorType>(v.getType());
  if (tensorTy && tensorTy.getElementType() != acc)
    if (DenseElementsAttr converted = convertConstantExactly(v, acc)) {
      // A constant of another type (a triu mask, an index vector) read as
      // the accumulator's type, which holds it exactly, and converted back
      // in the body: the kernels read epilogue inputs of that one type.
      if (Value done = convertedReads.lookup({v, map}))
        return done;
      OpBuilder at(v.getContext());
      at.setInsertionPointAfterValue(v);
      Value c = arith::ConstantOp::create(at, v.getLoc(), converted);
      Value arg = read(c, map);
      Type want = tensorTy.getElementType();
      Location loc = v.getLoc();
      Value back;
      if (want.isInteger(1))
        back = arith::CmpFOp::create(
            builder, loc, arith::CmpFPredicate::UNE, arg,
            arith::ConstantOp::create(builder, loc,
                                      builder.getFloatAttr(acc, 0.0)));
      else if (isa<IntegerType>(want))
        back = arith::FPToSIOp::create(builder, loc, want, arg);
      else if (want.getIntOrFloatBitWidth() > acc.getIntOrFloatBitWidth())
        back = arith::ExtFOp::create(builder, loc, want, arg);
      else
        back = arith::TruncFOp::create(builder, loc, want, arg);
      return convertedReads[{v, map}] = back;
    }
  if (!isa<ShapedType>(v.getType()) && matchPattern(v, m_Constant()))
    return hoisted[v] = builder.clone(*v.getDefiningOp())->getResult(0);
  // A splat tensor constant stays an input here: fuser-simplify-group-bodies
  // folds constant inputs of every group kind into immediates.
  if (!map.isProjectedPermutation()) {
    // Size-1 dimensions read at 0: read a view without them (created where
    // `v` is defined, so it dominates the group wherever it is built).
    std::pair<Value, AffineMap> &view = unitDimViews[{v, map}];
    if (!view.first) {
      OpBuilder at(v.getContext());
      at.setInsertionPointAfterValue(v);
      view = dropUnitDimReads(at, v, map);
    }
    std::tie(v, map) = view;
  }
  auto key = std::make_pair(v, map);
  if (Value arg = inputArgs.lookup(key))
    return arg;
  Value arg = block->addArgument(getElementTypeOrSelf(v.getType()), v.getLoc());
  inputs.push_back(v);
  maps.push_back(AffineMapAttr::get(map));
  return inputArgs[key] = arg;
}

/// Returns why `user`, an op reading a value of the group, cannot join the
/// epilogue, or "" if it can.
static std::string whyNotEpilogueOp(linalg::LinalgOp user, Value cur,
                                    StringRef what) {
  if (user->getNumResults() != 1 || user.getNumDpsInits() != 1)
    return "it does not have exactly one result";
  // Another element type is fine inside the group (softplus's `y > 20` mask
  // in mish); the group's result keeps `cur`'s type (cutToOneResult).
  auto resultTy = dyn_cast<RankedTensorType>(user->getResult(0).getType());
  auto curTy = cast<RankedTensorType>(cur.getType());
  if (!resultTy || resultTy.getShape() != curTy.getShape())
    return ("its result shape differs from the " + what + "'s").str();
  return "";
}

/// If `v`, a tensor the kernels cannot load (an i1 mask) read through `map`
/// from the group's iteration space, is computed by an elementwise generic
/// whose own tensors are loadable or such masks in turn, each still read
/// through a broadcast, returns that generic: the epilogue computes the mask
/// itself (a causal mask from index vectors too large to evaluate at
/// compile time). Constants are read as they are (Epilogue::read).
/// True when the kernels can read `v` as an epilogue input of a group whose
/// values have type `acc`: the same element type, or a constant that type
/// holds exactly (converted at compile time).
static bool isReadableInput(Value v, Type acc) {
  return getElementTypeOrSelf(v.getType()) == acc ||
         convertConstantExactly(v, acc);
}

static linalg::GenericOp inlinableMask(Value v, AffineMap map, Type acc,
                                       bool onlyUser = false) {
  // onlyUser: a loadable tensor the mask alone reads (the index difference
  // of triu), computed in the body too rather than a kernel of its own.
  if (!isa<RankedTensorType>(v.getType()) || matchPattern(v, m_Constant()) ||
      (onlyUser ? !v.hasOneUse() : isReadableInput(v, acc)))
    return {};
  auto producer = v.getDefiningOp<linalg::GenericOp>();
  if (!producer || producer->getNumResults() != 1 ||
      !whyNotElementwise(producer).empty())
    return {};
  for (OpOperand *in : getReadOperands(producer)) {
    Value t = in->get();
    if (!isa<ShapedType>(t.getType()))
      continue;
    AffineMap composed = producer.getMatchingIndexingMap(in).compose(map);
    if (!isBroadcastRead(composed, t.getType()))
      return {};
    if (!isReadableInput(t, acc) &&
        !inlinableMask(t, composed, acc, /*onlyUser=*/true))
      return {};
  }
  return producer;
}

/// Checks that the generic `user` reads the group's values (`inGroup`) only
/// through the identity map, and none of its other operands is computed
/// from the group's value (`tainted`). Returns why not, or "".
static std::string whyNotGroupReader(linalg::GenericOp user,
                                     const DenseSet<Value> &inGroup,
                                     const DenseSet<Value> &tainted,
                                     StringRef what, Type acc) {
  std::string why = whyNotElementwise(user);
  if (!why.empty())
    return why;
  for (OpOperand *operand : getReadOperands(user)) {
    Value v = operand->get();
    if (inGroup.contains(v)) {
      if (!user.getMatchingIndexingMap(operand).isIdentity())
        return ("it reads the " + what +
                "'s value through a broadcast or transpose")
            .str();
    } else if (tainted.contains(v)) {
      return ("it also reads a value computed from the " + what +
              "'s value outside the epilogue")
          .str();
    } else if (isa<ShapedType>(v.getType()) && !isReadableInput(v, acc) &&
               !inlinableMask(v, user.getMatchingIndexingMap(operand), acc)) {
      std::string why;
      llvm::raw_string_ostream os(why);
      os << "it reads a tensor of " << getElementTypeOrSelf(v.getType())
         << " elements, and the " << what << " kernels read epilogue inputs "
         << "of the " << what << "'s type (" << acc
         << "); it is left for pointwise fusion";
      return why;
    }
  }
  return "";
}

namespace {
/// The elementwise consumers an epilogue takes, before any body is cloned.
struct EpilogueDag {
  /// The absorbed ops, in program order.
  SmallVector<linalg::GenericOp> members;
  /// Ops that read a value of the group but cannot join, with the reason
  /// (empty: not a linalg op of the block, so nothing to report).
  SmallVector<std::pair<Operation *, std::string>> rejected;
  /// Members dropped because the group had to end before them.
  unsigned dropped = 0;
};
} // namespace

/// Phase 1: every op after `cur`'s definition that can join, in program
/// order (so every producer is decided before its consumers).
static EpilogueDag collectEpilogueDag(Value cur, Block *block, StringRef what) {
  EpilogueDag dag;
  IRRewriter rewriter(cur.getContext());
  DenseSet<Value> inGroup{cur};
  // Values computed from `cur` by any op: an epilogue input cannot be one.
  DenseSet<Value> tainted{cur};
  Operation *start = cur.getDefiningOp();
  if (!start || start->getBlock() != block)
    return dag;
  for (Operation *op = start->getNextNode(), *next; op; op = next) {
    next = op->getNextNode();
    bool readsGroup = false, readsTainted = false;
    op->walk([&](Operation *nested) {
      for (Value v : nested->getOperands()) {
        readsGroup |= inGroup.contains(v) && nested == op;
        readsTainted |= tainted.contains(v);
      }
    });
    if (!readsTainted)
      continue;
    auto taint = [&](Operation *o) {
      for (Value r : o->getResults())
        tainted.insert(r);
    };
    auto user = dyn_cast<linalg::LinalgOp>(op);
    if (!readsGroup || !user) {
      // Nested uses of group values, non-linalg users (a return, a call, a
      // group op): no remark, the value is simply needed outside.
      taint(op);
      continue;
    }
    std::string why = user.getNumParallelLoops() != user.getNumLoops()
                          ? "it has reduction iterators"
                          : whyNotEpilogueOp(user, cur, what);
    linalg::GenericOp generic;
    if (why.empty()) {
      generic = generalizeIfElementwise(rewriter, user);
      if (!generic)
        why = "it is not an elementwise op";
    }
    if (why.empty())
      why = whyNotGroupReader(generic, inGroup, tainted, what,
                              getElementTypeOrSelf(cur.getType()));
    // Generalization replaced the named op: what is left is `generic`.
    Operation *at = generic ? generic.getOperation() : op;
    taint(at);
    if (!why.empty()) {
      dag.rejected.emplace_back(at, why);
      continue;
    }
    dag.members.push_back(generic);
    inGroup.insert(generic->getResult(0));
  }
  return dag;
}

/// Phase 2: cuts `dag` back so that one value, the group's result, is used
/// outside it (or none: then the last one). Returns that value.
static Value cutToOneResult(Value cur, EpilogueDag &dag, StringRef what) {
  unsigned before = dag.members.size(), retyped = 0;
  while (true) {
    DenseSet<Operation *> memberSet;
    for (linalg::GenericOp m : dag.members)
      memberSet.insert(m);
    SmallVector<Value> values{cur};
    for (linalg::GenericOp m : dag.members)
      values.push_back(m->getResult(0));
    SmallVector<Value> escaping;
    for (Value v : values)
      if (llvm::any_of(v.getUsers(),
                       [&](Operation *u) { return !memberSet.contains(u); }))
        escaping.push_back(v);
    // The first value needed outside (program order) ends the group.
    Value result = escaping.empty() ? values.back() : escaping.front();
    if (result.getType() != cur.getType()) {
      // Only a value of `cur`'s type can be the result: drop the member that
      // computes this one and every member reading it, then cut again.
      dag.rejected.emplace_back(
          result.getDefiningOp(),
          ("its result type differs from the " + what + "'s").str());
      DenseSet<Value> gone{result};
      for (linalg::GenericOp m : dag.members)
        if (llvm::any_of(m->getOperands(),
                         [&](Value v) { return gone.contains(v); }))
          gone.insert(m->getResult(0));
      retyped += llvm::count_if(dag.members, [&](linalg::GenericOp m) {
        return gone.contains(m->getResult(0));
      });
      llvm::erase_if(dag.members, [&](linalg::GenericOp m) {
        return gone.contains(m->getResult(0));
      });
      continue;
    }
    // Keep the members `result` depends on.
    DenseSet<Operation *> slice;
    SmallVector<Operation *> work;
    if (Operation *def = result.getDefiningOp(); memberSet.contains(def))
      work.push_back(def);
    while (!work.empty()) {
      Operation *m = work.pop_back_val();
      if (!slice.insert(m).second)
        continue;
      for (Value operand : m->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && memberSet.contains(def))
          work.push_back(def);
    }
    if (slice.size() == dag.members.size() && escaping.size() <= 1) {
      dag.dropped = before - retyped - dag.members.size();
      return result;
    }
    llvm::erase_if(dag.members,
                   [&](linalg::GenericOp m) { return !slice.contains(m); });
  }
}

Value fuser::absorbElementwiseConsumers(
    Value cur, Value &running, Epilogue &epi, Block *block, StringRef what,
    SmallVectorImpl<Operation *> &chain,
    function_ref<void(Operation *, const Twine &)> remark) {
  MLIRContext *ctx = cur.getContext();
  AffineMap scalarMap =
      AffineMap::get(cast<RankedTensorType>(cur.getType()).getRank(), 0, ctx);

  // 1. The ops that can join, then 2. the cut to one result.
  EpilogueDag dag = collectEpilogueDag(cur, block, what);
  Value result = cutToOneResult(cur, dag, what);
  for (auto &[op, why] : dag.rejected)
    if (llvm::is_contained(op->getOperands(), result))
      remark(op, "not fused into the " + what + " epilogue: " + why);
  if (dag.dropped != 0) {
    Operation *at = dag.members.empty() ? cur.getDefiningOp()
                                        : dag.members.back().getOperation();
    if (!at && !chain.empty())
      at = chain.back();
    if (at)
      remark(at, what +
                     " epilogue ends here: this value is also needed "
                     "outside the group, so it is the group's result (" +
                     Twine(dag.dropped) +
                     " elementwise op(s) after it stay out)");
  }

  // 3. Clone the members' bodies in program order, each group value
  // replaced by its element and the other operands read as inputs (masks
  // the kernels cannot load computed in the body from their producers).
  DenseMap<Value, Value> elementOf{{cur, running}};
  DenseMap<std::pair<Value, AffineMap>, Value> inlined;
  std::function<Value(Value, AffineMap, bool)> readTensor =
      [&](Value v, AffineMap map, bool inMask) {
    Type acc = getElementTypeOrSelf(cur.getType());
    linalg::GenericOp producer = inlinableMask(v, map, acc);
    if (!producer && inMask)
      producer = inlinableMask(v, map, acc, /*onlyUser=*/true);
    if (producer) {
      Value &done = inlined[{v, map}];
      if (done)
        return done;
      IRMapping pm;
      for (OpOperand *in : getReadOperands(producer)) {
        Value t = in->get();
        pm.map(producer.getMatchingBlockArgument(in),
               isa<ShapedType>(t.getType())
                   ? readTensor(
                         t, producer.getMatchingIndexingMap(in).compose(map),
                         /*inMask=*/true)
                   : epi.read(t, scalarMap));
      }
      Region &region = producer.getRegion();
      for (Operation &inner : region.front().without_terminator()) {
        for (Value operand : inner.getOperands())
          if (!pm.contains(operand) && operand.getParentRegion() != &region)
            pm.map(operand, epi.read(operand, scalarMap));
        epi.builder.clone(inner, pm);
      }
      return done = pm.lookupOrDefault(
                 region.front().getTerminator()->getOperand(0));
    }
    MappedValue mv{v, map};
    // Look through broadcasts, transposes and fills to their source, as
    // long as the composed read is still a broadcast of it.
    while (isa<ShapedType>(mv.source.getType())) {
      std::optional<MappedValue> copy = matchCopy(mv.source);
      if (!copy)
        break;
      AffineMap composed = copy->map.compose(mv.map);
      if (isa<ShapedType>(copy->source.getType()) &&
          !isBroadcastRead(composed, copy->source.getType()))
        break;
      mv = {copy->source, composed};
    }
    if (!isa<ShapedType>(mv.source.getType()))
      mv.map = scalarMap;
    return epi.read(mv.source, mv.map);
  };
  for (linalg::GenericOp generic : dag.members) {
    IRMapping mapping;
    for (OpOperand *operand : getReadOperands(generic)) {
      BlockArgument arg = generic.getMatchingBlockArgument(operand);
      Value v = operand->get();
      if (Value element = elementOf.lookup(v)) {
        mapping.map(arg, element);
        continue;
      }
      mapping.map(arg, isa<ShapedType>(v.getType())
                           ? readTensor(v, generic.getMatchingIndexingMap(operand),
                                        /*inMask=*/false)
                           : readTensor(v, scalarMap, /*inMask=*/false));
    }
    Region &region = generic.getRegion();
    for (Operation &inner : region.front().without_terminator()) {
      for (Value operand : inner.getOperands())
        if (!mapping.contains(operand) && operand.getParentRegion() != &region)
          mapping.map(operand, epi.read(operand, scalarMap));
      epi.builder.clone(inner, mapping);
    }
    auto yield = cast<linalg::YieldOp>(region.front().getTerminator());
    elementOf[generic->getResult(0)] =
        mapping.lookupOrDefault(yield.getOperand(0));
    chain.push_back(generic);
  }
  running = elementOf.lookup(result);
  return result;
}

void fuser::eraseChainAndDeadProducers(ArrayRef<Operation *> chain,
                                       DenseSet<Operation *> &erased) {
  SetVector<Operation *> maybeDead;
  for (Operation *member : llvm::reverse(chain)) {
    SetVector<Value> used;
    getUsedValuesDefinedAbove(member->getRegions(), used);
    used.insert_range(member->getOperands());
    for (Value v : used)
      if (Operation *def = v.getDefiningOp())
        maybeDead.insert(def);
    maybeDead.remove(member);
    erased.insert(member);
    member->erase();
  }
  while (!maybeDead.empty()) {
    Operation *def = maybeDead.pop_back_val();
    if (!isOpTriviallyDead(def))
      continue;
    for (Value operand : def->getOperands())
      if (Operation *d = operand.getDefiningOp())
        maybeDead.insert(d);
    erased.insert(def);
    def->erase();
  }
}
