//===- MmaSyncKernel.h - mma.sync GEMM kernel (strategy mma) ----*- C++ -*-===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_MMASYNCKERNEL_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_MMASYNCKERNEL_H

#include "GemmKernelPlan.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"

namespace mlir::fuser {

/// Checks `config` against the mma.sync kernel (MmaTiling.h's rules) and
/// returns its plan: one block per output tile, dynamic shared memory for
/// the cp.async stages.
FailureOr<GemmKernelPlan>
planMmaSyncKernel(MatmulOp op, KernelConfigAttr config, const ChipInfo &chip);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_MMASYNCKERNEL_H
