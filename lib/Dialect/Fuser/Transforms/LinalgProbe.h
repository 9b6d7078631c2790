//===- LinalgProbe.h - evaluate tensor elements at points -------*- C++ -*-===//
//
// Evaluates single elements of tensors that linalg on tensors computes, on
// the compiler's side, to check numerically that a subgraph computes what a
// fused op would (fuser-fuse-group-norm-grad): cheaper and more forgiving
// than matching one algebraic form. Function arguments read deterministic
// pseudo-random values in [-1, 1); each element is computed on demand and
// remembered, so a group sum costs its group's elements only.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_LINALGPROBE_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_LINALGPROBE_H

#include "mlir/IR/Value.h"

#include <map>
#include <optional>
#include <vector>

namespace mlir::fuser {

class LinalgProbe {
public:
  /// Element `index` of `tensor` as a double (i1 as 0 or 1), or nullopt
  /// where an op on the way has no rule (a matmul, a dynamic extent to
  /// reduce over or reshape, a body op without a constant folder, a read of
  /// tensor.empty) or the work would exceed the budget.
  std::optional<double> element(Value tensor, ArrayRef<int64_t> index);

private:
  Attribute evaluate(Value tensor, ArrayRef<int64_t> index);
  Attribute evaluateGeneric(OpResult result, ArrayRef<int64_t> index);
  Attribute leaf(Value tensor, ArrayRef<int64_t> index);

  std::map<std::pair<const void *, std::vector<int64_t>>, Attribute> memo;
  /// Body evaluations left: a wrong guess (a matmul's K loop, a reduction
  /// over a large tensor) gives up instead of running long.
  int64_t budget = int64_t(1) << 20;
};

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_LINALGPROBE_H
