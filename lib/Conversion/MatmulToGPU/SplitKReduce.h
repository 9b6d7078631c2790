//===- SplitKReduce.h - split K's second kernel -----------------*- C++ -*-===//
//
// A fuser.matmul with #fuser.config split_k = S > 1 lowers to two kernels:
// the GEMM kernel (wgmma_tma) stores each K slice's raw fp32 sums into an
// [S, M, N] intermediate, then this kernel adds the S slices of each output
// element in slice order (so results do not depend on the launch) and
// applies the op's epilogue region to the sum, reading the epilogue inputs
// by their maps as the GEMM epilogues do (EpilogueRead.h).
//
// Parameters: (partials ptr, epilogue inputs (ptr or scalar)..., C ptr,
// M, N); threads stride over the M * N elements (their block and grid cap:
// GemmStrategy.h's kSplitKReduceThreads and kSplitKReduceMaxGrid).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_SPLITKREDUCE_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_SPLITKREDUCE_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fuser {

/// The parameter types of `op`'s reduction kernel.
SmallVector<Type> splitKReduceParamTypes(MatmulOp op);

/// Fills `kernel` (parameters of splitKReduceParamTypes) for `splitK`
/// slices; fails with a diagnostic on `op` if the epilogue cannot be
/// emitted.
LogicalResult buildSplitKReduceKernel(MatmulOp op, int64_t splitK,
                                      gpu::GPUFuncOp kernel);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_SPLITKREDUCE_H
