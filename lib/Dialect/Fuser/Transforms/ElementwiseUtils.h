//===- ElementwiseUtils.h - shared elementwise-op matching ------*- C++ -*-===//
//
// What "elementwise" means for fusion, shared by the passes that absorb
// elementwise linalg ops into fusion groups (fuser-fuse-pointwise,
// fuser-fuse-matmul), so they accept exactly the same ops.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_ELEMENTWISEUTILS_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_ELEMENTWISEUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::fuser {

/// Returns why `op` cannot be a member of an elementwise fusion group, or ""
/// if it can: tensors only, parallel iterators, identity output maps of one
/// shape, projected-permutation input maps, and a body of scalar arith/math
/// ops without linalg.index.
std::string whyNotElementwise(linalg::GenericOp op);

/// True if `op` is a named (non-generic) linalg op on tensors whose loops are
/// all parallel and that has results: the ops (linalg.add, linalg.fill,
/// linalg.broadcast, ...) that fusion generalizes before matching.
bool isGeneralizableElementwise(linalg::LinalgOp op);

/// Rewrites `op` as a linalg.generic if isGeneralizableElementwise(op).
/// Returns the generic (`op` itself when it already is one), or null when
/// `op` is not elementwise or cannot be generalized.
linalg::GenericOp generalizeIfElementwise(RewriterBase &rewriter,
                                          linalg::LinalgOp op);

/// Rewrites every named elementwise linalg op nested in `root` as
/// linalg.generic, so one matcher handles them all.
void generalizeElementwiseNamedOps(Operation *root);

/// The operands of `op` whose values the body reads: the inputs, plus the
/// inits whose block argument is used (e.g. an accumulate-into form).
SmallVector<OpOperand *> getReadOperands(linalg::GenericOp op);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_ELEMENTWISEUTILS_H
