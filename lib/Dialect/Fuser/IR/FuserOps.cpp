//===- FuserOps.cpp - fuser op verifiers and interfaces -------------------===//

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Manifest/TensorMapRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fuser;

/// The element type an input contributes to a body: the element type of a
/// tensor, or the scalar type itself.
static Type getBodyElementType(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.getElementType();
  return t;
}

/// Verifies elementwise inputs read through `maps` from an iteration space of
/// shape `iterShape`, and the body block arguments `argOffset..` that receive
/// them. Shared by the pointwise op and the epilogues of the other groups.
static LogicalResult verifyElementwiseInputs(Operation *op, ValueRange inputs,
                                             ArrayAttr maps,
                                             ArrayRef<int64_t> iterShape,
                                             Block &body, unsigned argOffset,
                                             StringRef what) {
  if (inputs.size() != maps.size())
    return op->emitOpError() << "has " << inputs.size() << " " << what
                             << " but " << maps.size() << " indexing maps";
  if (body.getNumArguments() != argOffset + inputs.size())
    return op->emitOpError()
           << "body has " << body.getNumArguments()
           << " block arguments, expected " << argOffset + inputs.size();
  unsigned rank = iterShape.size();
  for (auto [i, input, mapAttr] : llvm::enumerate(inputs, maps)) {
    auto map = cast<AffineMapAttr>(mapAttr).getValue();
    if (map.getNumDims() != rank || map.getNumSymbols() != 0)
      return op->emitOpError()
             << "indexing map #" << i << " must have " << rank
             << " dimensions and no symbols, one per result dimension";
    if (!map.isProjectedPermutation())
      return op->emitOpError() << "indexing map #" << i
                               << " must be a projected permutation "
                                  "(broadcasts and transposes only)";
    auto tensorTy = dyn_cast<RankedTensorType>(input.getType());
    if (!tensorTy) {
      if (isa<ShapedType>(input.getType()))
        return op->emitOpError()
               << what << " #" << i << " must be a ranked tensor or a scalar";
      if (map.getNumResults() != 0)
        return op->emitOpError() << "indexing map #" << i
                                 << " of scalar " << what
                                 << " must have no results";
    } else {
      if (map.getNumResults() != tensorTy.getRank())
        return op->emitOpError()
               << "indexing map #" << i << " has " << map.getNumResults()
               << " results but " << what << " #" << i << " has rank "
               << tensorTy.getRank();
      for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
        unsigned d = cast<AffineDimExpr>(expr).getPosition();
        int64_t inSize = tensorTy.getDimSize(pos);
        if (!ShapedType::isDynamic(inSize) &&
            !ShapedType::isDynamic(iterShape[d]) && inSize != iterShape[d])
          return op->emitOpError()
                 << what << " #" << i << " dimension " << pos << " has size "
                 << inSize << " but result dimension " << d << " has size "
                 << iterShape[d] << " (mismatched broadcast)";
      }
    }
    Type expected = getBodyElementType(input.getType());
    Type actual = body.getArgument(argOffset + i).getType();
    if (expected != actual)
      return op->emitOpError()
             << "block argument #" << argOffset + i << " has type " << actual
             << " but " << what << " #" << i << " provides " << expected;
  }
  return success();
}

/// Verifies that a body holds only scalar arith/math ops and a yield of
/// `resultElemTypes`.
static LogicalResult verifyScalarBody(Operation *op, Block &body,
                                      TypeRange resultElemTypes) {
  for (Operation &inner : body.without_terminator()) {
    Dialect *d = inner.getDialect();
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(d))
      return inner.emitOpError()
             << "is not allowed in a fusion group body; only scalar arith "
                "and math ops are";
    for (Type t : inner.getResultTypes())
      if (isa<ShapedType>(t))
        return inner.emitOpError()
               << "in a fusion group body must produce scalars, not " << t;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return op->emitOpError() << "body must end with fuser.yield";
  if (yield.getValues().size() != resultElemTypes.size())
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " values but the group "
           << "has " << resultElemTypes.size() << " results";
  for (auto [i, v, t] : llvm::enumerate(yield.getValues(), resultElemTypes))
    if (v.getType() != t)
      return yield.emitOpError() << "value #" << i << " has type "
                                 << v.getType() << " but result #" << i
                                 << " has element type " << t;
  return success();
}

/// Every dynamic result dimension needs a tensor input that reads it, since
/// that input supplies the size.
static LogicalResult verifyDynamicDimsCovered(Operation *op, ValueRange inputs,
                                              ArrayAttr maps,
                                              RankedTensorType resultTy) {
  for (int64_t d = 0; d < resultTy.getRank(); ++d) {
    if (!resultTy.isDynamicDim(d))
      continue;
    bool covered = false;
    for (auto [input, mapAttr] : llvm::zip(inputs, maps)) {
      if (!isa<RankedTensorType>(input.getType()))
        continue;
      auto map = cast<AffineMapAttr>(mapAttr).getValue();
      covered |= map.getResultPosition(getAffineDimExpr(d, op->getContext()))
                     .has_value();
    }
    if (!covered)
      return op->emitOpError() << "dynamic result dimension " << d
                               << " is not read by any tensor input";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PointwiseOp
//===----------------------------------------------------------------------===//

LogicalResult PointwiseOp::verify() {
  if (getResults().empty())
    return emitOpError() << "must have at least one result";
  RankedTensorType resultTy = getResultTensorType();
  SmallVector<Type> elemTypes;
  for (Type t : getResultTypes()) {
    auto rt = cast<RankedTensorType>(t);
    if (rt.getShape() != resultTy.getShape())
      return emitOpError() << "all results must have the same shape, but "
                           << rt << " differs from " << resultTy;
    elemTypes.push_back(rt.getElementType());
  }
  if (failed(verifyElementwiseInputs(*this, getInputs(), getIndexingMaps(),
                                     resultTy.getShape(), getBodyBlock(), 0,
                                     "input")))
    return failure();
  if (failed(verifyDynamicDimsCovered(*this, getInputs(), getIndexingMaps(),
                                      resultTy)))
    return failure();
  return verifyScalarBody(*this, getBodyBlock(), elemTypes);
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  RankedTensorType inputTy = getInputType();
  int64_t rank = inputTy.getRank();
  int64_t dim = getDimension();
  if (rank == 0 || dim < 0 || dim >= rank)
    return emitOpError() << "dimension " << dim << " is not a dimension of "
                         << inputTy;
  Type element = inputTy.getElementType();
  auto outputTy = cast<RankedTensorType>(getOutput().getType());
  if (getOutputInit().getType() != outputTy || outputTy != inputTy)
    return emitOpError() << "output and output_init must have the type of "
                            "the input (shape and element type), got "
                         << getOutputInit().getType() << " and " << outputTy;
  SmallVector<int64_t> accShape(inputTy.getShape());
  accShape.erase(accShape.begin() + dim);
  auto accTy = cast<RankedTensorType>(getAccumulator().getType());
  if (getAccumulatorInit().getType() != accTy ||
      accTy.getShape() != ArrayRef<int64_t>(accShape) ||
      accTy.getElementType() != element)
    return emitOpError() << "accumulator and accumulator_init must have the "
                            "input's shape without dimension "
                         << dim << " and its element type, got "
                         << getAccumulatorInit().getType() << " and " << accTy;
  Block &body = getBodyBlock();
  if (body.getNumArguments() != 2 ||
      llvm::any_of(body.getArgumentTypes(),
                   [&](Type t) { return t != element; }))
    return emitOpError() << "body must take two " << element
                         << " arguments (the running value, an element)";
  return verifyScalarBody(*this, body, {element});
}

SmallVector<unsigned> PointwiseOp::getTransposedTileInputs() {
  int64_t rank = getResultTensorType().getRank();
  if (rank < 2)
    return {};
  SmallVector<unsigned> swapped(llvm::seq<unsigned>(0, rank).begin(),
                                llvm::seq<unsigned>(0, rank).end());
  std::swap(swapped[rank - 2], swapped[rank - 1]);
  AffineMap transposed = AffineMap::getPermutationMap(swapped, getContext());
  AffineExpr inner = getAffineDimExpr(rank - 1, getContext());
  SmallVector<unsigned> found;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    if (!isa<RankedTensorType>(input.getType()) ||
        getBodyBlock().getArgument(i).use_empty())
      continue;
    AffineMap map = getIndexingMap(i);
    if (map == transposed) {
      // One tile type for all: the same element type.
      if (!found.empty() &&
          cast<ShapedType>(getInputs()[found[0]].getType()).getElementType() !=
              cast<ShapedType>(input.getType()).getElementType())
        return {};
      found.push_back(i);
      continue;
    }
    std::optional<unsigned> pos = map.getResultPosition(inner);
    if (pos && *pos + 1 != map.getNumResults())
      return {}; // another strided read
  }
  return found;
}

LogicalResult PointwiseOp::reifyResultShapes(
    OpBuilder &builder, ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  RankedTensorType resultTy = getResultTensorType();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < resultTy.getRank(); ++d) {
    if (!resultTy.isDynamicDim(d)) {
      sizes.push_back(builder.getIndexAttr(resultTy.getDimSize(d)));
      continue;
    }
    for (auto [i, input] : llvm::enumerate(getInputs())) {
      if (!isa<RankedTensorType>(input.getType()))
        continue;
      auto pos = getIndexingMap(i).getResultPosition(
          builder.getAffineDimExpr(d));
      if (!pos)
        continue;
      sizes.push_back(
          tensor::DimOp::create(builder, getLoc(), input, *pos).getResult());
      break;
    }
  }
  reifiedReturnShapes.assign(getNumResults(), sizes);
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto lhsTy = cast<RankedTensorType>(getLhs().getType());
  auto rhsTy = cast<RankedTensorType>(getRhs().getType());
  auto resTy = cast<RankedTensorType>(getResult().getType());
  int64_t rank = resTy.getRank();
  if ((rank != 2 && rank != 3) || lhsTy.getRank() != rank ||
      rhsTy.getRank() != rank)
    return emitOpError() << "operands and result must be rank-2 tensors, or "
                            "rank-3 ones with a leading batch dimension";
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (rank == 3 && (mismatch(lhsTy.getDimSize(0), resTy.getDimSize(0)) ||
                    mismatch(rhsTy.getDimSize(0), resTy.getDimSize(0))))
    return emitOpError() << "batch sizes differ: lhs " << lhsTy << ", rhs "
                         << rhsTy << ", result " << resTy;
  if (mismatch(lhsTy.getDimSize(getLhsKDim()), rhsTy.getDimSize(getRhsKDim())))
    return emitOpError() << "reduction sizes differ: lhs has K = "
                         << lhsTy.getDimSize(getLhsKDim())
                         << ", rhs has K = " << rhsTy.getDimSize(getRhsKDim());
  if (mismatch(lhsTy.getDimSize(getLhsMDim()), resTy.getDimSize(rank - 2)) ||
      mismatch(rhsTy.getDimSize(getRhsNDim()), resTy.getDimSize(rank - 1)))
    return emitOpError() << "result type " << resTy
                         << " does not match the operand shapes";
  Block &body = getEpilogue().front();
  if (body.getNumArguments() < 1 ||
      body.getArgument(0).getType() != resTy.getElementType())
    return emitOpError() << "epilogue's first block argument must be the "
                            "accumulator, of type "
                         << resTy.getElementType();
  if (failed(verifyElementwiseInputs(*this, getEpilogueInputs(),
                                     getEpilogueMaps(), resTy.getShape(), body,
                                     1, "epilogue input")))
    return failure();
  if (failed(verifyScalarBody(*this, body, resTy.getElementType())))
    return failure();
  if (failed(verifyPrologue()))
    return failure();
  if (getNormGroupSize().has_value() != getNormEpsilon().has_value() ||
      getNormGroupSize().has_value() == getNormEpilogue().empty())
    return emitOpError() << "group_norm(size, eps) and the `then` region "
                            "come together";
  if (rank == 3)
    for (auto [j, attr] : llvm::enumerate(getEpilogueMaps())) {
      AffineMap map = cast<AffineMapAttr>(attr).getValue();
      if (!map.isFunctionOfDim(0) || map.getDimPosition(0) == 0)
        continue;
      return emitOpError() << "epilogue input #" << j
                           << " reads the batch dimension after another one; "
                              "a batched matmul's inputs are (B, ...) or "
                              "shared by every batch";
    }
  if (!hasGroupNorm())
    return success();
  if (rank == 3)
    return emitOpError() << "a batched matmul has no group_norm";
  int64_t groupSize = *getNormGroupSize();
  if (resTy.isDynamicDim(1))
    return emitOpError() << "group_norm needs a static column count";
  if (resTy.getDimSize(1) % groupSize != 0)
    return emitOpError() << "group size " << groupSize
                         << " does not divide the " << resTy.getDimSize(1)
                         << " columns";
  if (getNormEpsilon()->convertToDouble() <= 0.0)
    return emitOpError() << "group_norm epsilon must be positive";
  Block &norm = getNormEpilogue().front();
  if (norm.getNumArguments() != body.getNumArguments() ||
      norm.getArgumentTypes() != body.getArgumentTypes())
    return emitOpError() << "the `then` region must take the same arguments "
                            "as the epilogue: the normalized value, then one "
                            "per epilogue input";
  return verifyScalarBody(*this, norm, resTy.getElementType());
}

LogicalResult MatmulOp::verifyPrologue() {
  if (!hasPrologue()) {
    if (!getPrologueInputs().empty())
      return emitOpError() << "has prologue_inputs but no prologue region";
    return success();
  }
  auto lhsTy = cast<RankedTensorType>(getLhs().getType());
  if (getTransposeA() || isBatched())
    return emitOpError() << "a prologue needs a K-major A (no transpose_a) "
                            "and an unbatched product";
  Block &body = getPrologue().front();
  SmallVector<Type> argTypes{lhsTy.getElementType()};
  for (auto [i, in] : llvm::enumerate(getPrologueInputs())) {
    auto inTy = cast<RankedTensorType>(in.getType());
    if (inTy.getRank() != lhsTy.getRank() ||
        llvm::any_of(llvm::zip(inTy.getShape(), lhsTy.getShape()),
                     [](auto dims) {
                       auto [a, b] = dims;
                       return !ShapedType::isDynamic(a) &&
                              !ShapedType::isDynamic(b) && a != b;
                     }))
      return emitOpError() << "prologue input #" << i << " has type " << inTy
                           << "; prologue inputs have lhs's shape "
                           << lhsTy;
    argTypes.push_back(inTy.getElementType());
  }
  if (body.getArgumentTypes() != TypeRange(argTypes))
    return emitOpError() << "prologue's block arguments must be lhs's "
                            "element, then one per prologue input, of types "
                         << TypeRange(argTypes);
  return verifyScalarBody(*this, body, lhsTy.getElementType());
}

PointwiseOp MatmulOp::materializePrologue() {
  if (!hasPrologue())
    return {};
  OpBuilder b(*this);
  auto lhsTy = cast<RankedTensorType>(getLhs().getType());
  SmallVector<Value> inputs{getLhs()};
  llvm::append_range(inputs, getPrologueInputs());
  AffineMap id = AffineMap::getMultiDimIdentityMap(lhsTy.getRank(),
                                                   getContext());
  SmallVector<Attribute> maps(inputs.size(), AffineMapAttr::get(id));
  auto group = PointwiseOp::create(b, getLoc(), TypeRange{lhsTy}, inputs,
                                   b.getArrayAttr(maps), /*config=*/nullptr);
  group.getBody().takeBody(getPrologue());
  getLhsMutable().assign(group.getResult(0));
  getPrologueInputsMutable().clear();
  return group;
}

bool MatmulOp::epilogueInputReadsBatch(unsigned j) {
  AffineMap map = cast<AffineMapAttr>(getEpilogueMaps()[j]).getValue();
  return isBatched() && map.getNumResults() > 0 && map.getDimPosition(0) == 0;
}

AffineMap MatmulOp::getEpilogueMapOverMN(unsigned j) {
  AffineMap map = cast<AffineMapAttr>(getEpilogueMaps()[j]).getValue();
  if (!isBatched())
    return map;
  // (b, m, n) -> (b?, ...) becomes (m, n) -> (...).
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (d != 0)
      results.push_back(getAffineDimExpr(d - 1, getContext()));
  }
  return AffineMap::get(2, 0, results, getContext());
}

//===----------------------------------------------------------------------===//
// GroupNormOp
//===----------------------------------------------------------------------===//

LogicalResult GroupNormOp::verify() {
  auto inTy = cast<RankedTensorType>(getInput().getType());
  auto resTy = cast<RankedTensorType>(getResult().getType());
  if (inTy.getRank() < 2)
    return emitOpError() << "input must have rank >= 2 (N, C, ...)";
  if (inTy.getShape() != resTy.getShape())
    return emitOpError() << "result shape must equal the input shape";
  int64_t channels = inTy.getDimSize(1);
  for (Value affine : {getGamma(), getBeta()}) {
    auto t = cast<RankedTensorType>(affine.getType());
    if (t.getRank() != 1 || (!ShapedType::isDynamic(channels) &&
                             !t.isDynamicDim(0) && t.getDimSize(0) != channels))
      return emitOpError() << "gamma and beta must be per-channel vectors of "
                              "size C = "
                           << channels << ", got " << t;
  }
  if (!ShapedType::isDynamic(channels) && channels % getNumGroups() != 0)
    return emitOpError() << "channel count " << channels
                         << " is not divisible by " << getNumGroups()
                         << " groups";
  if (getEpsilon().convertToDouble() <= 0.0)
    return emitOpError() << "epsilon must be positive";
  Block &body = getEpilogue().front();
  if (body.getNumArguments() < 1 ||
      body.getArgument(0).getType() != resTy.getElementType())
    return emitOpError() << "epilogue's first block argument must be the "
                            "normalized value, of type "
                         << resTy.getElementType();
  if (failed(verifyElementwiseInputs(*this, getEpilogueInputs(),
                                     getEpilogueMaps(), resTy.getShape(), body,
                                     1, "epilogue input")))
    return failure();
  return verifyScalarBody(*this, body, resTy.getElementType());
}

//===----------------------------------------------------------------------===//
// GroupNormGradOp
//===----------------------------------------------------------------------===//

LogicalResult GroupNormGradOp::verify() {
  auto inTy = cast<RankedTensorType>(getInput().getType());
  if (inTy.getRank() < 2)
    return emitOpError() << "input must have rank >= 2 (N, C, ...)";
  if (getGradInput().getType() != inTy)
    return emitOpError() << "grad_input must have the input's type " << inTy;
  int64_t channels = inTy.getDimSize(1);
  auto gammaTy = cast<RankedTensorType>(getGamma().getType());
  if (gammaTy.getRank() != 1 ||
      (!ShapedType::isDynamic(channels) && !gammaTy.isDynamicDim(0) &&
       gammaTy.getDimSize(0) != channels))
    return emitOpError() << "gamma must be a per-channel vector of size C = "
                         << channels << ", got " << gammaTy;
  if (!ShapedType::isDynamic(channels) && channels % getNumGroups() != 0)
    return emitOpError() << "channel count " << channels
                         << " is not divisible by " << getNumGroups()
                         << " groups";
  auto statTy = RankedTensorType::get(
      {inTy.getDimSize(0), static_cast<int64_t>(getNumGroups())},
      inTy.getElementType());
  for (Value stat : {getMean(), getRstd()})
    if (stat.getType() != statTy)
      return emitOpError() << "mean and rstd must be (N, groups) tensors of "
                              "the input's element type, "
                           << statTy << ", got " << stat.getType();
  if (getEpsilon().convertToDouble() <= 0.0)
    return emitOpError() << "epsilon must be positive";
  Block &body = getPrologue().front();
  if (failed(verifyElementwiseInputs(*this, getPrologueInputs(),
                                     getPrologueMaps(), inTy.getShape(), body,
                                     0, "prologue input")))
    return failure();
  return verifyScalarBody(*this, body, inTy.getElementType());
}

//===----------------------------------------------------------------------===//
// TensorMapOp
//===----------------------------------------------------------------------===//

LogicalResult TensorMapOp::verify() {
  MemRefType source = getSource().getType();
  if (!source.getLayout().isIdentity() || source.getMemorySpace())
    return emitOpError() << "source must be a dense row-major buffer in the "
                            "default memory space, got "
                         << source;
  auto ptr = dyn_cast<LLVM::LLVMPointerType>(getMap().getType());
  if (!ptr || ptr.getAddressSpace() != 0)
    return emitOpError() << "result must be a generic '!llvm.ptr' (the "
                            "kernel parameter holding the map), got "
                         << getMap().getType();
  // The rules are the manifest's (fuser/Manifest/TensorMapRules.h), so
  // what verifies here is what the runtime and the C header accept.
  Type element = source.getElementType();
  std::optional<::fuser::DType> dtype;
  if (element.isF32())
    dtype = ::fuser::DType::F32;
  else if (element.isBF16())
    dtype = ::fuser::DType::BF16;
  else if (element.isF16())
    dtype = ::fuser::DType::F16;
  if (!dtype || !::fuser::isTensorMapDType(*dtype))
    return emitOpError() << "tensor_map needs an f32, bf16 or f16 buffer, got "
                         << element;
  ArrayRef<int64_t> box = getBox();
  if (box.size() != 2)
    return emitOpError() << "box must be [rows, columns], got " << box.size()
                         << " entries";
  for (int d = 0; d < 2; ++d)
    if (std::string why = ::fuser::tensorMapBoxSizeError(box[d]); !why.empty())
      return emitOpError() << "box[" << d << "] " << why;
  if (std::string why = ::fuser::tensorMapSwizzleError(getSwizzle());
      !why.empty())
    return emitOpError() << why;
  if (std::string why =
          ::fuser::tensorMapBoxRowError(*dtype, box[1], getSwizzle());
      !why.empty())
    return emitOpError() << why;
  return success();
}

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
