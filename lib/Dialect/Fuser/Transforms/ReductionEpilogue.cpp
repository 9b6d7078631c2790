//===- ReductionEpilogue.cpp - a reduction's broadcast consumer -----------===//

#include "fuser/Dialect/Fuser/Transforms/ReductionEpilogue.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fuser;

/// Whether a reshape only adds or drops unit dimensions: each group of its
/// reassociation (of the higher-rank side's dimensions) holds at most one
/// that may be other than 1, so one element per output stays one element
/// per output, in the same order.
static bool reshapesUnitDims(Operation *op) {
  auto check = [](ArrayRef<ReassociationIndices> groups,
                  ArrayRef<int64_t> shape) {
    return llvm::all_of(groups, [&](const ReassociationIndices &group) {
      return llvm::count_if(group, [&](int64_t d) { return shape[d] != 1; }) <=
             1;
    });
  };
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return check(collapse.getReassociationIndices(),
                 collapse.getSrcType().getShape());
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return check(expand.getReassociationIndices(),
                 expand.getResultType().getShape());
  return false;
}

/// A tensor.dim of a constant dimension: the lowering answers it with the
/// loop's size.
static bool isSizeQuery(Operation *op) {
  auto dim = dyn_cast<tensor::DimOp>(op);
  return dim && dim.getConstantIndex();
}

/// Whether the kernel can load or store elements of `t` as they are:
/// whole bytes (i1 masks are bytes in memory, index is 64 bits: the
/// pointwise kernels convert them, the epilogue does not).
static bool plainElementType(Type t) {
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() % 8 == 0;
}

/// The loops `map` reads, in order, skipping constant results.
static SmallVector<unsigned> loopsRead(AffineMap map) {
  SmallVector<unsigned> loops;
  for (AffineExpr e : map.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      loops.push_back(d.getPosition());
  return loops;
}

/// Whether `v` exists before `op` runs: an argument of an enclosing block,
/// or the result of an op earlier in `op`'s block or outside it.
static bool availableBefore(Value v, Operation *op) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return v.getParentRegion()->isAncestor(op->getParentRegion());
  if (def->getBlock() == op->getBlock())
    return def->isBeforeInBlock(op);
  return def->getParentRegion()->isProperAncestor(op->getParentRegion());
}

/// Whether `user` of statistic `i` (results first) is part of computing
/// the statistics: a size query of a result, a reshape or a statistic op.
static bool isStatisticUser(linalg::GenericOp op,
                            const ReductionEpilogue &epilogue, Operation *user,
                            unsigned i) {
  return (isSizeQuery(user) && i < op->getNumResults()) ||
         llvm::is_contained(epilogue.reshapes, user) ||
         llvm::is_contained(epilogue.statisticOps, user);
}

/// Whether something besides the consumer and the statistics' own ops reads
/// a statistic (the consumer's own result is none): the kernel must still
/// write the results.
static bool readElsewhere(linalg::GenericOp op,
                          const ReductionEpilogue &epilogue,
                          const SetVector<Value> &statistics) {
  Operation *consumer = epilogue.consumer;
  for (auto [i, s] : llvm::enumerate(statistics)) {
    if (s.getDefiningOp() == consumer)
      continue;
    for (Operation *user : s.getUsers())
      if (user != consumer && !isStatisticUser(op, epilogue, user, i))
        return true;
  }
  return false;
}

/// The consumer over the outputs of a reduction with no broadcast consumer
/// (see analyzeReductionEpilogue): `epilogue` holds the statistics' ops.
static LogicalResult
findOutputConsumer(linalg::GenericOp op, ReductionEpilogue &epilogue,
                   const SetVector<Value> &statistics,
                   ArrayRef<PointwiseOp> candidates, std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  PointwiseOp consumer;
  if (candidates.size() > 1)
    return fail("several fuser.pointwise ops read its results");
  if (candidates.size() == 1) {
    consumer = candidates.front();
  } else {
    // The statistic op whose result leaves the statistics (returned, or
    // read by another kernel): a row norm's sqrt.
    for (PointwiseOp s : epilogue.statisticOps) {
      if (llvm::all_of(s->getUsers(), [&](Operation *user) {
            return isStatisticUser(op, epilogue, user, op->getNumResults());
          }))
        continue;
      if (consumer)
        return fail("several statistics of its results are read elsewhere");
      consumer = s;
    }
    if (!consumer)
      return fail("no fuser.pointwise reads its results");
    llvm::erase(epilogue.statisticOps, consumer);
  }
  epilogue.consumer = consumer;
  epilogue.overOutputs = true;
  epilogue.resultsLive = readElsewhere(op, epilogue, statistics);
  auto outputType = cast<ShapedType>(op.getDpsInits()[0].getType());
  if (consumer->getNumResults() != 1 ||
      consumer.getResultTensorType().getShape() != outputType.getShape())
    return fail("its consumer over the outputs has another shape than the "
                "results");
  if (!plainElementType(consumer.getResultTensorType().getElementType()))
    return fail("its consumer writes i1 or index elements, which the "
                "kernel does not store as bytes");
  for (auto [i, input] : llvm::enumerate(consumer.getInputs())) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || type.getShape() != outputType.getShape() ||
        !consumer.isIdentityInput(i))
      return fail("its consumer over the outputs reads a tensor of another "
                  "shape, or not through the identity");
    bool isStatistic = statistics.contains(input);
    epilogue.readsStatistic.push_back(isStatistic);
    if (isStatistic)
      continue;
    if (!plainElementType(type.getElementType()))
      return fail("its consumer reads i1 or index elements, which the "
                  "kernel does not load as bytes");
    if (!availableBefore(input, op))
      return fail(
          "its consumer reads a tensor computed after the reduction");
  }
  return success();
}

FailureOr<ReductionEpilogue> mlir::fuser::analyzeReductionEpilogue(
    linalg::GenericOp op, const ReductionShape &shape, std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };

  // The statistics: the results and what computes on them alone.
  ReductionEpilogue epilogue;
  SetVector<Value> statistics;
  for (Value r : op->getResults())
    statistics.insert(r);
  int64_t outputRank =
      cast<ShapedType>(op.getDpsInits()[0].getType()).getRank();
  SetVector<Operation *> consumers;
  SmallVector<PointwiseOp> outputConsumers;
  for (size_t i = 0; i < statistics.size(); ++i) {
    for (Operation *user : statistics[i].getUsers()) {
      // The size of a result is known without it (the lowering
      // replaces the tensor.dim).
      if ((isSizeQuery(user) && i < op->getNumResults()) ||
          user->getBlock() != op->getBlock())
        continue;
      if (reshapesUnitDims(user)) {
        if (statistics.insert(user->getResult(0)))
          epilogue.reshapes.push_back(user);
        continue;
      }
      auto pw = dyn_cast<PointwiseOp>(user);
      if (pw && pw->getNumResults() == 1 &&
          llvm::all_of(llvm::enumerate(pw.getInputs()), [&](auto in) {
            return statistics.contains(in.value()) &&
                   pw.isIdentityInput(in.index());
          })) {
        if (statistics.insert(pw.getResult(0)))
          epilogue.statisticOps.push_back(pw);
        continue;
      }
      if (pw && pw.getResultTensorType().getRank() ==
                    static_cast<int64_t>(op.getNumLoops())) {
        consumers.insert(pw);
        continue;
      }
      if (pw && pw.getResultTensorType().getRank() == outputRank &&
          !llvm::is_contained(outputConsumers, pw))
        outputConsumers.push_back(pw);
    }
  }
  llvm::sort(epilogue.statisticOps, [](PointwiseOp a, PointwiseOp b) {
    return a->isBeforeInBlock(b);
  });
  if (consumers.empty()) {
    if (failed(findOutputConsumer(op, epilogue, statistics, outputConsumers,
                                  why)))
      return failure();
    return epilogue;
  }
  if (shape.arg)
    return fail("it keeps an index (a value-and-index reduction)");
  for (OpOperand *in : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(in).isProjectedPermutation(
            /*allowZeroInResults=*/true) ||
        paddedRead(in->get()))
      return fail("it reads windows or padding (pooling)");
  if (consumers.size() > 1)
    return fail("several fuser.pointwise ops read its results");
  auto consumer = cast<PointwiseOp>(consumers.front());
  epilogue.consumer = consumer;
  // A statistic read by something the kernel leaves alone keeps the
  // results alive.
  epilogue.resultsLive = readElsewhere(op, epilogue, statistics);

  // The consumer's inputs: statistics through the output map's loops,
  // or tensors that exist before the reduction.
  SmallVector<unsigned> outputLoops =
      loopsRead(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  bool anchored = false;
  for (auto [i, input] : llvm::enumerate(consumer.getInputs())) {
    AffineMap map = consumer.getIndexingMap(i);
    if (statistics.contains(input)) {
      if (loopsRead(map) != outputLoops)
        return fail("its consumer reads a result other than along the "
                    "reduction's parallel loops");
      epilogue.readsStatistic.push_back(true);
      continue;
    }
    epilogue.readsStatistic.push_back(false);
    if (!isa<RankedTensorType>(input.getType()))
      return fail("its consumer reads a scalar operand");
    if (!plainElementType(cast<ShapedType>(input.getType()).getElementType()))
      return fail("its consumer reads i1 or index elements, which the kernel "
                  "does not load as bytes");
    if (!availableBefore(input, op))
      return fail("its consumer reads a tensor computed after the reduction");
    if (!consumer.isIdentityInput(i))
      continue;
    for (OpOperand *in : op.getDpsInputOperands())
      if (in->get() == input && op.getMatchingIndexingMap(in).isIdentity() &&
          !op.getRegion()
               .front()
               .getArgument(in->getOperandNumber())
               .use_empty())
        anchored = true;
  }
  for (Value v : consumer->getResults())
    if (!plainElementType(cast<ShapedType>(v.getType()).getElementType()))
      return fail("its consumer writes i1 or index elements, which the "
                  "kernel does not store as bytes");
  if (!anchored)
    return fail("its consumer reads none of its inputs as it does (the same "
                "tensor through the identity)");
  return epilogue;
}

bool mlir::fuser::epilogueHoldsElements(linalg::GenericOp op,
                                        const ReductionShape &shape,
                                        int64_t share, int64_t vector) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t elements = 1;
  for (unsigned d : shape.reductionLoops) {
    if (ShapedType::isDynamic(ranges[d]))
      return false;
    elements *= ranges[d];
  }
  // Whole vectors; a thread's last group may lie past the extent (rows of
  // 1000 floats: 250 vectors over 32 threads), and then holds nothing.
  return elements > 0 && vector > 0 && elements % vector == 0 &&
         llvm::divideCeil(elements / vector, share) <= kEpilogueHeldGroups;
}
