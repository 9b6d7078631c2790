//===- GemmKernelArgs.h - the parameters of a matmul group's kernel -*- C++ -*-===//
//
// The kernel ABI of a fuser.matmul group, in one place for the host launch
// (MatmulToGPU.cpp) and the kernel builders (FFMA, mma.sync, wgmma):
//   (A ptr, B ptr, epilogue inputs (ptr or scalar)..., C ptr, M, N, K
//    [, tensor map of A, tensor map of B])
// The tensor maps (wgmma_tma) are !llvm.ptr parameters, passed by value
// once -fuser-lower-tensor-map-params has run.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fuser {

/// The parameter types of `op`'s kernel, with the tensor maps if `withMaps`.
SmallVector<Type> gemmKernelParamTypes(MatmulOp op, bool withMaps);

/// The parameters of a kernel built with gemmKernelParamTypes.
struct GemmKernelArgs {
  Value a, b, c, m, n, k;
  SmallVector<Value> epilogue;
  /// Null without tensor maps.
  Value mapA, mapB;

  static GemmKernelArgs of(MatmulOp op, gpu::GPUFuncOp kernel);
};

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H
