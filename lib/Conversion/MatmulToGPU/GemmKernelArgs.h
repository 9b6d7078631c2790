//===- GemmKernelArgs.h - the parameters of a matmul group's kernel -*- C++ -*-===//
//
// The kernel ABI of a fuser.matmul group, in one place for the host launch
// (MatmulToGPU.cpp) and the kernel builders (FFMA, mma.sync, wgmma):
//   (A ptr, B ptr, epilogue inputs (ptr or scalar)..., C ptr, M, N, K
//    [, tensor map of A, tensor map of B])
// The tensor maps (wgmma_tma) are !llvm.ptr parameters, passed by value
// once -fuser-lower-tensor-map-params has run. A batched matmul launches
// one grid layer (block z) per batch on the same parameters.
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

  /// The entry block's arguments. For a batched matmul, the pointers are
  /// then offset (at `b`'s insertion point) to block z's batch: A, B, C and
  /// the epilogue inputs read per batch, so that the kernels compute one
  /// 2-D product on them.
  static GemmKernelArgs of(MatmulOp op, gpu::GPUFuncOp kernel, OpBuilder &b);
};

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H
