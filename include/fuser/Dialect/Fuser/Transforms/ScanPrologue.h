//===- ScanPrologue.h - a scan's fused elementwise producer -----*- C++ -*-===//
//
// A masked cumsum's `x * (m > 0)`: a fuser.pointwise that only the scan
// reads, over the scan's shape through identity maps, whose body the scan
// kernel runs on the elements it loads. The rule is written here once, for
// the configuration step (how many streams the kernel reads) and the
// lowering.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_SCANPROLOGUE_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_SCANPROLOGUE_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

namespace mlir::fuser {

/// The producer of `op`'s input that the scan kernel computes where it
/// loads, with the inputs its body reads (their positions, in order);
/// nothing when the input is loaded as it is.
struct ScanPrologue {
  PointwiseOp producer;
  SmallVector<unsigned> readInputs;
};

/// The prologue of `op`: its input's fuser.pointwise producer, read by the
/// scan alone, with one result, inputs of the scan's shape through identity
/// maps, and elementwise ops only in its body (the kernel runs it on
/// vectors of the loads).
std::optional<ScanPrologue> scanPrologue(ScanOp op);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_SCANPROLOGUE_H
