//===- WgmmaSteps.h - wgmma.mma_async on shared-memory stages ---*- C++ -*-===//
//
// The tensor-core steps of the Hopper kernels: a warpgroup's 64 x BN tile
// multiplied over one stage's BK with wgmma.mma_async, both operands read
// through shared-memory descriptors of 128-byte-swizzled K-major rows. Used
// by the wgmma kernel's cp.async loop and the TMA consumers alike.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMASTEPS_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMASTEPS_H

#include "MmaTiling.h"

namespace mlir::fuser {

/// BK / kStep wgmma.mma_async of a warpgroup's 64 x BN tile on `acc` (an
/// LLVM struct of f32), A and B at the shared addresses (i64) of their
/// 128-byte-swizzled K-major stage regions.
/// `restart`: the first step ignores `acc` (scale-d 0) and starts new sums.
/// `bf16Pairs`: the regions hold bf16 in the f32 stage's bytes (tf32_2xbf16's
/// cross terms): the same BK / 8 steps of 32 bytes along each row, each a
/// bf16 wgmma of K 16.
Value emitWgmmaSteps(OpBuilder &b, Location loc, const StageGeometry &t,
                     Value acc, Value aAddr, Value bAddr, bool restart = false,
                     bool bf16Pairs = false);

/// A wgmma shared-memory matrix descriptor of a K-major operand in 128-byte
/// swizzle mode at shared address `addr` (i64).
Value wgmmaDescriptor(OpBuilder &b, Location loc, Value addr);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMASTEPS_H
