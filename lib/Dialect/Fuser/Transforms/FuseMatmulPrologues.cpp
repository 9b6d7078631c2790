//===- FuseMatmulPrologues.cpp - A's elementwise producers into a matmul --===//
//
// Folds the elementwise DAG that produces a fuser.matmul's A into the op's
// prologue region, so the kernel computes A as it reads it (see the pass
// description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEMATMULPROLOGUESPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Full-size tensors a prologue may read per element of A: A's leaf and
/// one more. Recomputing A then reads at most twice A's bytes, and
/// 3xtf32 on wgmma_tma copies the second into the shared memory of A's
/// lo parts, which the prologue's result overwrites.
constexpr unsigned kMaxPrologueLeaves = 2;

/// `v`'s producer if it is an elementwise linalg.generic whose operands
/// and result are all read through identity maps (so they have `v`'s
/// shape; scalars would have empty maps), with one result and a body that
/// does not read its init; else null.
linalg::GenericOp identityElementwiseProducer(Value v) {
  auto op = v.getDefiningOp<linalg::GenericOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  if (op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return {};
  return op;
}

/// Whether the prologue `body` (a fuser.yield-terminated block) yields a
/// finite value when every argument is 0, by folding its ops. The kernels
/// pad A and B with zeros past K; a non-finite prologue there would reach
/// the sums through 0 * inf.
bool finiteAtZero(Block &body) {
  DenseMap<Value, Attribute> value;
  for (BlockArgument arg : body.getArguments())
    if (auto ft = dyn_cast<FloatType>(arg.getType()))
      value[arg] = FloatAttr::get(ft, 0.0);
  if (failed(foldScalarBody(body, value)))
    return false;
  auto result = dyn_cast_or_null<FloatAttr>(
      value.lookup(body.getTerminator()->getOperand(0)));
  return result && result.getValue().isFinite();
}

class FuseMatmulProloguesPass
    : public fuser::impl::FuserFuseMatmulProloguesPassBase<
          FuseMatmulProloguesPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    SmallVector<MatmulOp> matmuls;
    getOperation().walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls)
      fuse(op);
  }

private:
  void remark(MatmulOp op, const Twine &msg) {
    if (report)
      op.emitRemark() << msg;
  }

  void fuse(MatmulOp op) {
    if (op.hasPrologue() || op.isBatched() || op.getTransposeA())
      return;
    linalg::GenericOp producer = identityElementwiseProducer(op.getLhs());
    if (!producer)
      return;
    IRRewriter rewriter(op.getContext());
    // One generic for the whole DAG: a copy of each producer (the originals
    // stay for their other users) folded in by upstream's elementwise
    // fusion, which also inlines the i1 masks between them.
    SetVector<Operation *> originals;
    originals.insert(producer);
    rewriter.setInsertionPoint(op);
    auto dag = cast<linalg::GenericOp>(rewriter.clone(*producer));
    for (bool changed = true; changed;) {
      changed = false;
      for (OpOperand *in : dag.getDpsInputOperands()) {
        linalg::GenericOp inner = identityElementwiseProducer(in->get());
        if (!inner || !linalg::areElementwiseOpsFusable(in))
          continue;
        originals.insert(inner);
        rewriter.setInsertionPoint(dag);
        auto copy = cast<linalg::GenericOp>(rewriter.clone(*inner));
        rewriter.modifyOpInPlace(dag, [&] { in->set(copy->getResult(0)); });
        FailureOr<linalg::ElementwiseOpFusionResult> fused =
            linalg::fuseElementwiseOps(rewriter, in);
        if (failed(fused)) {
          rewriter.eraseOp(copy);
          continue;
        }
        rewriter.eraseOp(dag);
        rewriter.eraseOp(copy);
        dag = cast<linalg::GenericOp>(fused->fusedOp);
        changed = true;
        break;
      }
    }
    auto refuse = [&](const Twine &why) {
      remark(op, "A's elementwise producers not fused into the matmul: " +
                     why);
      rewriter.eraseOp(dag);
    };
    // The kernels read A once per tile of N: so often the prologue reads its
    // inputs and recomputes A.
    int64_t n = cast<ShapedType>(op.getResult().getType()).getDimSize(1);
    if (ShapedType::isDynamic(n) || n > maxPrologueN)
      return refuse(
          "the kernel reads A once per tile of N = " +
          (ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n)) +
          " columns, and would recompute it from its inputs that often "
          "(fused for a static N up to " +
          std::to_string(maxPrologueN.getValue()) + ")");
    // The leaves: distinct full-size tensors of A's element type.
    Type elem = getElementTypeOrSelf(op.getLhs().getType());
    SetVector<Value> leaves;
    for (OpOperand *in : dag.getDpsInputOperands())
      if (!dag.getMatchingBlockArgument(in).use_empty())
        leaves.insert(in->get());
    if (leaves.empty())
      return refuse("A is a constant");
    if (leaves.size() > kMaxPrologueLeaves)
      return refuse("they read " + Twine(leaves.size()) +
                    " tensors; a prologue reads at most " +
                    Twine(kMaxPrologueLeaves));
    for (Value leaf : leaves)
      if (getElementTypeOrSelf(leaf.getType()) != elem)
        return refuse("a tensor they read has another element type than A");
    // Values from above: constants are cloned in; anything else refuses.
    SetVector<Value> above;
    getUsedValuesDefinedAbove(dag.getRegion(), above);
    for (Value v : above)
      if (!matchPattern(v, m_Constant()))
        return refuse("their body reads a scalar from outside");

    // Past K the kernels read zero-padded A and B.
    if (!finiteAtZero(*dag.getBlock()))
      return refuse("they are not provably finite at 0 (the kernels pad A "
                    "with zeros past K)");

    // The prologue: (A's leaf, the other leaves) -> A's element.
    OpBuilder b(op);
    SmallVector<Value> inputs(leaves.begin() + 1, leaves.end());
    auto fusedOp = MatmulOp::create(
        b, op.getLoc(), op.getResult().getType(), leaves[0], op.getRhs(),
        op.getTransposeA(), op.getTransposeB(), op.getEpilogueInputs(),
        inputs, op.getEpilogueMaps(), op.getNormGroupSizeAttr(),
        op.getNormEpsilonAttr(), op.getConfigAttr());
    fusedOp.getEpilogue().takeBody(op.getEpilogue());
    fusedOp.getNormEpilogue().takeBody(op.getNormEpilogue());
    SmallVector<Type> argTypes(leaves.size(), elem);
    SmallVector<Location> argLocs(leaves.size(), op.getLoc());
    Block *body = b.createBlock(&fusedOp.getPrologue(), {}, argTypes, argLocs);
    b.setInsertionPointToStart(body);
    IRMapping map;
    for (Value v : above)
      map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    for (OpOperand *in : dag.getDpsInputOperands()) {
      BlockArgument arg = dag.getMatchingBlockArgument(in);
      if (!arg.use_empty())
        map.map(arg, body->getArgument(llvm::find(leaves, in->get()) -
                                       leaves.begin()));
    }
    for (Operation &inner : dag.getBlock()->without_terminator())
      b.clone(inner, map);
    Value a = map.lookup(dag.getBlock()->getTerminator()->getOperand(0));
    YieldOp::create(b, op.getLoc(), a);
    rewriter.eraseOp(dag);
    remark(fusedOp, "fused " + Twine(originals.size()) +
                        " elementwise producer(s) of A into the matmul's "
                        "prologue: A is computed from " +
                        Twine(leaves.size()) +
                        " tensor(s) as the kernel reads it");
    op.getResult().replaceAllUsesWith(fusedOp.getResult());
    rewriter.eraseOp(op);
    // Producers left without users (their other users were the matmul).
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *o : originals)
        if (o && o->use_empty()) {
          originals.remove(o);
          rewriter.eraseOp(o);
          erased = true;
          break;
        }
    }
  }
};

} // namespace
