//===- GemmKernelPlan.h - the GEMM strategies' launch plans -----*- C++ -*-===//
//
// Each GEMM strategy (GemmStrategy.h) has one kernel file here whose planner
// checks a fuser.matmul's #fuser.config and returns a GemmKernelPlan: how the
// host launches the kernel (tile, threads, shared memory, tensor maps,
// persistent grid) and how to fill its body. MatmulToGPU.cpp dispatches on
// the strategy once and reads only the plan, so adding a strategy touches
// its enum case, its record, its kernel file, its planner's declaration
// below, its case in that dispatch, and its tests.
//
//   ffma       FfmaGemmKernel.cpp   register-tiled fp32 FMA
//   mma        MmaSyncKernel.cpp    mma.sync on tf32, 3xtf32, fp64, bf16, f16
//   wgmma      WgmmaKernel.cpp      wgmma.mma_async from cp.async stages
//   wgmma_tma  WgmmaTmaKernel.cpp   wgmma.mma_async fed by TMA, persistent
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELPLAN_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELPLAN_H

#include "fuser/Dialect/Fuser/IR/Chips.h"
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
  /// The tensor maps (persistent only) of A and B; a prologue input is read
  /// in A's boxes, into the stage where A's lo parts go.
  TensorMapBox mapA{}, mapB{};
  /// Fills the kernel created with these sizes and GemmKernelArgs.h's
  /// parameters.
  std::function<LogicalResult(gpu::GPUFuncOp)> build;
};

// The planners, one per strategy, each defined in its kernel file: they check
// `config` against the kernel's rules (within `chip`'s limits) and return its
// plan, or fail after a diagnostic on `op`.

/// FFMA: f32 operands (getGemmTiling); one block per output tile, static
/// shared memory.
FailureOr<GemmKernelPlan> planFfmaKernel(MatmulOp op, KernelConfigAttr config,
                                         const ChipInfo &chip);
/// mma.sync (MmaTiling.h's rules): one block per output tile, dynamic shared
/// memory for the cp.async stages.
FailureOr<GemmKernelPlan>
planMmaSyncKernel(MatmulOp op, KernelConfigAttr config, const ChipInfo &chip);
/// wgmma (sm_90a, K-major operands): one block per output tile, 1024-byte
/// aligned swizzled stages.
FailureOr<GemmKernelPlan>
planWgmmaKernel(MatmulOp op, KernelConfigAttr config, const ChipInfo &chip);
/// wgmma_tma: persistent blocks, the operands as tensor maps.
FailureOr<GemmKernelPlan>
planWgmmaTmaKernel(MatmulOp op, KernelConfigAttr config, const ChipInfo &chip);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELPLAN_H
