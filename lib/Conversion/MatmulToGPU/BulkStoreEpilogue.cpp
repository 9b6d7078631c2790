//===- BulkStoreEpilogue.cpp - wgmma_tma results through bulk copies ------===//
//
// The epilogue of wgmma_tma where its output rows fit in shared memory
// beside the stages (StageGeometry::bulkStores): each consumer warpgroup
// writes kBulkRows of its output rows at a time into shared memory, then
// one thread per row starts a bulk copy of the row to global memory
// (cp.async.bulk, whole 16-byte chunks) and the warpgroup goes on, to its
// next rows or its next tile's main loop, while the copies run. Stored
// from registers instead, two results per lane make 8 or 16-byte pieces of
// rows, and the tensor cores wait for every store.
//
//===----------------------------------------------------------------------===//

#include "MmaEmitter.h"

#include "RegisterEpilogue.h"
#include "TmaPipeline.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

/// Per round (the layout's row r: rows g + 8r of each warp's 16, kBulkRows
/// per warpgroup): wait until this warpgroup's copies of the round before
/// have read the staged rows, write the round's results there (named
/// barrier 1 + warpgroup, its 128 threads), make them visible to the copies
/// (the async proxy), and let thread i < kBulkRows of the warpgroup copy
/// staged row i: warp i / 8's row i % 8 + 8r, clipped to M and N.
LogicalResult MmaEmitter::emitBulkStoreEpilogue(
    ValueRange acc, const AccumulatorLayout &layout, EpilogueInputs &inputs,
    function_ref<Value(int64_t)> colOf) {
  constexpr int64_t kGroupThreads = 128;
  // Named barriers 1 and 2 (0 is the block's, at the kernel's start).
  constexpr int64_t kFirstGroupBarrier = 1;
  int64_t pitch = t.bulkRowPitch(), resBytes = t.resultBytes;
  // wgmma_tma (MmaTiling.cpp): one warp per 16 rows and all BN columns,
  // four per warpgroup, two warpgroups.
  assert(t.wm == 16 && t.wn == t.bn && t.bm == 128 && "wgmma_tma's warps");
  Value warp = arith::DivUIOp::create(b, loc, warpRow0, c64(16));
  Value group = arith::DivUIOp::create(b, loc, warp, c64(4));
  Value warpInGroup = arith::RemUIOp::create(b, loc, warp, c64(4));
  // No call below takes two IR-building calls as arguments (MmaEmitter.h).
  Value groupOff = mul(group, c64(StageGeometry::kBulkRows * pitch));
  Value groupBase = add(c64(t.bulkStagingOffset()), groupOff);
  // This thread's staged row, and its index in the warpgroup.
  Value slot = add(mul(warpInGroup, c64(8)), g);
  Value laneIdx = add(mul(g, c64(4)), tq);
  Value inGroup = add(mul(warpInGroup, c64(32)), laneIdx);
  Value barrierId = toI32(add(group, c64(kFirstGroupBarrier)));
  auto groupBarrier = [&]() {
    NVVM::BarrierOp::create(b, loc, Type(), barrierId, c32(kGroupThreads),
                            NVVM::BarrierReductionAttr(), Value());
  };
  Value resBytesC = c64(resBytes);
  Value colsLeft = sub(n, blockN);
  Value cols = arith::MinUIOp::create(b, loc, c64(t.bn), colsLeft);
  Value rowBytes = toI32(mul(cols, resBytesC));
  for (int64_t r = 0; r < layout.rows(); ++r) {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0u, b.getUnitAttr());
    groupBarrier();
    Value slotBase = add(groupBase, mul(slot, c64(pitch)));
    if (failed(emitEpilogueInBatches(
            acc, layout, inputs, colOf, {r},
            [&](int64_t, int64_t, Value, Value, Value col, Value v) {
              Value inTile = sub(col, blockN);
              Value off = add(slotBase, mul(inTile, resBytesC));
              LLVM::StoreOp::create(b, loc, v,
                                    tma::sharedByte(b, loc, smemBase, off),
                                    /*alignment=*/2 * resBytes);
            })))
      return failure();
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    groupBarrier();
    Value roundRow = c64(8 * r);
    Value rowInSlot = arith::RemUIOp::create(b, loc, inGroup, c64(8));
    Value rowInWarp = add(rowInSlot, roundRow);
    Value slotWarp = arith::DivUIOp::create(b, loc, inGroup, c64(8));
    Value firstWarp = mul(group, c64(4));
    Value rowWarp = add(firstWarp, slotWarp);
    Value row = add(add(blockM, mul(rowWarp, c64(16))), rowInWarp);
    Value inM = lt(row, m);
    Value copier = lt(inGroup, c64(StageGeometry::kBulkRows));
    Value copies = both(copier, inM);
    auto ifOp = scf::IfOp::create(b, loc, copies, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value dst = gepElement(b, loc, cPtr, resElem, add(mul(row, n), blockN));
    Value src = tma::sharedByte(b, loc, smemBase,
                                add(groupBase, mul(inGroup, c64(pitch))));
    NVVM::CpAsyncBulkSharedCTAToGlobalOp::create(b, loc, dst, src, rowBytes,
                                                 Value(), Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  }
  return success();
}

/// Before the block exits: every copy this thread started is done (and has
/// read its staged row, which exits with the block).
void MmaEmitter::emitBulkStoreDrain() {
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0u, UnitAttr());
}
