//===- FuseGroupNorm.cpp - normalizations into fuser.group_norm -----------===//
//
// Forms fuser.group_norm groups from the linalg decompositions front ends
// emit for GroupNorm, LayerNorm and InstanceNorm (torch-mlir's included: f64
// variance, keepdim statistics read through (d0, d1, 0, 0) maps, gamma and
// beta as 1xC views), and absorbs the elementwise consumers of every group
// norm (formed here or written directly) into its epilogue.
//
// 1. A candidate is a tensor T that a sum reduction reads element by element
//    (directly, or through elementwise ops such as torch-mlir's arith.extf to
//    f64): a grouped view reshape(X), (N, G, C/G, 1) for torch-mlir's
//    GroupNorm, or X itself for a LayerNorm.
// 2. An elementwise op over T's shape, found through elementwise users of T,
//    must compute (x - mean) * rstd; GroupNormMatcher follows its scalars
//    through the statistics ops whatever their maps and precision. The sums
//    keep T's leading dimensions and reduce the trailing ones, so each group
//    is K contiguous elements.
// 3. The normalized value is followed through reshapes back to X's type, or
//    until an op reads it in another shape (InstanceNorm's affine on its
//    view); the group norm's input Y is X, or T reshaped like that value.
//    Y is (N, C, ...) with only N dynamic, and a group is either whole
//    channels of one sample (G groups per sample) or Y's trailing
//    dimensions (a LayerNorm over them).
// 4. The elementwise consumers (their reads of unit-dimension views such as
//    torch-mlir's 1xC gamma through (d0, d1) -> (0, d1) first rewritten as
//    reads of the plain vector) are absorbed like fuser-fuse-matmul absorbs
//    its epilogue. A leading * gamma (+ beta) per channel becomes the op's
//    gamma and beta; one per element of a group (LayerNorm's weight) too,
//    with Y flattened to (rows, K) and one group per row; else gamma = 1
//    and beta = 0 and the epilogue keeps what it has.
// 5. The chain becomes one fuser.group_norm (viewed back when Y was
//    flattened); the decomposition left dead is erased. Any mismatch leaves
//    the IR unfused with a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "EpilogueUtils.h"
#include "GroupNormMatcher.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ScopedPrinter.h"

#define DEBUG_TYPE "fuser-fuse-group-norm"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEGROUPNORMPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The group norm kernel's limit on a group's elements: its counts are
/// f32, exact below 2^24 (fuser-group-norm-to-gpu refuses larger groups).
constexpr int64_t kMaxGroupSize = int64_t(1) << 24;

static bool isReshape(Operation *op) {
  return isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// The dimension `m` reads if it has one result, a dimension: 1 for
/// (d0, d1) -> (d1).
static std::optional<unsigned> singleDim(AffineMap m) {
  if (m.getNumResults() != 1)
    return std::nullopt;
  if (auto d = dyn_cast<AffineDimExpr>(m.getResult(0)))
    return d.getPosition();
  return std::nullopt;
}

/// Rewrites the reads of `op` through constant-0 results on unit dimensions
/// (torch-mlir's gamma viewed as 1xC and read through (d0, d1) -> (0, d1))
/// as reads of the tensor without those dimensions ((d0, d1) -> (d1) of the
/// C vector): the same elements, through a broadcast map the epilogue
/// builder accepts. The vector is the expand_shape's source when the view
/// was one, else a tensor.collapse_shape of it.
static void rewriteUnitDimReads(linalg::GenericOp op,
                                DenseSet<Operation *> &erased) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  OpBuilder b(op);
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto ty = dyn_cast<RankedTensorType>(in->get().getType());
    if (!ty)
      continue;
    AffineMap m = maps[in->getOperandNumber()];
    SmallVector<int64_t> keep, dropped;
    for (auto [j, e] : llvm::enumerate(m.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (c && c.getValue() == 0 && ty.getDimSize(j) == 1)
        dropped.push_back(j);
      else
        keep.push_back(j);
    }
    if (dropped.empty())
      continue;
    // Each kept dimension takes the unit ones before it; the last one, the
    // unit ones after it too.
    SmallVector<ReassociationIndices> reassoc;
    SmallVector<int64_t> shape;
    int64_t next = 0;
    for (int64_t k : keep) {
      ReassociationIndices group;
      for (; next <= k; ++next)
        group.push_back(next);
      reassoc.push_back(group);
      shape.push_back(ty.getDimSize(k));
    }
    for (; !reassoc.empty() && next < ty.getRank(); ++next)
      reassoc.back().push_back(next);
    auto newTy = RankedTensorType::get(shape, ty.getElementType());
    Value src = in->get();
    Value vec;
    auto expand = src.getDefiningOp<tensor::ExpandShapeOp>();
    if (expand && expand.getSrcType() == newTy &&
        expand.getReassociationIndices() == reassoc)
      vec = expand.getSrc();
    else
      vec =
          tensor::CollapseShapeOp::create(b, op.getLoc(), newTy, src, reassoc);
    in->set(vec);
    maps[in->getOperandNumber()] = m.dropResults(dropped);
    changed = true;
    if (expand && isOpTriviallyDead(expand)) {
      erased.insert(expand);
      expand->erase();
    }
  }
  if (changed)
    op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

/// Applies rewriteUnitDimReads to every elementwise op downstream of `v`
/// through ops of its shape: the ones an epilogue may absorb.
static void rewriteUnitDimReadsAfter(Value v, DenseSet<Operation *> &erased) {
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  SetVector<Operation *> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    for (Operation *user : cur.getUsers()) {
      auto g = dyn_cast<linalg::GenericOp>(user);
      if (!g || !g.hasPureTensorSemantics() || g->getNumResults() != 1 ||
          g.getNumParallelLoops() != g.getNumLoops() ||
          cast<RankedTensorType>(g->getResult(0).getType()).getShape() !=
              shape ||
          !seen.insert(g))
        continue;
      rewriteUnitDimReads(g, erased);
      work.push_back(g->getResult(0));
    }
  }
}

/// The epilogue input behind block argument `v`, if it is one (not the
/// group's own value).
static std::optional<unsigned> inputIndex(Epilogue &epi, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != epi.block || arg.getArgNumber() == 0)
    return std::nullopt;
  return arg.getArgNumber() - 1;
}

/// `v` collapsed to (dims [0, tail), dims [tail, rank)), or to one
/// dimension when `tail` is 0; `v` itself when that is its shape.
static Value flattenValue(OpBuilder &b, Location loc, Value v, int64_t tail) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  if (rank <= 1)
    return v;
  SmallVector<ReassociationIndices> reassoc;
  if (tail > 0)
    reassoc.push_back(llvm::to_vector(llvm::seq<int64_t>(0, tail)));
  reassoc.push_back(llvm::to_vector(llvm::seq<int64_t>(tail, rank)));
  if (static_cast<int64_t>(reassoc.size()) == rank)
    return v;
  return tensor::CollapseShapeOp::create(b, loc, v, reassoc);
}

/// The map reading an epilogue input from the space of X flattened at
/// `tail` to (rows, group elements), and how to flatten the input (its
/// flattenValue `tail`), for a map `m` from X's space: scalars as they are,
/// full tensors flattened like X, reads of the leading or of the trailing
/// dimensions (in order) as reads of rows or columns. None for other maps.
static std::optional<std::pair<AffineMap, int64_t>> flattenedMap(AffineMap m,
                                                                 int64_t tail) {
  MLIRContext *ctx = m.getContext();
  int64_t rank = m.getNumDims();
  auto dims = [&](int64_t from, int64_t to) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d = from; d < to; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return exprs;
  };
  if (m.getNumResults() == 0)
    return std::pair(AffineMap::get(2, 0, {}, ctx), int64_t(0));
  if (m.isIdentity())
    return std::pair(AffineMap::getMultiDimIdentityMap(2, ctx), tail);
  if (m.getResults() == ArrayRef(dims(tail, rank)))
    return std::pair(AffineMap::get(2, 0, getAffineDimExpr(1, ctx)),
                     int64_t(0));
  if (m.getResults() == ArrayRef(dims(0, tail)))
    return std::pair(AffineMap::get(2, 0, getAffineDimExpr(0, ctx)),
                     int64_t(0));
  return std::nullopt;
}

/// `v`, X flattened at `tail`, expanded back to X's type.
static Value expandTo(OpBuilder &b, Location loc, Value v, Value x,
                      int64_t tail) {
  auto xTy = cast<RankedTensorType>(x.getType());
  SmallVector<ReassociationIndices> reassoc{
      llvm::to_vector(llvm::seq<int64_t>(0, tail)),
      llvm::to_vector(llvm::seq<int64_t>(tail, xTy.getRank()))};
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < xTy.getRank(); ++d)
    sizes.push_back(
        xTy.isDynamicDim(d)
            ? OpFoldResult(tensor::DimOp::create(b, loc, x, d).getResult())
            : OpFoldResult(b.getIndexAttr(xTy.getDimSize(d))));
  return tensor::ExpandShapeOp::create(b, loc, xTy, v, reassoc, sizes);
}

class FuseGroupNormPass
    : public fuser::impl::FuserFuseGroupNormPassBase<FuseGroupNormPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    erased.clear();
    // Group norms written directly absorb their consumers too; collected
    // first, since the ones formed below already have.
    SmallVector<GroupNormOp> direct;
    getOperation().walk([&](GroupNormOp op) { direct.push_back(op); });

    // Candidates: the tensors sums read element by element, with the sum
    // (where a remark goes when the tensor has no reshape to report on) and
    // the tensor's defining op, checked against `erased` before the tensor
    // is touched. A tensor is tried again for each sum left (a second
    // normalization of one input), not after it failed.
    struct Candidate {
      Value data;
      Operation *def, *sum;
    };
    SmallVector<Candidate> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (Value t = summedTensor(op))
        candidates.push_back({t, t.getDefiningOp(), op});
    });
    DenseSet<Value> failed;
    for (const Candidate &c : candidates) {
      if (erased.contains(c.sum) || (c.def && erased.contains(c.def)) ||
          failed.contains(c.data))
        continue;
      Operation *at = isReshape(c.def) ? c.def : c.sum;
      std::string why = tryFuse(c.data, at);
      if (why.empty())
        continue;
      failed.insert(c.data);
      remark(at, "not fused into fuser.group_norm: " + why);
    }
    for (GroupNormOp op : direct)
      absorbIntoDirect(op);
    SmallVector<GroupNormOp> groups;
    getOperation().walk([&](GroupNormOp op) { groups.push_back(op); });
    for (GroupNormOp op : groups)
      regroupInstances(op);
  }

private:
  DenseSet<Operation *> erased;

  /// torch-mlir's InstanceNorm views X (N, C, ...) as (1, N * C, ...) with
  /// one group per channel and repeats gamma and beta N times (a broadcast
  /// to N x C, flattened), which costs a kernel each. The same group norm is
  /// GroupNorm(C) on X with gamma and beta themselves: rewrite it so.
  void regroupInstances(GroupNormOp op) {
    auto viewTy = op.getInput().getType();
    Value x = reshapeRoot(op.getInput());
    auto xTy = cast<RankedTensorType>(x.getType());
    if (x == op.getInput() || !op.getEpilogueInputs().empty() ||
        xTy.getRank() < 2 || viewTy.getRank() != xTy.getRank() ||
        !xTy.hasStaticShape() || !viewTy.hasStaticShape() ||
        viewTy.getDimSize(0) != 1)
      return;
    int64_t n = xTy.getDimSize(0), c = xTy.getDimSize(1);
    if (viewTy.getDimSize(1) != n * c ||
        static_cast<int64_t>(op.getNumGroups()) != n * c ||
        viewTy.getShape().drop_front(2) != xTy.getShape().drop_front(2))
      return;
    // gamma, beta: collapse_shape (N x C -> N * C) of a copy of a C vector
    // read through (d0, d1) -> (d1).
    MLIRContext *ctx = op.getContext();
    AffineMap perChannel = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
    auto channelVector = [&](Value v) -> Value {
      auto collapse = v.getDefiningOp<tensor::CollapseShapeOp>();
      if (!collapse || collapse.getSrcType().getRank() != 2 ||
          collapse.getSrcType().getShape() != ArrayRef<int64_t>{n, c})
        return {};
      std::optional<MappedValue> copy = matchCopy(collapse.getSrc());
      if (!copy || copy->map != perChannel)
        return {};
      return copy->source;
    };
    Value gamma = channelVector(op.getGamma());
    Value beta = channelVector(op.getBeta());
    if (!gamma || !beta)
      return;
    OpBuilder b(op);
    auto regrouped = GroupNormOp::create(
        b, op.getLoc(), xTy, x, gamma, beta, b.getI64IntegerAttr(c),
        op.getEpsilonAttr(), ValueRange{}, b.getArrayAttr({}),
        op.getConfigAttr());
    regrouped.getEpilogue().takeBody(op.getEpilogue());
    // Back to the (1, N * C, ...) view for the old users.
    SmallVector<ReassociationIndices> merge{{0, 1}};
    for (int64_t d = 2; d < xTy.getRank(); ++d)
      merge.push_back({d});
    Value flat =
        tensor::CollapseShapeOp::create(b, op.getLoc(), regrouped, merge);
    Value view = tensor::ExpandShapeOp::create(b, op.getLoc(), viewTy, flat,
                                               merge);
    remark(regrouped, "InstanceNorm: " + Twine(n * c) +
                          " groups of one channel over the (1, N * C) view "
                          "are GroupNorm(" + Twine(c) +
                          ") on the input, with gamma and beta as given");
    op.getResult().replaceAllUsesWith(view);
    Operation *gammaDef = op.getGamma().getDefiningOp();
    Operation *betaDef = op.getBeta().getDefiningOp();
    Operation *viewDef = op.getInput().getDefiningOp();
    op.erase();
    for (Operation *def : {gammaDef, betaDef, viewDef})
      eraseIfDead(def);
  }

  /// Erases `op` and then its producers while nothing uses them.
  void eraseIfDead(Operation *op) {
    SmallVector<Operation *> work{op};
    while (!work.empty()) {
      Operation *o = work.pop_back_val();
      if (!o || erased.contains(o) || !isOpTriviallyDead(o))
        continue;
      for (Value v : o->getOperands())
        work.push_back(v.getDefiningOp());
      erased.insert(o);
      o->erase();
    }
  }

  void remark(Operation *op, const Twine &msg) {
    if (report)
      op->emitRemark() << msg;
  }

  /// The elementwise ops over `data`'s shape reachable from `data` through
  /// such ops, nearest first.
  static SmallVector<linalg::GenericOp> elementwiseOver(Value data) {
    auto shape = cast<RankedTensorType>(data.getType()).getShape();
    SetVector<Operation *> seen;
    SmallVector<linalg::GenericOp> ops;
    SmallVector<Value> frontier{data};
    for (size_t i = 0; i < frontier.size(); ++i)
      for (Operation *user : frontier[i].getUsers()) {
        auto g = dyn_cast<linalg::GenericOp>(user);
        if (!g || !isTraceableElementwise(g) || !seen.insert(g))
          continue;
        for (Value r : g->getResults())
          if (cast<RankedTensorType>(r.getType()).getShape() == shape) {
            ops.push_back(g);
            frontier.push_back(r);
            break;
          }
      }
    return ops;
  }

  /// Forms a group norm around the normalized tensor `data`; `at` is where
  /// remarks go. Returns why not, or "" once fused.
  std::string tryFuse(Value data, Operation *at) {
    auto dataTy = cast<RankedTensorType>(data.getType());
    if (!dataTy.getElementType().isF32())
      return "its element type is " + llvm::to_string(dataTy.getElementType()) +
             "; only f32 group norms are fused";

    // 1. The normalization op: (x - mean) * rstd over `data`.
    linalg::GenericOp norm;
    std::optional<GroupNormMatcher> matcher;
    std::string why;
    for (linalg::GenericOp g : elementwiseOver(data)) {
      if (g->getNumResults() != 1 || g->getResult(0).getType() != dataTy)
        continue;
      GroupNormMatcher m(data);
      std::string w = m.matchNormalize(g);
      if (w.empty()) {
        norm = g;
        matcher = m;
        break;
      }
      if (why.empty() || why == kNotNormalizeMessage)
        why = w;
    }
    if (!norm)
      return why.empty() ? "no elementwise op over the grouped view "
                           "normalizes it"
                         : why;

    // 2. Back to the shape of X = reshape(data), as far as the consumers
    //    allow: InstanceNorm applies its affine to the grouped view first,
    //    and a value with several users stays where it is.
    Value x = reshapeRoot(data);
    auto xTy = cast<RankedTensorType>(x.getType());
    Value flat = norm->getResult(0);
    SmallVector<Operation *> reshapes;
    while (flat.getType() != xTy && flat.hasOneUse()) {
      Operation *user = *flat.getUsers().begin();
      if (!isReshape(user))
        break;
      reshapes.push_back(user);
      flat = user->getResult(0);
    }

    // 3. The group norm's input Y has the type of `flat`: X, or `data`
    //    reshaped like `flat` when ops read the normalized value before it
    //    is X-shaped. Y is (N, C, ...), and a group is either whole channels
    //    of one sample (G groups per sample: GroupNorm, InstanceNorm), or
    //    the trailing dimensions of Y from `tail` on (a LayerNorm over them).
    auto yTy = cast<RankedTensorType>(flat.getType());
    if (yTy.getRank() < 2)
      return "the normalized tensor is not a view of an (N, C, ...) tensor";
    if (llvm::any_of(yTy.getShape().drop_front(), ShapedType::isDynamic))
      return "only the batch dimension N of " + llvm::to_string(yTy) +
             " may be dynamic";
    int64_t k = matcher->groupSize;
    // The group norm kernel counts in f32 (fuser-group-norm-to-gpu).
    if (k >= kMaxGroupSize)
      return llvm::formatv("a group of {0} elements is more than the group "
                           "norm kernel handles (2^24 - 1)",
                           k)
          .str();
    Layout layout;
    int64_t perSample = 1;
    for (int64_t s : yTy.getShape().drop_front())
      perSample *= s;
    if (perSample % k == 0 && yTy.getDimSize(1) % (perSample / k) == 0)
      layout.groups = perSample / k;
    for (int64_t d = yTy.getRank() - 1, elems = 1; d >= 1 && elems < k; --d)
      if ((elems *= yTy.getDimSize(d)) == k)
        layout.tail = d;
    if (!layout.groups && !layout.tail)
      return llvm::formatv("a group of {0} elements is not whole channels of "
                           "one sample of the {1} tensor",
                           k, llvm::to_string(yTy))
          .str();

    // 4. The consumers, the affine first.
    rewriteUnitDimReadsAfter(flat, erased);
    MLIRContext *ctx = data.getContext();
    Epilogue epi(ctx, yTy.getElementType(), norm.getLoc());
    Value running = epi.block->getArgument(0);
    SmallVector<Operation *> chain;
    Value cur = absorbElementwiseConsumers(
        flat, running, epi, norm->getBlock(), "group norm", chain,
        [&](Operation *op, const Twine &msg) { remark(op, msg); });
    OpBuilder builder(ctx);
    if (chain.empty())
      builder.setInsertionPointAfterValue(cur);
    else
      builder.setInsertionPoint(chain.back());
    Location loc = norm.getLoc();
    Value y = x;
    if (yTy != xTy) {
      y = data;
      for (Operation *r : reshapes) {
        IRMapping m;
        m.map(r->getOperand(0), y);
        y = builder.clone(*r, m)->getResult(0);
      }
    }
    std::string affine;
    Operands operands =
        takeAffine(builder, loc, epi, running, y, layout, affine);
    if (!operands.input) {
      epi.block->dropAllDefinedValueUses();
      delete epi.block;
      return "the group norm's epilogue reads an input through a map that "
             "does not survive flattening the input to (rows, group "
             "elements)";
    }

    // 5. The group, where the chain ends: every input dominates it.
    YieldOp::create(epi.builder, loc, running);
    auto group = GroupNormOp::create(
        builder, loc, operands.input.getType(), operands.input, operands.gamma,
        operands.beta, static_cast<uint64_t>(operands.groups),
        APFloat(matcher->epsilon), epi.inputs, builder.getArrayAttr(epi.maps),
        /*config=*/nullptr);
    group.getEpilogue().push_back(epi.block);
    Value result = group.getResult();
    if (result.getType() != yTy)
      result = expandTo(builder, loc, result, y, *layout.tail);
    remark(at, llvm::formatv("fused group norm ({0} groups of {1}) with {2} "
                             "consumer op(s), {3}",
                             operands.groups, k, chain.size(), affine));
    LLVM_DEBUG(llvm::dbgs() << "fused: " << group << "\n");
    cur.replaceAllUsesWith(result);
    if (chain.empty())
      chain.push_back(cur.getDefiningOp());
    eraseChainAndDeadProducers(chain, erased);
    return "";
  }

  /// The ways a group of the normalized tensor lies in X: `groups` groups of
  /// whole channels per sample, or the trailing dimensions from `tail` on.
  struct Layout {
    std::optional<int64_t> groups;
    std::optional<int64_t> tail;
  };

  /// The fuser.group_norm's operands.
  struct Operands {
    Value input, gamma, beta;
    int64_t groups = 0;
  };

  /// Decides the group norm's operands from the start of the epilogue:
  ///  - x * gamma[c] (+ beta[c]) per channel of X (d1): X, G groups, gamma
  ///    and beta (beta 0 when absent);
  ///  - x * gamma (+ beta) read through X's trailing dimensions from `tail`
  ///    on (a LayerNorm's weight): X flattened to (rows, group elements),
  ///    one group, gamma and beta flattened, the epilogue inputs flattened
  ///    too;
  ///  - else gamma = 1 and beta = 0 and the epilogue as it is.
  /// The affine taken is removed from the epilogue; `what` says which case
  /// (for the remark). Returns no input when an epilogue input cannot be
  /// read from the flattened tensor.
  Operands takeAffine(OpBuilder &b, Location loc, Epilogue &epi, Value &running,
                      Value xv, const Layout &layout, std::string &what) {
    auto xTy = cast<RankedTensorType>(xv.getType());
    Value x = epi.block->getArgument(0);
    int64_t rank = xTy.getRank();
    // a. Find x * gamma (+ beta), both read through one map.
    arith::MulFOp mul;
    arith::AddFOp add;
    std::optional<unsigned> g, bt;
    if (x.hasOneUse())
      mul = dyn_cast<arith::MulFOp>(*x.getUsers().begin());
    if (mul)
      g = inputIndex(epi, mul.getLhs() == x ? mul.getRhs() : mul.getLhs());
    if (g && mul->hasOneUse())
      add = dyn_cast<arith::AddFOp>(*mul->getUsers().begin());
    if (add)
      bt = inputIndex(epi, add.getLhs() == mul.getResult() ? add.getRhs()
                                                           : add.getLhs());
    if (bt && epi.maps[*bt] != epi.maps[*g])
      bt.reset();
    AffineMap gMap =
        g ? cast<AffineMapAttr>(epi.maps[*g]).getValue() : AffineMap();
    bool perChannel = g && layout.groups && singleDim(gMap) == 1u;
    bool perElement = false;
    if (g && layout.tail && !perChannel) {
      perElement = gMap.getNumResults() == rank - *layout.tail;
      for (auto [i, e] : llvm::enumerate(gMap.getResults()))
        perElement &= e == getAffineDimExpr(*layout.tail + i, b.getContext());
    }
    bool flatten = perElement || (!perChannel && !layout.groups);

    // b. With a flattened input, every epilogue input is read flattened;
    //    when one cannot be, the affine stays in the epilogue of a group
    //    norm on Y if groups of whole channels are possible.
    if (flatten && !llvm::all_of(epi.maps, [&](Attribute m) {
          return flattenedMap(cast<AffineMapAttr>(m).getValue(), *layout.tail)
              .has_value();
        })) {
      if (!layout.groups)
        return {};
      perElement = flatten = false;
    }

    // c. Take the affine out of the epilogue.
    Value gamma, beta;
    if (perChannel || perElement) {
      gamma = epi.inputs[*g];
      if (bt)
        beta = epi.inputs[*bt];
      Value last = bt ? add.getResult() : mul.getResult();
      if (running == last)
        running = x;
      last.replaceAllUsesWith(x);
      if (add && bt)
        add->erase();
      mul->erase();
      // Drop the inputs nothing else reads, highest index first.
      SmallVector<unsigned, 2> ks{*g};
      if (bt && *bt != *g)
        ks.push_back(*bt);
      llvm::sort(ks, std::greater<unsigned>());
      for (unsigned i : ks) {
        if (!epi.block->getArgument(i + 1).use_empty())
          continue;
        epi.block->eraseArgument(i + 1);
        epi.inputs.erase(epi.inputs.begin() + i);
        epi.maps.erase(epi.maps.begin() + i);
      }
      what = !bt          ? "the scale (gamma, no beta) included"
             : perChannel ? "the affine included"
                          : "the affine over each group's elements included";
    } else {
      what = g ? "gamma 1 and beta 0 (the epilogue keeps its own scale)"
               : "no affine (gamma 1, beta 0)";
    }

    // d. The operands.
    Operands ops;
    int64_t channels;
    if (flatten) {
      ops.input = flattenValue(b, loc, xv, *layout.tail);
      ops.groups = 1;
      channels = cast<RankedTensorType>(ops.input.getType()).getDimSize(1);
      for (auto [in, attr] : llvm::zip(epi.inputs, epi.maps)) {
        AffineMap m = cast<AffineMapAttr>(attr).getValue();
        auto [flat, tail] = *flattenedMap(m, *layout.tail);
        if (isa<RankedTensorType>(in.getType()))
          in = flattenValue(b, loc, in, tail);
        attr = AffineMapAttr::get(flat);
      }
    } else {
      ops.input = xv;
      ops.groups = *layout.groups;
      channels = xTy.getDimSize(1);
    }
    auto vecTy = RankedTensorType::get({channels}, xTy.getElementType());
    auto vector = [&](Value v, double fill) -> Value {
      if (!v)
        return arith::ConstantOp::create(
            b, loc, vecTy,
            DenseElementsAttr::get(vecTy,
                                   b.getFloatAttr(xTy.getElementType(), fill)));
      return v.getType() == vecTy ? v : flattenValue(b, loc, v, 0);
    };
    ops.gamma = vector(gamma, 1.0);
    ops.beta = vector(beta, 0.0);
    return ops;
  }

  /// Absorbs the elementwise consumers of a group norm already formed (or
  /// written directly) into its epilogue.
  void absorbIntoDirect(GroupNormOp op) {
    if (erased.contains(op))
      return;
    Value result = op.getResult();
    if (!result.hasOneUse() ||
        !isa<linalg::LinalgOp>(*result.getUsers().begin()))
      return;
    MLIRContext *ctx = op.getContext();
    auto resTy = cast<RankedTensorType>(result.getType());
    rewriteUnitDimReadsAfter(result, erased);
    Epilogue epi(ctx, resTy.getElementType(), op.getLoc());
    // Re-read the existing epilogue through the builder, so inputs stay
    // deduplicated against the ones absorbed next.
    Block &old = op.getEpilogue().front();
    IRMapping mapping;
    mapping.map(old.getArgument(0), epi.block->getArgument(0));
    for (auto [k, in] : llvm::enumerate(op.getEpilogueInputs()))
      mapping.map(
          old.getArgument(k + 1),
          epi.read(in,
                   cast<AffineMapAttr>(op.getEpilogueMaps()[k]).getValue()));
    for (Operation &inner : old.without_terminator())
      epi.builder.clone(inner, mapping);
    Value running = mapping.lookupOrDefault(
        cast<YieldOp>(old.getTerminator()).getValues()[0]);

    SmallVector<Operation *> chain;
    Value cur = absorbElementwiseConsumers(
        result, running, epi, op->getBlock(), "group norm", chain,
        [&](Operation *at, const Twine &msg) { remark(at, msg); });
    if (chain.empty()) {
      epi.block->dropAllDefinedValueUses();
      delete epi.block;
      return;
    }
    YieldOp::create(epi.builder, op.getLoc(), running);
    OpBuilder builder(chain.back());
    auto group = GroupNormOp::create(
        builder, op.getLoc(), resTy, op.getInput(), op.getGamma(), op.getBeta(),
        op.getNumGroupsAttr(), op.getEpsilonAttr(), epi.inputs,
        builder.getArrayAttr(epi.maps), op.getConfigAttr());
    group.getEpilogue().push_back(epi.block);
    remark(group, "absorbed " + Twine(chain.size()) +
                      " elementwise op(s) into the group norm epilogue");
    cur.replaceAllUsesWith(group.getResult());
    chain.insert(chain.begin(), op);
    eraseChainAndDeadProducers(chain, erased);
  }
};

} // namespace
