//===- EpilogueUtils.h - building fusion group epilogues --------*- C++ -*-===//
//
// The groups with an epilogue region (fuser.matmul, fuser.group_norm) absorb
// the DAG of elementwise linalg consumers of their result the same way;
// fuser-fuse-matmul and fuser-fuse-group-norm share this code so that they
// accept exactly the same consumers.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_EPILOGUEUTILS_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_EPILOGUEUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::fuser {

/// A value read as `source[map(i)]` at every point i of its iteration space;
/// a scalar source has a map with no results.
struct MappedValue {
  Value source;
  AffineMap map;
};

/// If `v` is the result of a linalg op that only copies its single input
/// (linalg.fill, linalg.broadcast, linalg.transpose, or a linalg.generic
/// whose body yields its input), returns that input and the map through
/// which each result element reads it. The map has the result's rank as
/// dimension count.
std::optional<MappedValue> matchCopy(Value v);

/// The epilogue region under construction: a detached block whose first
/// argument is the group's own value (the accumulator, the normalized
/// element) and that has no terminator until the caller adds one.
struct Epilogue {
  Block *block;
  OpBuilder builder;
  SmallVector<Value> inputs;
  SmallVector<Attribute> maps;
  DenseMap<std::pair<Value, AffineMap>, Value> inputArgs;
  /// Captured scalars (constants cloned in, others made inputs).
  DenseMap<Value, Value> hoisted;
  /// Inputs read at 0 along size-1 dimensions -> views without them.
  DenseMap<std::pair<Value, AffineMap>, std::pair<Value, AffineMap>>
      unitDimViews;

  Epilogue(MLIRContext *ctx, Type accType, Location loc);

  /// The body value of `v` read through `map`: a scalar constant cloned in
  /// (the body is isolated from above), or the block argument of a
  /// (deduplicated) epilogue input. Tensor constants stay inputs until
  /// fuser-simplify-group-bodies folds the splat ones. `map` may read
  /// size-1 dimensions at 0 (isBroadcastRead): the input is then a
  /// tensor.collapse_shape view without them (dropUnitDimReads), built right
  /// after `v`'s definition, so that every input map is a projected
  /// permutation. A constant of another element type that the group's type
  /// holds exactly (a triu mask evaluated at compile time, an index vector)
  /// is read as a constant of the group's type and converted back in the
  /// body: the kernels read epilogue inputs of one type.
  Value read(Value v, AffineMap map);

  /// Reads of converted constants -> their value in the body.
  DenseMap<std::pair<Value, AffineMap>, Value> convertedReads;
};

/// The constant `v` as a constant of float type `to`, if every element
/// converts exactly (integers, i1 as 0 and 1, narrower or wider floats);
/// null otherwise, or when `v` is no constant.
DenseElementsAttr convertConstantExactly(Value v, Type to);

/// Absorbs into `epi` the DAG of elementwise consumers of `cur`, a value of
/// the group's result type defined in `block` whose element is `running` in
/// the epilogue. Values with several users are taken whole (torch-mlir's
/// leaky_relu reads its input twice, as max(0, y) + a * min(0, y)):
///
///   an elementwise op of `block` (the ops fuser-fuse-pointwise accepts)
///   with one result of `cur`'s type joins when it reads values of the group
///   through the identity map and its other operands (the epilogue inputs)
///   are not computed from `cur` outside the group; then the group is cut
///   back so that exactly one of its values is used outside it, its result:
///   the first value (in program order) needed outside the group ends it,
///   with the members it depends on.
///
/// `what` names the group in remarks ("matmul"); `remark(op, msg)` reports
/// consumers that cannot join, and where the group ends early because a
/// value is needed outside it. Appends the absorbed linalg ops (generalized
/// if named) to `chain` in program order, the op defining the result last;
/// returns the result (or `cur`) and sets `running` to its element.
Value absorbElementwiseConsumers(
    Value cur, Value &running, Epilogue &epi, Block *block, StringRef what,
    SmallVectorImpl<Operation *> &chain,
    function_ref<void(Operation *, const Twine &)> remark);

/// Erases the ops of `chain` (in reverse order), then every producer that
/// they alone used (fills, transposes, broadcasts, tensor.empty, constants
/// their bodies captured). Records every erased op in `erased`.
void eraseChainAndDeadProducers(ArrayRef<Operation *> chain,
                                DenseSet<Operation *> &erased);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_EPILOGUEUTILS_H
