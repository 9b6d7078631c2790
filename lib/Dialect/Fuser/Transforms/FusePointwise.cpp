//===- FusePointwise.cpp - outline elementwise DAGs into groups -*- C++ -*-===//
//
// Forms fuser.pointwise groups from elementwise linalg ops on tensors.
//
// 1. Named elementwise ops (linalg.add, linalg.fill, ...) are generalized,
//    so one matcher handles every op as a linalg.generic.
// 2. Groups grow from the last op of each block upwards: a producer joins
//    its consumers' group when every member reads it through the same map
//    and every use outside the group can read an extra group result. A
//    value with several users in the group is computed once (a DAG, not a
//    tree).
// 3. Each group is materialized as one fuser.pointwise whose body is the
//    concatenation of its members' bodies. Inputs read at 0 along size-1
//    dimensions (keepdim shapes, `(d0, d1) -> (d0, 0)`) become
//    tensor.collapse_shape views without those dimensions, read through a
//    broadcast.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fuser-fuse-pointwise"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEPOINTWISEPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// A fusion group under construction.
struct Group {
  linalg::GenericOp root;
  llvm::SetVector<Operation *> members;
  /// For each member: the map from the group's iteration space to the
  /// member's iteration space.
  DenseMap<Operation *, AffineMap> iterMaps;
  /// Member results used outside the group: they become group results.
  SmallVector<OpResult> exports;
};

class FusePointwisePass
    : public fuser::impl::FuserFusePointwisePassBase<FusePointwisePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    generalizeElementwiseNamedOps(func);
    // Tensors computed from constants and indices alone become constants
    // (fuser-fuse-matmul does this first when it runs).
    foldConstantGenerics(func, kMaxFoldedElements,
                         [&](Operation *at, const Twine &msg) {
                           remark(at, msg);
                         });

    // Collect candidates and report everything else.
    DenseSet<Operation *> candidates;
    func.walk([&](linalg::LinalgOp op) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      std::string why =
          generic ? whyNotElementwise(generic)
          : op.getNumParallelLoops() != op.getNumLoops()
              ? std::string("it has reduction iterators")
              : std::string("it is not an elementwise op");
      if (why.empty()) {
        candidates.insert(op);
        return;
      }
      // Pooling ops have a convolution's maps too, but their window
      // operand only gives a shape: a convolution's body reads its filter.
      if (linalg::isaConvolutionOpInterface(op) && op.getNumDpsInputs() > 1 &&
          op.payloadUsesValueFromOperand(op.getDpsInputOperand(1))) {
        // Said apart: the fallback's loops are orders of magnitude slower
        // than cuDNN, where other reductions get a reduction kernel.
        remark(op, "left unfused: a convolution, for which fuser has no "
                   "kernel yet; the generic fallback lowering compiles it, "
                   "far slower than cuDNN (fuser.torch leaves convolutions "
                   "to PyTorch)");
        return;
      }
      remark(op, "left unfused: " + why +
                     (op.getNumReductionLoops() > 0
                          ? "; it gets a reduction kernel where "
                            "fuser-configure-kernels can configure one, else "
                            "the generic fallback lowering"
                          : "; it is compiled by the generic fallback "
                            "lowering"));
    });

    SmallVector<Block *> blocks;
    func.walk([&](Block *b) { blocks.push_back(b); });
    for (Block *block : blocks) {
      SmallVector<linalg::GenericOp> ops;
      for (Operation &op : *block)
        if (candidates.contains(&op))
          ops.push_back(cast<linalg::GenericOp>(op));
      for (linalg::GenericOp root : llvm::reverse(ops)) {
        if (!candidates.contains(root))
          continue; // already fused into a later group
        Group group = growGroup(root, candidates);
        for (Operation *m : group.members)
          candidates.erase(m);
        materialize(group);
      }
    }
  }

private:
  void remark(Operation *op, const Twine &msg) {
    if (report)
      op->emitRemark() << msg;
  }

  /// Grows a group from `root` by pulling in producers, latest first, so that
  /// every user of a producer inside the group is decided before it.
  Group growGroup(linalg::GenericOp root,
                  const DenseSet<Operation *> &candidates) {
    Group g;
    g.root = root;
    g.members.insert(root);
    g.iterMaps[root] = AffineMap::getMultiDimIdentityMap(
        root.getNumLoops(), root.getContext());
    auto byPositionDesc = [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b); // max-heap: latest on top
    };
    SmallVector<Operation *> heap;
    auto pushProducers = [&](linalg::GenericOp m) {
      for (OpOperand *operand : getReadOperands(m)) {
        auto def = operand->get().getDefiningOp<linalg::GenericOp>();
        if (!def || !candidates.contains(def) || g.members.contains(def) ||
            def->getBlock() != root->getBlock() || llvm::is_contained(heap, def))
          continue;
        heap.push_back(def);
        std::push_heap(heap.begin(), heap.end(), byPositionDesc);
      }
    };
    pushProducers(root);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), byPositionDesc);
      auto producer = cast<linalg::GenericOp>(heap.pop_back_val());
      if (tryAddProducer(g, producer))
        pushProducers(producer);
    }
    remark(root, "fused " + Twine(g.members.size()) +
                     " elementwise op(s) into one pointwise group");
    return g;
  }

  /// Adds `producer` to `g` if every member reads it through one map and its
  /// other uses can read a group result. Returns false (with a remark) if not.
  bool tryAddProducer(Group &g, linalg::GenericOp producer) {
    std::optional<AffineMap> iterMap;
    SmallVector<OpResult> exports;
    auto rootTy = cast<RankedTensorType>(g.root->getResult(0).getType());
    for (OpResult res : producer->getResults()) {
      bool exported = false;
      for (OpOperand &use : res.getUses()) {
        Operation *user = use.getOwner();
        if (g.members.contains(user)) {
          auto consumer = cast<linalg::GenericOp>(user);
          AffineMap m = consumer.getMatchingIndexingMap(&use).compose(
              g.iterMaps[consumer]);
          if (iterMap && *iterMap != m) {
            remark(producer, "not fused into its consumers: they read it "
                             "through different maps; it forms its own group");
            return false;
          }
          iterMap = m;
          continue;
        }
        Operation *ancestor = g.root->getBlock()->findAncestorOpInBlock(*user);
        if (!ancestor || !g.root->isBeforeInBlock(ancestor)) {
          remark(producer, "not fused into its consumers: its value is also "
                           "used before the group's last op; it forms its "
                           "own group");
          return false;
        }
        exported = true;
      }
      if (exported)
        exports.push_back(res);
    }
    if (!iterMap)
      return false;
    // Consumers reading it at 0 along a size-1 dimension read its inputs
    // there too: each must still be a broadcast read of the input.
    for (OpOperand *operand : getReadOperands(producer)) {
      Type t = operand->get().getType();
      if (isa<ShapedType>(t) &&
          !isBroadcastRead(
              producer.getMatchingIndexingMap(operand).compose(*iterMap), t)) {
        remark(producer, "not fused into its consumers: they read it at 0 "
                         "along a size-1 dimension, where one of its inputs "
                         "has a dimension of dynamic size; it forms its own "
                         "group");
        return false;
      }
    }
    if (!exports.empty()) {
      bool sameSpace = iterMap->isIdentity() &&
                       iterMap->getNumResults() == rootTy.getRank();
      for (OpResult r : exports)
        sameSpace &=
            cast<RankedTensorType>(r.getType()).getShape() == rootTy.getShape();
      if (!sameSpace) {
        remark(producer, "not fused into its consumers: its value is also "
                         "used elsewhere, and the group reads it through a "
                         "broadcast or with another shape; it forms its own "
                         "group");
        return false;
      }
    }
    g.members.insert(producer);
    g.iterMaps[producer] = *iterMap;
    llvm::append_range(g.exports, exports);
    return true;
  }

  /// Replaces the members of `g` with one fuser.pointwise.
  void materialize(Group &g) {
    MLIRContext *ctx = g.root.getContext();
    unsigned rank = g.root.getNumLoops();
    SmallVector<Operation *> members(g.members.begin(), g.members.end());
    llvm::sort(members,
               [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

    auto *block = new Block();
    OpBuilder bodyBuilder(ctx); // the block is detached: no context from it
    bodyBuilder.setInsertionPointToStart(block);
    SmallVector<Value> inputs;
    SmallVector<Attribute> maps;
    DenseMap<std::pair<Value, AffineMap>, Value> inputArgs;
    DenseMap<Value, Value> scalarOf; // member result -> scalar in body
    DenseMap<Value, Value> hoisted;  // captured constant -> clone in body

    // Inputs read at 0 along size-1 dimensions -> views without them,
    // created before the group (every input dominates its root).
    OpBuilder viewBuilder(g.root);
    DenseMap<std::pair<Value, AffineMap>, std::pair<Value, AffineMap>>
        unitDimViews;
    auto groupInput = [&](Value v, AffineMap map) -> Value {
      if (!map.isProjectedPermutation()) {
        std::pair<Value, AffineMap> &view = unitDimViews[{v, map}];
        if (!view.first)
          view = dropUnitDimReads(viewBuilder, v, map);
        std::tie(v, map) = view;
      }
      auto key = std::make_pair(v, map);
      if (Value arg = inputArgs.lookup(key))
        return arg;
      Type elemTy = v.getType();
      if (auto shaped = dyn_cast<ShapedType>(elemTy))
        elemTy = shaped.getElementType();
      Value arg = block->addArgument(elemTy, v.getLoc());
      inputs.push_back(v);
      maps.push_back(AffineMapAttr::get(map));
      inputArgs[key] = arg;
      return arg;
    };
    AffineMap scalarMap = AffineMap::get(rank, 0, ctx);

    for (Operation *op : members) {
      auto member = cast<linalg::GenericOp>(op);
      Block &body = member.getRegion().front();
      IRMapping mapping;
      for (OpOperand *operand : getReadOperands(member)) {
        Value v = operand->get();
        BlockArgument arg = member.getMatchingBlockArgument(operand);
        if (Value s = scalarOf.lookup(v)) {
          mapping.map(arg, s);
          continue;
        }
        if (!isa<ShapedType>(v.getType()) && matchPattern(v, m_Constant())) {
          Value &h = hoisted[v]; // a constant scalar input (linalg.fill's)
          if (!h)
            h = bodyBuilder.clone(*v.getDefiningOp())->getResult(0);
          mapping.map(arg, h);
          continue;
        }
        AffineMap map = isa<ShapedType>(v.getType())
                            ? member.getMatchingIndexingMap(operand).compose(
                                  g.iterMaps[member])
                            : scalarMap;
        mapping.map(arg, groupInput(v, map));
      }
      // Values captured from above, by the body's ops or yielded as they
      // are (a fill folded into a generic yields its scalar): constants are
      // cloned in, other scalars become scalar inputs of the group.
      auto capture = [&](Value operand) {
        if (mapping.contains(operand) ||
            operand.getParentRegion() == &member.getRegion())
          return;
        if (Value h = hoisted.lookup(operand)) {
          mapping.map(operand, h);
          return;
        }
        Value replacement;
        if (Operation *def = operand.getDefiningOp();
            def && matchPattern(operand, m_Constant()))
          replacement = bodyBuilder.clone(*def)->getResult(0);
        else
          replacement = groupInput(operand, scalarMap);
        hoisted[operand] = replacement;
        mapping.map(operand, replacement);
      };
      for (Operation &inner : body.without_terminator()) {
        for (Value operand : inner.getOperands())
          capture(operand);
        bodyBuilder.clone(inner, mapping);
      }
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      for (Value yielded : yield.getValues())
        capture(yielded);
      for (auto [res, yielded] :
           llvm::zip(member->getResults(), yield.getValues()))
        scalarOf[res] = mapping.lookupOrDefault(yielded);
    }

    // A dynamic size no input reads (a fill of tensor.empty(%n), say) comes
    // from the root's init, added as an input the body never reads.
    auto rootTy = cast<RankedTensorType>(g.root->getResult(0).getType());
    for (int64_t d = 0; d < rootTy.getRank(); ++d) {
      bool covered = llvm::any_of(llvm::zip(inputs, maps), [&](auto pair) {
        return isa<RankedTensorType>(std::get<0>(pair).getType()) &&
               cast<AffineMapAttr>(std::get<1>(pair))
                   .getValue()
                   .getResultPosition(getAffineDimExpr(d, ctx))
                   .has_value();
      });
      if (rootTy.isDynamicDim(d) && !covered) {
        groupInput(g.root.getDpsInits()[0],
                   AffineMap::getMultiDimIdentityMap(rank, ctx));
        break;
      }
    }

    SmallVector<Value> resultValues(g.root->getResults());
    llvm::append_range(resultValues, g.exports);
    SmallVector<Value> yielded;
    SmallVector<Type> resultTypes;
    for (Value r : resultValues) {
      yielded.push_back(scalarOf.lookup(r));
      resultTypes.push_back(RankedTensorType::get(
          rootTy.getShape(), cast<ShapedType>(r.getType()).getElementType()));
    }
    YieldOp::create(bodyBuilder, g.root.getLoc(), yielded);

    OpBuilder builder(g.root);
    auto group = PointwiseOp::create(builder, g.root.getLoc(), resultTypes,
                                     inputs, builder.getArrayAttr(maps),
                                     /*config=*/nullptr);
    group.getBody().push_back(block);

    for (auto [oldV, newV] : llvm::zip(resultValues, group.getResults()))
      oldV.replaceUsesWithIf(newV, [&](OpOperand &use) {
        return !g.members.contains(use.getOwner());
      });
    for (Operation *op : llvm::reverse(members)) {
      op->dropAllUses();
      op->erase();
    }
  }
};

} // namespace
