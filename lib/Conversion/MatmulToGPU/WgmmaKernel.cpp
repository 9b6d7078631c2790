//===- WgmmaKernel.cpp - the wgmma GEMM kernel (strategy wgmma) -----------===//
//
// wgmma.mma_async from the cp.async stages of MmaEmitter.cpp (sm_90a,
// K-major operands): per k tile, wait for its copies, make them visible to
// the async proxy wgmma reads through, barrier, refill, then a warpgroup's
// BK / kStep wgmmas (WgmmaSteps.h) on its 64 x BN accumulators. Ends in the
// shared epilogue (MmaEpilogue.cpp).
//
//===----------------------------------------------------------------------===//

#include "GemmKernelPlan.h"

#include "MmaEmitter.h"
#include "WgmmaSteps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

namespace {

class WgmmaKernel : public MmaEmitter {
public:
  using MmaEmitter::MmaEmitter;
  LogicalResult emit();
};

} // namespace

/// The wgmma main loop: per k tile, wait for its copies, make them
/// visible to the async proxy that wgmma reads through, barrier, issue
/// the copies STAGES - 1 tiles ahead, then BK / kStep wgmma.mma_async on
/// the warpgroup's 64 x BN accumulators, waited for before the stage is
/// reused. The accumulators come out in the mma.sync C layout of one
/// 16-row piece per warp (warp w: rows 16 w ..), so the epilogue is the
/// same.
LogicalResult WgmmaKernel::emit() {
  emitEntry();
  Value aligned;
  Value numK = emitCpAsyncPrologue(aligned);
  int64_t numAcc = t.mTiles() * t.nTiles() * 4;
  MLIRContext *ctx = b.getContext();
  auto structTy =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(numAcc, f32));
  Value init = LLVM::ZeroOp::create(b, loc, structTy);
  // Warpgroup g's A rows start 64 g rows into the stage.
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value group = arith::DivUIOp::create(b, loc, tid, c64(128));
  Value aGroupOff = mul(group, c64(64 * 128));
  auto loop =
      scf::ForOp::create(b, loc, c64(0), numK, c64(1), ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    // The stage refilled here was read by tile kt - 2's wgmmas, which
    // the wait at the end of iteration kt - 1 completed.
    waitThenCopyAhead(kt, numK, aligned, /*asyncProxy=*/true);
    Value stage = arith::RemUIOp::create(b, loc, kt, c64(t.stages));
    Value stageOff = mul(stage, c64(t.stageBytes()));
    Value aAddr = add(add(sharedAddress(), stageOff), aGroupOff);
    Value bAddr = add(add(sharedAddress(), stageOff), c64(t.aStageBytes()));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Value acc =
        emitWgmmaSteps(b, loc, t, loop.getRegionIterArgs()[0], aAddr, bAddr);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // One group stays in flight, overlapping the next tile's barrier.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  SmallVector<Value> acc;
  for (int64_t e = 0; e < numAcc; ++e)
    acc.push_back(LLVM::ExtractValueOp::create(b, loc, loop.getResult(0), e));
  if (failed(emitEpilogue(acc, fragmentLayout())))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
}

FailureOr<GemmKernelPlan> mlir::fuser::planWgmmaKernel(MatmulOp op,
                                                       KernelConfigAttr config,
                                                       const ChipInfo &chip) {
  FailureOr<MmaTiling> t = getMmaTiling(op, config, GemmStrategy::wgmma,
                                        chip.maxSharedBytesPerBlock);
  if (failed(t))
    return failure();
  return planMmaKernel<WgmmaKernel>(op, *t);
}
