//===- WgmmaTmaKernel.h - TMA-fed wgmma GEMM kernel (wgmma_tma) ---*- C++
//-*-===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMATMAKERNEL_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMATMAKERNEL_H

#include "GemmKernelPlan.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"

namespace mlir::fuser {

/// Checks `config` against the wgmma_tma kernel and returns its plan:
/// persistent blocks, the operands as tensor maps.
FailureOr<GemmKernelPlan>
planWgmmaTmaKernel(MatmulOp op, KernelConfigAttr config, const ChipInfo &chip);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_WGMMATMAKERNEL_H
