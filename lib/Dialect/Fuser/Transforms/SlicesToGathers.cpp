//===- SlicesToGathers.cpp - views left in host code as gather kernels ----===//
//
// See the pass description: bufferization turns a slice, a concatenation,
// an insertion or a pad into a strided view of a buffer, which the runtime
// cannot pass to a kernel. Each one no kernel absorbed becomes a
// linalg.generic that computes every element of its result, which the
// generic fallback makes a kernel.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERSLICESTOGATHERSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// Computes one element of the result from its indices, in the body of the
/// gather.
using ElementFn =
    llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)>;

static Value indexValue(OpBuilder &b, Location loc, OpFoldResult v) {
  return getValueOrCreateConstantIndexOp(b, loc, v);
}

/// A linalg.generic with `op`'s result type and sizes whose body computes
/// each element with `element` from its indices (linalg.index).
///
/// The generic fallback gives two loops to threads and runs any others in
/// each thread, so above rank 2 the generic runs over [leading dims, last
/// dim], delinearizes the first index in its body, and its result is
/// expanded to the full shape: every element gets a thread.
static FailureOr<Value> buildGather(OpBuilder &b, Operation *op,
                                    ElementFn element) {
  ReifiedRankedShapedTypeDims reified;
  if (failed(reifyResultShapes(b, op, reified)))
    return failure();
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = type.getRank();
  // Each size: the type's where static (reification may not see it).
  SmallVector<OpFoldResult> sizes;
  SmallVector<Value> sizeValues, dynamicSizes;
  for (int64_t d = 0; d < rank; ++d) {
    sizes.push_back(type.isDynamicDim(d)
                        ? reified[0][d]
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
    sizeValues.push_back(indexValue(b, loc, sizes.back()));
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(sizeValues.back());
  }
  int64_t loops = std::min<int64_t>(rank, 2);
  RankedTensorType loopType = type;
  if (rank > 2) {
    // [product of the leading sizes, last size]
    int64_t outer = 1;
    Value outerValue = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d + 1 < rank; ++d) {
      outer = ShapedType::isDynamic(outer) || type.isDynamicDim(d)
                  ? ShapedType::kDynamic
                  : outer * type.getDimSize(d);
      outerValue = arith::MulIOp::create(b, loc, outerValue, sizeValues[d]);
    }
    loopType = RankedTensorType::get({outer, type.getDimSize(rank - 1)},
                                     type.getElementType());
    dynamicSizes.clear();
    if (ShapedType::isDynamic(outer))
      dynamicSizes.push_back(outerValue);
    if (type.isDynamicDim(rank - 1))
      dynamicSizes.push_back(sizeValues.back());
  }
  Value init = tensor::EmptyOp::create(b, loc, loopType, dynamicSizes);
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  auto gather = linalg::GenericOp::create(
      b, loc, TypeRange{loopType}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(loops)}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange) {
        SmallVector<Value> indices(rank);
        if (rank <= 2) {
          for (int64_t d = 0; d < rank; ++d)
            indices[d] = linalg::IndexOp::create(nb, nl, d);
        } else {
          indices[rank - 1] = linalg::IndexOp::create(nb, nl, 1);
          Value rest = linalg::IndexOp::create(nb, nl, 0);
          for (int64_t d = rank - 2; d > 0; --d) {
            indices[d] = arith::RemUIOp::create(nb, nl, rest, sizeValues[d]);
            rest = arith::DivUIOp::create(nb, nl, rest, sizeValues[d]);
          }
          indices[0] = rest;
        }
        linalg::YieldOp::create(nb, nl, element(nb, nl, indices));
      });
  if (rank <= 2)
    return gather.getResult(0);
  SmallVector<ReassociationIndices> groups(2);
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups[0].push_back(d);
  groups[1].push_back(rank - 1);
  return tensor::ExpandShapeOp::create(b, loc, type, gather.getResult(0),
                                       groups, sizes)
      .getResult();
}

/// `then` where `cond` holds, else `otherwise`, each built in its branch so
/// that only the chosen one reads memory.
static Value
ifElse(OpBuilder &b, Location loc, Value cond, Type type,
       llvm::function_ref<Value(OpBuilder &, Location)> then,
       llvm::function_ref<Value(OpBuilder &, Location)> otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, cond,
                                /*addThenBlock=*/true, /*addElseBlock=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, then(b, loc));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, otherwise(b, loc));
  return ifOp.getResult(0);
}

/// source[offset + stride * i] along the dims the slice keeps, source[offset]
/// along those it drops.
static FailureOr<Value> gatherSlice(OpBuilder &b, tensor::ExtractSliceOp op) {
  Location loc = op.getLoc();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  SmallVector<OpFoldResult> strides = op.getMixedStrides();
  SmallVector<Value> offsetValues, strideValues;
  for (auto [offset, stride] : llvm::zip(offsets, strides)) {
    offsetValues.push_back(indexValue(b, loc, offset));
    strideValues.push_back(indexValue(b, loc, stride));
  }
  return buildGather(
      b, op, [&](OpBuilder &nb, Location nl, ArrayRef<Value> indices) {
        SmallVector<Value> at;
        size_t next = 0;
        for (size_t d = 0; d < offsets.size(); ++d) {
          if (dropped.test(d)) {
            at.push_back(offsetValues[d]);
            continue;
          }
          Value index = indices[next++];
          if (!isConstantIntValue(strides[d], 1))
            index = arith::MulIOp::create(nb, nl, index, strideValues[d]);
          if (!isZeroInteger(offsets[d]))
            index = arith::AddIOp::create(nb, nl, offsetValues[d], index);
          at.push_back(index);
        }
        return tensor::ExtractOp::create(nb, nl, op.getSource(), at)
            .getResult();
      });
}

/// dest[i], or source[(i - offset) / stride] where i falls on the slice.
static FailureOr<Value> gatherInsert(OpBuilder &b, tensor::InsertSliceOp op) {
  // Static positive strides only: the verifier allows 0 and negative ones,
  // which the membership test below would divide by or misplace.
  SmallVector<int64_t> strides;
  for (OpFoldResult stride : op.getMixedStrides()) {
    std::optional<int64_t> s = getConstantIntValue(stride);
    if (!s || *s < 1)
      return failure();
    strides.push_back(*s);
  }
  Location loc = op.getLoc();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  SmallVector<Value> offsets, sizes, strideValues;
  for (auto [offset, size, stride] : llvm::zip(
           op.getMixedOffsets(), op.getMixedSizes(), op.getMixedStrides())) {
    offsets.push_back(indexValue(b, loc, offset));
    sizes.push_back(indexValue(b, loc, size));
    strideValues.push_back(indexValue(b, loc, stride));
  }
  Type elementType = op.getDestType().getElementType();
  return buildGather(
      b, op, [&](OpBuilder &nb, Location nl, ArrayRef<Value> indices) {
        Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
        Value inside = arith::ConstantIntOp::create(nb, nl, 1, 1);
        SmallVector<Value> at;
        for (size_t d = 0; d < offsets.size(); ++d) {
          // i - offset = stride * k with 0 <= k < size.
          Value rel = arith::SubIOp::create(nb, nl, indices[d], offsets[d]);
          Value k = rel;
          SmallVector<Value> checks{arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::sge, rel, zero)};
          if (strides[d] != 1) {
            k = arith::DivSIOp::create(nb, nl, rel, strideValues[d]);
            Value rem = arith::RemSIOp::create(nb, nl, rel, strideValues[d]);
            checks.push_back(arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::eq, rem, zero));
          }
          checks.push_back(arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::slt, k, sizes[d]));
          for (Value check : checks)
            inside = arith::AndIOp::create(nb, nl, inside, check);
          if (!dropped.test(d))
            at.push_back(k);
        }
        return ifElse(
            nb, nl, inside, elementType,
            [&](OpBuilder &tb, Location tl) -> Value {
              return tensor::ExtractOp::create(tb, tl, op.getSource(), at);
            },
            [&](OpBuilder &eb, Location el) -> Value {
              return tensor::ExtractOp::create(eb, el, op.getDest(), indices);
            });
      });
}

/// The input whose range along the concatenated dimension holds i, read at
/// i minus the sizes of the inputs before it.
static FailureOr<Value> gatherConcat(OpBuilder &b, tensor::ConcatOp op) {
  Location loc = op.getLoc();
  int64_t dim = op.getDim();
  // starts[k]: where input k begins along `dim`.
  SmallVector<Value> starts{arith::ConstantIndexOp::create(b, loc, 0)};
  for (Value input : op.getInputs().drop_back()) {
    Value size = indexValue(b, loc, tensor::getMixedSize(b, loc, input, dim));
    starts.push_back(arith::AddIOp::create(b, loc, starts.back(), size));
  }
  Type elementType = op.getResultType().getElementType();
  return buildGather(
      b, op, [&](OpBuilder &nb, Location nl, ArrayRef<Value> indices) {
        // Input k, where the inputs after k were ruled out by the caller.
        std::function<Value(OpBuilder &, Location, size_t)> read =
            [&](OpBuilder &rb, Location rl, size_t k) -> Value {
          auto readInput = [&](OpBuilder &ib, Location il) -> Value {
            SmallVector<Value> at(indices.begin(), indices.end());
            at[dim] = arith::SubIOp::create(ib, il, indices[dim], starts[k]);
            return tensor::ExtractOp::create(ib, il, op.getInputs()[k], at);
          };
          if (k + 1 == starts.size())
            return readInput(rb, rl);
          Value before = arith::CmpIOp::create(
              rb, rl, arith::CmpIPredicate::ult, indices[dim], starts[k + 1]);
          return ifElse(
              rb, rl, before, elementType, readInput,
              [&](OpBuilder &eb, Location el) { return read(eb, el, k + 1); });
        };
        return read(nb, nl, 0);
      });
}

/// source[i - low] where that is in bounds along every dimension, else the
/// padding value. A padding computed from the indices is left alone.
static FailureOr<Value> gatherPad(OpBuilder &b, tensor::PadOp op) {
  Value padding = op.getConstantPaddingValue();
  if (!padding)
    return failure();
  Location loc = op.getLoc();
  // A constant yielded from inside the region goes with the pad: a copy
  // before the gather.
  if (Operation *def = padding.getDefiningOp(); def && op->isAncestor(def)) {
    if (def->getNumOperands() != 0 || def->getNumRegions() != 0)
      return failure();
    padding = b.clone(*def)->getResult(0);
  }
  Value source = op.getSource();
  SmallVector<Value> lows, sizes;
  for (auto [d, low] : llvm::enumerate(op.getMixedLowPad())) {
    lows.push_back(indexValue(b, loc, low));
    sizes.push_back(
        indexValue(b, loc, tensor::getMixedSize(b, loc, source, d)));
  }
  Type elementType = op.getResultType().getElementType();
  return buildGather(
      b, op, [&](OpBuilder &nb, Location nl, ArrayRef<Value> indices) {
        Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
        Value inside = arith::ConstantIntOp::create(nb, nl, 1, 1);
        SmallVector<Value> at;
        for (size_t d = 0; d < lows.size(); ++d) {
          Value rel = arith::SubIOp::create(nb, nl, indices[d], lows[d]);
          Value checks[] = {
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, rel,
                                    zero),
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, rel,
                                    sizes[d])};
          for (Value check : checks)
            inside = arith::AndIOp::create(nb, nl, inside, check);
          at.push_back(rel);
        }
        return ifElse(
            nb, nl, inside, elementType,
            [&](OpBuilder &tb, Location tl) -> Value {
              return tensor::ExtractOp::create(tb, tl, source, at);
            },
            [&](OpBuilder &, Location) { return padding; });
      });
}

class SlicesToGathersPass
    : public fuser::impl::FuserSlicesToGathersPassBase<SlicesToGathersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> views;
    // Only the function's own ops: a kernel's body is already lowered.
    for (Block &block : getOperation().getBody())
      for (Operation &op : block)
        if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ConcatOp,
                tensor::PadOp>(op))
          views.push_back(&op);
    for (Operation *op : views) {
      // Unused: dead, or read in place by the kernel that replaced its
      // user (a pooling reduction reads its pad's source).
      if (op->use_empty())
        continue;
      OpBuilder b(op);
      FailureOr<Value> gather =
          TypeSwitch<Operation *, FailureOr<Value>>(op)
              .Case([&](tensor::ExtractSliceOp o) { return gatherSlice(b, o); })
              .Case([&](tensor::InsertSliceOp o) { return gatherInsert(b, o); })
              .Case([&](tensor::ConcatOp o) { return gatherConcat(b, o); })
              .Case([&](tensor::PadOp o) { return gatherPad(b, o); });
      // Left as it is, the view gets fuser-verify-host-code's error.
      if (failed(gather))
        continue;
      if (report)
        op->emitRemark() << "'" << op->getName()
                         << "' is computed by a gather kernel of the generic "
                            "fallback: no fused kernel reads it in place";
      op->getResult(0).replaceAllUsesWith(*gather);
      op->erase();
    }
  }
};

} // namespace
