//===- TmaPipeline.cpp - the TMA copy pipeline of wgmma_tma ---------------===//

#include "TmaPipeline.h"

#include "WgmmaSteps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::tma;

/// If `cond`, arrives on the empty barrier of k iteration it - back.
void mlir::fuser::releaseStage(OpBuilder &b, Location loc,
                               const TmaBarriers &bars, Value cond, Value it,
                               int64_t back) {
  const StageGeometry &t = bars.t;
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // (it - back) % STAGES without going below zero.
  Value stage = arith::RemUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, it, constI64(b, loc, t.stages - back)),
      constI64(b, loc, t.stages));
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
        NVVM::MapaOp::create(b, loc, clusterPtr, empty, constI32(b, loc, r));
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), remote, Value(),
        NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
  }
}

Value TmaBarriers::full(OpBuilder &b, Location loc, Value stage) const {
  Value off = arith::AddIOp::create(
      b, loc, constI64(b, loc, t.stages * t.stageBytes()),
      arith::MulIOp::create(b, loc, stage, constI64(b, loc, 8)));
  return sharedByte(b, loc, stages, off);
}

Value TmaBarriers::empty(OpBuilder &b, Location loc, Value stage) const {
  Value s = arith::AddIOp::create(b, loc, stage, constI64(b, loc, t.stages));
  return full(b, loc, s);
}

Value TmaBarriers::split(OpBuilder &b, Location loc, Value stage) const {
  Value s =
      arith::AddIOp::create(b, loc, stage, constI64(b, loc, 2 * t.stages));
  return full(b, loc, s);
}

void mlir::fuser::emitTmaBarrierInit(OpBuilder &b, Location loc,
                                     const TmaBarriers &bars, Value tid) {
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      constI64(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < bars.t.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc,
                                   bars.full(b, loc, constI64(b, loc, s)),
                                   constI32(b, loc, 1), Value());
      NVVM::MBarrierInitOp::create(
          b, loc, bars.empty(b, loc, constI64(b, loc, s)),
          constI32(b, loc, bars.t.consumerWarps() * bars.t.clusterM), Value());
      if (bars.t.splitInShared())
        NVVM::MBarrierInitOp::create(
            b, loc, bars.split(b, loc, constI64(b, loc, s)),
            constI32(b, loc, bars.t.splitterThreads()), Value());
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
                                  Value bRowK0, Value clusterRank, Value mapP) {
  const StageGeometry &t = bars.t;
  MLIRContext *ctx = b.getContext();
  auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
  auto loop = scf::ForOp::create(b, loc, constI64(b, loc, 0), numK,
                                 constI64(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value it = arith::AddIOp::create(b, loc, kBase, kt);
  Value stage = arith::RemUIOp::create(b, loc, it, constI64(b, loc, t.stages));
  Value refill = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, it,
                                       constI64(b, loc, t.stages));
  auto wait = scf::IfOp::create(b, loc, refill, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(wait.thenBlock());
    Value prev = arith::SubIOp::create(b, loc, it, constI64(b, loc, t.stages));
    NVVM::MBarrierTryWaitParityOp::create(b, loc, bars.empty(b, loc, stage),
                                          roundParity(b, loc, prev, t.stages),
                                          constI32(b, loc, kWaitTicks));
  }
  Value full = bars.full(b, loc, stage);
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, Type(), full, constI32(b, loc, t.tmaBytes()),
      NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), Value());
  Value stageOff =
      arith::MulIOp::create(b, loc, stage, constI64(b, loc, t.stageBytes()));
  Value kTile = kFirst ? Value(arith::AddIOp::create(b, loc, kFirst, kt)) : kt;
  Value k0 = truncI32(
      b, loc, arith::MulIOp::create(b, loc, kTile, constI64(b, loc, t.bk)));
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
        b, loc, dst, map, ValueRange{col, truncI32(b, loc, row)}, full,
        ValueRange{}, multicast ? everyBlock : Value(), Value(),
        NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
        b.getBoolAttr(false), nullptr, Value());
  };
  copy(mapA, stageOff, k0, blockM);
  if (t.prologueInput)
    copy(mapP,
         arith::AddIOp::create(b, loc, stageOff,
                               constI64(b, loc, t.copyBytes())),
         k0, blockM);
  Value bOff = arith::AddIOp::create(b, loc, stageOff,
                                     constI64(b, loc, t.aStageBytes()));
  if (!t.transposesB() && t.clusterM > 1) {
    // This block's share of B: rows rank * BN / clusterM on.
    Value share = arith::MulIOp::create(b, loc, clusterRank,
                                        constI64(b, loc, t.bBoxRows()));
    Value off = arith::AddIOp::create(
        b, loc, bOff,
        arith::MulIOp::create(b, loc, share,
                              constI64(b, loc, t.bk * t.elemBytes())));
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
  Value kRow = arith::MulIOp::create(b, loc, kTile, constI64(b, loc, t.bk));
  if (bRowK0)
    kRow = arith::AddIOp::create(b, loc, bRowK0, kRow);
  constexpr int64_t boxCols = StageGeometry::kNMajorBoxCols;
  if (t.clusterM > 1) {
    // This block's share: boxes rank, rank + clusterM, ...
    for (int64_t j = 0; j < t.bn / boxCols; j += t.clusterM) {
      Value box =
          arith::AddIOp::create(b, loc, clusterRank, constI64(b, loc, j));
      Value off = arith::AddIOp::create(
          b, loc, bOff,
          arith::MulIOp::create(
              b, loc, box, constI64(b, loc, boxCols * t.bk * t.elemBytes())));
      Value col = truncI32(
          b, loc,
          arith::AddIOp::create(
              b, loc, blockN,
              arith::MulIOp::create(b, loc, box, constI64(b, loc, boxCols))));
      copy(mapB, off, col, kRow, /*multicast=*/true);
    }
    return;
  }
  for (int64_t j = 0; j < t.bn / boxCols; ++j) {
    Value off = arith::AddIOp::create(
        b, loc, bOff, constI64(b, loc, j * boxCols * t.bk * t.elemBytes()));
    Value col = truncI32(
        b, loc,
        arith::AddIOp::create(b, loc, blockN, constI64(b, loc, j * boxCols)));
    copy(mapB, off, col, kRow);
  }
}

ConsumerThread mlir::fuser::consumerThread(OpBuilder &b, Location loc,
                                           const TmaBarriers &bars, Value tid) {
  const StageGeometry &t = bars.t;
  // Warpgroup g's A rows start 64 g rows into the stage.
  Value group = arith::DivUIOp::create(b, loc, tid, constI64(b, loc, 128));
  Value aGroupOff = arith::MulIOp::create(
      b, loc, group, constI64(b, loc, 64 * t.bk * t.elemBytes()));
  Value lane = arith::RemUIOp::create(b, loc, tid, constI64(b, loc, 32));
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                       constI64(b, loc, 0));
  Value base = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), bars.stages);
  return {aGroupOff, leader, base};
}

/// The top of a consumer's k iteration `it`: wait for round it / STAGES of
/// its stage's barrier `ready` (full, or split with 3xtf32), then the
/// shared addresses of the warpgroup's A rows and of B in that stage.
std::pair<Value, Value> mlir::fuser::waitForStage(
    OpBuilder &b, Location loc, const TmaBarriers &bars,
    const ConsumerThread &c, Value it,
    Value (TmaBarriers::*ready)(OpBuilder &, Location, Value) const) {
  const StageGeometry &t = bars.t;
  Value stage = arith::RemUIOp::create(b, loc, it, constI64(b, loc, t.stages));
  NVVM::MBarrierTryWaitParityOp::create(b, loc, (bars.*ready)(b, loc, stage),
                                        roundParity(b, loc, it, t.stages),
                                        constI32(b, loc, kWaitTicks));
  Value stageAddr = arith::AddIOp::create(
      b, loc, c.base,
      arith::MulIOp::create(b, loc, stage, constI64(b, loc, t.stageBytes())));
  Value aAddr = arith::AddIOp::create(b, loc, stageAddr, c.aGroupOff);
  Value bAddr = arith::AddIOp::create(b, loc, stageAddr,
                                      constI64(b, loc, t.aStageBytes()));
  return {aAddr, bAddr};
}

Value mlir::fuser::emitTmaConsumer(OpBuilder &b, Location loc,
                                   const TmaBarriers &bars, Value numK,
                                   Value tid, int64_t numAcc, Value kBase) {
  const StageGeometry &t = bars.t;
  auto structTy = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numAcc, b.getF32Type()));
  Value init = LLVM::ZeroOp::create(b, loc, structTy);
  ConsumerThread c = consumerThread(b, loc, bars, tid);
  Value leader = c.leader;
  auto loop = scf::ForOp::create(b, loc, constI64(b, loc, 0), numK,
                                 constI64(b, loc, 1), ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value it = arith::AddIOp::create(b, loc, kBase, kt);
    auto [aAddr, bAddr] = waitForStage(b, loc, bars, c, it, &TmaBarriers::full);
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Value acc =
        emitWgmmaSteps(b, loc, t, loop.getRegionIterArgs()[0], aAddr, bAddr);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // Tile kt - 1's wgmmas are done once one group is left in flight: each
    // warp releases that stage.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value hasPrev = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kt,
                                          constI64(b, loc, 0));
    releaseStage(b, loc, bars, arith::AndIOp::create(b, loc, hasPrev, leader),
                 it, 1);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // The last k tile's stage, for the block's next output tile.
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, numK,
                                    constI64(b, loc, 0));
  releaseStage(b, loc, bars, arith::AndIOp::create(b, loc, any, leader),
               arith::AddIOp::create(b, loc, kBase, numK), 1);
  return loop.getResult(0);
}
