//===- WgmmaTmaKernel.cpp - the TMA-fed wgmma GEMM kernel (wgmma_tma) -----===//
//
// Warp-specialized around the TMA pipeline (TmaPipeline.h; with 3xtf32 its
// splitter and promoted sums, SplitTf32.h): a producer warpgroup copies,
// two consumer warpgroups multiply and run the shared epilogue
// (MmaEpilogue.cpp). Persistent: at most max_grid blocks loop over the
// output tiles, (batch, tile) or (tile, K slice) pairs, the operands passed
// as tensor maps.
//
//===----------------------------------------------------------------------===//

#include "GemmKernelPlan.h"

#include "MmaEmitter.h"
#include "SplitTf32.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <functional>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

namespace {

/// Registers per thread after setmaxnreg: consumers hold the accumulators
/// (2 x 128 x 232 + 128 x 40 fits the 64K register file).
constexpr int64_t kTmaConsumerRegs = 232;
constexpr int64_t kTmaProducerRegs = 40;
/// 3xtf32 moves 8 from each consumer to the producer warpgroup, whose
/// splitter then keeps 4 loads in flight instead of 2 (one 16-byte chunk's
/// latency each, from shared memory the tensor cores keep busy): W2 1%,
/// W3 10% faster (H100, 2026-11-24, bench/experiments/split_variants.py). The
/// launch's 168 per thread become 56 + 2 x 224.
constexpr int64_t kTmaSplitConsumerRegs = 224;
constexpr int64_t kTmaSplitProducerRegs = 56;

class WgmmaTmaKernel : public MmaEmitter {
public:
  using MmaEmitter::MmaEmitter;
  LogicalResult emit();

private:
  /// One output tile's work in a role's loop over the block's tiles (or,
  /// with split K, (tile, slice) pairs, the loop carrying kBase): its k
  /// iterations (numK, the first `kBase` after the block's earlier ones),
  /// and with split K its first K tile and its slice.
  struct TileWork {
    Value kBase, numK;
    Value kFirst = {}, slice = {};
    scf::ForOp loop = {};
    /// The tile's number (without split K).
    Value tile = {};
  };
  void closeTileLoop(TileWork work);

  /// A batched matmul: the batch of the tile being opened.
  Value tileBatch;
};

} // namespace

/// The wgmma_tma kernel: the consumer warpgroups run the main loop
/// (TmaPipeline.h, SplitTf32.h) and the epilogue, the last warpgroup's first
/// thread the copies. setmaxnreg moves registers from the producer warpgroup to
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
LogicalResult WgmmaTmaKernel::emit() {
  GemmKernelArgs args = emitEntry();
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
    mTiles = !constant(m) ? args.mTiles
             : t.clusterM == 1
                 ? ceilDiv(m, t.bm)
                 : mul(ceilDiv(m, t.bm * t.clusterM), c64(t.clusterM));
    batchTiles = constant(m) && constant(n) ? mul(mTiles, ceilDiv(n, t.bn))
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
    work.loop = loop;
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
      return TileWork{loop.getRegionIterArgs()[0], count, kFirst, slice, loop};
    };
  }
  int64_t consumers = 32 * t.warps();
  auto role = scf::IfOp::create(b, loc, lt(tid, c64(consumers)),
                                /*withElse=*/true);
  b.setInsertionPointToStart(role.elseBlock());
  NVVM::SetMaxRegisterOp::create(
      b, loc,
      b.getI32IntegerAttr(t.splitInShared() ? kTmaSplitProducerRegs
                                            : kTmaProducerRegs),
      NVVM::SetMaxRegisterActionAttr::get(
          b.getContext(), NVVM::SetMaxRegisterAction::decrease));
  auto producer =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              tid, c64(consumers)),
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
    // Warps 1 and 2 of the producer warpgroup (and 3, with an N-major B or
    // threeWarpFlatSplit) write the lo parts.
    b.setInsertionPointAfter(producer);
    Value sid = sub(tid, c64(consumers + 32));
    auto splitter = scf::IfOp::create(b, loc, lt(sid, c64(t.splitterThreads())),
                                      /*withElse=*/false);
    b.setInsertionPointToStart(splitter.thenBlock());
    TileWork split = openTileLoop();
    emitTmaSplitter(b, loc, bars, split.numK, sid, split.kBase,
                    t.prologue ? PrologueFn(applyPrologue) : nullptr);
    closeTileLoop(split);
  }

  b.setInsertionPointToStart(role.thenBlock());
  NVVM::SetMaxRegisterOp::create(
      b, loc,
      b.getI32IntegerAttr(t.splitInShared() ? kTmaSplitConsumerRegs
                                            : kTmaConsumerRegs),
      NVVM::SetMaxRegisterActionAttr::get(
          b.getContext(), NVVM::SetMaxRegisterAction::increase));
  int64_t numAcc = t.mTiles() * t.nTiles() * 4;
  TileWork consumed = openTileLoop();
  Value accStruct = t.splitInShared()
                        ? emitTmaSplitConsumer(b, loc, bars, consumed.numK, tid,
                                               numAcc, consumed.kBase)
                        : emitTmaConsumer(b, loc, bars, consumed.numK, tid,
                                          numAcc, consumed.kBase);
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
    emitPartialStore(acc, consumed.slice, fragmentLayout());
  else if (failed(emitEpilogue(acc, fragmentLayout())))
    return failure();
  inM.reset();
  cPtr = args.c;
  epiArgs = args.epilogue;
  closeTileLoop(consumed);
  if (t.bulkStores) {
    b.setInsertionPointAfter(consumed.loop);
    emitBulkStoreDrain();
  }
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
void WgmmaTmaKernel::closeTileLoop(TileWork work) {
  if (work.loop.getNumRegionIterArgs() == 0)
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(work.loop.getBody());
  scf::YieldOp::create(b, loc, add(work.kBase, work.numK));
}

FailureOr<GemmKernelPlan>
mlir::fuser::planWgmmaTmaKernel(MatmulOp op, KernelConfigAttr config,
                                const ChipInfo &chip) {
  FailureOr<MmaTiling> t = getMmaTiling(op, config, GemmStrategy::wgmma_tma,
                                        chip.maxSharedBytesPerBlock);
  if (failed(t))
    return failure();
  GemmKernelPlan p = planMmaKernel<WgmmaTmaKernel>(op, *t);
  p.persistent = true;
  p.kTile = t->bk;
  // [BM, BK] boxes of A, [BN, BK] of B (each block of a cluster copies its
  // share), 128-byte swizzled; an N-major B (K x N rows): [BK, 32] boxes
  // the splitter transposes.
  int64_t swizzle = t->bk * t->elemBytes();
  p.mapA = {t->bm, t->bk, swizzle};
  p.mapB = t->transposesB()
               ? TensorMapBox{t->bk, StageGeometry::kNMajorBoxCols,
                              StageGeometry::kNMajorBoxCols * t->elemBytes()}
               : TensorMapBox{t->bBoxRows(), t->bk, swizzle};
  return p;
}
