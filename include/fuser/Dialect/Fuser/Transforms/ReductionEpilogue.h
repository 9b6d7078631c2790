//===- ReductionEpilogue.h - a reduction's broadcast consumer ---*- C++ -*-===//
//
// A softmax's output pass, a norm's normalizing pass: a fuser.pointwise
// over the reduction's whole iteration space that reads the reduction's
// results broadcast along the reduced loops, next to the elements the
// reduction read. fuser-configure-kernels may give such a reduction the
// strategy kReductionEpilogueStrategy: its kernel then computes the consumer
// too, each thread walking the elements of its output again once the
// result is known (from cache, not memory), so the results never round-trip
// through memory and the input is read from memory once. The rule is
// written here once, for the configuration step and the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_REDUCTIONEPILOGUE_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_REDUCTIONEPILOGUE_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"

#include <string>

namespace mlir::fuser {

/// The strategy of a reduction whose kernel also computes its consumer.
inline constexpr llvm::StringLiteral kReductionEpilogueStrategy =
    "reduction_epilogue";

/// The consumer of a reduction's results and how it reads them. A
/// *statistic* is one value per output of the reduction: one of its
/// results, a reshape of one that adds or drops unit dimensions, or a
/// fuser.pointwise of statistics alone (a norm's `sqrt(s / n + eps)`),
/// which the kernel computes once per output.
struct ReductionEpilogue {
  PointwiseOp consumer;
  /// The consumer runs over the reduction's outputs instead of its whole
  /// iteration space (logsumexp's `log(s) + m`, a row norm's sqrt, a
  /// bias after a matrix-vector product): the thread that stores each
  /// result computes it there, in the last kernel of two stages too.
  bool overOutputs = false;
  /// Per consumer input: whether it reads a statistic (else an element of
  /// the consumer's loops: the reduction's, or its outputs' for a consumer
  /// over the outputs).
  SmallVector<bool> readsStatistic;
  /// The fuser.pointwise ops of statistics alone, in block order.
  SmallVector<PointwiseOp> statisticOps;
  /// The tensor.expand_shape / collapse_shape ops between them.
  SmallVector<Operation *> reshapes;
  /// Something other than the consumer reads a statistic (a tensor.dim of
  /// a result's constant dimension does not count): the kernel still writes
  /// the reduction's results, and what reads them stays.
  bool resultsLive = false;
};

/// The most groups of `vector_width` elements a thread of a reduction
/// epilogue holds in registers between the fold and the consumer's pass.
inline constexpr int64_t kEpilogueHeldGroups = 8;

/// Whether the threads of reduction `op`'s epilogue, `share` per output
/// and `vector` elements per group, hold their elements in registers
/// instead of reading them again: the reduced extent is static, whole
/// vectors, with at most kEpilogueHeldGroups groups per thread (the last
/// may be past the extent). The configuration prefers such a share; the
/// lowering follows. A softmax's statistics without a consumer are held
/// by the same rule, and computed in two passes over the registers.
bool epilogueHoldsElements(linalg::GenericOp op, const ReductionShape &shape,
                           int64_t share, int64_t vector);

/// The broadcast consumer of reduction `op` (of shape `shape`), or failure
/// with `why` set. The consumer is the only fuser.pointwise of the
/// reduction's rank reading its statistics; it reads each through the
/// reduction's output map (its parallel loops, in order), and shares an
/// input with the reduction, both reading it through the identity, so its
/// loops are the reduction's. Its other inputs are tensors that exist
/// before the reduction, of whole-byte elements (an i1 mask is not: it
/// keeps its pointwise kernel). The reduction reads plain tensors through
/// projected permutations (no pooling windows), keeps no index, and has
/// no dynamic loop its consumer does not share.
/// Without one, a consumer over the outputs (`overOutputs`), for any
/// reduction (value-and-index and pooling windows too): the only
/// fuser.pointwise of the output's shape that reads statistics and other
/// tensors, or else the only statistic op whose result something other
/// than statistics reads; every input of the output's shape, read through
/// the identity, the others existing before the reduction, of whole-byte
/// elements.
FailureOr<ReductionEpilogue>
analyzeReductionEpilogue(linalg::GenericOp op, const ReductionShape &shape,
                         std::string &why);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_REDUCTIONEPILOGUE_H
