//===- WgmmaTmaLoop.cpp - warp-specialized TMA + wgmma main loop ----------===//
//
// Phases: k tile kt uses stage s = kt % STAGES in round r = kt / STAGES.
// full[s] completes once per round when the tensor copies have landed (A,
// and B, or BN / 32 boxes of an N-major B, and a prologue's input)
// (one arrival, the producer's, plus the expected bytes); empty[s] once per
// round when every consumer warp has released it. The producer waits for
// round r - 1 of empty[s] before refilling; consumers wait for round r of
// full[s]. Parities are r % 2.
//
// In a cluster of blocks sharing B (MmaTiling::clusterM), each block's
// copies of B land in every block: empty[s] then counts the consumer warps
// of the whole cluster, and a block's full[s] may receive another block's
// bytes before its own producer expects them (the transaction count runs
// negative until then, which mbarriers allow). Another block's next copy
// into s needs this block's release of s, so it never lands a round early.
//
//===----------------------------------------------------------------------===//

#include "WgmmaTmaLoop.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"


using namespace mlir;
using namespace mlir::fuser;

/// try_wait's suspend-time hint (ns), as CUTLASS uses.
constexpr int64_t kWaitTicks = 0x989680;

namespace {
Value c64(OpBuilder &b, Location loc, int64_t v) { return constI64(b, loc, v); }
Value c32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
Value toI32(OpBuilder &b, Location loc, Value x) {
  return arith::TruncIOp::create(b, loc, b.getI32Type(), x);
}
/// (x / d) % 2 as the i32 parity mbarrier waits take.
Value roundParity(OpBuilder &b, Location loc, Value x, int64_t d) {
  Value r = arith::DivUIOp::create(b, loc, x, c64(b, loc, d));
  return toI32(b, loc, arith::AndIOp::create(b, loc, r, c64(b, loc, 1)));
}
Value sharedByte(OpBuilder &b, Location loc, Value base, Value off) {
  return gepElement(b, loc, base, b.getI8Type(), off);
}
} // namespace

/// If `cond`, arrives on the empty barrier of k iteration it - back.
static void releaseStage(OpBuilder &b, Location loc, const TmaBarriers &bars,
                         Value cond, Value it, int64_t back) {
  const MmaTiling &t = bars.t;
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // (it - back) % STAGES without going below zero.
  Value stage = arith::RemUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, it, c64(b, loc, t.stages - back)),
      c64(b, loc, t.stages));
  Value empty = bars.empty(b, loc, stage);
  if (t.clusterM == 1) {
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), empty, Value(),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
    return;
  }
  // Every block of the cluster multicasts into this stage: release it to
  // each block's producer. At CTA scope, as CUTLASS's ClusterBarrier does:
  // what is released is this warp's wgmma reads of its own stage, already
  // complete. A cluster-scope release made each arrive a memory barrier
  // that stalled the consumers: W2 in tf32 took 0.925 ms against 0.411
  // (H100, 2026-11-25).
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  for (int64_t r = 0; r < t.clusterM; ++r) {
    Value remote =
        NVVM::MapaOp::create(b, loc, clusterPtr, empty, c32(b, loc, r));
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), remote, Value(),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
  }
}

Value mlir::fuser::wgmmaDescriptor(OpBuilder &b, Location loc, Value addr) {
  // address / 16 in bits 0-13, leading byte offset 16 (unused by this mode)
  // in 16-29, stride byte offset 1024 (8 rows of 128 bytes) in 32-45,
  // swizzle mode 1 (128 bytes) in 62-63.
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, c64(b, loc, 4)),
      c64(b, loc, 0x3FFF));
  int64_t fixed = (int64_t(16 >> 4) << 16) | (int64_t(1024 >> 4) << 32) |
                  (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, field, c64(b, loc, fixed));
}

Value mlir::fuser::emitWgmmaSteps(OpBuilder &b, Location loc,
                                  const MmaTiling &t, Value acc, Value aAddr,
                                  Value bAddr, bool restart) {
  MLIRContext *ctx = b.getContext();
  auto type = t.elemBytes() == 4 ? NVVM::WGMMATypes::tf32
              : t.elemTy.isBF16() ? NVVM::WGMMATypes::bf16
                                  : NVVM::WGMMATypes::f16;
  for (int64_t kk = 0; kk < t.bk / t.kStep(); ++kk) {
    // Each step starts kStep elements (32 bytes) further along the swizzled
    // rows; the hardware applies the swizzle to the address.
    Value off = c64(b, loc, kk * t.kStep() * t.elemBytes());
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc.getType(), acc,
        wgmmaDescriptor(b, loc, arith::AddIOp::create(b, loc, aAddr, off)),
        wgmmaDescriptor(b, loc, arith::AddIOp::create(b, loc, bAddr, off)),
        NVVM::MMAShapeAttr::get(ctx, 64, t.bn, t.kStep()), type, type,
        NVVM::WGMMATypes::f32,
        restart && kk == 0 ? NVVM::WGMMAScaleOut::zero
                           : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        NVVM::MMALayout::row, NVVM::MMALayout::col,
        /*satfinite=*/nullptr);
  }
  return acc;
}

Value TmaBarriers::full(OpBuilder &b, Location loc, Value stage) const {
  Value off = arith::AddIOp::create(
      b, loc, c64(b, loc, t.stages * t.stageBytes()),
      arith::MulIOp::create(b, loc, stage, c64(b, loc, 8)));
  return sharedByte(b, loc, stages, off);
}

Value TmaBarriers::empty(OpBuilder &b, Location loc, Value stage) const {
  Value s = arith::AddIOp::create(b, loc, stage, c64(b, loc, t.stages));
  return full(b, loc, s);
}

Value TmaBarriers::split(OpBuilder &b, Location loc, Value stage) const {
  Value s = arith::AddIOp::create(b, loc, stage, c64(b, loc, 2 * t.stages));
  return full(b, loc, s);
}

void mlir::fuser::emitTmaBarrierInit(OpBuilder &b, Location loc,
                                     const TmaBarriers &bars, Value tid) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      c64(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < bars.t.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, bars.full(b, loc, c64(b, loc, s)),
                                   c32(b, loc, 1), Value());
      NVVM::MBarrierInitOp::create(
          b, loc, bars.empty(b, loc, c64(b, loc, s)),
          c32(b, loc, bars.t.warps() * bars.t.clusterM), Value());
      if (bars.t.splitInShared())
        NVVM::MBarrierInitOp::create(b, loc,
                                     bars.split(b, loc, c64(b, loc, s)),
                                     c32(b, loc, splitterThreads(bars.t)),
                                     Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  }
  gpu::BarrierOp::create(b, loc);
  // The other blocks copy into this one's stages and arrive on its
  // barriers: they wait until it has initialized them.
  if (bars.t.clusterM > 1)
    emitClusterSync(b, loc);
}

void mlir::fuser::emitClusterSync(OpBuilder &b, Location loc) {
  NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/nullptr);
  NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/nullptr);
}

void mlir::fuser::emitTmaProducer(OpBuilder &b, Location loc,
                                  const TmaBarriers &bars, Value mapA,
                                  Value mapB, Value numK, Value blockM,
                                  Value blockN, Value kBase, Value kFirst,
                                  Value bRowK0, Value clusterRank,
                                  Value mapP) {
  const MmaTiling &t = bars.t;
  MLIRContext *ctx = b.getContext();
  auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
  auto loop = scf::ForOp::create(b, loc, c64(b, loc, 0), numK, c64(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value it = arith::AddIOp::create(b, loc, kBase, kt);
  Value stage = arith::RemUIOp::create(b, loc, it, c64(b, loc, t.stages));
  Value refill = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, it,
                                       c64(b, loc, t.stages));
  auto wait = scf::IfOp::create(b, loc, refill, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(wait.thenBlock());
    Value prev = arith::SubIOp::create(b, loc, it, c64(b, loc, t.stages));
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, bars.empty(b, loc, stage), roundParity(b, loc, prev, t.stages),
        c32(b, loc, kWaitTicks));
  }
  Value full = bars.full(b, loc, stage);
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, Type(), full, c32(b, loc, t.tmaBytes()),
      NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), Value());
  Value stageOff = arith::MulIOp::create(b, loc, stage,
                                         c64(b, loc, t.stageBytes()));
  Value kTile =
      kFirst ? Value(arith::AddIOp::create(b, loc, kFirst, kt)) : kt;
  Value k0 =
      toI32(b, loc, arith::MulIOp::create(b, loc, kTile, c64(b, loc, t.bk)));
  // One tensor copy of `map`'s box at (column `col`, i32; row `row`, i64)
  // into the stage at byte `off`; `multicast`: into every block of the
  // cluster, at the same offset, completing on each one's full[s].
  Value everyBlock;
  if (t.clusterM > 1)
    everyBlock = arith::ConstantIntOp::create(b, loc, b.getI16Type(),
                                              (1 << t.clusterM) - 1);
  auto copy = [&](Value map, Value off, Value col, Value row,
                  bool multicast = false) {
    Value dst = LLVM::AddrSpaceCastOp::create(
        b, loc, clusterPtr, sharedByte(b, loc, bars.stages, off));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, dst, map, ValueRange{col, toI32(b, loc, row)}, full,
        ValueRange{}, multicast ? everyBlock : Value(), Value(),
        NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
        b.getBoolAttr(false), nullptr, Value());
  };
  copy(mapA, stageOff, k0, blockM);
  if (t.prologueInput)
    copy(mapP,
         arith::AddIOp::create(b, loc, stageOff, c64(b, loc, t.copyBytes())),
         k0, blockM);
  Value bOff = arith::AddIOp::create(b, loc, stageOff,
                                     c64(b, loc, t.aStageBytes()));
  if (!t.transposesB() && t.clusterM > 1) {
    // This block's share of B: rows rank * BN / clusterM on.
    Value share = arith::MulIOp::create(b, loc, clusterRank,
                                        c64(b, loc, t.bBoxRows()));
    Value off = arith::AddIOp::create(
        b, loc, bOff,
        arith::MulIOp::create(b, loc, share,
                              c64(b, loc, t.bk * t.elemBytes())));
    copy(mapB, off, k0, arith::AddIOp::create(b, loc, blockN, share),
         /*multicast=*/true);
    return;
  }
  if (!t.transposesB()) {
    copy(mapB, bOff, k0, blockN);
    return;
  }
  // An N-major B: BN / 32 boxes of BK rows (k) by 32 columns (n), 4 KiB
  // each, side by side.
  Value kRow = arith::MulIOp::create(b, loc, kTile, c64(b, loc, t.bk));
  if (bRowK0)
    kRow = arith::AddIOp::create(b, loc, bRowK0, kRow);
  constexpr int64_t boxCols = MmaTiling::kNMajorBoxCols;
  if (t.clusterM > 1) {
    // This block's share: boxes rank, rank + clusterM, ...
    for (int64_t j = 0; j < t.bn / boxCols; j += t.clusterM) {
      Value box = arith::AddIOp::create(b, loc, clusterRank, c64(b, loc, j));
      Value off = arith::AddIOp::create(
          b, loc, bOff,
          arith::MulIOp::create(b, loc, box,
                                c64(b, loc, boxCols * t.bk * t.elemBytes())));
      Value col = toI32(
          b, loc,
          arith::AddIOp::create(
              b, loc, blockN,
              arith::MulIOp::create(b, loc, box, c64(b, loc, boxCols))));
      copy(mapB, off, col, kRow, /*multicast=*/true);
    }
    return;
  }
  for (int64_t j = 0; j < t.bn / boxCols; ++j) {
    Value off = arith::AddIOp::create(
        b, loc, bOff, c64(b, loc, j * boxCols * t.bk * t.elemBytes()));
    Value col = toI32(
        b, loc, arith::AddIOp::create(b, loc, blockN, c64(b, loc, j * boxCols)));
    copy(mapB, off, col, kRow);
  }
}

namespace {
/// What a consumer thread computes once: its warpgroup's A offset in a stage,
/// whether it releases stages for its warp, the stages' shared address.
struct ConsumerThread {
  Value aGroupOff, leader, base;
};

ConsumerThread consumerThread(OpBuilder &b, Location loc,
                              const TmaBarriers &bars, Value tid) {
  const MmaTiling &t = bars.t;
  // Warpgroup g's A rows start 64 g rows into the stage.
  Value group = arith::DivUIOp::create(b, loc, tid, c64(b, loc, 128));
  Value aGroupOff = arith::MulIOp::create(
      b, loc, group, c64(b, loc, 64 * t.bk * t.elemBytes()));
  Value lane = arith::RemUIOp::create(b, loc, tid, c64(b, loc, 32));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                       c64(b, loc, 0));
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), bars.stages);
  return {aGroupOff, leader, base};
}

/// The top of a consumer's k iteration `it`: wait for round it / STAGES of
/// its stage's barrier `ready` (full, or split with 3xtf32), then the
/// shared addresses of the warpgroup's A rows and of B in that stage.
std::pair<Value, Value>
waitForStage(OpBuilder &b, Location loc, const TmaBarriers &bars,
             const ConsumerThread &c, Value it,
             Value (TmaBarriers::*ready)(OpBuilder &, Location, Value) const) {
  const MmaTiling &t = bars.t;
  Value stage = arith::RemUIOp::create(b, loc, it, c64(b, loc, t.stages));
  NVVM::MBarrierTryWaitParityOp::create(b, loc, (bars.*ready)(b, loc, stage),
                                        roundParity(b, loc, it, t.stages),
                                        c32(b, loc, kWaitTicks));
  Value stageAddr = arith::AddIOp::create(
      b, loc, c.base,
      arith::MulIOp::create(b, loc, stage, c64(b, loc, t.stageBytes())));
  Value aAddr = arith::AddIOp::create(b, loc, stageAddr, c.aGroupOff);
  Value bAddr = arith::AddIOp::create(
      b, loc, stageAddr, c64(b, loc, t.aStageBytes()));
  return {aAddr, bAddr};
}
} // namespace

Value mlir::fuser::emitTmaConsumer(OpBuilder &b, Location loc,
                                   const TmaBarriers &bars, Value numK,
                                   Value tid, int64_t numAcc, Value kBase) {
  const MmaTiling &t = bars.t;
  auto structTy = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numAcc, b.getF32Type()));
  Value init = LLVM::ZeroOp::create(b, loc, structTy);
  ConsumerThread c = consumerThread(b, loc, bars, tid);
  Value leader = c.leader;
  auto loop = scf::ForOp::create(b, loc, c64(b, loc, 0), numK, c64(b, loc, 1),
                                 ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value it = arith::AddIOp::create(b, loc, kBase, kt);
    auto [aAddr, bAddr] = waitForStage(b, loc, bars, c, it, &TmaBarriers::full);
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Value acc = emitWgmmaSteps(b, loc, t, loop.getRegionIterArgs()[0], aAddr,
                               bAddr);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // Tile kt - 1's wgmmas are done once one group is left in flight: each
    // warp releases that stage.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value hasPrev = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          kt, c64(b, loc, 0));
    releaseStage(b, loc, bars, arith::AndIOp::create(b, loc, hasPrev, leader),
                 it, 1);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // The last k tile's stage, for the block's next output tile.
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, numK,
                                    c64(b, loc, 0));
  releaseStage(b, loc, bars, arith::AndIOp::create(b, loc, any, leader),
               arith::AddIOp::create(b, loc, kBase, numK), 1);
  return loop.getResult(0);
}

/// The splitter's pass over an N-major B in stage `stage`: box j (32
/// columns n by BK = 32 rows k of 128 bytes, as TMA swizzled them) becomes
/// rows 32 j .. 32 j + 31 of the K-major B that wgmma reads, in place (the
/// same 4 KiB, in the same 128-byte swizzle: the 16-byte chunk c of row r
/// sits at chunk c ^ (r % 8)), and their lo parts (`loPart` of 4 values)
/// beside, copyBytes further. The splitter's warps take the boxes in turn,
/// the last (which splits no A chunks) first; lane l
/// moves column n = l. In 16 x 16 blocks (k block, n block), (a, b) lands
/// on the bytes of (b, a), so two phases of 16 values per lane do it: in
/// phase p, lane l takes k block (l / 16) ^ p, whose mirror block the same
/// phase reads. Each lane gathers its 16 k (4-byte loads; the warp reads
/// disjoint chunks of two rows with one swizzle: no bank conflict), the
/// warp syncs once every lane has read, then it stores four 16-byte chunks
/// of row l. The whole column (32 values) spilled the splitter's 56
/// registers.
static void transposeBoxes(OpBuilder &b, Location loc, const TmaBarriers &bars,
                           Value stage, Value sid,
                           llvm::function_ref<Value(Value)> loPart) {
  const MmaTiling &t = bars.t;
  constexpr int64_t boxCols = MmaTiling::kNMajorBoxCols;
  constexpr int64_t block = 16;
  int64_t boxBytes = boxCols * t.bk * t.elemBytes();
  auto f32 = b.getF32Type();
  auto f32x4 = VectorType::get({4}, f32);
  auto i64 = b.getI64Type();
  auto c = [&](int64_t v) { return c64(b, loc, v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, c(y));
  };
  auto orI = [&](Value x, Value y) -> Value {
    return arith::OrIOp::create(b, loc, x, y);
  };
  auto xorC = [&](Value x, int64_t y) -> Value {
    return arith::XOrIOp::create(b, loc, x, c(y));
  };
  // A box is 4 KiB aligned in the stages, and every offset in it is a
  // lane's bits XOR a constant of the phase and step: so each address is
  // (box | lane bits) ^ constant, one instruction, and LLVM does not hoist
  // 4 x 8 lane offsets out of the loops into registers (ptxas spilled).
  Value lane = arith::RemUIOp::create(b, loc, sid, c(32));
  Value warp = arith::DivUIOp::create(b, loc, sid, c(32));
  Value nBlock = arith::DivUIOp::create(b, loc, lane, c(block));
  // Loads: row k = block * (nBlock ^ p) + i, chunk (n / 4) ^ (k % 8),
  // n % 4 within it.
  Value loadBits =
      orI(orI(mul(nBlock, block * 128),
              mul(arith::ShRUIOp::create(b, loc, lane, c(2)), 16)),
          mul(arith::AndIOp::create(b, loc, lane, c(3)), 4));
  // Stores: row n = l, chunk (k / 4) ^ (l % 8) with k / 4 = (block / 4) *
  // (nBlock ^ p) + q.
  Value storeBits =
      orI(mul(lane, 128),
          mul(arith::XOrIOp::create(b, loc, mul(nBlock, block / 4),
                                    arith::AndIOp::create(b, loc, lane, c(7))),
              16));
  Value bBase = add(mul(stage, t.stageBytes()), c(t.aStageBytes()));
  int64_t warps = splitterThreads(t) / 32;
  // The last warp has no A chunks to split: it takes the first box.
  Value firstBox = arith::SubIOp::create(b, loc, c(warps - 1), warp);
  auto boxes = scf::ForOp::create(b, loc, firstBox, c(t.bn / boxCols),
                                  c(warps));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(boxes.getBody());
  Value box = add(bBase, mul(boxes.getInductionVar(), boxBytes));
  Value loadBase = orI(box, loadBits), storeBase = orI(box, storeBits);
  for (int64_t phase = 0; phase < t.bk / block; ++phase) {
    SmallVector<Value> column;
    for (int64_t i = 0; i < block; ++i) {
      Value off = xorC(loadBase, phase * block * 128 | i * 128 | (i % 8) * 16);
      column.push_back(LLVM::LoadOp::create(
          b, loc, f32, sharedByte(b, loc, bars.stages, off), 4));
    }
    NVVM::SyncWarpOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
    for (int64_t q = 0; q < block / 4; ++q) {
      Value x = LLVM::UndefOp::create(b, loc, f32x4);
      for (int64_t e = 0; e < 4; ++e)
        x = LLVM::InsertElementOp::create(
            b, loc, x, column[4 * q + e],
            arith::ConstantIntOp::create(b, loc, i64, e));
      Value off = xorC(storeBase, (phase * (block / 4) + q) * 16);
      LLVM::StoreOp::create(b, loc, x, sharedByte(b, loc, bars.stages, off),
                            16);
      LLVM::StoreOp::create(
          b, loc, loPart(x),
          sharedByte(b, loc, bars.stages, add(off, c(t.copyBytes()))), 16);
    }
  }
}

int64_t mlir::fuser::splitterThreads(const MmaTiling &t) {
  return t.transposesB() ? kSplitterThreads + 32 : kSplitterThreads;
}

void mlir::fuser::emitTmaSplitter(OpBuilder &b, Location loc,
                                  const TmaBarriers &bars, Value numK,
                                  Value sid, Value kBase,
                                  PrologueFn prologue) {
  const MmaTiling &t = bars.t;
  // Thread sid takes 16-byte chunks sid, sid + 64, ... of the stage (a
  // warp's loads and stores are contiguous), kUnroll loads in flight.
  constexpr int64_t kUnroll = 4;
  // An N-major B is split after its transposition (transposeBoxes).
  int64_t flatBytes = t.transposesB() ? t.aStageBytes() : t.copyBytes();
  int64_t perThread = flatBytes / 16 / kSplitterThreads;
  auto f32x4 = VectorType::get({4}, b.getF32Type());
  auto i32x4 = VectorType::get({4}, b.getI32Type());
  Value mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          i32x4, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFFE000))));
  Value halfUnit = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(i32x4, b.getI32IntegerAttr(0x1000)));
  auto loPart = [&](Value x) -> Value {
    Value bits = arith::BitcastOp::create(b, loc, i32x4, x);
    Value hi = arith::BitcastOp::create(
        b, loc, f32x4, arith::AndIOp::create(b, loc, bits, mask));
    Value lo = arith::SubFOp::create(b, loc, x, hi);
    // Half a tf32 unit on lo's magnitude: wgmma's truncation then
    // rounds lo to nearest (the low 13 bits it ignores carry the rest).
    return arith::BitcastOp::create(
        b, loc, f32x4,
        arith::AddIOp::create(
            b, loc, arith::BitcastOp::create(b, loc, i32x4, lo), halfUnit));
  };
  auto loop = scf::ForOp::create(b, loc, c64(b, loc, 0), numK, c64(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value it = arith::AddIOp::create(b, loc, kBase, loop.getInductionVar());
  Value stage = arith::RemUIOp::create(b, loc, it, c64(b, loc, t.stages));
  // Stage s's lo parts were last read by round r - 1's wgmmas, which every
  // consumer completed before releasing s, which the producer waited for
  // before the copies this wait sees land.
  NVVM::MBarrierTryWaitParityOp::create(b, loc, bars.full(b, loc, stage),
                                        roundParity(b, loc, it, t.stages),
                                        c32(b, loc, kWaitTicks));
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, stage, c64(b, loc, t.stageBytes())),
      arith::MulIOp::create(b, loc, sid, c64(b, loc, 16)));
  Value flatEnd = c64(b, loc, perThread);
  if (splitterThreads(t) > kSplitterThreads) // warp 3: boxes only
    flatEnd = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, sid,
                              c64(b, loc, kSplitterThreads)),
        flatEnd, c64(b, loc, 0));
  // Chunks [begin, end) of the thread's, kUnroll loads in flight; with
  // `applyPrologue`, A's chunks become the prologue's results first.
  auto splitChunks = [&](Value begin, Value end, bool applyPrologue) {
    auto chunks = scf::ForOp::create(b, loc, begin, end, c64(b, loc, kUnroll));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value j0 = chunks.getInductionVar();
    SmallVector<Value> xs, ps, offs;
    auto lo = [&](Value off) {
      return sharedByte(
          b, loc, bars.stages,
          arith::AddIOp::create(b, loc, off, c64(b, loc, t.copyBytes())));
    };
    for (int64_t u = 0; u < kUnroll; ++u) {
      Value j = arith::AddIOp::create(b, loc, j0, c64(b, loc, u));
      offs.push_back(arith::AddIOp::create(
          b, loc, first,
          arith::MulIOp::create(b, loc, j,
                                c64(b, loc, kSplitterThreads * 16))));
      xs.push_back(LLVM::LoadOp::create(
          b, loc, f32x4, sharedByte(b, loc, bars.stages, offs.back()), 16));
      if (applyPrologue)
        ps.push_back(t.prologueInput ? Value(LLVM::LoadOp::create(
                                           b, loc, f32x4, lo(offs.back()), 16))
                                     : Value());
    }
    for (int64_t u = 0; u < kUnroll; ++u) {
      if (applyPrologue) {
        xs[u] = prologue(b, loc, xs[u], ps[u]);
        LLVM::StoreOp::create(b, loc, xs[u],
                              sharedByte(b, loc, bars.stages, offs[u]), 16);
      }
      LLVM::StoreOp::create(b, loc, loPart(xs[u]), lo(offs[u]), 16);
    }
  };
  if (t.prologue) {
    // A's chunks come first in the stage; a thread's first aChunks are A's.
    int64_t aChunks = t.aStageBytes() / 16 / kSplitterThreads;
    Value aEnd = arith::MinUIOp::create(b, loc, flatEnd, c64(b, loc, aChunks));
    splitChunks(c64(b, loc, 0), aEnd, /*applyPrologue=*/true);
    splitChunks(aEnd, flatEnd, /*applyPrologue=*/false);
  } else {
    splitChunks(c64(b, loc, 0), flatEnd, /*applyPrologue=*/false);
  }
  if (t.transposesB())
    transposeBoxes(b, loc, bars, stage, sid, loPart);
  // The lo parts, written through the generic proxy, for wgmma's async
  // proxy; the arrival releases them to the consumers.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  NVVM::MBarrierArriveOp::create(
      b, loc, Type(), bars.split(b, loc, stage), Value(),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
}

Value mlir::fuser::emitTmaSplitConsumer(OpBuilder &b, Location loc,
                                        const TmaBarriers &bars, Value numK,
                                        Value tid, int64_t numAcc,
                                        Value kBase) {
  const MmaTiling &t = bars.t;
  auto structTy = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numAcc, b.getF32Type()));
  Value zero = LLVM::ZeroOp::create(b, loc, structTy);
  // What a restarting wgmma reads instead of zeros (it ignores them).
  Value unread = LLVM::UndefOp::create(b, loc, structTy);
  ConsumerThread c = consumerThread(b, loc, bars, tid);
  Value leader = c.leader;
  // One k tile; a chunk's first restarts the large tensor-core sums and
  // starts the small ones from the last promotion's rounding error. The
  // previous tile's stage is released once one commit group is left in
  // flight, but a chunk's first tile has none (the promotion released it).
  auto kTile = [&](Value kt, Value &small, Value &large, bool first) {
    Value it = arith::AddIOp::create(b, loc, kBase, kt);
    auto [aAddr, bAddr] =
        waitForStage(b, loc, bars, c, it, &TmaBarriers::split);
    auto lo = [&](Value addr) {
      return arith::AddIOp::create(b, loc, addr, c64(b, loc, t.copyBytes()));
    };
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    small = emitWgmmaSteps(b, loc, t, small, aAddr, lo(bAddr));
    small = emitWgmmaSteps(b, loc, t, small, lo(aAddr), bAddr);
    large = emitWgmmaSteps(b, loc, t, first ? unread : large, aAddr, bAddr,
                           first);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    if (!first)
      releaseStage(b, loc, bars, leader, it, 1);
  };
  // K tiles per chunk: the promotion interval, or all of them.
  Value chunk = t.promoteTiles()
                    ? c64(b, loc, t.promoteTiles())
                    : arith::MaxUIOp::create(b, loc, numK, c64(b, loc, 1))
                          .getResult();
  // Carried: the fp32 sums and the rounding error of their last update.
  auto chunks = scf::ForOp::create(b, loc, c64(b, loc, 0), numK, chunk,
                                   ValueRange{zero, zero});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value c0 = chunks.getInductionVar();
  Value small = chunks.getRegionIterArgs()[1], large;
  kTile(c0, small, large, /*first=*/true);
  Value cEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, c0, chunk), numK);
  auto rest = scf::ForOp::create(
      b, loc, arith::AddIOp::create(b, loc, c0, c64(b, loc, 1)), cEnd,
      c64(b, loc, 1), ValueRange{small, large});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(rest.getBody());
    Value s = rest.getRegionIterArgs()[0], l = rest.getRegionIterArgs()[1];
    kTile(rest.getInductionVar(), s, l, /*first=*/false);
    scf::YieldOp::create(b, loc, ValueRange{s, l});
  }
  // Promotion: the chunk's tensor-core sums into the fp32 registers.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  releaseStage(b, loc, bars, leader, arith::AddIOp::create(b, loc, kBase, cEnd),
               1);
  // Each add of a chunk into the sums rounds; what it loses (Fast2Sum:
  // part - (new - old), exact while the sums outgrow a chunk) starts the
  // next chunk's small sums, so no promotion's rounding is lost. Against
  // plain adds: 0.4-0.8x the max error at K = 1000-8192, 7-10% slower on
  // W2/W3, since the adds sit between the two warpgroups' drained wgmmas
  // (bench/results/H100-2026-11-24-session12.md).
  Value sums = chunks.getRegionIterArgs()[0];
  Value error = zero;
  for (int64_t e = 0; e < numAcc; ++e) {
    Value part = arith::AddFOp::create(
        b, loc, LLVM::ExtractValueOp::create(b, loc, rest.getResult(1), e),
        LLVM::ExtractValueOp::create(b, loc, rest.getResult(0), e));
    Value old = LLVM::ExtractValueOp::create(b, loc, sums, e);
    Value s = arith::AddFOp::create(b, loc, old, part);
    Value lost = arith::SubFOp::create(
        b, loc, part, arith::SubFOp::create(b, loc, s, old));
    sums = LLVM::InsertValueOp::create(b, loc, sums, s, e);
    error = LLVM::InsertValueOp::create(b, loc, error, lost, e);
  }
  scf::YieldOp::create(b, loc, ValueRange{sums, error});
  b.setInsertionPointAfter(chunks);
  return chunks.getResult(0);
}
