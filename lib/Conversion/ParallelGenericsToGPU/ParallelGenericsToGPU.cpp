//===- ParallelGenericsToGPU.cpp - the fallback's gathers, 4 per thread ---===//
//
// See the pass description: an all-parallel linalg.generic on buffers whose
// outputs are written through the identity becomes a gpu.launch in which
// each thread computes a group of consecutive elements along the innermost
// loop, all its loads issued before its stores.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
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

void lower(linalg::GenericOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
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
      if (k > 0 && !op.getMatchingIndexingMap(in).isFunctionOfDim(rank - 1)) {
        mapping.map(arg, firstElement.lookup(arg));
        continue;
      }
      SmallVector<Value> indices;
      for (AffineExpr e : op.getMatchingIndexingMap(in).getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(e))
          indices.push_back(at[dim.getPosition()]);
        else // a broadcast's unit dimension
          indices.push_back(cst(fb, cast<AffineConstantExpr>(e).getValue()));
      }
      mapping.map(arg, memref::LoadOp::create(fb, loc, source, indices));
    }
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), at[index.getDim()]);
        continue;
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
  // The stores after every group element's loads.
  for (auto [values, at] : llvm::zip(results, elementCoords))
    for (auto [v, init] : llvm::zip(values, op.getDpsInits()))
      memref::StoreOp::create(fb, loc, v, init, at);
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
