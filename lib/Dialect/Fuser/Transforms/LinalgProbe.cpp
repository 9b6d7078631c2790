//===- LinalgProbe.cpp - evaluate tensor elements at points -----*- C++ -*-===//

#include "LinalgProbe.h"

#include "ElementwiseUtils.h"
#include "EpilogueUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fuser;

/// splitmix64: a well-mixed 64-bit hash.
static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::optional<double> LinalgProbe::element(Value tensor,
                                           ArrayRef<int64_t> index) {
  Attribute a = evaluate(tensor, index);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getType().isInteger(1)
               ? static_cast<double>(i.getValue().getZExtValue())
               : static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

Attribute LinalgProbe::leaf(Value tensor, ArrayRef<int64_t> index) {
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (!arg || !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return {};
  uint64_t h = mix(arg.getArgNumber() + 1);
  for (int64_t i : index)
    h = mix(h ^ static_cast<uint64_t>(i));
  Type elem = getElementTypeOrSelf(tensor.getType());
  if (elem.isInteger(1))
    return IntegerAttr::get(elem, h & 1);
  if (!isa<FloatType>(elem))
    return {};
  double unit = static_cast<double>(h >> 11) * 0x1.0p-53; // [0, 1)
  return FloatAttr::get(elem, 2.0 * unit - 1.0);
}

/// The source index of element `index` of a reshape's result, or nullopt
/// when an extent it needs is dynamic.
static std::optional<SmallVector<int64_t>>
reshapeSourceIndex(Operation *op, ArrayRef<int64_t> index) {
  SmallVector<int64_t> src;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    ArrayRef<int64_t> sizes = expand.getResultType().getShape();
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      int64_t linear = 0;
      for (int64_t d : group) {
        if (d != group.front() && ShapedType::isDynamic(sizes[d]))
          return std::nullopt;
        linear = d == group.front() ? index[d] : linear * sizes[d] + index[d];
      }
      src.push_back(linear);
    }
    return src;
  }
  auto collapse = cast<tensor::CollapseShapeOp>(op);
  ArrayRef<int64_t> sizes = collapse.getSrcType().getShape();
  for (auto [j, group] : llvm::enumerate(collapse.getReassociationIndices())) {
    SmallVector<int64_t> parts(group.size());
    int64_t rest = index[j];
    for (int64_t k = group.size() - 1; k > 0; --k) {
      int64_t extent = sizes[group[k]];
      if (ShapedType::isDynamic(extent))
        return std::nullopt;
      parts[k] = rest % extent;
      rest /= extent;
    }
    parts[0] = rest;
    llvm::append_range(src, parts);
  }
  return src;
}

Attribute LinalgProbe::evaluate(Value tensor, ArrayRef<int64_t> index) {
  auto key = std::make_pair(tensor.getAsOpaquePointer(),
                            std::vector<int64_t>(index.begin(), index.end()));
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  auto type = cast<ShapedType>(tensor.getType());
  for (auto [i, extent] : llvm::zip_equal(index, type.getShape()))
    if (i < 0 || (!ShapedType::isDynamic(extent) && i >= extent))
      return {}; // no such element
  Attribute result;
  Operation *def = tensor.getDefiningOp();
  DenseElementsAttr dense;
  if (!def) {
    result = leaf(tensor, index);
  } else if (matchPattern(tensor, m_Constant(&dense))) {
    if (dense.isSplat()) {
      result = dense.getSplatValue<Attribute>();
    } else {
      int64_t linear = 0;
      for (auto [i, extent] :
           llvm::zip(index, dense.getType().getShape()))
        linear = linear * extent + i;
      result = dense.getValues<Attribute>()[linear];
    }
  } else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
    if (std::optional<SmallVector<int64_t>> src =
            reshapeSourceIndex(def, index))
      result = evaluate(def->getOperand(0), *src);
  } else if (auto castOp = dyn_cast<tensor::CastOp>(def)) {
    result = evaluate(castOp.getSource(), index);
  } else if (isa<linalg::GenericOp>(def)) {
    result = evaluateGeneric(cast<OpResult>(tensor), index);
  } else if (std::optional<MappedValue> copy = matchCopy(tensor)) {
    if (!isa<ShapedType>(copy->source.getType()))
      matchPattern(copy->source, m_Constant(&result));
    else
      result = evaluate(copy->source, copy->map.compose(index));
  }
  memo[key] = result;
  return result;
}

Attribute LinalgProbe::evaluateGeneric(OpResult res, ArrayRef<int64_t> index) {
  auto op = cast<linalg::GenericOp>(res.getOwner());
  if (!op.hasPureTensorSemantics() || !op.getRegion().hasOneBlock())
    return {};
  // The loop point the element fixes; the loops it leaves free are the
  // reductions to run.
  AffineMap out = op.getIndexingMapMatchingResult(res);
  SmallVector<int64_t> point(op.getNumLoops(), -1);
  for (auto [k, e] : llvm::enumerate(out.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      int64_t &p = point[d.getPosition()];
      if (p >= 0 && p != index[k])
        return {};
      p = index[k];
    } else if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      if (c.getValue() != index[k])
        return {};
    } else {
      return {};
    }
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<unsigned> free;
  for (auto [d, p] : llvm::enumerate(point)) {
    if (p >= 0)
      continue;
    if (iters[d] != utils::IteratorType::reduction ||
        ShapedType::isDynamic(ranges[d]))
      return {};
    free.push_back(d);
    p = 0;
    if (ranges[d] == 0)
      return {};
  }

  Block *body = op.getBlock();
  OpOperand *init = op.getDpsInitOperand(res.getResultNumber());
  BlockArgument acc = op.getMatchingBlockArgument(init);
  Attribute accValue;
  if (!acc.use_empty() && !(accValue = evaluate(init->get(), index)))
    return {};
  Value yielded =
      body->getTerminator()->getOperand(res.getResultNumber());
  while (true) {
    if (--budget < 0)
      return {};
    DenseMap<Value, Attribute> values;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      if (&operand == init) {
        values[arg] = accValue;
        continue;
      }
      if (op.isDpsInit(&operand))
        return {}; // another result's accumulator
      Attribute a;
      if (isa<ShapedType>(operand.get().getType()))
        a = evaluate(operand.get(),
                     op.getMatchingIndexingMap(&operand).compose(point));
      else
        matchPattern(operand.get(), m_Constant(&a));
      if (!a)
        return {};
      values[arg] = a;
    }
    for (auto index : body->getOps<linalg::IndexOp>())
      values[index] = IntegerAttr::get(IndexType::get(op.getContext()),
                                       point[index.getDim()]);
    if (failed(foldScalarBody(*body, values)))
      return {};
    accValue = values.lookup(yielded);
    if (!accValue && !matchPattern(yielded, m_Constant(&accValue)))
      return {};
    // The next reduction point (odometer over the free loops).
    unsigned k = 0;
    for (; k < free.size(); ++k) {
      if (++point[free[k]] < ranges[free[k]])
        break;
      point[free[k]] = 0;
    }
    if (k == free.size())
      return accValue;
  }
}
