//===- WgmmaKernel.cpp - the wgmma and wgmma_tma GEMM kernels -------------===//
//
// The Hopper variants of the tensor-core kernel (MmaEmitter): wgmma, whose
// main loop keeps the cp.async stages of the mma.sync kernel but runs
// wgmma.mma_async from 128-byte-swizzled shared memory, and wgmma_tma,
// warp-specialized around WgmmaTmaLoop.h's TMA producer and consumer loop.
// Both end in the shared epilogue (MmaEpilogue.cpp).
//
//===----------------------------------------------------------------------===//

#include "MmaEmitter.h"

#include "WgmmaTmaLoop.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <functional>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

/// The wgmma_tma kernel: the consumer warpgroups run the main loop
/// (WgmmaTmaLoop.h) and the epilogue, the last warpgroup's first thread
/// the copies. setmaxnreg moves registers from the producer warpgroup to
/// the consumers' accumulators; each role is one branch of one if. A
/// block walks the output tiles bid, bid + grid, ... (M fastest, so
/// neighbours share a B panel in L2, in bands of group_m M tiles so that
/// they share A's rows too); with a grid smaller than the tile
/// count (persistent), the next tile's copies overlap this one's
/// epilogue. With split K, it walks (tile, slice) pairs instead, slice-
/// major, and stores raw sums for the reduction kernel. A batched matmul's
/// tiles are numbered batch-major: the copies read batch z's rows of the
/// stacked views at z * M and z * N, the epilogue C and its inputs at
/// batch z.
LogicalResult MmaEmitter::emitWarpSpecialized(const GemmKernelArgs &args) {
  Value mapA = args.mapA, mapB = args.mapB;
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  TmaBarriers bars{smemBase, t};
  emitTmaBarrierInit(b, loc, bars, tid);
  // The loop counts: the host's parameters (GemmKernelArgs.h), or
  // constants where the sizes are static. Read in each role after its
  // setmaxnreg: ptxas spills values live across setmaxnreg.
  Value numK, mTiles, numTiles, batchTiles, bid, grid;
  auto readTileCounts = [&]() {
    auto constant = [](Value v) { return matchPattern(v, m_Constant()); };
    auto ceilDiv = [&](Value x, int64_t y) -> Value {
      return arith::CeilDivUIOp::create(b, loc, x, c64(y));
    };
    numK = constant(k) ? ceilDiv(k, t.bk) : args.kTiles;
    // In whole clusters, as the host counts them (MatmulToGPU.cpp).
    mTiles = !constant(m)        ? args.mTiles
             : t.clusterM == 1 ? ceilDiv(m, t.bm)
                               : mul(ceilDiv(m, t.bm * t.clusterM),
                                     c64(t.clusterM));
    batchTiles = constant(m) && constant(n)
                     ? mul(mTiles, ceilDiv(n, t.bn))
                     : args.batchTiles;
    numTiles = args.batch ? args.tiles : batchTiles;
    bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    grid = toI64(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  };
  // Bands of t.groupM M tiles (MmaTiling::groupM), unless one band holds
  // every M tile of a static M.
  APInt staticM;
  bool banded = t.groupM > 0 &&
                !(matchPattern(m, m_ConstantInt(&staticM)) &&
                  llvm::divideCeil(staticM.getZExtValue(), t.bm) <= t.groupM);
  // Sets blockM, blockN (and tileBatch) of tile number `tile`.
  auto decodeTile = [&](Value tile) {
    if (args.batch) {
      tileBatch = arith::DivUIOp::create(b, loc, tile, batchTiles);
      tile = arith::RemUIOp::create(b, loc, tile, batchTiles);
    }
    if (!banded) { // M fastest over every M tile
      blockM = mul(arith::RemUIOp::create(b, loc, tile, mTiles), c64(t.bm));
      blockN = mul(arith::DivUIOp::create(b, loc, tile, mTiles), c64(t.bn));
      return;
    }
    // Band `band` holds M tiles firstM .. firstM + rows - 1 (the last band
    // fewer) by every N tile, M fastest within it.
    Value nTiles = arith::CeilDivUIOp::create(b, loc, n, c64(t.bn));
    Value perBand = mul(c64(t.groupM), nTiles);
    Value band = arith::DivUIOp::create(b, loc, tile, perBand);
    Value firstM = mul(band, c64(t.groupM));
    Value rows =
        arith::MinUIOp::create(b, loc, sub(mTiles, firstM), c64(t.groupM));
    Value inBand = sub(tile, mul(band, perBand));
    Value mIndex = add(firstM, arith::RemUIOp::create(b, loc, inBand, rows));
    blockM = mul(mIndex, c64(t.bm));
    blockN = mul(arith::DivUIOp::create(b, loc, inBand, rows), c64(t.bn));
  };
  // Opens the loop over this block's tiles; decodes the tile and returns
  // the k iterations of the earlier tiles.
  std::function<TileWork()> openTileLoop = [&]() {
    readTileCounts();
    auto loop = scf::ForOp::create(b, loc, bid, numTiles, grid);
    b.setInsertionPointToStart(loop.getBody());
    Value tile = loop.getInductionVar();
    decodeTile(tile);
    Value done = arith::DivUIOp::create(b, loc, sub(tile, bid), grid);
    TileWork work{mul(done, numK), numK};
    work.tile = tile;
    return work;
  };
  if (t.splitK > 1) {
    // Slices of whole K tiles; a block's k iterations (which pick the
    // stages and phases) are counted across its pairs, whose lengths
    // differ at the last slice.
    openTileLoop = [&]() {
      readTileCounts();
      Value sliceTiles =
          arith::CeilDivUIOp::create(b, loc, numK, c64(t.splitK));
      Value numPairs = mul(numTiles, c64(t.splitK));
      Value zero = c64(0);
      auto loop =
          scf::ForOp::create(b, loc, bid, numPairs, grid, ValueRange{zero});
      b.setInsertionPointToStart(loop.getBody());
      Value pair = loop.getInductionVar();
      Value tile = arith::RemUIOp::create(b, loc, pair, numTiles);
      Value slice = arith::DivUIOp::create(b, loc, pair, numTiles);
      decodeTile(tile);
      // Slices past K (split_k above the K tiles) store zeros.
      Value kFirst = mul(slice, sliceTiles);
      Value inK = lt(kFirst, numK);
      Value left = sub(numK, kFirst);
      Value count = arith::MinUIOp::create(b, loc, sliceTiles, left);
      count = select(inK, count, c64(0));
      return TileWork{loop.getRegionIterArgs()[0], count, kFirst, slice,
                      loop};
    };
  }
  int64_t consumers = 32 * t.warps();
  auto role = scf::IfOp::create(b, loc, lt(tid, c64(consumers)),
                                /*withElse=*/true);
  b.setInsertionPointToStart(role.elseBlock());
  NVVM::SetMaxRegisterOp::create(
      b, loc, b.getI32IntegerAttr(t.splitInShared() ? kTmaSplitProducerRegs
                                                : kTmaProducerRegs),
      NVVM::SetMaxRegisterActionAttr::get(
          b.getContext(), NVVM::SetMaxRegisterAction::decrease));
  auto producer = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                            c64(consumers)),
      /*withElse=*/false);
  b.setInsertionPointToStart(producer.thenBlock());
  TileWork produced = openTileLoop();
  Value rowA = blockM, rowB = blockN, bRowK0;
  if (args.batch) { // rows of the stacked views
    rowA = add(mul(tileBatch, m), blockM);
    if (t.transposesB())
      bRowK0 = mul(tileBatch, k);
    else
      rowB = add(mul(tileBatch, n), blockN);
  }
  // A cluster's blocks are consecutive along x, and so are its tiles (the
  // grid and the tile count are whole clusters): the same B tile.
  Value clusterRank;
  if (t.clusterM > 1)
    clusterRank = arith::RemUIOp::create(b, loc, bid, c64(t.clusterM));
  emitTmaProducer(b, loc, bars, mapA, mapB, produced.numK, rowA, rowB,
                  produced.kBase, produced.kFirst, bRowK0, clusterRank,
                  args.mapP);
  closeTileLoop(produced);
  // A's prologue on a chunk, element by element (the region's ops cloned).
  auto applyPrologue = [&](OpBuilder &pb, Location ploc, Value a,
                           Value p) -> Value {
    Block &body = op.getPrologue().front();
    auto vecTy = cast<VectorType>(a.getType());
    Value out = LLVM::UndefOp::create(pb, ploc, vecTy);
    for (int64_t e = 0; e < vecTy.getNumElements(); ++e) {
      Value idx = arith::ConstantIntOp::create(pb, ploc, pb.getI64Type(), e);
      IRMapping map;
      map.map(body.getArgument(0),
              LLVM::ExtractElementOp::create(pb, ploc, a, idx));
      if (p)
        map.map(body.getArgument(1),
                LLVM::ExtractElementOp::create(pb, ploc, p, idx));
      for (Operation &inner : body.without_terminator())
        pb.clone(inner, map);
      Value r = map.lookupOrDefault(
          cast<YieldOp>(body.getTerminator()).getValues()[0]);
      out = LLVM::InsertElementOp::create(pb, ploc, out, r, idx);
    }
    return out;
  };
  if (t.splitInShared()) {
    // Warps 1 and 2 of the producer warpgroup (and 3, with an N-major B)
    // write the lo parts.
    b.setInsertionPointAfter(producer);
    Value sid = sub(tid, c64(consumers + 32));
    auto splitter = scf::IfOp::create(
        b, loc, lt(sid, c64(splitterThreads(t))), /*withElse=*/false);
    b.setInsertionPointToStart(splitter.thenBlock());
    TileWork split = openTileLoop();
    emitTmaSplitter(b, loc, bars, split.numK, sid, split.kBase,
                    t.prologue ? PrologueFn(applyPrologue) : nullptr);
    closeTileLoop(split);
  }

  b.setInsertionPointToStart(role.thenBlock());
  NVVM::SetMaxRegisterOp::create(
      b, loc, b.getI32IntegerAttr(t.splitInShared() ? kTmaSplitConsumerRegs
                                                : kTmaConsumerRegs),
      NVVM::SetMaxRegisterActionAttr::get(
          b.getContext(), NVVM::SetMaxRegisterAction::increase));
  int64_t numAcc = t.mTiles() * t.nTiles() * 4;
  TileWork consumed = openTileLoop();
  Value accStruct =
      t.splitInShared()
          ? emitTmaSplitConsumer(b, loc, bars, consumed.numK, tid, numAcc,
                                 consumed.kBase)
          : emitTmaConsumer(b, loc, bars, consumed.numK, tid, numAcc,
                            consumed.kBase);
  SmallVector<Value> acc;
  for (int64_t e = 0; e < numAcc; ++e)
    acc.push_back(LLVM::ExtractValueOp::create(b, loc, accStruct, e));
  if (args.batch) {
    // Decoded again here, not held in registers beside the accumulators
    // through the main loop (ptxas spilled them).
    decodeTile(consumed.tile);
    GemmKernelArgs at = args.atBatch(op, b, tileBatch, /*operands=*/false);
    cPtr = at.c;
    epiArgs = at.epilogue;
  }
  // A cluster's tile past M (M tiles rounded up to whole clusters) only
  // took part in the copies.
  std::optional<OpBuilder::InsertionGuard> inM;
  if (t.clusterM > 1) {
    inM.emplace(b);
    auto ifOp = scf::IfOp::create(b, loc, lt(blockM, m), /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  if (t.splitK > 1)
    emitPartialStore(acc, consumed.slice);
  else if (failed(emitEpilogue(acc)))
    return failure();
  inM.reset();
  cPtr = args.c;
  epiArgs = args.epilogue;
  closeTileLoop(consumed);
  b.setInsertionPointAfter(role);
  // No block exits while another may still copy into it or arrive on its
  // barriers.
  if (t.clusterM > 1)
    emitClusterSync(b, loc);
  gpu::ReturnOp::create(b, loc);
  return success();
}

/// Ends a split-K pair loop's body: the next pair's k iterations start
/// after this one's. (The tile loop has no results.)
void MmaEmitter::closeTileLoop(TileWork work) {
  if (!work.loop)
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(work.loop.getBody());
  scf::YieldOp::create(b, loc, add(work.kBase, work.numK));
}

/// The wgmma main loop: per k tile, wait for its copies, make them
/// visible to the async proxy that wgmma reads through, barrier, issue
/// the copies STAGES - 1 tiles ahead, then BK / kStep wgmma.mma_async on
/// the warpgroup's 64 x BN accumulators, waited for before the stage is
/// reused. The accumulators come out in the mma.sync C layout of one
/// 16-row piece per warp (warp w: rows 16 w ..), so the epilogue is the
/// same.
LogicalResult MmaEmitter::emitWgmmaLoopAndEpilogue(Value numK, Value aligned,
                                                   int64_t numAcc) {
  MLIRContext *ctx = b.getContext();
  auto structTy = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(numAcc, f32));
  Value init = LLVM::ZeroOp::create(b, loc, structTy);
  // Warpgroup g's A rows start 64 g rows into the stage.
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value group = arith::DivUIOp::create(b, loc, tid, c64(128));
  Value aGroupOff = mul(group, c64(64 * 128));
  auto loop = scf::ForOp::create(b, loc, c64(0), numK, c64(1),
                                 ValueRange{init});
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
    Value bAddr = add(add(sharedAddress(), stageOff),
                      c64(t.aStageBytes()));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    Value acc = emitWgmmaSteps(b, loc, t, loop.getRegionIterArgs()[0],
                               aAddr, bAddr);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    // One group stays in flight, overlapping the next tile's barrier.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    scf::YieldOp::create(b, loc, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  SmallVector<Value> acc;
  for (int64_t e = 0; e < numAcc; ++e)
    acc.push_back(
        LLVM::ExtractValueOp::create(b, loc, loop.getResult(0), e));
  if (failed(emitEpilogue(acc)))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
}
