//===- FuseGroupNormGrad.cpp - GroupNorm backward as one op ---------------===//
//
// Forms fuser.group_norm_grad from a GroupNorm backward decomposition
// (torch-mlir's native_group_norm_backward with the statistics recomputed
// from the saved input; see Passes.td):
//
// 1. Statistics: for each grouped view T of an input X read by a sum
//    reduction, GroupNormMatcher finds the f32 elementwise ops over T's
//    statistics shape that compute rstd and the mean.
// 2. The input gradient: among the tensors of X's type computed from rstd,
//    one that LinalgProbe evaluates, at points of several groups, to
//    rstd * (dy*gamma - mean(dy*gamma) - x_hat * mean(dy*gamma*x_hat)) for
//    some dy of X's type and gamma of C elements it is computed from (or
//    gamma = 1: GroupNorm(affine=False)). A
//    numerical check accepts any algebraic form the front end picks; a
//    wrong candidate is off by O(1) at random inputs.
// 3. dy's elementwise producers are inlined into the prologue; their
//    inputs become prologue inputs. The op takes the gradient's uses and the
//    f32 statistics' ones; the decomposition left dead is erased.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "GroupNormMatcher.h"
#include "LinalgProbe.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEGROUPNORMGRADPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Groups larger than this are not probed (each probe reads a whole group).
constexpr int64_t kMaxProbedGroup = 4096;
/// (dx, gamma, dy) candidates checked per statistics at most: a bound on
/// compile time in large graphs (W3's backward matches within the first few).
constexpr int64_t kMaxTries = 256;

/// The statistics of one grouped view: X, its groups, the ops computing
/// rstd and the mean (f32, over the statistics' keepdim shape).
struct GroupStats {
  Value x;
  int64_t groups = 0, groupSize = 0;
  double epsilon = 0.0;
  SmallVector<linalg::GenericOp> rstdOps, meanOps;
};

/// The map from `data`'s iteration space to an op over its statistics'
/// keepdim shape: unit extents read 0. Null if the shapes do not pair up.
static AffineMap statisticsView(Value data, linalg::GenericOp op) {
  auto dataTy = cast<RankedTensorType>(data.getType());
  auto opTy = cast<RankedTensorType>(op->getResult(0).getType());
  if (dataTy.getRank() != opTy.getRank())
    return AffineMap();
  SmallVector<AffineExpr> exprs;
  MLIRContext *ctx = op.getContext();
  for (auto [d, extents] :
       llvm::enumerate(llvm::zip(dataTy.getShape(), opTy.getShape()))) {
    auto [dataExtent, opExtent] = extents;
    if (opExtent == dataExtent)
      exprs.push_back(getAffineDimExpr(d, ctx));
    else if (opExtent == 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      return AffineMap();
  }
  return AffineMap::get(dataTy.getRank(), 0, exprs, ctx);
}

/// Values reachable from `from` through operands (`backward`) or users.
static SetVector<Value> reachable(Value from, bool backward) {
  SetVector<Value> seen;
  SmallVector<Value> work{from};
  while (!work.empty() && seen.size() < 4096) {
    Value v = work.pop_back_val();
    if (!seen.insert(v))
      continue;
    if (backward) {
      if (Operation *def = v.getDefiningOp())
        llvm::append_range(work, def->getOperands());
    } else {
      for (Operation *user : v.getUsers())
        llvm::append_range(work, user->getResults());
    }
  }
  return seen;
}

class FuseGroupNormGradPass
    : public fuser::impl::FuserFuseGroupNormGradPassBase<
          FuseGroupNormGradPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    if (getOperation().isExternal())
      return;
    for (GroupStats &stats : findStatistics())
      if (std::string why = tryFuse(stats); !why.empty())
        remark(stats.rstdOps.front(),
               "GroupNorm statistics recomputed here are not fused into "
               "fuser.group_norm_grad: " +
                   why);
    // The decomposition left dead.
    Block &body = getOperation().getBody().front();
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
        if (isOpTriviallyDead(&op)) {
          op.erase();
          erased = true;
        }
    }
  }

private:
  void remark(Operation *op, const Twine &msg) {
    if (report)
      op->emitRemark() << msg;
  }

  /// Grouped views summed by reductions, with their rstd and mean ops.
  SmallVector<GroupStats> findStatistics() {
    SetVector<Value> views;
    getOperation().walk([&](linalg::GenericOp red) {
      if (Value t = summedTensor(red);
          t && cast<RankedTensorType>(t.getType()).getRank() >= 3)
        views.insert(t);
    });
    SmallVector<GroupStats> found;
    for (Value data : views) {
      GroupStats s;
      s.x = reshapeRoot(data);
      getOperation().walk([&](linalg::GenericOp op) {
        if (op->getNumResults() != 1 || !isTraceableElementwise(op) ||
            !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
          return;
        AffineMap view = statisticsView(data, op);
        if (!view)
          return;
        Term root{op.getBlock()->getTerminator()->getOperand(0), view, Value(),
                  AffineMap()};
        GroupNormMatcher rstd(data), mean(data);
        if (rstd.matchRstd(root).empty()) {
          // One epsilon and group size per view: another rstd stays.
          if (!s.rstdOps.empty() && (rstd.epsilon != s.epsilon ||
                                     rstd.groupSize != s.groupSize))
            return;
          s.rstdOps.push_back(op);
          s.epsilon = rstd.epsilon;
          s.groupSize = rstd.groupSize;
        } else if (mean.matchMean(root).empty()) {
          s.meanOps.push_back(op);
        }
      });
      if (!s.rstdOps.empty())
        found.push_back(std::move(s));
    }
    return found;
  }

  std::string tryFuse(GroupStats &s) {
    auto xTy = dyn_cast<RankedTensorType>(s.x.getType());
    if (!xTy || xTy.getRank() < 2 || !xTy.getElementType().isF32() ||
        llvm::any_of(xTy.getShape().drop_front(), ShapedType::isDynamic))
      return "the normalized tensor is not f32 (N, C, ...) with static C "
             "and spatial sizes";
    int64_t channels = xTy.getDimSize(1), spatial = 1;
    for (int64_t d : xTy.getShape().drop_front(2))
      spatial *= d;
    if (spatial == 0 || s.groupSize == 0 || xTy.getDimSize(0) == 0)
      return "the tensors are empty";
    if (s.groupSize % spatial != 0 || channels % (s.groupSize / spatial) != 0)
      return "a group is not whole channels of one sample";
    s.groups = channels / (s.groupSize / spatial);
    if (s.groupSize > kMaxProbedGroup)
      return "groups of more than 4096 elements are not checked";

    // Fresh per attempt: the IR changes between attempts, and a remembered
    // element of an erased value could alias a new one.
    LinalgProbe probe;
    SetVector<Value> candidates;
    for (linalg::GenericOp op : s.rstdOps)
      for (Value v : reachable(op->getResult(0), /*backward=*/false))
        if (v.getType() == xTy)
          candidates.insert(v);
    std::string why = "no tensor of the input's type computed from rstd "
                      "evaluates to the input gradient";
    int64_t tries = 0;
    for (Value dx : candidates) {
      if (dx.use_empty())
        continue; // an earlier attempt's leftover
      SetVector<Value> cone = reachable(dx, /*backward=*/true);
      // A per-channel gamma from the cone, or none (affine=False: 1).
      SmallVector<Value> gammas;
      for (Value v : cone)
        if (auto t = dyn_cast<RankedTensorType>(v.getType());
            t && t.getRank() == 1 && t.getDimSize(0) == channels &&
            t.getElementType().isF32())
          gammas.push_back(v);
      gammas.push_back(Value());
      for (Value gamma : gammas) {
        for (Value dy : cone) {
          if (dy == dx || dy == s.x || dy.getType() != xTy)
            continue;
          if (++tries > kMaxTries)
            return "more candidates than the pass checks";
          if (!computesInputGradient(probe, s, dx, dy, gamma))
            continue;
          std::string failed = rewrite(s, dx, dy, gamma);
          if (failed.empty())
            return "";
          why = failed;
        }
      }
    }
    return why;
  }

  /// Probes `dx` against the formula at points of several groups.
  static bool computesInputGradient(LinalgProbe &probe, const GroupStats &s,
                                    Value dx, Value dy, Value gamma) {
    auto xTy = cast<RankedTensorType>(s.x.getType());
    int64_t k = s.groupSize, perGroup = xTy.getDimSize(1) / s.groups;
    int64_t spatial = k / perGroup;
    int64_t n = xTy.isDynamicDim(0) ? 3 : xTy.getDimSize(0);
    auto indexOf = [&](int64_t sample, int64_t group, int64_t e) {
      SmallVector<int64_t> idx{sample, group * perGroup + e / spatial};
      int64_t rest = e % spatial;
      SmallVector<int64_t> tail;
      for (int64_t d = xTy.getRank() - 1; d >= 2; --d) {
        tail.push_back(rest % xTy.getDimSize(d));
        rest /= xTy.getDimSize(d);
      }
      idx.append(tail.rbegin(), tail.rend());
      return idx;
    };
    // Groups at both ends and inside, clamped to the shape (G or N may be
    // 1); in each, elements spread over the group: a term missing from a
    // candidate shows at most of them.
    std::pair<int64_t, int64_t> groups[] = {
        {0, 0},
        {n - 1, s.groups - 1},
        {n / 2, s.groups / 2},
        {(n + 1) / 3, std::min(s.groups - 1, (s.groups + 2) / 3)}};
    for (auto [sample, group] : groups) {
      SmallVector<double> x(k), dxHat(k);
      double mean = 0.0;
      for (int64_t e = 0; e < k; ++e) {
        SmallVector<int64_t> idx = indexOf(sample, group, e);
        std::optional<double> xv = probe.element(s.x, idx),
                              dyv = probe.element(dy, idx),
                              gv = gamma ? probe.element(gamma, {idx[1]})
                                         : std::optional<double>(1.0);
        if (!xv || !dyv || !gv)
          return false;
        x[e] = *xv;
        dxHat[e] = *dyv * *gv;
        mean += *xv / k;
      }
      double var = 0.0;
      for (double v : x)
        var += (v - mean) * (v - mean) / k;
      double rstd = 1.0 / std::sqrt(var + s.epsilon), m1 = 0.0, m2 = 0.0;
      for (int64_t e = 0; e < k; ++e) {
        m1 += dxHat[e] / k;
        m2 += dxHat[e] * (x[e] - mean) * rstd / k;
      }
      int64_t step = std::max<int64_t>(1, k / 8);
      for (int64_t e = k - 1; e >= 0; e -= step) {
        double want = rstd * (dxHat[e] - m1 - (x[e] - mean) * rstd * m2);
        std::optional<double> got =
            probe.element(dx, indexOf(sample, group, e));
        if (!got ||
            !(std::abs(*got - want) <= 1e-3 * std::max(1.0, std::abs(want))))
          return false;
      }
    }
    return true;
  }

  /// The prologue under construction: dy's elementwise producers inlined.
  struct Prologue {
    Prologue(RankedTensorType xTy, Block *block)
        : xTy(xTy), block(block), b(xTy.getContext()) {
      b.setInsertionPointToStart(block);
    }

    RankedTensorType xTy;
    Block *block;
    OpBuilder b;
    SmallVector<Value> inputs;
    SmallVector<Attribute> maps;
    DenseMap<std::pair<Value, AffineMap>, Value> args;

    /// The element of `t` read through `map` from X's space, in the block.
    FailureOr<Value> scalar(Value t, AffineMap map) {
      if (auto key = std::make_pair(t, map); args.count(key))
        return args[key];
      auto generic = t.getDefiningOp<linalg::GenericOp>();
      if (generic && map.isIdentity() &&
          cast<ShapedType>(t.getType()).getShape() == xTy.getShape() &&
          generic->getNumResults() == 1 && isTraceableElementwise(generic) &&
          !generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)) &&
          generic.getBlock()->getOps<linalg::IndexOp>().empty()) {
        IRMapping mapping;
        for (OpOperand *in : generic.getDpsInputOperands()) {
          BlockArgument arg = generic.getMatchingBlockArgument(in);
          if (arg.use_empty())
            continue;
          FailureOr<Value> v =
              isa<ShapedType>(in->get().getType())
                  ? scalar(in->get(), generic.getMatchingIndexingMap(in))
                  : scalarOperand(in->get());
          if (failed(v))
            return failure();
          mapping.map(arg, *v);
        }
        for (Operation &op : generic.getBlock()->without_terminator()) {
          for (Value operand : op.getOperands())
            if (!mapping.contains(operand) &&
                operand.getParentBlock() != generic.getBlock()) {
              FailureOr<Value> v = scalarOperand(operand);
              if (failed(v))
                return failure();
              mapping.map(operand, *v);
            }
          b.clone(op, mapping);
        }
        Value yielded = generic.getBlock()->getTerminator()->getOperand(0);
        if (!mapping.contains(yielded) &&
            yielded.getParentBlock() != generic.getBlock()) {
          FailureOr<Value> v = scalarOperand(yielded);
          if (failed(v))
            return failure();
          mapping.map(yielded, *v);
        }
        return args[{t, map}] = mapping.lookupOrDefault(yielded);
      }
      if (!map.isProjectedPermutation() ||
          map.getNumDims() != static_cast<unsigned>(xTy.getRank()))
        return failure();
      inputs.push_back(t);
      maps.push_back(AffineMapAttr::get(map));
      return args[{t, map}] = block->addArgument(
                 getElementTypeOrSelf(t.getType()), t.getLoc());
    }

    /// A scalar from outside the bodies: a constant is cloned, anything
    /// else becomes a scalar input.
    FailureOr<Value> scalarOperand(Value v) {
      Attribute c;
      if (matchPattern(v, m_Constant(&c)))
        return b.clone(*v.getDefiningOp())->getResult(0);
      if (isa<ShapedType>(v.getType()) || !v.getType().isIntOrFloat())
        return failure();
      inputs.push_back(v);
      maps.push_back(AffineMapAttr::get(
          AffineMap::get(xTy.getRank(), 0, {}, v.getContext())));
      return block->addArgument(v.getType(), v.getLoc());
    }
  };

  std::string rewrite(const GroupStats &s, Value dx, Value dy, Value gamma) {
    auto xTy = cast<RankedTensorType>(s.x.getType());
    MLIRContext *ctx = xTy.getContext();
    // A detached block, moved into the op once its inputs are known.
    auto block = std::make_unique<Block>();
    Prologue pro(xTy, block.get());
    FailureOr<Value> dyElem =
        pro.scalar(dy, AffineMap::getMultiDimIdentityMap(xTy.getRank(), ctx));
    if (failed(dyElem))
      return "dy is read through a map that is not a projected permutation";
    YieldOp::create(pro.b, dx.getLoc(), ValueRange{*dyElem});

    // After every operand, before every use it takes over.
    Block *funcBlock = &getOperation().getBody().front();
    Operation *after = nullptr;
    SmallVector<Value> operands{s.x, gamma};
    llvm::append_range(operands, pro.inputs);
    for (Value v : operands) {
      Operation *def = v ? v.getDefiningOp() : nullptr;
      if (!def)
        continue;
      if (def->getBlock() != funcBlock)
        return "an operand is defined in a nested region";
      if (!after || after->isBeforeInBlock(def))
        after = def;
    }
    OpBuilder b(ctx);
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(funcBlock);
    Location loc = dx.getLoc();
    if (!gamma) {
      auto vecTy = RankedTensorType::get({xTy.getDimSize(1)},
                                         xTy.getElementType());
      gamma = arith::ConstantOp::create(
          b, loc, vecTy,
          DenseElementsAttr::get(vecTy, b.getF32FloatAttr(1.0)));
    }
    auto precedes = [&](Operation *user) {
      return user->getBlock() == funcBlock &&
             (!after || after->isBeforeInBlock(user));
    };
    if (!llvm::all_of(dx.getUsers(), precedes))
      return "the input gradient is used before its operands are computed";

    auto statTy = RankedTensorType::get({xTy.getDimSize(0), s.groups},
                                        xTy.getElementType());
    auto op = GroupNormGradOp::create(
        b, loc, TypeRange{xTy, statTy, statTy}, s.x, gamma,
        b.getI64IntegerAttr(s.groups), b.getF64FloatAttr(s.epsilon),
        pro.inputs, b.getArrayAttr(pro.maps), KernelConfigAttr());
    op.getPrologue().push_back(block.release());
    dx.replaceAllUsesWith(op.getGradInput());
    replaceStatistics(b, s.meanOps, op.getMean(), precedes);
    replaceStatistics(b, s.rstdOps, op.getRstd(), precedes);
    remark(op, "fused a GroupNorm input gradient into fuser.group_norm_grad (" +
                   Twine(s.groups) + " groups of " + Twine(s.groupSize) +
                   ", dy from " + Twine(pro.inputs.size()) +
                   " prologue inputs)");
    return "";
  }

  /// Points the uses of each statistics op at `stat` (N, G), viewed in the
  /// op's keepdim shape.
  void replaceStatistics(OpBuilder &b, ArrayRef<linalg::GenericOp> ops,
                         Value stat, function_ref<bool(Operation *)> precedes) {
    auto statTy = cast<RankedTensorType>(stat.getType());
    for (linalg::GenericOp op : ops) {
      Value old = op->getResult(0);
      auto oldTy = cast<RankedTensorType>(old.getType());
      if (!llvm::all_of(old.getUsers(), precedes) ||
          oldTy.getDimSize(0) != statTy.getDimSize(0) ||
          oldTy.getDimSize(1) != statTy.getDimSize(1) ||
          llvm::any_of(oldTy.getShape().drop_front(2),
                       [](int64_t d) { return d != 1; }))
        continue;
      Value view = stat;
      if (oldTy.getRank() > 2) {
        SmallVector<ReassociationIndices> reassoc{{0}, {}};
        for (int64_t d = 1; d < oldTy.getRank(); ++d)
          reassoc[1].push_back(d);
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(b, stat.getLoc(), stat);
        for (int64_t d = 2; d < oldTy.getRank(); ++d)
          sizes.push_back(b.getIndexAttr(1));
        view = tensor::ExpandShapeOp::create(b, stat.getLoc(), oldTy, stat,
                                             reassoc, sizes);
      }
      old.replaceAllUsesWith(view);
    }
  }

};

} // namespace
