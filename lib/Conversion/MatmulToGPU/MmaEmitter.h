//===- MmaEmitter.h - the tensor-core GEMM kernels' shared builder -*- C++
//-*-===//
//
// Internal to MatmulToGPU: the base of the mma.sync (MmaSyncKernel.cpp),
// wgmma (WgmmaKernel.cpp) and wgmma_tma (WgmmaTmaKernel.cpp) kernel
// builders, one class per strategy. It holds what they share: the kernel's
// entry (parameters, thread coordinates, the shared-memory base), the
// cp.async stages of the mma.sync and wgmma kernels (MmaEmitter.cpp) and the
// epilogue in registers (MmaEpilogue.cpp), which reads the accumulators
// through an AccumulatorLayout.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_MMAEMITTER_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_MMAEMITTER_H

#include "AccumulatorLayout.h"
#include "GemmKernelArgs.h"
#include "GemmKernelPlan.h"
#include "MmaTiling.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::fuser {
class EpilogueInputs;
} // namespace mlir::fuser

namespace mlir::fuser::detail {

/// One operand tile's copy from global to shared memory: R rows of C
/// 16-byte chunks, row r / chunk c of the tile being global element
/// (rowStart + r, colStart + c * vec) of a row-major matrix of pitch
/// `pitch`, valid below (rowLimit, colLimit), and shared element
/// r * sPitch + c * vec of its stage region.
struct TileCopy {
  Value ptr;
  int64_t rows, chunksPerRow, sPitch;
  Value rowLimit, colLimit, pitch;
  /// Per thread chunk i: its row and first column inside the tile (i64),
  /// and its shared element offset (i32).
  SmallVector<Value> row, col, sOff;
};

/// The shared state and pieces of the tensor-core kernel builders. No call
/// takes two IR-building calls as arguments: C++ leaves their order
/// unspecified, and the op order changes ptxas's register allocation (the
/// bf16 kernel is at 255 registers). The order kept is the one g++ gave the
/// nested form (right to left), which does not spill.
class MmaEmitter {
public:
  MmaEmitter(MatmulOp op, const MmaTiling &t, gpu::GPUFuncOp kernel)
      : op(op), t(t), kernel(kernel), b(kernel.getContext()), loc(op.getLoc()) {
  }

protected:
  /// The kernel's entry: the parameters, the thread's warp and lane
  /// coordinates, the block's tile origin and the (wgmma: 1024-byte
  /// aligned) shared-memory base.
  GemmKernelArgs emitEntry();
  /// The accumulator layout every tensor-core kernel leaves (after
  /// emitEntry).
  MmaFragmentLayout fragmentLayout() const {
    return MmaFragmentLayout(t.mTiles(), t.nTiles(), g, tq);
  }

  // The cp.async stages of the mma.sync and wgmma kernels (MmaEmitter.cpp).
  /// The operand copies, the first copiesAhead() k tiles' copies and the
  /// lanes' fragment offsets; returns the k tile count and sets `aligned`
  /// (whether the rows allow 16-byte chunks).
  Value emitCpAsyncPrologue(Value &aligned);
  void waitThenCopyAhead(Value kt, Value numK, Value aligned, bool asyncProxy);
  int64_t copiesAhead() const;
  Value sharedAddress();
  TileCopy makeCopy(Value ptr, int64_t rows, int64_t cols, int64_t sPitch,
                    Value rowLimit, Value colLimit, Value pitch);
  void loadStage(Value stage, Value k0, Value aligned);
  void copyTile(const TileCopy &c, Value rowStart, Value colStart, Value base,
                bool async);

  // The epilogue (MmaEpilogue.cpp).
  void storeTwo(Value v, Value row, Value rowOk, Value col, Value alignedOk);
  LogicalResult emitEpilogue(ValueRange acc, const AccumulatorLayout &layout);
  LogicalResult emitEpilogueInBatches(
      ValueRange acc, const AccumulatorLayout &layout, EpilogueInputs &inputs,
      function_ref<Value(int64_t)> colOf, ArrayRef<int64_t> onlyRows,
      function_ref<void(int64_t, int64_t, Value, Value, Value, Value)> store);
  // The results through shared memory and bulk copies (BulkStoreEpilogue.cpp).
  LogicalResult emitBulkStoreEpilogue(ValueRange acc,
                                      const AccumulatorLayout &layout,
                                      EpilogueInputs &inputs,
                                      function_ref<Value(int64_t)> colOf);
  void emitBulkStoreDrain();
  Value accPair(ValueRange acc, const AccumulatorLayout &layout, int64_t r,
                int64_t j);
  void emitPartialStore(ValueRange acc, Value slice,
                        const AccumulatorLayout &layout);
  FailureOr<Value> applyBody(Block &body, Value value, ArrayRef<Value> in);
  void normalizeGroups(MutableArrayRef<Value> vals,
                       const AccumulatorLayout &layout);

  // Small arithmetic helpers, on i64 unless named otherwise.
  Value c64(int64_t v) { return constI64(b, loc, v); }
  Value c32(int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v); }
  Value toI64(Value idx) {
    return arith::IndexCastUIOp::create(b, loc, i64, idx);
  }
  Value toI32(Value x) { return arith::TruncIOp::create(b, loc, i32, x); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value le(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value isMultipleOf(Value x, int64_t d) {
    Value zero = c64(0);
    Value rem = arith::RemUIOp::create(b, loc, x, c64(d));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero);
  }
  /// N is a static multiple of the tile's columns: every column a tile
  /// computes is below N, so the epilogue checks rows only.
  bool columnsInBounds() const {
    APInt staticN;
    return matchPattern(n, m_ConstantInt(&staticN)) &&
           staticN.getZExtValue() % t.bn == 0;
  }
  bool elemBytesIs4() const { return t.elemBytes() == 4; }
  Type accTy() { return t.f64Math() ? Type(b.getF64Type()) : f32; }
  Value smemAt(Value base, Type ty, Value idx) {
    return gepElement(b, loc, base, ty, idx);
  }
  Value splat2(Value s) {
    return vector::BroadcastOp::create(b, loc,
                                       VectorType::get({2}, s.getType()), s);
  }

  MatmulOp op;
  MmaTiling t;
  gpu::GPUFuncOp kernel;
  OpBuilder b;
  Location loc;
  Type f32, i32, i64, elem, resElem, smemPtrTy;
  Value aPtr, bPtr, cPtr, m, n, k, smemBase;
  SmallVector<Value> epiArgs;
  Value g, tq, warpRow0, warpCol0, blockM, blockN;
  /// The cp.async stages' copies and the lanes' fragment offsets
  /// (emitCpAsyncPrologue).
  TileCopy aCopy, bCopy;
  Value aLane, bLane;
};

/// The plan of the tensor-core kernel `Kernel` (an MmaEmitter whose emit()
/// builds it) on `tiling`: its tile, threads and shared memory, and its
/// builder.
template <typename Kernel>
GemmKernelPlan planMmaKernel(MatmulOp op, const MmaTiling &tiling) {
  GemmKernelPlan p;
  p.tileM = tiling.bm;
  p.tileN = tiling.bn;
  p.threads = tiling.threads();
  p.sharedBytes = tiling.sharedBytes();
  p.build = [op, tiling](gpu::GPUFuncOp kernel) {
    return Kernel(op, tiling, kernel).emit();
  };
  return p;
}

} // namespace mlir::fuser::detail

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_MMAEMITTER_H
