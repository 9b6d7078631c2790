//===- GemmKernelArgs.h - the parameters of a matmul group's kernel -*- C++ -*-===//
//
// The kernel ABI of a fuser.matmul group, in one place for the host launch
// (MatmulToGPU.cpp) and the kernel builders (FFMA, mma.sync, wgmma):
//   (A ptr, B ptr, epilogue inputs (ptr or scalar)..., C ptr, M, N, K
//    [, batch (batched wgmma_tma), K tiles, M tiles, tiles per batch,
//     tiles, tensor map of A, tensor map of B[, of the prologue input]])
// The tensor maps (wgmma_tma) are !llvm.ptr parameters, passed by value
// once -fuser-lower-tensor-map-params has run. A batched matmul launches
// the M tiles of every batch along grid x (batch-major: x = batch * M tiles
// + M tile; grid z would stop at 65535 batches) on the same parameters;
// batched wgmma_tma's blocks loop over (batch, tile) pairs instead, so it
// takes the batch count, and its tensor maps view each operand as its
// batches' rows stacked. wgmma_tma's tile counts are counted by the host:
// parameters cost its blocks no registers (counted in the kernel, ptxas
// kept them through the main loop, or spilled them across setmaxnreg).
// Split K's GEMM kernel (split_k > 1) takes no epilogue inputs, and C is
// its [split_k, M, N] fp32 intermediate of partial sums (SplitKReduce.h
// applies the epilogue).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fuser {

/// The parameter types of `op`'s kernel, with the tensor maps if `withMaps`
/// and the epilogue inputs if `withEpilogue`.
SmallVector<Type> gemmKernelParamTypes(MatmulOp op, bool withMaps,
                                       bool withEpilogue = true);

/// The parameters of a kernel built with gemmKernelParamTypes.
struct GemmKernelArgs {
  Value a, b, c, m, n, k;
  SmallVector<Value> epilogue;
  /// Null without tensor maps; mapP (the prologue input's) also without a
  /// prologue.
  Value mapA, mapB, mapP;
  /// wgmma_tma's tile counts (i64): K tiles, M tiles, M x N tiles per
  /// batch, and in all; null without tensor maps.
  Value kTiles, mTiles, batchTiles, tiles;
  /// The batch count (i64) of batched wgmma_tma; null otherwise.
  Value batch;
  /// A batched matmul's first row of the block's tile (i64); null for a 2-D
  /// one, whose kernels take block x times the tile's rows.
  Value blockM;

  /// The entry block's arguments. For a batched matmul (`tileM` rows per
  /// block) without tensor maps, the block's batch and M tile are then
  /// decoded from block x,
  /// and the pointers offset (at `b`'s insertion point) to that batch: A,
  /// B, C and the epilogue inputs read per batch, so that the kernels
  /// compute one 2-D product on them.
  static GemmKernelArgs of(MatmulOp op, gpu::GPUFuncOp kernel, OpBuilder &b,
                           int64_t tileM, bool withEpilogue = true);

  /// These arguments with the pointers offset to batch `z` (i64, at `b`'s
  /// insertion point): A and B if `operands`, C, and the epilogue inputs
  /// read per batch.
  GemmKernelArgs atBatch(MatmulOp op, OpBuilder &b, Value z,
                         bool operands) const;
};

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_GEMMKERNELARGS_H
