//===- GemmKernelPlan.h - what a GEMM strategy's kernel needs launched -*- C++
//-*-===//
//
// Each GEMM strategy (GemmStrategy.h) has one kernel file here whose planner
// checks a fuser.matmul's #fuser.config and returns a GemmKernelPlan: how the
// host launches the kernel (tile, threads, shared memory, tensor maps,
// persistent grid) and how to fill its body. MatmulToGPU.cpp dispatches on
// the strategy once and reads only the plan, so adding a strategy touches
// its enum case, its record, its kernel file and header, its case in that
// dispatch, and its tests.
//
//   ffma       FfmaGemmKernel.cpp   register-tiled fp32 FMA
//   mma        MmaSyncKernel.cpp    mma.sync on tf32, 3xtf32, fp64, bf16, f16
//   wgmma      WgmmaKernel.cpp      wgmma.mma_async from cp.async stages
//   wgmma_tma  WgmmaTmaKernel.cpp   wgmma.mma_async fed by TMA, persistent
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELPLAN_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELPLAN_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <functional>

namespace mlir::fuser {

/// A TMA tensor map the host encodes for one operand: boxes of rows x cols
/// elements, `swizzleBytes`-byte swizzled.
struct TensorMapBox {
  int64_t rows, cols, swizzleBytes;
};

struct GemmKernelPlan {
  /// The block's output tile and threads; dynamic shared memory (0: none)
  /// and the workgroup buffers of static shared memory.
  int64_t tileM = 0, tileN = 0, threads = 0, sharedBytes = 0;
  SmallVector<Type> workgroupBuffers;
  /// Persistent blocks (at most the config's max_grid) loop over the
  /// output tiles, (batch, tile) or (tile, K slice) pairs; the host passes
  /// the tile counts, every K tile of `kTile` elements, and the operands as
  /// tensor maps (GemmKernelArgs.h). Otherwise one block per output tile.
  bool persistent = false;
  int64_t kTile = 0;
  /// The tensor maps (persistent only): A's, B's, then one per prologue
  /// input.
  TensorMapBox mapA{}, mapB{}, mapPrologue{};
  /// Fills the kernel created with these sizes and GemmKernelArgs.h's
  /// parameters.
  std::function<LogicalResult(gpu::GPUFuncOp)> build;
};

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELPLAN_H
