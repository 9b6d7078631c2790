//===- FuseGroupNorm.cpp - group norm decomposition into fuser.group_norm -===//
//
// Forms fuser.group_norm groups from the linalg decomposition front ends emit
// for GroupNorm, and absorbs the elementwise consumers of every group norm
// (formed here or written directly) into its epilogue.
//
// 1. A candidate is a grouped view V = reshape(X) of rank >= 3, (N, G, ...),
//    that a reduction and an elementwise op both read. The reshapes keep
//    dimension 0 (N) apart and X is (N, C, ...) with static C, ... and C
//    divisible by G, so each (n, g) of V is one group of contiguous elements.
// 2. The elementwise op over V must compute (x - mean) * rstd, where scalars
//    are followed through elementwise producers over (N, G):
//      mean = sum(V over dims 2..) * (1 / K)  or  / K    (K: group size)
//      rstd = rsqrt(var + eps)                or  1 / sqrt(var + eps)
//      var  = sum((V - mean)^2) / K           or  sum(V^2) / K - mean^2
// 3. Its only user reshapes it back to X's type; the elementwise consumers of
//    that are absorbed like fuser-fuse-matmul absorbs its epilogue, and the
//    absorbed body must start with * gamma[c] + beta[c] (per channel), which
//    becomes the op's gamma and beta.
// 4. The chain becomes one fuser.group_norm; the decomposition left dead is
//    erased. Any mismatch leaves the IR unfused with a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "ElementwiseUtils.h"
#include "EpilogueUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ScopedPrinter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define DEBUG_TYPE "fuser-fuse-group-norm"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEGROUPNORMPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// If `v` is a tensor.expand_shape or tensor.collapse_shape that keeps
/// dimension 0 in a group of its own, returns its source.
static Value reshapeSourceKeepingDim0(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto e = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    return e.getReassociationIndices()[0].size() == 1 ? e.getSrc() : Value();
  if (auto c = dyn_cast_or_null<tensor::CollapseShapeOp>(def))
    return c.getReassociationIndices()[0].size() == 1 ? c.getSrc() : Value();
  return Value();
}

/// A scalar of a linalg body seen through elementwise producers whose maps
/// are all identities (the (N, G) statistics ops). When `tensor` is set, the
/// scalar is an element of `tensor`, not itself elementwise-produced, read
/// through `map` from the space of the op the search started in.
struct Scalar {
  Value value;
  Value tensor;
  AffineMap map;
};

static Scalar resolve(Value v) {
  AffineMap map;
  while (auto arg = dyn_cast<BlockArgument>(v)) {
    auto op = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp());
    if (!op || arg.getOwner() != op.getBlock())
      break;
    OpOperand *operand = op.getMatchingOpOperand(arg);
    if (op.isDpsInit(operand))
      break; // an accumulator
    if (!map)
      map = op.getMatchingIndexingMap(operand);
    Value t = operand->get();
    auto producer = t.getDefiningOp<linalg::GenericOp>();
    if (!producer || !whyNotElementwise(producer).empty() ||
        !llvm::all_of(producer.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return {arg, t, map};
    v = producer.getBlock()->getTerminator()->getOperand(
        cast<OpResult>(t).getResultNumber());
  }
  return {v, Value(), map};
}

/// The float value of a constant scalar, after resolve().
static std::optional<double> constantValue(Value v) {
  FloatAttr attr;
  if (matchPattern(resolve(v).value, m_Constant(&attr)))
    return attr.getValueAsDouble();
  return std::nullopt;
}

/// Matches `v` (after resolve) as a binary op of type OpTy and returns its
/// operands; with `commutative`, `(lhs, rhs)` is tried in both orders by the
/// caller.
template <typename OpTy>
static OpTy defOf(Value v) {
  return resolve(v).value.getDefiningOp<OpTy>();
}

/// The shortest decimal that rounds to the same f32 as `v` (1e-05 for the
/// f32 constant 1e-05, not 9.99999974e-06), so the op prints what the user
/// wrote and the kernel's f32 epsilon is unchanged.
static double shortestRoundTrip(double v) {
  float f = static_cast<float>(v);
  for (int digits = 1; digits <= 9; ++digits) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
    double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == f)
      return d;
  }
  return v;
}

/// `v` as the f32 it rounds to, shortest: "5" for 1 / 0.2f.
static std::string formatF32(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", shortestRoundTrip(v));
  return buf;
}

/// What a group reduction sums over the elements of a group.
enum class Summand { X, XSquared, CenteredSquared };

/// The decomposition being matched.
class Matcher {
public:
  Matcher(Value view, int64_t groupSize) : view(view), groupSize(groupSize) {}

  /// Matches `v` as `(x - mean) * rstd` in the normalization op. Returns why
  /// not, or "".
  std::string matchNormalize(Value v) {
    auto mul = defOf<arith::MulFOp>(v);
    if (!mul)
      return "the elementwise op over the grouped view does not compute "
             "(x - mean) * rstd";
    for (auto [centered, rstd] : {std::pair(mul.getLhs(), mul.getRhs()),
                                  std::pair(mul.getRhs(), mul.getLhs())}) {
      auto sub = defOf<arith::SubFOp>(centered);
      if (!sub || !isViewElement(sub.getLhs()))
        continue;
      std::string why = matchMean(sub.getRhs());
      if (why.empty())
        why = matchRstd(rstd);
      if (why.empty() && (!isStatRead(sub.getRhs()) || !isStatRead(rstd)))
        why = "the mean or rstd is not read per (sample, group)";
      return why;
    }
    return "the elementwise op over the grouped view does not compute "
           "(x - mean) * rstd";
  }

  double epsilon = 0.0;

private:
  Value view;
  int64_t groupSize;

  /// True if `v` is an element of the grouped view read through identity.
  bool isViewElement(Value v) {
    Scalar s = resolve(v);
    return s.tensor == view && s.map.isIdentity();
  }

  /// True if `map` reads the (n, g) statistics: (d0, d1, ...) -> (d0, d1).
  static bool isStatMap(AffineMap map) {
    return map && map.getNumResults() == 2 && map.getDimPosition(0) == 0 &&
           map.getDimPosition(1) == 1;
  }

  /// True unless `v` reads a statistics tensor through another map than
  /// the (n, g) one. Statistics computed inline from the sums are checked
  /// where the sums are read.
  static bool isStatRead(Value v) {
    AffineMap map = resolve(v).map;
    return !map || isStatMap(map);
  }

  /// Matches `v` as `sum * c` or `sum / c` with c = 1 / K or K. Sets `sum`
  /// to the summed tensor's scalar. Returns why not, or "".
  std::string matchScaledByGroupSize(Value v, StringRef what, Value &sum) {
    std::optional<double> factor;
    if (auto mul = defOf<arith::MulFOp>(v)) {
      if (std::optional<double> c = constantValue(mul.getRhs())) {
        sum = mul.getLhs();
        factor = *c;
      } else if (std::optional<double> c = constantValue(mul.getLhs())) {
        sum = mul.getRhs();
        factor = *c;
      }
    } else if (auto div = defOf<arith::DivFOp>(v)) {
      if (std::optional<double> c = constantValue(div.getRhs())) {
        sum = div.getLhs();
        factor = 1.0 / *c;
      }
    }
    if (!factor)
      return ("the " + what + " is not a group sum scaled by a constant")
          .str();
    // 1/K rounded to f32 is what front ends write.
    double expected = 1.0 / static_cast<double>(groupSize);
    if (std::abs(*factor - expected) > 1e-6 * expected)
      return llvm::formatv("the {0} divides the group sum by {1}, not by the "
                           "group size {2}",
                           what, formatF32(1.0 / *factor), groupSize)
          .str();
    return "";
  }

  /// Checks that `sumScalar` reads a reduction of the grouped view over
  /// dimensions 2.. whose summand is `summand`. Returns why not, or "".
  std::string matchGroupSum(Value sumScalar, StringRef what, Summand summand) {
    Scalar s = resolve(sumScalar);
    auto red = s.tensor ? s.tensor.getDefiningOp<linalg::LinalgOp>()
                        : linalg::LinalgOp();
    if (!red || red.getNumDpsInits() != 1 || red->getNumResults() != 1 ||
        !red.hasPureTensorSemantics() ||
        red.getNumReductionLoops() == 0)
      return ("the " + what + " is not computed from a sum reduction").str();
    OpOperand *init = red.getDpsInitOperand(0);
    int64_t rank = cast<RankedTensorType>(view.getType()).getRank();
    bool readsView = llvm::any_of(red.getDpsInputOperands(), [&](OpOperand *o) {
      return o->get() == view;
    });
    if (!readsView)
      return ("the " + what + " does not reduce the grouped view").str();
    SmallVector<utils::IteratorType> iters = red.getIteratorTypesArray();
    bool rightAxes = static_cast<int64_t>(red.getNumLoops()) == rank &&
                     isStatMap(red.getMatchingIndexingMap(init));
    for (int64_t d = 0; rightAxes && d < rank; ++d)
      rightAxes = (iters[d] == utils::IteratorType::reduction) == (d >= 2);
    if (!rightAxes)
      return ("the " + what +
              " does not reduce over the elements of each group (dimensions "
              "2.. of the grouped view, keeping N and the group)")
          .str();
    if (!isStatMap(s.map))
      return ("the " + what + " is not read per (sample, group)").str();
    auto zero = matchCopy(init->get());
    if (!matchPattern(init->get(), m_AnyZeroFloat()) &&
        !(zero && matchPattern(zero->source, m_AnyZeroFloat())))
      return ("the " + what + "'s sum does not start from 0.0").str();

    // Body: yield(out + summand) with out the accumulator.
    Block *body = red.getBlock();
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    auto add = yield.getNumOperands() == 1
                   ? yield.getOperand(0).getDefiningOp<arith::AddFOp>()
                   : arith::AddFOp();
    BlockArgument out = red.getMatchingBlockArgument(init);
    if (!add || (add.getLhs() != out && add.getRhs() != out))
      return ("the " + what + "'s reduction is not a sum").str();
    Value term = add.getLhs() == out ? add.getRhs() : add.getLhs();
    auto isInput = [&](Value v) {
      // resolve() does not step into the reduction's own init.
      return isViewElement(v);
    };
    switch (summand) {
    case Summand::X:
      if (isInput(term))
        return "";
      break;
    case Summand::XSquared:
      if (auto sq = term.getDefiningOp<arith::MulFOp>();
          sq && isInput(sq.getLhs()) && isInput(sq.getRhs()))
        return "";
      break;
    case Summand::CenteredSquared:
      if (auto sq = term.getDefiningOp<arith::MulFOp>();
          sq && sq.getLhs() == sq.getRhs()) {
        auto sub = sq.getLhs().getDefiningOp<arith::SubFOp>();
        if (sub && isInput(sub.getLhs())) {
          std::string why = matchMean(sub.getRhs());
          if (why.empty() && !isStatRead(sub.getRhs()))
            why = "the mean is not read per (sample, group)";
          return why;
        }
      }
      break;
    }
    return ("the " + what + "'s reduction does not sum the expected terms")
        .str();
  }

  std::string matchMean(Value v) {
    Value sum;
    std::string why = matchScaledByGroupSize(v, "mean", sum);
    if (why.empty())
      why = matchGroupSum(sum, "mean", Summand::X);
    return why;
  }

  /// var = sum((x - mean)^2) / K, or sum(x^2) / K - mean * mean.
  std::string matchVariance(Value v) {
    if (auto sub = defOf<arith::SubFOp>(v)) {
      auto sq = defOf<arith::MulFOp>(sub.getRhs());
      if (!sq)
        return "the variance is not E[x^2] - mean^2 nor a centered sum";
      Value ex2;
      std::string why = matchScaledByGroupSize(sub.getLhs(), "variance", ex2);
      if (why.empty())
        why = matchGroupSum(ex2, "variance", Summand::XSquared);
      if (why.empty())
        why = matchMean(sq.getLhs());
      if (why.empty())
        why = matchMean(sq.getRhs());
      return why;
    }
    Value sum;
    std::string why = matchScaledByGroupSize(v, "variance", sum);
    if (why.empty())
      why = matchGroupSum(sum, "variance", Summand::CenteredSquared);
    return why;
  }

  /// rstd = rsqrt(var + eps) or 1 / sqrt(var + eps), eps > 0 constant.
  std::string matchRstd(Value v) {
    Value arg;
    if (auto r = defOf<math::RsqrtOp>(v)) {
      arg = r.getOperand();
    } else if (auto div = defOf<arith::DivFOp>(v)) {
      std::optional<double> one = constantValue(div.getLhs());
      if (auto sq = defOf<math::SqrtOp>(div.getRhs()); sq && one == 1.0)
        arg = sq.getOperand();
    }
    if (!arg)
      return "the normalization does not multiply by rsqrt(var + eps)";
    Value var;
    if (auto add = defOf<arith::AddFOp>(arg)) {
      for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())})
        if (std::optional<double> c = constantValue(b); c && *c > 0.0) {
          var = a;
          epsilon = shortestRoundTrip(*c);
          break;
        }
    }
    if (!var)
      return "no positive constant epsilon is added to the variance before "
             "rsqrt";
    return matchVariance(var);
  }
};

/// The grouped view and the input it views.
struct GroupedView {
  Value input;
  int64_t groups = 0, groupSize = 0;
};

/// Checks that `view` splits each sample of an (N, C, ...) tensor into groups
/// of whole channels. Returns why not, or "".
static std::string matchGroupedView(Value view, GroupedView &gv) {
  Value x = view;
  while (Value src = reshapeSourceKeepingDim0(x))
    x = src;
  auto viewTy = cast<RankedTensorType>(view.getType());
  auto xTy = dyn_cast<RankedTensorType>(x.getType());
  if (x == view || !xTy || xTy.getRank() < 2)
    return "the grouped view is not a reshape of an (N, C, ...) tensor that "
           "keeps N apart";
  if (!xTy.getElementType().isF32())
    return "its element type is " + llvm::to_string(xTy.getElementType()) +
           "; only f32 group norms are fused";
  if (llvm::any_of(xTy.getShape().drop_front(), ShapedType::isDynamic) ||
      llvm::any_of(viewTy.getShape().drop_front(), ShapedType::isDynamic))
    return "only the batch dimension N may be dynamic";
  int64_t groups = viewTy.getDimSize(1);
  int64_t channels = xTy.getDimSize(1);
  int64_t perSample = 1, viewPerSample = 1;
  for (int64_t s : xTy.getShape().drop_front())
    perSample *= s;
  for (int64_t s : viewTy.getShape().drop_front())
    viewPerSample *= s;
  if (perSample != viewPerSample || channels % groups != 0)
    return llvm::formatv("the grouped view's {0} groups do not split the {1} "
                         "channels into whole channels",
                         groups, channels)
        .str();
  gv = {x, groups, perSample / groups};
  return "";
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

    SmallVector<Value> views;
    getOperation().walk([&](Operation *op) {
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
        return;
      Value v = op->getResult(0);
      if (cast<RankedTensorType>(v.getType()).getRank() < 3)
        return;
      bool reduced = false, elementwise = false;
      for (Operation *user : v.getUsers())
        if (auto l = dyn_cast<linalg::LinalgOp>(user)) {
          reduced |= l.getNumReductionLoops() > 0;
          elementwise |= l.getNumReductionLoops() == 0 &&
                         l->getNumResults() == 1 &&
                         l->getResult(0).getType() == v.getType();
        }
      if (reduced && elementwise)
        views.push_back(v);
    });
    for (Value view : views) {
      if (erased.contains(view.getDefiningOp()))
        continue;
      std::string why = tryFuse(view);
      if (!why.empty())
        remark(view.getDefiningOp(), "not fused into fuser.group_norm: " + why);
    }
    for (GroupNormOp op : direct)
      absorbIntoDirect(op);
  }

private:
  DenseSet<Operation *> erased;

  void remark(Operation *op, const Twine &msg) {
    if (report)
      op->emitRemark() << msg;
  }

  /// Forms a group norm around the grouped view `view`. Returns why not, or
  /// "" once fused.
  std::string tryFuse(Value view) {
    GroupedView gv;
    std::string why = matchGroupedView(view, gv);
    if (!why.empty())
      return why;

    // 1. The normalization op (the elementwise user of the view).
    linalg::GenericOp norm;
    for (Operation *user : view.getUsers()) {
      auto g = dyn_cast<linalg::GenericOp>(user);
      if (g && whyNotElementwise(g).empty() && g->getNumResults() == 1 &&
          g->getResult(0).getType() == view.getType())
        norm = g;
    }
    if (!norm)
      return "no elementwise op over the grouped view normalizes it";
    Matcher matcher(view, gv.groupSize);
    why = matcher.matchNormalize(
        norm.getBlock()->getTerminator()->getOperand(0));
    if (!why.empty())
      return why;

    // 2. Back to the input's shape.
    Value flat = norm->getResult(0);
    while (flat.getType() != gv.input.getType()) {
      if (!flat.hasOneUse())
        return "the normalized value has several users";
      Operation *user = *flat.getUsers().begin();
      if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) ||
          !reshapeSourceKeepingDim0(user->getResult(0)))
        return isPerGroupAffine(user, view)
                   ? "gamma and beta are per group (read through the group "
                     "dimension), not per channel"
                   : "the normalized value is not reshaped back to the "
                     "input's shape";
      flat = user->getResult(0);
    }

    // 3. The consumers, the affine first.
    MLIRContext *ctx = view.getContext();
    auto flatTy = cast<RankedTensorType>(flat.getType());
    Epilogue epi(ctx, flatTy.getElementType(), norm.getLoc());
    Value running = epi.block->getArgument(0);
    SmallVector<Operation *> chain;
    Value cur = absorbElementwiseConsumers(
        flat, running, epi, norm->getBlock(), "group norm", chain,
        [&](Operation *at, const Twine &msg) { remark(at, msg); });
    Value gamma, beta;
    why = stripAffine(epi, running, gamma, beta);
    if (!why.empty()) {
      epi.block->dropAllDefinedValueUses();
      delete epi.block;
      return why;
    }

    // 4. The group, where the chain ends: every input dominates it.
    YieldOp::create(epi.builder, norm.getLoc(), running);
    OpBuilder builder(chain.back());
    auto group = GroupNormOp::create(
        builder, norm.getLoc(), flatTy, gv.input, gamma, beta,
        static_cast<uint64_t>(gv.groups), APFloat(matcher.epsilon), epi.inputs,
        builder.getArrayAttr(epi.maps), /*config=*/nullptr);
    group.getEpilogue().push_back(epi.block);
    remark(view.getDefiningOp(),
           llvm::formatv("fused group norm ({0} groups of {1}) with {2} "
                         "consumer op(s), the affine included",
                         gv.groups, gv.groupSize, chain.size()));
    LLVM_DEBUG(llvm::dbgs() << "fused: " << group << "\n");
    cur.replaceAllUsesWith(group.getResult());
    eraseChainAndDeadProducers(chain, erased);
    return "";
  }

  /// True if `user` scales the normalized grouped view by a tensor read
  /// through the group dimension only: an affine per group.
  static bool isPerGroupAffine(Operation *user, Value view) {
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g)
      return false;
    int64_t rank = cast<RankedTensorType>(view.getType()).getRank();
    return llvm::any_of(g.getDpsInputOperands(), [&](OpOperand *o) {
      AffineMap m = g.getMatchingIndexingMap(o);
      return m.getNumDims() == rank && m.getNumResults() == 1 &&
             m.getDimPosition(0) == 1;
    });
  }

  /// The epilogue input behind block argument `v` if it is read per channel,
  /// (d0, d1, ...) -> (d1).
  static std::optional<unsigned> perChannelInput(Epilogue &epi, Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != epi.block || arg.getArgNumber() == 0)
      return std::nullopt;
    unsigned k = arg.getArgNumber() - 1;
    AffineMap m = cast<AffineMapAttr>(epi.maps[k]).getValue();
    if (m.getNumResults() != 1 || m.getDimPosition(0) != 1)
      return std::nullopt;
    return k;
  }

  /// Removes `x * gamma[c] + beta[c]` from the start of the epilogue: the
  /// epilogue receives the value after the affine. Returns why it is not
  /// there, or "".
  static std::string stripAffine(Epilogue &epi, Value &running, Value &gamma,
                                 Value &beta) {
    BlockArgument x = epi.block->getArgument(0);
    const char *missing = "no per-channel affine (* gamma[c] + beta[c]) "
                          "follows the normalization; fuser.group_norm "
                          "needs both gamma and beta";
    if (!x.hasOneUse())
      return missing;
    auto mul = dyn_cast<arith::MulFOp>(*x.getUsers().begin());
    if (!mul)
      return missing;
    std::optional<unsigned> g =
        perChannelInput(epi, mul.getLhs() == x ? mul.getRhs() : mul.getLhs());
    if (!g || !mul->hasOneUse())
      return missing;
    auto add = dyn_cast<arith::AddFOp>(*mul->getUsers().begin());
    if (!add)
      return missing;
    std::optional<unsigned> b = perChannelInput(
        epi, add.getLhs() == mul.getResult() ? add.getRhs() : add.getLhs());
    if (!b)
      return missing;

    gamma = epi.inputs[*g];
    beta = epi.inputs[*b];
    if (running == add.getResult())
      running = x;
    add.getResult().replaceAllUsesWith(x);
    add->erase();
    mul->erase();
    // Drop the inputs nothing else reads, highest index first.
    SmallVector<unsigned, 2> ks{std::max(*g, *b)};
    if (*g != *b)
      ks.push_back(std::min(*g, *b));
    for (unsigned k : ks) {
      if (!epi.block->getArgument(k + 1).use_empty())
        continue;
      epi.block->eraseArgument(k + 1);
      epi.inputs.erase(epi.inputs.begin() + k);
      epi.maps.erase(epi.maps.begin() + k);
    }
    return "";
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
    Epilogue epi(ctx, resTy.getElementType(), op.getLoc());
    // Re-read the existing epilogue through the builder, so inputs stay
    // deduplicated against the ones absorbed next.
    Block &old = op.getEpilogue().front();
    IRMapping mapping;
    mapping.map(old.getArgument(0), epi.block->getArgument(0));
    for (auto [k, in] : llvm::enumerate(op.getEpilogueInputs()))
      mapping.map(
          old.getArgument(k + 1),
          epi.read(in, cast<AffineMapAttr>(op.getEpilogueMaps()[k]).getValue()));
    for (Operation &inner : old.without_terminator())
      epi.builder.clone(inner, mapping);
    Value running =
        mapping.lookupOrDefault(cast<YieldOp>(old.getTerminator()).getValues()[0]);

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
        builder, op.getLoc(), resTy, op.getInput(), op.getGamma(),
        op.getBeta(), op.getNumGroupsAttr(), op.getEpsilonAttr(), epi.inputs,
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
