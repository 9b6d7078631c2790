//===- FuserToLinalg.cpp - fusion groups back to linalg ---------*- C++ -*-===//
//
// The CPU reference path: a fused group becomes linalg again (a pointwise
// group one linalg.generic; a matmul group a zero fill, a linalg.matmul and
// one linalg.generic for its epilogue), which upstream bufferization and
// loop lowering run anywhere. Comparing it with the unfused program shows
// that fusion preserved the computation.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTFUSERTOLINALGPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Clones the body of a fusion group into a linalg.generic payload: `args`
/// replace the block arguments in order, fuser.yield becomes linalg.yield.
static void cloneBody(OpBuilder &nb, Location nloc, Block &body,
                      ValueRange args) {
  IRMapping mapping;
  mapping.map(body.getArguments(), args.take_front(body.getNumArguments()));
  for (Operation &inner : body.without_terminator())
    nb.clone(inner, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Value> values;
  for (Value v : yield.getValues())
    values.push_back(mapping.lookupOrDefault(v));
  linalg::YieldOp::create(nb, nloc, values);
}

LogicalResult lowerPointwise(PointwiseOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  ReifiedRankedShapedTypeDims reified;
  if (failed(op.reifyResultShapes(b, reified)))
    return op.emitOpError() << "cannot compute its result sizes";

  SmallVector<Value> inits;
  for (auto [t, sizes] : llvm::zip(op.getResultTypes(), reified))
    inits.push_back(tensor::EmptyOp::create(
        b, loc, sizes, cast<RankedTensorType>(t).getElementType()));

  unsigned rank = op.getResultTensorType().getRank();
  SmallVector<AffineMap> maps;
  for (unsigned i = 0; i < op.getInputs().size(); ++i)
    maps.push_back(op.getIndexingMap(i));
  maps.append(op.getNumResults(),
              AffineMap::getMultiDimIdentityMap(rank, op.getContext()));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);

  auto generic = linalg::GenericOp::create(
      b, loc, op.getResultTypes(), op.getInputs(), inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        cloneBody(nb, nloc, op.getBodyBlock(), args);
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return success();
}

/// The product of a transposed-A or batched fuser.matmul: a linalg.generic
/// over (b?, m, n, k) summing lhs * rhs into `acc`, K innermost.
static Value buildGenericProduct(OpBuilder &b, Location loc,
                                 fuser::MatmulOp op, Value acc) {
  MLIRContext *ctx = op.getContext();
  unsigned batch = op.isBatched();
  unsigned numLoops = batch + 3;
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr m = d(batch), n = d(batch + 1), k = d(batch + 2);
  auto map = [&](AffineExpr r0, AffineExpr r1) {
    SmallVector<AffineExpr> results;
    if (batch)
      results.push_back(d(0));
    results.append({r0, r1});
    return AffineMap::get(numLoops, 0, results, ctx);
  };
  SmallVector<AffineMap> maps{
      op.getTransposeA() ? map(k, m) : map(m, k),
      op.getTransposeB() ? map(n, k) : map(k, n), map(m, n)};
  SmallVector<utils::IteratorType> iterators(numLoops - 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()}, ValueRange{op.getLhs(), op.getRhs()},
      acc, maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange a) {
        // Operands in the accumulator's type (bf16 x bf16 into f32), as
        // linalg.matmul casts them.
        Type accTy = a[2].getType();
        auto cast = [&](Value v) {
          return convertScalarToDtype(nb, nloc, v, accTy,
                                      /*isUnsignedCast=*/false);
        };
        Value p = arith::MulFOp::create(nb, nloc, cast(a[0]), cast(a[1]));
        linalg::YieldOp::create(nb, nloc,
                                arith::AddFOp::create(nb, nloc, a[2], p)
                                    .getResult());
      });
  return generic.getResult(0);
}

/// fuser.matmul -> linalg.fill(+0.0) + linalg.matmul (B read through
/// (m, n, k) -> (n, k) when transpose_b; a linalg.generic contraction when
/// transpose_a or batched) + a linalg.generic epilogue. The product sums K
/// in order from +0.0, as the unfused linalg.matmul does, so the CPU
/// results are bit-identical.
LogicalResult lowerMatmul(fuser::MatmulOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto resTy = cast<RankedTensorType>(op.getType());
  int64_t rank = resTy.getRank();
  SmallVector<Value> dynSizes;
  if (op.isBatched() && resTy.isDynamicDim(0))
    dynSizes.push_back(tensor::DimOp::create(b, loc, op.getLhs(), 0));
  if (resTy.isDynamicDim(rank - 2))
    dynSizes.push_back(
        tensor::DimOp::create(b, loc, op.getLhs(), op.getLhsMDim()));
  if (resTy.isDynamicDim(rank - 1))
    dynSizes.push_back(
        tensor::DimOp::create(b, loc, op.getRhs(), op.getRhsNDim()));
  Value empty = tensor::EmptyOp::create(b, loc, resTy, dynSizes);
  Value zero = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(resTy.getElementType())));
  Value acc = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  SmallVector<Value> operands{op.getLhs(), op.getRhs()};
  Value product =
      op.getTransposeA() || op.isBatched()
          ? buildGenericProduct(b, loc, op, acc)
      : op.getTransposeB()
          ? linalg::MatmulTransposeBOp::create(b, loc, TypeRange{resTy},
                                               operands, acc)
                .getResult(0)
          : linalg::MatmulOp::create(b, loc, TypeRange{resTy}, operands, acc)
                .getResult(0);

  // An epilogue that yields the accumulator needs no generic.
  Block &body = op.getEpilogue().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (&body.front() == yield.getOperation() &&
      yield.getValues()[0] == body.getArgument(0)) {
    op->replaceAllUsesWith(ValueRange{product});
    op->erase();
    return success();
  }

  MLIRContext *ctx = op.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps{id};
  for (Attribute m : op.getEpilogueMaps())
    maps.push_back(cast<AffineMapAttr>(m).getValue());
  maps.push_back(id);
  SmallVector<Value> inputs{product};
  llvm::append_range(inputs, op.getEpilogueInputs());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resTy}, inputs, empty, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        cloneBody(nb, nloc, body, args);
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return success();
}

/// A fuser.matmul with group_norm -> the plain fuser.matmul (its epilogue)
/// and a fuser.group_norm of its result whose epilogue is the `then`
/// region. The `then` region applies gamma and beta itself, so the group
/// norm gets gamma = 1 and beta = 0, which leave every value unchanged.
void splitGroupNorm(fuser::MatmulOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto resTy = cast<RankedTensorType>(op.getType());
  auto plain = fuser::MatmulOp::create(
      b, loc, resTy, op.getLhs(), op.getRhs(), op.getTransposeA(),
      op.getTransposeB(), op.getEpilogueInputs(),
      /*prologue_inputs=*/ValueRange{}, op.getEpilogueMaps(),
      /*norm_group_size=*/nullptr, /*norm_epsilon=*/nullptr,
      /*config=*/nullptr);
  plain.getEpilogue().takeBody(op.getEpilogue());

  // The verifier requires a static N with group_norm.
  auto vecTy = RankedTensorType::get({resTy.getDimSize(1)},
                                     resTy.getElementType());
  auto filled = [&](double v) {
    Value empty = tensor::EmptyOp::create(b, loc, vecTy, ValueRange{});
    Value c = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(resTy.getElementType(), v));
    return linalg::FillOp::create(b, loc, c, empty).getResult(0);
  };
  Value ones = filled(1.0), zeros = filled(0.0);
  int64_t groups = resTy.getDimSize(1) / *op.getNormGroupSize();
  auto norm = fuser::GroupNormOp::create(
      b, loc, resTy, plain.getResult(), ones, zeros,
      b.getI64IntegerAttr(groups), op.getNormEpsilonAttr(),
      op.getEpilogueInputs(), op.getEpilogueMaps(), /*config=*/nullptr);
  norm.getEpilogue().takeBody(op.getNormEpilogue());
  op->replaceAllUsesWith(norm->getResults());
  op->erase();
}

/// fuser.group_norm -> linalg on the grouped view (N, G, C/G, ...): the
/// sum, mean = sum / K, the centered sum of squares, rstd = rsqrt(var + eps)
/// (the two-pass form), then (x - mean) * rstd * gamma[c] + beta[c] with
/// gamma and beta viewed as (G, C/G), reshaped back, then a linalg.generic
/// for the epilogue. fp32 like the unfused decomposition, so results agree
/// to rounding (not bit for bit: the decompositions differ in order).
/// A group norm's grouped view (N, G, C/G, spatial...) of its input, with
/// the per-(n, group) mean and rstd as (N, G) tensors.
struct GroupedStats {
  RankedTensorType xTy, viewTy, statTy;
  SmallVector<ReassociationIndices> reassoc;
  SmallVector<Value> dynN;
  Value view, mean, rstd, statEmpty, zeros, count;
  int64_t groups, perGroup, groupSize, viewRank;
  AffineMap viewId, perGroupStat, statId, channel;
  SmallVector<utils::IteratorType> reduce, parallelV;

  /// The view, as a (G, C/G) tensor, of a per-channel vector.
  Value grouped(OpBuilder &b, Location loc, Value v) const {
    Type elem = xTy.getElementType();
    if (cast<RankedTensorType>(v.getType()).isDynamicDim(0))
      v = tensor::CastOp::create(
          b, loc, RankedTensorType::get({groups * perGroup}, elem), v);
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({groups, perGroup}, elem), v,
        SmallVector<ReassociationIndices>{{0, 1}});
  }
};

/// Builds the statistics of `x` in `groups` groups: two passes (the mean,
/// then the centered sum of squares), rstd = rsqrt(var + eps).
FailureOr<GroupedStats> buildGroupedStats(OpBuilder &b, Location loc,
                                          Operation *op, Value x,
                                          int64_t groups, double epsilon) {
  MLIRContext *ctx = b.getContext();
  GroupedStats st;
  st.xTy = cast<RankedTensorType>(x.getType());
  if (llvm::any_of(st.xTy.getShape().drop_front(), ShapedType::isDynamic))
    return op->emitOpError() << "has dynamic sizes past the batch dimension; "
                                "the CPU reference needs them static";
  int64_t rank = st.xTy.getRank();
  st.groups = groups;
  st.perGroup = st.xTy.getDimSize(1) / groups;
  st.groupSize = st.perGroup;
  for (int64_t d : st.xTy.getShape().drop_front(2))
    st.groupSize *= d;
  Type elem = st.xTy.getElementType();

  SmallVector<int64_t> viewShape{st.xTy.getDimSize(0), groups, st.perGroup};
  llvm::append_range(viewShape, st.xTy.getShape().drop_front(2));
  st.reassoc = {{0}, {1, 2}};
  for (int64_t d = 3; d <= rank; ++d)
    st.reassoc.push_back({d});
  SmallVector<OpFoldResult> outShape;
  for (int64_t s : viewShape)
    outShape.push_back(b.getIndexAttr(s));
  if (st.xTy.isDynamicDim(0)) {
    Value n = tensor::DimOp::create(b, loc, x, 0);
    outShape[0] = n;
    st.dynN.push_back(n);
  }
  st.viewTy = RankedTensorType::get(viewShape, elem);
  st.view = tensor::ExpandShapeOp::create(b, loc, st.viewTy, x, st.reassoc,
                                          outShape);
  st.statTy = RankedTensorType::get({st.xTy.getDimSize(0), groups}, elem);
  st.statEmpty = tensor::EmptyOp::create(b, loc, st.statTy, st.dynN);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, 0.0));
  st.count = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(elem, static_cast<double>(st.groupSize)));
  Value eps =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, epsilon));
  st.zeros = linalg::FillOp::create(b, loc, zero, st.statEmpty).getResult(0);

  st.viewRank = rank + 1;
  st.viewId = AffineMap::getMultiDimIdentityMap(st.viewRank, ctx);
  st.perGroupStat = AffineMap::get(
      st.viewRank, 0, {b.getAffineDimExpr(0), b.getAffineDimExpr(1)}, ctx);
  st.channel = AffineMap::get(
      st.viewRank, 0, {b.getAffineDimExpr(1), b.getAffineDimExpr(2)}, ctx);
  st.statId = AffineMap::getMultiDimIdentityMap(2, ctx);
  st.reduce.assign(st.viewRank, utils::IteratorType::reduction);
  st.reduce[0] = st.reduce[1] = utils::IteratorType::parallel;
  st.parallelV.assign(st.viewRank, utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> parallel2(2, utils::IteratorType::parallel);

  Value sum = linalg::GenericOp::create(
                  b, loc, st.statTy, st.view, st.zeros,
                  {st.viewId, st.perGroupStat}, st.reduce,
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, nl, arith::AddFOp::create(nb, nl, a[1], a[0])
                                    .getResult());
                  })
                  .getResult(0);
  st.mean = linalg::GenericOp::create(
                b, loc, st.statTy, sum, st.statEmpty, {st.statId, st.statId},
                parallel2,
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  linalg::YieldOp::create(
                      nb, nl, arith::DivFOp::create(nb, nl, a[0], st.count)
                                  .getResult());
                })
                .getResult(0);
  Value sq = linalg::GenericOp::create(
                 b, loc, st.statTy, ValueRange{st.view, st.mean}, st.zeros,
                 {st.viewId, st.perGroupStat, st.perGroupStat}, st.reduce,
                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                   Value d = arith::SubFOp::create(nb, nl, a[0], a[1]);
                   Value d2 = arith::MulFOp::create(nb, nl, d, d);
                   linalg::YieldOp::create(
                       nb, nl,
                       arith::AddFOp::create(nb, nl, a[2], d2).getResult());
                 })
                 .getResult(0);
  st.rstd = linalg::GenericOp::create(
                b, loc, st.statTy, sq, st.statEmpty, {st.statId, st.statId},
                parallel2,
                [&](OpBuilder &nb, Location nl, ValueRange a) {
                  Value var = arith::DivFOp::create(nb, nl, a[0], st.count);
                  Value ve = arith::AddFOp::create(nb, nl, var, eps);
                  linalg::YieldOp::create(
                      nb, nl, math::RsqrtOp::create(nb, nl, ve).getResult());
                })
                .getResult(0);
  return st;
}

/// The statistics of a group norm op's input (either direction).
template <typename NormOp>
FailureOr<GroupedStats> buildGroupedStats(OpBuilder &b, NormOp op) {
  return buildGroupedStats(b, op.getLoc(), op, op.getInput(),
                           op.getNumGroups(),
                           op.getEpsilon().convertToDouble());
}

LogicalResult lowerGroupNorm(GroupNormOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  FailureOr<GroupedStats> stats = buildGroupedStats(b, op);
  if (failed(stats))
    return failure();
  const GroupedStats &st = *stats;
  RankedTensorType xTy = st.xTy, viewTy = st.viewTy;
  int64_t rank = xTy.getRank();
  ArrayRef<Value> dynN = st.dynN;

  // Normalize and apply gamma and beta, viewed as (G, C/G), on the view.
  Value viewEmpty = tensor::EmptyOp::create(b, loc, viewTy, dynN);
  Value norm =
      linalg::GenericOp::create(
          b, loc, viewTy,
          ValueRange{st.view, st.mean, st.rstd,
                     st.grouped(b, loc, op.getGamma()),
                     st.grouped(b, loc, op.getBeta())},
          viewEmpty,
          {st.viewId, st.perGroupStat, st.perGroupStat, st.channel, st.channel,
           st.viewId},
          st.parallelV,
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            Value d = arith::SubFOp::create(nb, nl, a[0], a[1]);
            Value n = arith::MulFOp::create(nb, nl, d, a[2]);
            Value g = arith::MulFOp::create(nb, nl, n, a[3]);
            linalg::YieldOp::create(
                nb, nl, arith::AddFOp::create(nb, nl, g, a[4]).getResult());
          })
          .getResult(0);
  Value affine =
      tensor::CollapseShapeOp::create(b, loc, xTy, norm, st.reassoc);

  // The epilogue, unless it only yields the affine value.
  Block &body = op.getEpilogue().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (&body.front() == yield.getOperation() &&
      yield.getValues()[0] == body.getArgument(0)) {
    op->replaceAllUsesWith(ValueRange{affine});
    op->erase();
    return success();
  }
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps{id};
  for (Attribute m : op.getEpilogueMaps())
    maps.push_back(cast<AffineMapAttr>(m).getValue());
  maps.push_back(id);
  SmallVector<Value> inputs{affine};
  llvm::append_range(inputs, op.getEpilogueInputs());
  auto resTy = cast<RankedTensorType>(op.getType());
  Value empty = tensor::EmptyOp::create(b, loc, resTy, dynN);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resTy}, inputs, empty, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        cloneBody(nb, nloc, body, args);
      });
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return success();
}

/// dx = rstd * (dy*gamma - mean(dy*gamma) - x_hat * mean(dy*gamma*x_hat))
/// per group, dy from the prologue: a generic for dy, two group sums, one
/// generic for dx.
LogicalResult lowerGroupNormGrad(GroupNormGradOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  FailureOr<GroupedStats> stats = buildGroupedStats(b, op);
  if (failed(stats))
    return failure();
  const GroupedStats &st = *stats;
  int64_t rank = st.xTy.getRank();

  // dy over the input's iteration space.
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps;
  for (Attribute m : op.getPrologueMaps())
    maps.push_back(cast<AffineMapAttr>(m).getValue());
  maps.push_back(id);
  Block &body = op.getPrologue().front();
  Value dy =
      linalg::GenericOp::create(
          b, loc, TypeRange{st.xTy}, op.getPrologueInputs(),
          ValueRange{tensor::EmptyOp::create(b, loc, st.xTy, st.dynN)}, maps,
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            cloneBody(nb, nloc, body, args);
          })
          .getResult(0);
  SmallVector<OpFoldResult> viewSizes =
      tensor::getMixedSizes(b, loc, st.view);
  Value dyView = tensor::ExpandShapeOp::create(b, loc, st.viewTy, dy,
                                               st.reassoc, viewSizes);
  Value gamma = st.grouped(b, loc, op.getGamma());

  // sums of dx_hat = dy * gamma and of dx_hat * x_hat.
  SmallVector<AffineMap> sumMaps{st.viewId, st.viewId, st.channel,
                                 st.perGroupStat, st.perGroupStat,
                                 st.perGroupStat};
  auto groupSum = [&](bool timesXHat) {
    return linalg::GenericOp::create(
               b, loc, st.statTy,
               ValueRange{st.view, dyView, gamma, st.mean, st.rstd}, st.zeros,
               sumMaps, st.reduce,
               [&](OpBuilder &nb, Location nl, ValueRange a) {
                 Value dxHat = arith::MulFOp::create(nb, nl, a[1], a[2]);
                 if (timesXHat) {
                   Value d = arith::SubFOp::create(nb, nl, a[0], a[3]);
                   Value xHat = arith::MulFOp::create(nb, nl, d, a[4]);
                   dxHat = arith::MulFOp::create(nb, nl, dxHat, xHat);
                 }
                 linalg::YieldOp::create(
                     nb, nl, arith::AddFOp::create(nb, nl, a[5], dxHat)
                                 .getResult());
               })
        .getResult(0);
  };
  Value sumDxHat = groupSum(false), sumDxHatXHat = groupSum(true);

  Value viewEmpty = tensor::EmptyOp::create(b, loc, st.viewTy, st.dynN);
  Value dxView =
      linalg::GenericOp::create(
          b, loc, st.viewTy,
          ValueRange{st.view, dyView, gamma, st.mean, st.rstd, sumDxHat,
                     sumDxHatXHat},
          viewEmpty,
          {st.viewId, st.viewId, st.channel, st.perGroupStat, st.perGroupStat,
           st.perGroupStat, st.perGroupStat, st.viewId},
          st.parallelV,
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            Value dxHat = arith::MulFOp::create(nb, nl, a[1], a[2]);
            Value d = arith::SubFOp::create(nb, nl, a[0], a[3]);
            Value xHat = arith::MulFOp::create(nb, nl, d, a[4]);
            Value m1 = arith::DivFOp::create(nb, nl, a[5], st.count);
            Value m2 = arith::DivFOp::create(nb, nl, a[6], st.count);
            Value t = arith::SubFOp::create(nb, nl, dxHat, m1);
            t = arith::SubFOp::create(
                nb, nl, t, arith::MulFOp::create(nb, nl, xHat, m2));
            linalg::YieldOp::create(
                nb, nl, arith::MulFOp::create(nb, nl, a[4], t).getResult());
          })
          .getResult(0);
  Value dx =
      tensor::CollapseShapeOp::create(b, loc, st.xTy, dxView, st.reassoc);
  op->replaceAllUsesWith(ValueRange{dx, st.mean, st.rstd});
  op->erase();
  return success();
}

/// A scan as a loop over its dimension: slice i of the input (rank-reduced)
/// folds into the running slice by a linalg.generic of the body.
LogicalResult lowerScan(ScanOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value input = op.getInput();
  RankedTensorType inputTy = op.getInputType();
  int64_t rank = inputTy.getRank(), dim = op.getDimension();
  Type element = inputTy.getElementType();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  Value out = tensor::EmptyOp::create(b, loc, sizes, element);
  Value length = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
  SmallVector<OpFoldResult> sliceSizes(sizes), sliceSizesReduced(sizes);
  sliceSizes[dim] = b.getIndexAttr(1);
  sliceSizesReduced.erase(sliceSizesReduced.begin() + dim);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto accTy = cast<RankedTensorType>(op.getAccumulator().getType());
  bool reverse = op.getReverse();
  // The fold's i-th slice: from the end when reversed.
  auto offsetsAt = [&](OpBuilder &lb, Value i) {
    SmallVector<OpFoldResult> offsets(rank, lb.getIndexAttr(0));
    offsets[dim] = i;
    if (reverse) {
      Value last = arith::SubIOp::create(
          lb, loc, length, arith::ConstantIndexOp::create(lb, loc, 1));
      offsets[dim] = arith::SubIOp::create(lb, loc, last, i).getResult();
    }
    return offsets;
  };
  auto slice = [&](OpBuilder &lb, Value source, Value i) -> Value {
    return tensor::ExtractSliceOp::create(
        lb, loc, accTy, source, offsetsAt(lb, i), sliceSizes, strides);
  };
  auto insert = [&](OpBuilder &lb, Value v, Value dest, Value i) -> Value {
    return tensor::InsertSliceOp::create(lb, loc, v, dest, offsetsAt(lb, i),
                                         sliceSizes, strides);
  };
  auto identity = AffineMap::getMultiDimIdentityMap(rank - 1, op.getContext());
  auto combine = [&](OpBuilder &lb, Value earlier, Value later) -> Value {
    Value init = tensor::EmptyOp::create(lb, loc, sliceSizesReduced, element);
    return linalg::GenericOp::create(
               lb, loc, TypeRange{accTy}, ValueRange{earlier, later},
               ValueRange{init}, SmallVector<AffineMap>(3, identity),
               SmallVector<utils::IteratorType>(rank - 1,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 cloneBody(nb, nloc, op.getBodyBlock(), args);
               })
        .getResult(0);
  };
  // Iteration i writes output slice i from slice i - 1 (only the output
  // is carried: it bufferizes in place).
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value init = op.getAccumulatorInit();
  bool inclusive = op.getInclusive();
  auto loop = scf::ForOp::create(
      b, loc, zero, length, one, ValueRange{out},
      [&](OpBuilder &lb, Location, Value i, ValueRange iter) {
        Value first =
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq, i, zero);
        auto ifFirst = scf::IfOp::create(
            lb, loc, first,
            [&](OpBuilder &tb, Location) {
              scf::YieldOp::create(tb, loc,
                                   inclusive ? slice(tb, input, i) : init);
            },
            [&](OpBuilder &eb, Location) {
              Value before = arith::SubIOp::create(eb, loc, i, one);
              Value x = slice(eb, input, inclusive ? i : before);
              scf::YieldOp::create(eb, loc,
                                   combine(eb, slice(eb, iter[0], before), x));
            });
        scf::YieldOp::create(lb, loc,
                             insert(lb, ifFirst.getResult(0), iter[0], i));
      });
  // The accumulator: the last output slice, or the init of an empty scan.
  Value empty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, length, zero);
  auto accumulator = scf::IfOp::create(
      b, loc, empty,
      [&](OpBuilder &tb, Location) { scf::YieldOp::create(tb, loc, init); },
      [&](OpBuilder &eb, Location) {
        Value last = arith::SubIOp::create(eb, loc, length, one);
        scf::YieldOp::create(eb, loc, slice(eb, loop.getResult(0), last));
      });
  op.getOutput().replaceAllUsesWith(loop.getResult(0));
  op.getAccumulator().replaceAllUsesWith(accumulator.getResult(0));
  op->erase();
  return success();
}

class ConvertFuserToLinalgPass
    : public fuser::impl::ConvertFuserToLinalgPassBase<
          ConvertFuserToLinalgPass> {
public:
  void runOnOperation() override {
    // Prologues become pointwise groups, and normalizing matmuls a matmul
    // and a group norm, which the walk below lowers like any other.
    SmallVector<fuser::MatmulOp> normalizing;
    getOperation().walk([&](fuser::MatmulOp op) {
      op.materializePrologue();
      if (op.hasGroupNorm())
        normalizing.push_back(op);
    });
    for (fuser::MatmulOp op : normalizing)
      splitGroupNorm(op);
    SmallVector<Operation *> groups;
    getOperation().walk([&](Operation *op) {
      if (isa<PointwiseOp, MatmulOp, GroupNormOp, GroupNormGradOp, ScanOp>(op))
        groups.push_back(op);
    });
    for (Operation *op : groups) {
      LogicalResult lowered =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([](PointwiseOp pw) { return lowerPointwise(pw); })
              .Case([](fuser::MatmulOp mm) { return lowerMatmul(mm); })
              .Case([](GroupNormOp gn) { return lowerGroupNorm(gn); })
              .Case([](GroupNormGradOp gn) { return lowerGroupNormGrad(gn); })
              .Case([](ScanOp scan) { return lowerScan(scan); })
              .Default([](Operation *other) {
                return other->emitOpError()
                       << "has no CPU reference lowering yet";
              });
      if (failed(lowered))
        return signalPassFailure();
    }
  }
};

} // namespace
