//===- PointwiseKernels.h - pieces of the pointwise kernels -----*- C++ -*-===//
//
// Shared by the row kernel (PointwiseToGPU.cpp) and the transposed-tile
// kernel (TransposeKernel.cpp) of fuser.pointwise.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_POINTWISETOGPU_POINTWISEKERNELS_H
#define FUSER_LIB_CONVERSION_POINTWISETOGPU_POINTWISEKERNELS_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuser::pointwise {

using ::mlir::fuser::loadElements; // KernelUtils.h

/// loadElements through `ld.global.L2::<prefetch>B` (the L2 fetches
/// `prefetch` bytes around the access) for 4, 8 or 16-byte accesses of
/// non-i1 elements; a plain load otherwise or when `prefetch` is 0.
Value loadStreamed(OpBuilder &b, Location loc, Type elemTy, int64_t width,
                   Value ptr, int64_t prefetch);

/// Stores `value` (scalar or vector) at `ptr`; i1 as bytes, index as i64.
void storeElements(OpBuilder &b, Location loc, Value value, Value ptr,
                   unsigned align);

/// The per-input facts both the kernel and the launch need.
struct InputInfo {
  unsigned index;     ///< position among the group's inputs
  bool isTensor;      ///< passed as a pointer (else as a scalar value)
  bool isContiguous;  ///< identity map: element i of the result reads i
  bool isSingleValue; ///< rank-0 tensor: one element read by every thread
};

/// Elements each thread of a `pointwise_transpose` kernel handles per phase,
/// or 0 after a diagnostic on `op` when its config does not describe one:
/// tile = [TM, TN] (result rows x columns), block = [B, 1, 1] with B
/// dividing TM * TN, a padded tile within 48 KiB of shared memory.
int64_t transposeElementsPerThread(PointwiseOp op, KernelConfigAttr config);

/// The shared-memory tile of a `pointwise_transpose` kernel: TN rows (one
/// per result column) of TM + 1 elements (the pad spreads a column's reads
/// over all banks).
MemRefType transposeTileType(PointwiseOp op, KernelConfigAttr config);

/// Emits the body of a `pointwise_transpose` kernel, whose signature is
/// (inputs..., outputs..., sizes: i64 x rank), with `transposeTileType` as
/// its workgroup buffer.
LogicalResult emitTransposeKernel(PointwiseOp op, KernelConfigAttr config,
                                  ArrayRef<InputInfo> inputs,
                                  gpu::GPUFuncOp kernel);

} // namespace mlir::fuser::pointwise

#endif // FUSER_LIB_CONVERSION_POINTWISETOGPU_POINTWISEKERNELS_H
