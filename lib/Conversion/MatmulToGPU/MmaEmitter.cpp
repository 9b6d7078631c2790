//===- MmaEmitter.cpp - the tensor-core GEMM kernels' shared pieces -------===//
//
// The entry of the mma.sync, wgmma and wgmma_tma kernels, and the cp.async
// stages the mma.sync and wgmma kernels fill:
//
//   issue cp.async copies of k tiles 0 .. STAGES-2 into their stages
//   per k tile kt: wait until it has landed; barrier; issue the copies of
//   k tile kt + STAGES - 1 into the stage that k tile kt - 1 used (every
//   warp is past it: the barrier)
//
// Shared memory holds A as [BM][BK] (K contiguous), B as [BN][BK] when
// transpose_b (nn.Linear's layout) else [BK][BN]: exactly the global
// layouts, so every copy is a 16-byte cp.async whose source size clips the
// edges of the matrices (zero fill). When a row pitch (K, or N for a K x N
// B) is not a multiple of 16 bytes the chunks are not aligned; the kernel
// then fills the stages with predicated scalar loads and shared stores.
// wgmma's stages are 128-byte swizzled (16-byte chunk c of row r at
// c ^ r % 8).
//
//===----------------------------------------------------------------------===//

#include "MmaEmitter.h"

#include "GuardedAccess.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

GemmKernelArgs MmaEmitter::emitEntry() {
  MLIRContext *ctx = kernel.getContext();
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  f32 = b.getF32Type();
  i32 = b.getI32Type();
  i64 = b.getI64Type();
  elem = t.elemTy;
  // Split K stores raw fp32 partial sums, not the result.
  resElem = t.splitK > 1 ? f32 : elementTypeOf(op.getResult().getType());
  smemPtrTy = LLVM::LLVMPointerType::get(ctx, 3);

  GemmKernelArgs args =
      GemmKernelArgs::of(op, kernel, b, t.bm, /*withEpilogue=*/t.splitK == 1);
  aPtr = args.a;
  bPtr = args.b;
  epiArgs = args.epilogue;
  cPtr = args.c;
  m = args.m;
  n = args.n;
  k = args.k;

  // Thread coordinates and the shared-memory base.
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value warp = arith::DivUIOp::create(b, loc, tid, c64(32));
  Value lane = arith::RemUIOp::create(b, loc, tid, c64(32));
  g = arith::DivUIOp::create(b, loc, lane, c64(4));
  tq = arith::RemUIOp::create(b, loc, lane, c64(4));
  int64_t warpCols = t.bn / t.wn;
  Value cWm = c64(t.wm);
  warpRow0 = mul(arith::DivUIOp::create(b, loc, warp, c64(warpCols)), cWm);
  Value cWn = c64(t.wn);
  warpCol0 = mul(arith::RemUIOp::create(b, loc, warp, c64(warpCols)), cWn);
  Value cBm = c64(t.bm);
  blockM =
      args.blockM
          ? args.blockM
          : mul(toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)), cBm);
  Value cBn = c64(t.bn);
  blockN = mul(toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)), cBn);
  auto smemTy = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, smemTy);
  Value smemAddr =
      toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem));
  if (t.wgmma()) { // swizzle atoms are 1024-byte aligned
    Value up = add(smemAddr, c64(1023));
    smemAddr = arith::AndIOp::create(b, loc, up, c64(~int64_t(1023)));
  }
  smemBase = LLVM::IntToPtrOp::create(b, loc, smemPtrTy, smemAddr);
  return args;
}

Value MmaEmitter::emitCpAsyncPrologue(Value &aligned) {
  // The copies: A (M x K); B (N x K) or (K x N). Chunks are 16-byte
  // aligned when the row pitches are multiples of 16 bytes.
  aligned = isMultipleOf(k, t.vec());
  if (!t.transB)
    aligned = both(aligned, isMultipleOf(n, t.vec()));
  aCopy = makeCopy(aPtr, t.bm, t.bk, t.aPitch(), m, k, k);
  bCopy = t.transB ? makeCopy(bPtr, t.bn, t.bk, t.bPitch(), n, k, k)
                   : makeCopy(bPtr, t.bk, t.bn, t.bPitch(), k, n, n);

  // k tiles 0 .. ahead-1, one commit group each.
  Value numK = arith::CeilDivUIOp::create(b, loc, k, c64(t.bk));
  for (int64_t s = 0; s < copiesAhead(); ++s) {
    auto ifOp = scf::IfOp::create(b, loc, lt(c64(s), numK), false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value k0 = c64(s * t.bk);
      loadStage(c64(s), k0, aligned);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }

  // Lane offsets of the fragments inside a stage (elements, i32).
  Value half = elemBytesIs4() && !t.pairedK() ? tq : mul(tq, c64(2));
  Value aPitch = c64(t.aPitch());
  aLane = toI32(add(mul(add(warpRow0, g), aPitch), half));
  if (t.transB) {
    Value bPitch = c64(t.bPitch());
    bLane = toI32(add(mul(add(warpCol0, g), bPitch), half));
  } else {
    Value col = add(warpCol0, g);
    bLane = toI32(add(mul(half, c64(t.bPitch())), col));
  }
  return numK;
}

/// The top of a k-tile iteration: wait until tile kt's copies landed
/// (and, for wgmma, make them visible to the async proxy it reads
/// through), barrier, then issue the copies copiesAhead() tiles ahead
/// into the stage every warp is done with.
void MmaEmitter::waitThenCopyAhead(Value kt, Value numK, Value aligned,
                                   bool asyncProxy) {
  NVVM::CpAsyncWaitGroupOp::create(b, loc, copiesAhead() - 1);
  if (asyncProxy)
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(b, loc);
  Value nextK = add(kt, c64(copiesAhead()));
  auto ifOp = scf::IfOp::create(b, loc, lt(nextK, numK), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value k0 = mul(nextK, c64(t.bk));
    loadStage(arith::RemUIOp::create(b, loc, nextK, c64(t.stages)), k0,
              aligned);
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
}

/// k tiles whose copies are in flight ahead of the one computed: all
/// other stages, less one for wgmma, whose previous tile may still be
/// reading its stage.
int64_t MmaEmitter::copiesAhead() const {
  return t.stages - (t.wgmma() ? 2 : 1);
}

/// The shared-memory (not generic) address of the aligned stages, i64.
Value MmaEmitter::sharedAddress() {
  return LLVM::PtrToIntOp::create(b, loc, i64, smemBase);
}

TileCopy MmaEmitter::makeCopy(Value ptr, int64_t rows, int64_t cols,
                              int64_t sPitch, Value rowLimit, Value colLimit,
                              Value pitch) {
  TileCopy c{ptr, rows, cols / t.vec(), sPitch, rowLimit, colLimit, pitch, {},
             {},  {}};
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  // Where the threads cover whole rows, a thread's chunks share a column
  // and their rows step by a constant, so one row and one column stay live
  // instead of one pair per chunk: that freed the register the tf32 NN
  // kernel (255 registers) spilled. 4-byte elements only: the bf16 NN
  // kernel, also at 255, spills 4 bytes with it.
  Value row0, col0;
  if (t.elemBytes() == 4 && t.threads() % c.chunksPerRow == 0) {
    row0 = arith::DivUIOp::create(b, loc, tid, c64(c.chunksPerRow));
    col0 = mul(arith::RemUIOp::create(b, loc, tid, c64(c.chunksPerRow)),
               c64(t.vec()));
  }
  for (int64_t i = 0; i < rows * c.chunksPerRow / t.threads(); ++i) {
    Value f = add(tid, c64(i * t.threads()));
    Value r = row0 ? add(row0, c64(i * t.threads() / c.chunksPerRow))
                   : arith::DivUIOp::create(b, loc, f, c64(c.chunksPerRow));
    Value vec = c64(t.vec());
    Value col =
        row0 ? col0
             : mul(arith::RemUIOp::create(b, loc, f, c64(c.chunksPerRow)), vec);
    c.row.push_back(r);
    c.col.push_back(col);
    Value sCol = col;
    if (t.wgmma()) { // 128-byte swizzle: 16-byte chunk c of row r at c ^ r % 8
      Value chunk = arith::RemUIOp::create(b, loc, f, c64(c.chunksPerRow));
      Value r8 = arith::RemUIOp::create(b, loc, r, c64(8));
      sCol = mul(arith::XOrIOp::create(b, loc, chunk, r8), vec);
    }
    c.sOff.push_back(toI32(add(mul(r, c64(sPitch)), sCol)));
  }
  return c;
}

/// Fills stage `stage` with the k tile starting at k0: cp.async when the
/// chunks are aligned, else predicated scalar loads.
void MmaEmitter::loadStage(Value stage, Value k0, Value aligned) {
  Value base =
      smemAt(smemBase, b.getI8Type(), toI32(mul(stage, c64(t.stageBytes()))));
  Value bBase = smemAt(base, elem, c32(t.aStageElems()));
  auto ifOp = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
  for (bool async : {true, false}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(async ? ifOp.thenBlock() : ifOp.elseBlock());
    copyTile(aCopy, blockM, k0, base, async);
    if (t.transB)
      copyTile(bCopy, blockN, k0, bBase, async);
    else
      copyTile(bCopy, k0, blockN, bBase, async);
  }
}

void MmaEmitter::copyTile(const TileCopy &c, Value rowStart, Value colStart,
                          Value base, bool async) {
  Value zero = c64(0);
  for (size_t i = 0; i < c.row.size(); ++i) {
    Value gr = add(rowStart, c.row[i]), gc = add(colStart, c.col[i]);
    Value rowOk = lt(gr, c.rowLimit);
    Value dst = smemAt(base, elem, c.sOff[i]);
    Value idx = add(mul(gr, c.pitch), gc);
    if (async) {
      // Valid elements of the chunk: clamp(colLimit - gc, 0, vec), or 0
      // past the last row; the rest is zero-filled.
      Value rem = sub(c.colLimit, gc);
      Value valid = arith::MaxSIOp::create(
          b, loc, arith::MinSIOp::create(b, loc, rem, c64(t.vec())), zero);
      valid = select(rowOk, valid, zero);
      Value any = lt(zero, valid);
      Value src = gepElement(b, loc, c.ptr, elem, select(any, idx, zero));
      Value bytes = toI32(mul(valid, c64(t.elemBytes())));
      NVVM::CpAsyncOp::create(b, loc, dst, src, 16,
                              NVVM::LoadCacheModifierKind::CG, bytes);
      continue;
    }
    SmallVector<Value> lanes;
    for (int64_t e = 0; e < t.vec(); ++e) {
      Value ok = both(rowOk, lt(add(gc, c64(e)), c.colLimit));
      lanes.push_back(loadScalarIf(b, loc, c.ptr, elem, add(idx, c64(e)), ok));
    }
    auto vecTy = VectorType::get({t.vec()}, elem);
    Value v = vector::FromElementsOp::create(b, loc, vecTy, lanes);
    LLVM::StoreOp::create(b, loc, v, dst, 16);
  }
}
