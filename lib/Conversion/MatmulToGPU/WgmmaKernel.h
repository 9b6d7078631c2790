//===- WgmmaKernel.h - wgmma GEMM kernel (strategy wgmma) -------*- C++ -*-===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMAKERNEL_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMAKERNEL_H

#include "GemmKernelPlan.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"

namespace mlir::fuser {

/// Checks `config` against the wgmma kernel (sm_90a, K-major operands) and
/// returns its plan: one block per output tile, 1024-byte aligned
/// swizzled stages.
FailureOr<GemmKernelPlan> planWgmmaKernel(MatmulOp op, KernelConfigAttr config,
                                          const ChipInfo &chip);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMAKERNEL_H
