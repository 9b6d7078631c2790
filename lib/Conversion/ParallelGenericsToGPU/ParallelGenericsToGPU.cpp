//===- ParallelGenericsToGPU.cpp - the fallback's gathers, 4 per thread ---===//
//
// See the pass description: an all-parallel linalg.generic on buffers whose
// outputs are written through the identity becomes a gpu.launch in which
// each thread computes a group of consecutive elements along the innermost
// loop, all its loads issued before its stores.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTPARALLELGENERICSTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// Threads per block and the grid-stride loop's most blocks: the pointwise
/// kernels' (lib/Dialect/Fuser/IR/Chips.cpp measured 256 on sm_90a).
constexpr int64_t kBlock = 256;
constexpr int64_t kMaxGrid = int64_t(1) << 20;
/// Consecutive elements per thread where the innermost extent allows.
constexpr int64_t kGroup = 4;

/// Whether `op` is one this pass lowers: on buffers, every loop parallel,
/// each input read at loops or constants (no strides or sums of loops),
/// each output written through the identity and never read.
bool isLowerable(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getNumReductionLoops() != 0)
    return false;
  for (OpOperand *in : op.getDpsInputOperands())
    if (!llvm::all_of(op.getMatchingIndexingMap(in).getResults(),
                      llvm::IsaPred<AffineDimExpr, AffineConstantExpr>))
      return false;
  Type shape = op.getDpsInits()[0].getType();
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity() ||
        !op.getMatchingBlockArgument(&init).use_empty() ||
        cast<MemRefType>(init.get().getType()).getShape() !=
            cast<MemRefType>(shape).getShape())
      return false;
  return true;
}

/// Whether a body op with the same operands as element 0's computes the
/// same (its result can be reused): a pure op, a load (the group's stores
/// come after all its loads), or an index check (an scf.if holding only a
/// cf.assert, fuser-guard-asserts' form).
bool isReusable(Operation &inner) {
  if (isa<memref::LoadOp>(inner))
    return true;
  if (auto ifOp = dyn_cast<scf::IfOp>(inner))
    return ifOp->getNumResults() == 0 &&
           llvm::all_of(ifOp->getRegions(), [](Region &r) {
             return llvm::all_of(r.getOps(), [](Operation &o) {
               return isa<cf::AssertOp, scf::YieldOp>(o);
             });
           });
  return inner.getNumRegions() == 0 && isPure(&inner);
}

/// How a group's elements of one buffer, consecutive along its innermost
/// dimension from a multiple of the group, move as one vector access: the
/// buffer's static layout, whose rows and offset keep every group's first
/// element aligned to the vector's bytes (the manifest asks the runtime for
/// 16-byte aligned buffers behind kernel pointers).
struct VectorLayout {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  unsigned bytes = 0;
};

std::optional<VectorLayout> vectorLayout(Type type, int64_t group) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || group < 2 || memref.getRank() == 0)
    return std::nullopt;
  Type element = memref.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt; // i1 is a byte in memory; index has no size here
  VectorLayout layout;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  layout.bytes = group * elementBytes;
  if (layout.bytes != 4 && layout.bytes != 8 && layout.bytes != 16)
    return std::nullopt;
  if (failed(memref.getStridesAndOffset(layout.strides, layout.offset)) ||
      layout.strides.back() != 1 || ShapedType::isDynamic(layout.offset) ||
      layout.offset * elementBytes % layout.bytes != 0)
    return std::nullopt;
  for (int64_t stride : ArrayRef<int64_t>(layout.strides).drop_back())
    if (ShapedType::isDynamic(stride) ||
        stride * elementBytes % layout.bytes != 0)
      return std::nullopt;
  return layout;
}

/// The body values that depend on the innermost (column) loop: its
/// linalg.index, the inputs read along it, and what computes on them.
DenseSet<Value> columnDependent(linalg::GenericOp op) {
  unsigned column = op.getNumLoops() - 1;
  DenseSet<Value> dependent;
  for (OpOperand *in : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(in).isFunctionOfDim(column))
      dependent.insert(op.getMatchingBlockArgument(in));
  for (Operation &inner : op.getRegion().front().without_terminator()) {
    auto index = dyn_cast<linalg::IndexOp>(inner);
    bool depends = index && index.getDim() == column;
    inner.walk([&](Operation *nested) {
      depends |= llvm::any_of(nested->getOperands(), [&](Value v) {
        return dependent.contains(v);
      });
    });
    if (depends)
      dependent.insert(inner.getResults().begin(), inner.getResults().end());
  }
  return dependent;
}

void lower(linalg::GenericOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Value out = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(out.getType());
  unsigned rank = op.getNumLoops();
  // The loops' extents are the first output's dimensions (identity map).
  SmallVector<Value> extents;
  for (unsigned d = 0; d < rank; ++d)
    extents.push_back(memref::DimOp::create(b, loc, out, d));
  int64_t inner = outType.getShape().back();
  int64_t group =
      !ShapedType::isDynamic(inner) && inner % kGroup == 0 ? kGroup : 1;
  auto cst = [&](OpBuilder &ob, int64_t v) {
    return arith::ConstantIndexOp::create(ob, loc, v).getResult();
  };
  Value count = cst(b, 1);
  for (Value e : extents)
    count = arith::MulIOp::create(b, loc, count, e);
  Value groups = arith::DivUIOp::create(b, loc, count, cst(b, group));
  Value blocks = arith::MinUIOp::create(
      b, loc,
      arith::MaxUIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, groups, cst(b, kBlock)),
          cst(b, 1)),
      cst(b, kMaxGrid));
  Value one = cst(b, 1);
  auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one,
                                      cst(b, kBlock), one, one);
  OpBuilder lb = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value first = arith::AddIOp::create(
      lb, loc, arith::MulIOp::create(lb, loc, launch.getBlockIds().x,
                                     cst(lb, kBlock)),
      launch.getThreadIds().x);
  Value stride =
      arith::MulIOp::create(lb, loc, launch.getGridSize().x, cst(lb, kBlock));
  auto loop = scf::ForOp::create(lb, loc, first, groups, stride);
  gpu::TerminatorOp::create(lb, loc);

  OpBuilder fb = OpBuilder::atBlockBegin(loop.getBody());
  // The group's first element's coordinates, innermost first.
  SmallVector<Value> coords(rank);
  Value rest = loop.getInductionVar();
  if (group > 1)
    rest = arith::MulIOp::create(fb, loc, rest, cst(fb, group));
  for (unsigned d = rank; d-- > 0;) {
    if (d == 0) {
      coords[d] = rest;
      break;
    }
    coords[d] = arith::RemUIOp::create(fb, loc, rest, extents[d]);
    rest = arith::DivUIOp::create(fb, loc, rest, extents[d]);
  }
  Block &body = op.getRegion().front();
  // Group accesses along the column as vectors, through pointers made on
  // the host: (buffer, pointer) pairs.
  OpBuilder hb(launch);
  DenseMap<Value, Value> pointers;
  auto pointerTo = [&](Value memref) {
    Value &ptr = pointers[memref];
    if (!ptr)
      ptr = fuser::hostPointerToMemRef(hb, loc, memref);
    return ptr;
  };
  auto elementPointer = [&](Value memref, const VectorLayout &layout,
                            ValueRange indices) {
    Value linear;
    auto add = [&](Value term) {
      linear = linear ? arith::AddIOp::create(fb, loc, linear, term) : term;
    };
    for (auto [i, stride] : llvm::zip(indices, layout.strides))
      add(stride == 1 ? i
                      : arith::MulIOp::create(fb, loc, i, cst(fb, stride)));
    if (layout.offset)
      add(cst(fb, layout.offset));
    Value at = arith::IndexCastUIOp::create(fb, loc, fb.getI64Type(), linear);
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return fuser::gepElement(fb, loc, pointerTo(memref), element, at);
  };
  auto vectorLoad = [&](Value memref, const VectorLayout &layout,
                        ValueRange indices) -> Value {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    return LLVM::LoadOp::create(fb, loc, VectorType::get({group}, element),
                                elementPointer(memref, layout, indices),
                                layout.bytes);
  };
  DenseSet<Value> byColumn = columnDependent(op);
  // A body load along the column: its last index the column's
  // linalg.index, the others the same for the whole group, in a body that
  // writes nothing (the vector loads the group's elements before the ops
  // of elements 1, 2, ... run).
  bool writes = false;
  body.walk([&](Operation *inner) {
    if (isa<cf::AssertOp>(inner) ||
        inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    writes |= effects ? effects.hasEffect<MemoryEffects::Write>()
                      : !isMemoryEffectFree(inner);
  });
  auto vectorizableLoad = [&](Operation &inner) -> std::optional<VectorLayout> {
    auto load = dyn_cast<memref::LoadOp>(inner);
    if (writes || !load || load.getIndices().empty() ||
        load.getMemRef().getParentRegion() == &op.getRegion())
      return std::nullopt;
    auto index = load.getIndices().back().getDefiningOp<linalg::IndexOp>();
    if (!index || index.getDim() != rank - 1 ||
        llvm::any_of(load.getIndices().drop_back(),
                     [&](Value v) { return byColumn.contains(v); }))
      return std::nullopt;
    return vectorLayout(load.getMemRef().getType(), group);
  };
  DenseMap<Value, Value> vectors; // a body load's or an input's, per group
  auto lane = [&](Value vector, int64_t k) -> Value {
    return vector::ExtractOp::create(fb, loc, vector, k);
  };
  SmallVector<SmallVector<Value>> results, elementCoords;
  // Element 0's values: the other elements reuse those that do not depend
  // on the column (an embedding's token and its index checks), so that
  // only the column's loads repeat.
  IRMapping firstElement;
  auto sameAsFirst = [&](IRMapping &mapping, Operation &inner) {
    return llvm::all_of(inner.getOperands(), [&](Value v) {
      return mapping.lookupOrDefault(v) == firstElement.lookupOrDefault(v);
    });
  };
  for (int64_t k = 0; k < group; ++k) {
    SmallVector<Value> &at = elementCoords.emplace_back(coords);
    if (k > 0)
      at.back() = arith::AddIOp::create(fb, loc, coords.back(), cst(fb, k));
    IRMapping mapping;
    for (OpOperand *in : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(in);
      if (arg.use_empty())
        continue;
      Value source = in->get();
      if (!isa<MemRefType>(source.getType())) { // a scalar operand
        mapping.map(arg, source);
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(in);
      if (k > 0 && !map.isFunctionOfDim(rank - 1)) {
        mapping.map(arg, firstElement.lookup(arg));
        continue;
      }
      if (Value vector = vectors.lookup(arg)) {
        mapping.map(arg, lane(vector, k));
        continue;
      }
      SmallVector<Value> indices;
      for (AffineExpr e : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          indices.push_back(at[dim.getPosition()]);
        else // a broadcast's unit dimension
          indices.push_back(cst(fb, cast<AffineConstantExpr>(e).getValue()));
      }
      // Read along the column in its last dimension only: one vector.
      std::optional<VectorLayout> layout;
      if (map.getNumResults() > 0 &&
          map.getResults().back() == getAffineDimExpr(rank - 1, ctx) &&
          llvm::count_if(map.getResults(), [&](AffineExpr e) {
            return e.isFunctionOfDim(rank - 1);
          }) == 1)
        layout = vectorLayout(source.getType(), group);
      if (layout) {
        Value vector = vectorLoad(source, *layout, indices);
        vectors[arg] = vector;
        mapping.map(arg, lane(vector, k));
        continue;
      }
      mapping.map(arg, memref::LoadOp::create(fb, loc, source, indices));
    }
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), at[index.getDim()]);
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        Value &vector = vectors[load.getResult()];
        if (!vector && k == 0)
          if (std::optional<VectorLayout> layout = vectorizableLoad(inner)) {
            SmallVector<Value> indices;
            for (Value i : load.getIndices())
              indices.push_back(mapping.lookupOrDefault(i));
            vector = vectorLoad(load.getMemRef(), *layout, indices);
          }
        if (vector) {
          mapping.map(load.getResult(), lane(vector, k));
          continue;
        }
      }
      if (k > 0 && isReusable(inner) && sameAsFirst(mapping, inner)) {
        for (Value r : inner.getResults())
          mapping.map(r, firstElement.lookup(r));
        continue;
      }
      fb.clone(inner, mapping);
    }
    if (k == 0)
      firstElement = mapping;
    SmallVector<Value> values;
    for (Value v : body.getTerminator()->getOperands())
      values.push_back(mapping.lookupOrDefault(v));
    results.push_back(values);
  }
  // The stores after every group element's loads: one vector per output
  // where its layout allows.
  for (auto [r, init] : llvm::enumerate(op.getDpsInits())) {
    if (std::optional<VectorLayout> layout =
            vectorLayout(init.getType(), group)) {
      SmallVector<Value> lanes;
      for (ArrayRef<Value> values : results)
        lanes.push_back(values[r]);
      Value vector = vector::FromElementsOp::create(
          fb, loc,
          VectorType::get({group},
                          cast<MemRefType>(init.getType()).getElementType()),
          lanes);
      LLVM::StoreOp::create(fb, loc, vector,
                            elementPointer(init, *layout, elementCoords[0]),
                            layout->bytes);
      continue;
    }
    for (auto [values, at] : llvm::zip(results, elementCoords))
      memref::StoreOp::create(fb, loc, values[r], init, at);
  }
  op.erase();
}

struct ConvertParallelGenericsToGPUPass
    : fuser::impl::ConvertParallelGenericsToGPUPassBase<
          ConvertParallelGenericsToGPUPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>() && isLowerable(op))
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      lower(op);
  }
};

} // namespace
