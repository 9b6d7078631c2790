//===- EpilogueUtils.cpp - building fusion group epilogues ------*- C++ -*-===//

#include "EpilogueUtils.h"

#include "ElementwiseUtils.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

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
      !inMap.isProjectedPermutation())
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

Epilogue::Epilogue(MLIRContext *ctx, Type accType, Location loc)
    : block(new Block()), builder(ctx) {
  block->addArgument(accType, loc);
  builder.setInsertionPointToStart(block);
}

Value Epilogue::read(Value v, AffineMap map) {
  if (Value h = hoisted.lookup(v))
    return h;
  if (!isa<ShapedType>(v.getType()) && matchPattern(v, m_Constant()))
    return hoisted[v] = builder.clone(*v.getDefiningOp())->getResult(0);
  // A splat tensor constant stays an input here: fuser-simplify-group-bodies
  // folds constant inputs of every group kind into immediates.
  auto key = std::make_pair(v, map);
  if (Value arg = inputArgs.lookup(key))
    return arg;
  Value arg = block->addArgument(getElementTypeOrSelf(v.getType()), v.getLoc());
  inputs.push_back(v);
  maps.push_back(AffineMapAttr::get(map));
  return inputArgs[key] = arg;
}

/// Returns why `user`, the only user op of `cur`, cannot join the epilogue,
/// or "" if it can.
static std::string whyNotEpilogueOp(linalg::LinalgOp user, Value cur,
                                    StringRef what) {
  if (user->getNumResults() != 1 || user.getNumDpsInits() != 1)
    return "it does not have exactly one result";
  if (user->getResult(0).getType() != cur.getType())
    return ("its result type differs from the " + what + "'s").str();
  return "";
}

/// Checks that the generic `user` reads `cur` only through the identity map.
/// Returns why not, or "".
static std::string whyNotIdentityRead(linalg::GenericOp user, Value cur,
                                      StringRef what) {
  std::string why = whyNotElementwise(user);
  if (!why.empty())
    return why;
  for (OpOperand *operand : getReadOperands(user))
    if (operand->get() == cur &&
        !user.getMatchingIndexingMap(operand).isIdentity())
      return ("it reads the " + what +
              "'s value through a broadcast or transpose")
          .str();
  return "";
}

Value fuser::absorbElementwiseConsumers(
    Value cur, Value &running, Epilogue &epi, Block *block, StringRef what,
    SmallVectorImpl<Operation *> &chain,
    function_ref<void(Operation *, const Twine &)> remark) {
  MLIRContext *ctx = cur.getContext();
  AffineMap scalarMap =
      AffineMap::get(cast<RankedTensorType>(cur.getType()).getRank(), 0, ctx);
  IRRewriter rewriter(ctx);
  while (!cur.use_empty()) {
    Operation *userOp = *cur.getUsers().begin();
    if (llvm::any_of(cur.getUsers(),
                     [&](Operation *u) { return u != userOp; })) {
      remark(chain.empty() ? cur.getDefiningOp() : chain.back(),
             what + " epilogue ends here: this value has several users");
      break;
    }
    auto user = dyn_cast<linalg::LinalgOp>(userOp);
    if (!user || user->getBlock() != block)
      break;
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
      why = whyNotIdentityRead(generic, cur, what);
    if (!why.empty()) {
      // Generalization replaced the named op: report on what is left.
      Operation *at = generic ? generic.getOperation() : userOp;
      remark(at, "not fused into the " + what + " epilogue: " + why);
      break;
    }

    // Clone the body with the running value and the other operands.
    IRMapping mapping;
    for (OpOperand *operand : getReadOperands(generic)) {
      BlockArgument arg = generic.getMatchingBlockArgument(operand);
      Value v = operand->get();
      if (v == cur) {
        mapping.map(arg, running);
        continue;
      }
      MappedValue mv{v, isa<ShapedType>(v.getType())
                            ? generic.getMatchingIndexingMap(operand)
                            : scalarMap};
      while (isa<ShapedType>(mv.source.getType()))
        if (std::optional<MappedValue> copy = matchCopy(mv.source))
          mv = {copy->source, copy->map.compose(mv.map)};
        else
          break;
      if (!isa<ShapedType>(mv.source.getType()))
        mv.map = scalarMap;
      mapping.map(arg, epi.read(mv.source, mv.map));
    }
    Region &region = generic.getRegion();
    for (Operation &inner : region.front().without_terminator()) {
      for (Value operand : inner.getOperands())
        if (!mapping.contains(operand) && operand.getParentRegion() != &region)
          mapping.map(operand, epi.read(operand, scalarMap));
      epi.builder.clone(inner, mapping);
    }
    auto yield = cast<linalg::YieldOp>(region.front().getTerminator());
    running = mapping.lookupOrDefault(yield.getOperand(0));
    chain.push_back(generic);
    cur = generic->getResult(0);
  }
  return cur;
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
