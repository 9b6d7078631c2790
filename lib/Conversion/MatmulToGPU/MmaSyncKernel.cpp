//===- MmaSyncKernel.cpp - the mma.sync GEMM kernel (strategy mma) --------===//
//
// The kernel, for a block's BM x BN tile of C = epilogue(A * B):
//
//   the cp.async stages of MmaEmitter.cpp, STAGES - 1 k tiles ahead
//   for kt in [0, ceil(K / BK)):
//     wait for k tile kt, refill the stage k tile kt - 1 used
//     for each mma K step of the tile (unrolled; ptxas schedules the loads):
//       load the warp's A and B fragments from shared memory (32-bit
//       loads, conflict free thanks to padded rows), round f32 to tf32
//       (cvt.rna; 3xtf32 also keeps the rounding error as a second tf32)
//       or widen it to f64 (exact; precision fp64)
//       mma.sync every (16 x 8) piece of the warp's WM x WN tile
//   epilogue on the accumulators in registers, two columns at a time
//
// Fragment layouts (PTX ISA, mma.m16n8k8 .tf32/.f64 and mma.m16n8k16
// .bf16), with g = lane / 4 and t = lane % 4 (f64 takes the tf32 positions):
//   tf32 A: a0 (g, t) a1 (g+8, t) a2 (g, t+4) a3 (g+8, t+4); B: b0 (k t, n g)
//     b1 (k t+4, n g).
//   bf16 A: 32-bit pairs at (g, 2t) (g+8, 2t) (g, 2t+8) (g+8, 2t+8); B: pairs
//     along k at (2t, g) and (2t+8, g).
// (C's layout: AccumulatorLayout.h.)
//
//===----------------------------------------------------------------------===//

#include "GemmKernelPlan.h"

#include "MmaEmitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

namespace {

class MmaSyncKernel : public MmaEmitter {
public:
  using MmaEmitter::MmaEmitter;
  LogicalResult emit();

private:
  Value loadShared(Value base, Value lane, int64_t off, Type ty);
  std::pair<Value, Value> loadPair(Value base, Value lane, int64_t off);
  Value loadPairAlongRows(Value base, Value lane, int64_t off);
  Value toTf32(Value x);
  void splitOperands(ArrayRef<Value> raw, SmallVector<Value> &hi,
                     SmallVector<Value> &lo);
  void mma(ArrayRef<Value> a, ArrayRef<Value> bv, MutableArrayRef<Value> c);
  SmallVector<Value> loadFragments(Value stage, int64_t kk);
  void multiplyAccumulate(ArrayRef<Value> raw, SmallVector<Value> &acc);
};

} // namespace

LogicalResult MmaSyncKernel::emit() {
  emitEntry();
  Value aligned;
  Value numK = emitCpAsyncPrologue(aligned);

  // The main loop, carrying the accumulators. (Loading the next mma
  // step's fragments, and the next tile's first ones across the barrier,
  // before the current step's mma.syncs measured slower on an H100: 76
  // against 129 TFLOP/s in tf32, bench/results/H100-2026-11-22-mma.md.)
  int64_t numAcc = t.mTiles() * t.nTiles() * 4;
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accTy()));
  SmallVector<Value> init(numAcc, zero);
  Value one = c64(1);
  auto loop = scf::ForOp::create(b, loc, c64(0), numK, one, init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    waitThenCopyAhead(kt, numK, aligned, /*asyncProxy=*/false);
    Value stage = arith::RemUIOp::create(b, loc, kt, c64(t.stages));
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (int64_t kk = 0; kk < t.bk / t.kStep(); ++kk)
      multiplyAccumulate(loadFragments(stage, kk), acc);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);

  // The epilogue in registers.
  if (failed(emitEpilogue(loop.getResults(), fragmentLayout())))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
}

/// A 32-bit shared load at element `lane + off` of region `base`.
Value MmaSyncKernel::loadShared(Value base, Value lane, int64_t off, Type ty) {
  Value p = smemAt(base, elem, add(lane, c32(off)));
  return LLVM::LoadOp::create(b, loc, ty, p, 4);
}

/// Two adjacent f32 elements at `lane + off` of region `base`, one
/// 64-bit shared load.
std::pair<Value, Value> MmaSyncKernel::loadPair(Value base, Value lane,
                                                int64_t off) {
  Value p = smemAt(base, elem, add(lane, c32(off)));
  Value v = LLVM::LoadOp::create(b, loc, VectorType::get({2}, f32), p, 8);
  return {vector::ExtractOp::create(b, loc, v, 0),
          vector::ExtractOp::create(b, loc, v, 1)};
}

/// Two consecutive 16-bit elements along k (rows `off` and `off + pitch`
/// of an N-major B tile) packed into one 32-bit register, low half first.
Value MmaSyncKernel::loadPairAlongRows(Value base, Value lane, int64_t off) {
  auto i16 = b.getI16Type();
  Value lo = arith::ExtUIOp::create(
      b, loc, i32,
      LLVM::LoadOp::create(b, loc, i16, smemAt(base, elem, add(lane, c32(off))),
                           2));
  Value hi = arith::ExtUIOp::create(
      b, loc, i32,
      LLVM::LoadOp::create(b, loc, i16,
                           smemAt(base, elem, add(lane, c32(off + t.bPitch()))),
                           2));
  return arith::OrIOp::create(b, loc, lo,
                              arith::ShLIOp::create(b, loc, hi, c32(16)));
}

/// cvt.rna.tf32.f32: `x` rounded to tf32, as the i32 mma.sync takes.
Value MmaSyncKernel::toTf32(Value x) {
  return NVVM::ConvertFloatToTF32Op::create(b, loc, i32, x,
                                            NVVM::FPRoundingMode::RNA);
}

/// The mma operands of 32-bit fragment values: one tf32 (hi) or for
/// 3xtf32 also the rounding error (lo); bf16/f16 words pass as they are.
void MmaSyncKernel::splitOperands(ArrayRef<Value> raw, SmallVector<Value> &hi,
                                  SmallVector<Value> &lo) {
  for (Value x : raw) {
    if (!elemBytesIs4()) {
      hi.push_back(elem.isF16() ? Value(LLVM::BitcastOp::create(
                                      b, loc, VectorType::get({2}, elem), x))
                                : x);
      continue;
    }
    if (t.f64Math()) {
      // cvt.f64.f32 shares the FP64 pipe with the f64 mma.syncs, but
      // building the f64 from the bits on the integer pipe measured 21%
      // slower on W2 (H100, bench/results/H100-2026-11-22-fp64.md).
      hi.push_back(arith::ExtFOp::create(b, loc, b.getF64Type(), x));
      continue;
    }
    Value h = toTf32(x);
    hi.push_back(h);
    if (t.split3()) {
      // An Inf's lo part is inf - inf: 0 instead (and its hi part leaves
      // the cross terms, below), so that an Inf reaches its outputs through
      // the hi product alone, not as a NaN row.
      Value hf = LLVM::BitcastOp::create(b, loc, f32, h);
      Value l = arith::SubFOp::create(b, loc, x, hf);
      l = arith::SelectOp::create(
          b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, l, l),
          l, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
      lo.push_back(toTf32(l));
    }
  }
}

void MmaSyncKernel::mma(ArrayRef<Value> a, ArrayRef<Value> bv,
                        MutableArrayRef<Value> c) {
  MLIRContext *ctx = b.getContext();
  Type acc = accTy();
  auto resTy = LLVM::LLVMStructType::getLiteral(ctx, {acc, acc, acc, acc});
  if (t.f64Math()) {
    // nvvm.mma.sync knows only m8n8k4 for f64; sm_80+ has m16n8k8, whose
    // fragments sit where tf32's do, so the loads serve both.
    SmallVector<Value> args(a);
    args.append(bv.begin(), bv.end());
    args.append(c.begin(), c.end());
    Value r = LLVM::CallIntrinsicOp::create(
                  b, loc, resTy,
                  b.getStringAttr("llvm.nvvm.mma.m16n8k8.row.col.f64"), args)
                  ->getResult(0);
    for (int64_t e = 0; e < 4; ++e)
      c[e] = LLVM::ExtractValueOp::create(b, loc, r, e);
    return;
  }
  NVVM::MMATypes type = elemBytesIs4()  ? NVVM::MMATypes::tf32
                        : elem.isBF16() ? NVVM::MMATypes::bf16
                                        : NVVM::MMATypes::f16;
  Value r = NVVM::MmaOp::create(
      b, loc, resTy, a, bv, SmallVector<Value>(c.begin(), c.end()),
      ArrayRef<int64_t>{16, 8, t.kStep()}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  for (int64_t e = 0; e < 4; ++e)
    c[e] = LLVM::ExtractValueOp::create(b, loc, r, e);
}

/// The raw 32-bit fragments of mma step kk of stage `stage`: A's
/// (4 per 16-row piece: row +8 when r is odd, k + kStep/2 when r >= 2),
/// then B's (2 per 8-column piece).
SmallVector<Value> MmaSyncKernel::loadFragments(Value stage, int64_t kk) {
  Value aBase =
      smemAt(smemBase, b.getI8Type(), toI32(mul(stage, c64(t.stageBytes()))));
  Value bBase = smemAt(aBase, elem, c32(t.aStageElems()));
  Type fragTy = elemBytesIs4() ? f32 : i32;
  int64_t halfK = t.kStep() / 2, k0 = kk * t.kStep();
  SmallVector<Value> raw;
  if (t.pairedK()) { // (k t, k t+4) = one 64-bit load (MmaTiling::pairedK)
    for (int64_t i = 0; i < t.mTiles(); ++i) {
      auto [r0, r2] = loadPair(aBase, aLane, i * 16 * t.aPitch() + k0);
      auto [r1, r3] = loadPair(aBase, aLane, (i * 16 + 8) * t.aPitch() + k0);
      raw.append({r0, r1, r2, r3});
    }
    for (int64_t j = 0; j < t.nTiles(); ++j) {
      auto [b0, b1] = loadPair(bBase, bLane, j * 8 * t.bPitch() + k0);
      raw.append({b0, b1});
    }
    return raw;
  }
  for (int64_t i = 0; i < t.mTiles(); ++i)
    for (int64_t r = 0; r < 4; ++r)
      raw.push_back(loadShared(
          aBase, aLane,
          (i * 16 + (r % 2) * 8) * t.aPitch() + k0 + (r / 2) * halfK, fragTy));
  for (int64_t j = 0; j < t.nTiles(); ++j) {
    for (int64_t r = 0; r < 2; ++r) {
      if (t.transB)
        raw.push_back(loadShared(bBase, bLane,
                                 j * 8 * t.bPitch() + k0 + r * halfK, fragTy));
      else if (elemBytesIs4())
        raw.push_back(loadShared(
            bBase, bLane, (k0 + r * halfK) * t.bPitch() + j * 8, fragTy));
      else
        raw.push_back(loadPairAlongRows(bBase, bLane,
                                        (k0 + r * halfK) * t.bPitch() + j * 8));
    }
  }
  return raw;
}

/// The mma.syncs of one step on raw fragments from loadFragments.
void MmaSyncKernel::multiplyAccumulate(ArrayRef<Value> raw,
                                       SmallVector<Value> &acc) {
  SmallVector<SmallVector<Value>> aHi(t.mTiles()), aLo(t.mTiles());
  for (int64_t i = 0; i < t.mTiles(); ++i)
    splitOperands(raw.slice(i * 4, 4), aHi[i], aLo[i]);
  ArrayRef<Value> bRaw = raw.drop_front(t.mTiles() * 4);
  SmallVector<SmallVector<Value>> bHi(t.nTiles()), bLo(t.nTiles());
  for (int64_t j = 0; j < t.nTiles(); ++j)
    splitOperands(bRaw.slice(j * 2, 2), bHi[j], bLo[j]);
  // 3xtf32's cross terms take Inf and NaN hi parts as 0: one set of sums
  // holds all three products, and Inf times the other operand's lo part
  // (of either sign, or 0) would make NaN where the hi product alone gives
  // the fp32 product's +-Inf (or its NaN).
  auto finiteOnly = [&](ArrayRef<Value> his) {
    SmallVector<Value> out;
    for (Value h : his) {
      Value exp = arith::AndIOp::create(b, loc, h, c32(0x7F800000));
      Value finite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           exp, c32(0x7F800000));
      out.push_back(arith::SelectOp::create(b, loc, finite, h, c32(0)));
    }
    return out;
  };
  for (int64_t i = 0; i < t.mTiles(); ++i) {
    SmallVector<Value> aHiCross = t.split3() ? finiteOnly(aHi[i])
                                             : SmallVector<Value>();
    for (int64_t j = 0; j < t.nTiles(); ++j) {
      MutableArrayRef<Value> c(&acc[(i * t.nTiles() + j) * 4], 4);
      if (t.split3()) { // small terms first
        mma(aLo[i], finiteOnly(bHi[j]), c);
        mma(aHiCross, bLo[j], c);
      }
      mma(aHi[i], bHi[j], c);
    }
  }
}

FailureOr<GemmKernelPlan>
mlir::fuser::planMmaSyncKernel(MatmulOp op, KernelConfigAttr config,
                               const ChipInfo &chip) {
  FailureOr<MmaTiling> t =
      getMmaTiling(op, config, GemmStrategy::mma, chip.maxSharedBytesPerBlock);
  if (failed(t))
    return failure();
  return planMmaKernel<MmaSyncKernel>(op, *t);
}
