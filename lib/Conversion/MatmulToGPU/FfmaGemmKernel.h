//===- FfmaGemmKernel.h - register-tiled FP32 GEMM kernel -------*- C++ -*-===//
//
// Builds the body of the FFMA GEMM kernel for one fuser.matmul group. The
// pass (MatmulToGPU.cpp) creates the gpu.func and the host launch; this
// builder only fills in the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_FFMAGEMMKERNEL_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_FFMAGEMMKERNEL_H


#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fuser {

/// Tile sizes and their derived thread layout. Each thread owns a tm x tn
/// accumulator tile made of 4 x 4 pieces: tm/4 row groups spaced bm/(tm/4)
/// apart and tn/4 column groups spaced bn/(tn/4) apart, so neighbouring
/// threads read neighbouring float4s of shared memory.
struct GemmTiling {
  int64_t bm, bn, bk, tm, tn;
  int64_t rowGroups() const { return tm / 4; }
  int64_t colGroups() const { return tn / 4; }
  int64_t threadCols() const { return bn / tn; }
  int64_t threads() const { return (bm / tm) * (bn / tn); }
  /// float4 loads per thread per operand slice.
  int64_t aLoads() const { return bm * bk / (4 * threads()); }
  int64_t bLoads() const { return bn * bk / (4 * threads()); }
  /// Shared-memory row pitch: 4 floats of padding keep the transposed
  /// stores bank-conflict free and rows 16-byte aligned.
  int64_t aPitch() const { return bm + 4; }
  int64_t bPitch() const { return bn + 4; }
};

/// Checks that `config` describes a tiling the builder supports, with a
/// diagnostic on `op` otherwise.
FailureOr<GemmTiling> getGemmTiling(MatmulOp op, KernelConfigAttr config);

/// The workgroup buffers the kernel needs, in attribution order.
SmallVector<Type> getGemmWorkgroupBuffers(MLIRContext *ctx,
                                          const GemmTiling &tiling);

/// Fills `kernel`, whose parameters are GemmKernelArgs.h's (no tensor maps)
/// and whose workgroup attributions come from getGemmWorkgroupBuffers.
LogicalResult buildFfmaGemmKernel(MatmulOp op, const GemmTiling &tiling,
                                  gpu::GPUFuncOp kernel);


} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_FFMAGEMMKERNEL_H
