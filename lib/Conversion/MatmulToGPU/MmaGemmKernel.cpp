//===- MmaGemmKernel.cpp - tensor-core (mma.sync) GEMM kernel -------------===//
//
// The kernel, for a block's BM x BN tile of C = epilogue(A * B):
//
//   issue cp.async copies of k tiles 0 .. STAGES-2 into their stages
//   for kt in [0, ceil(K / BK)):
//     wait until k tile kt has landed; barrier
//     issue the copies of k tile kt + STAGES - 1 into the stage that
//       k tile kt - 1 used (every warp is past it: the barrier)
//     for each mma K step of the tile (unrolled; ptxas schedules the loads):
//       load the warp's A and B fragments from shared memory (32-bit
//       loads, conflict free thanks to padded rows), round f32 to tf32
//       (cvt.rna; 3xtf32 also keeps the rounding error as a second tf32)
//       or widen it to f64 (exact; precision fp64)
//       mma.sync every (16 x 8) piece of the warp's WM x WN tile
//   epilogue on the accumulators in registers, two columns at a time
//
// Shared memory holds A as [BM][BK] (K contiguous), B as [BN][BK] when
// transpose_b (nn.Linear's layout) else [BK][BN]: exactly the global
// layouts, so every copy is a 16-byte cp.async whose source size clips the
// edges of the matrices (zero fill). When a row pitch (K, or N for a K x N
// B) is not a multiple of 16 bytes the chunks are not aligned; the kernel
// then fills the stages with predicated scalar loads and shared stores.
//
// Fragment layouts (PTX ISA, mma.m16n8k8 .tf32/.f64 and mma.m16n8k16
// .bf16), with g = lane / 4 and t = lane % 4 (f64 takes the tf32 positions):
//   tf32 A: a0 (g, t) a1 (g+8, t) a2 (g, t+4) a3 (g+8, t+4); B: b0 (k t, n g)
//     b1 (k t+4, n g).
//   bf16 A: 32-bit pairs at (g, 2t) (g+8, 2t) (g, 2t+8) (g+8, 2t+8); B: pairs
//     along k at (2t, g) and (2t+8, g).
// (C's layout: MmaEpilogue.cpp.)
//
// This file: getMmaTiling, buildMmaGemmKernel and the members of
// MmaEmitter (MmaEmitter.h) for the kernel's entry and the cp.async /
// mma.sync main loop. The epilogue is in MmaEpilogue.cpp, the wgmma and
// wgmma_tma kernels in WgmmaKernel.cpp.
//
//===----------------------------------------------------------------------===//

#include "MmaGemmKernel.h"

#include "GemmKernelArgs.h"
#include "MmaEmitter.h"

#include "GuardedAccess.h"
#include "WgmmaTmaLoop.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "fuser-matmul-to-gpu"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

/// Largest dynamic shared memory a Hopper block may opt into (227 KiB).
constexpr int64_t kMaxSharedBytes = 232448;

FailureOr<MmaTiling> mlir::fuser::getMmaTiling(MatmulOp op,
                                               KernelConfigAttr config,
                                               GemmStrategy strategy) {
  MLIRContext *ctx = op.getContext();
  StringRef precision = config.getPrecision();
  Type want;
  if (precision == "tf32" || precision == "3xtf32" || precision == "fp64")
    want = Float32Type::get(ctx);
  else if (precision == "bf16")
    want = BFloat16Type::get(ctx);
  else if (precision == "f16")
    want = Float16Type::get(ctx);
  else
    return op.emitOpError() << "precision '" << precision
                            << "' has no tensor-core ('mma') kernel; use "
                               "tf32, 3xtf32, fp64, bf16 or f16";
  Type a = elementTypeOf(op.getLhs().getType());
  Type bt = elementTypeOf(op.getRhs().getType());
  if (a != want || bt != want)
    return op.emitOpError()
           << "precision '" << precision << "' needs " << want
           << " operands, got " << a << " x " << bt
           << " (tf32, 3xtf32 and fp64 take f32; bf16 and f16 take their own "
              "type)";
  Type c = elementTypeOf(op.getResult().getType());
  if (!isa<Float32Type, BFloat16Type, Float16Type>(c))
    return op.emitOpError() << "the tensor-core kernel writes f32, bf16 or "
                               "f16 results, not "
                            << c;
  for (Value in : op.getEpilogueInputs())
    if (failed(checkLoadableElementType(op, in.getType())))
      return failure();
  if (op.getTransposeA())
    return op.emitOpError() << "transpose_a (an M-major A) needs the '"
                            << stringifyGemmStrategy(GemmStrategy::ffma)
                            << "' strategy; the tensor-core kernels read "
                               "K-major A";
  if (op.isBatched() && strategy == GemmStrategy::wgmma)
    return op.emitOpError() << "a batched matmul needs the '"
                            << stringifyGemmStrategy(GemmStrategy::mma)
                            << "', '"
                            << stringifyGemmStrategy(GemmStrategy::wgmma_tma)
                            << "' or '"
                            << stringifyGemmStrategy(GemmStrategy::ffma)
                            << "' strategy";

  ArrayRef<int64_t> tile = config.getTile();
  if (tile.size() != 6)
    return op.emitOpError() << "the 'mma' strategy needs a config tile of "
                               "[BM, BN, BK, WM, WN, STAGES], got "
                            << tile.size() << " sizes";
  MmaTiling t{tile[0], tile[1], tile[2], tile[3], tile[4], tile[5], want,
              precision, op.getTransposeB(), strategy};
  t.promoteEvery = config.getPromoteEvery();
  t.splitK = config.getSplitK();
  t.clusterM = config.getClusterM();
  t.groupM = config.getGroupM();
  t.prologue = op.hasPrologue(); // plan() checked the record reads it
  t.prologueInput = !op.getPrologueInputs().empty();
  auto describe = [&](InFlightDiagnostic diag) {
    diag << stringifyGemmStrategy(strategy) << " tile [" << t.bm << ", " << t.bn
         << ", " << t.bk << ", " << t.wm << ", " << t.wn << ", " << t.stages
         << "] ";
    return diag;
  };
  if (t.wgmma() &&
      (!llvm::is_contained(getGemmStrategyRecord(strategy).precisions,
                           precision) ||
       t.wm != 16 || t.wn != t.bn || t.bm % 64 || t.bn % 8 || t.bn > 256 ||
       t.bk * t.elemBytes() != 128 || t.stages < 3))
    return describe(op.emitOpError())
           << "unsupported: wgmma needs tf32, bf16 or f16 (wgmma_tma: or "
              "3xtf32), WM = 16, WN = BN (at most 256, a multiple of 8), BM "
              "a multiple of 64, BK of 128 bytes and at least 3 stages";
  // An N-major B: only 3xtf32 on wgmma_tma, whose splitter transposes it.
  if (t.wgmma() && !t.transB &&
      (!t.splitInShared() || t.bn % MmaTiling::kNMajorBoxCols ||
       !op.hasTmaCopyableNMajorB(t.bk)))
    return describe(op.emitOpError())
           << "unsupported: wgmma reads K-major B (transpose_b); an N-major "
              "B needs precision 3xtf32 on wgmma_tma, BN a multiple of "
           << MmaTiling::kNMajorBoxCols
           << " and static N rows a multiple of 16 bytes apart (batched: K a "
              "multiple of BK)";
  if (t.wm % 16 || t.wn % 8 || t.bm % t.wm || t.bn % t.wn ||
      t.bk % t.kStep() || t.stages < 2)
    return describe(op.emitOpError())
           << "unsupported: WM must be a multiple of 16 and WN of 8, "
              "dividing BM and BN; BK a multiple of "
           << t.kStep() << "; at least 2 stages";
  if (op.hasGroupNorm()) {
    // Each group: whole m16n8 pieces of one warp's row (normalizeGroups).
    int64_t groupSize = *op.getNormGroupSize();
    if (groupSize % 8 || t.wn % groupSize || !llvm::isPowerOf2_64(groupSize))
      return describe(op.emitOpError())
             << "cannot hold group_norm(size = " << groupSize
             << "): a group must be a power of two of whole 8-column pieces "
                "of a warp's "
             << t.wn << " columns";
    if (!elementTypeOf(op.getResult().getType()).isF32())
      return op.emitOpError() << "the group-norm epilogue needs an f32 result";
  }
  if (t.threads() > 1024)
    return describe(op.emitOpError()) << "needs " << t.threads()
                                      << " threads; the limit is 1024";
  if (config.getBlock()[0] != t.threads() || config.getBlock()[1] != 1 ||
      config.getBlock()[2] != 1)
    return describe(op.emitOpError())
           << "needs a block of [" << t.threads() << ", 1, 1] (one warp per "
           << t.wm << " x " << t.wn << " outputs"
           << (t.tma() ? ", and a producer warpgroup)" : ")");
  if (t.tma() && op.hasGroupNorm() && !t.split3())
    return describe(op.emitOpError())
           << "holds a group norm only in precision 3xtf32; use the 'mma' "
              "strategy";
  if (t.promoteEvery && (!t.splitInShared() || t.promoteEvery % t.bk))
    return describe(op.emitOpError())
           << "promote_every = " << t.promoteEvery
           << " needs precision 3xtf32 on wgmma_tma and a multiple of BK";
  // Two accumulator sets (the tensor cores' and the promoted sums) in the
  // consumers' registers; the splitter's threads take the lo parts in
  // whole groups of four 16-byte chunks each.
  if (t.splitInShared() &&
      (t.bn > 128 || (t.copyBytes() / 16) % (kSplitterThreads * 4) ||
       (t.aStageBytes() / 16) % (kSplitterThreads * 4)))
    return describe(op.emitOpError())
           << "unsupported: 3xtf32 on wgmma_tma needs BN <= 128 (three "
              "accumulator sets in registers) and a stage the consumers "
              "split in whole 16-byte chunks";
  // setmaxnreg's split (232 / 40 registers, 224 / 56 for 3xtf32) is sized
  // for two consumer warpgroups and a producer: 2 x 232 + 40 per thread
  // triple fit 64K.
  if (t.tma() && t.bm != 128)
    return describe(op.emitOpError())
           << "unsupported: wgmma_tma needs BM = 128 (two consumer "
              "warpgroups)";
  if (t.splitK > 1 && (!t.tma() || op.hasGroupNorm() || op.isBatched()))
    return describe(op.emitOpError())
           << "cannot split K (split_k = " << t.splitK
           << "): split K needs the '"
           << stringifyGemmStrategy(GemmStrategy::wgmma_tma)
           << "' strategy, a 2-D product and no group norm (its statistics "
              "need whole sums)";
  // A cluster's blocks number their tiles in pairs along M of one 2-D
  // product and share every k tile's B (GemmStrategy.h's rule).
  if (t.clusterM > 1 &&
      (!t.tma() || config.getMaxGrid() % t.clusterM ||
       !wgmmaTmaClusterError(op, tile, t.splitK, t.clusterM).empty()))
    return describe(op.emitOpError())
           << "cannot run in clusters of " << t.clusterM
           << " blocks: cluster_m needs the '"
           << stringifyGemmStrategy(GemmStrategy::wgmma_tma)
           << "' strategy, a 2-D product, a max_grid of whole clusters and "
              "B tiles that split into a share per block";
  if (t.tma() && !op.hasTmaCopyableK()) {
    int64_t kSize =
        cast<ShapedType>(op.getLhs().getType()).getDimSize(op.getLhsKDim());
    return describe(op.emitOpError())
           << "needs a static, non-zero K whose rows are a multiple of 16 "
              "bytes apart for its tensor maps, got K = "
           << (ShapedType::isDynamic(kSize) ? std::string("?")
                                            : std::to_string(kSize));
  }
  int64_t bRows = t.transB ? t.bn : t.bk, bCols = t.transB ? t.bk : t.bn;
  if (!t.tma() && (t.bk % t.vec() || bCols % t.vec() ||
      (t.bm * t.bk / t.vec()) % t.threads() ||
      (bRows * bCols / t.vec()) % t.threads()))
    return describe(op.emitOpError())
           << "does not split into whole 16-byte copies per thread";
  if (t.sharedBytes() > kMaxSharedBytes)
    return describe(op.emitOpError())
           << "needs " << t.sharedBytes()
           << " bytes of shared memory; a block may have " << kMaxSharedBytes;
  return t;
}

LogicalResult MmaEmitter::emit() {
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

  // 1. Thread coordinates and the shared-memory base.
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
  blockM = args.blockM ? args.blockM
                       : mul(toI64(gpu::BlockIdOp::create(
                                 b, loc, gpu::Dimension::x)),
                             cBm);
  Value cBn = c64(t.bn);
  blockN =
      mul(toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)), cBn);
  auto smemTy = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, smemTy);
  Value smemAddr = toI64(
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem));
  if (t.wgmma()) { // swizzle atoms are 1024-byte aligned
    Value up = add(smemAddr, c64(1023));
    smemAddr = arith::AndIOp::create(b, loc, up, c64(~int64_t(1023)));
  }
  smemBase = LLVM::IntToPtrOp::create(b, loc, smemPtrTy, smemAddr);
  if (t.tma())
    return emitWarpSpecialized(args);

  // 2. The copies: A (M x K); B (N x K) or (K x N). Chunks are 16-byte
  // aligned when the row pitches are multiples of 16 bytes.
  Value aligned = isMultipleOf(k, t.vec());
  if (!t.transB)
    aligned = both(aligned, isMultipleOf(n, t.vec()));
  aCopy = makeCopy(aPtr, t.bm, t.bk, t.aPitch(), m, k, k);
  bCopy = t.transB ? makeCopy(bPtr, t.bn, t.bk, t.bPitch(), n, k, k)
                   : makeCopy(bPtr, t.bk, t.bn, t.bPitch(), k, n, n);

  // 3. Prologue: k tiles 0 .. ahead-1, one commit group each.
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

  // 4. Lane offsets of the fragments inside a stage (elements, i32).
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

  // 5. The main loop, carrying the accumulators. (Loading the next mma
  // step's fragments, and the next tile's first ones across the barrier,
  // before the current step's mma.syncs measured slower on an H100: 76
  // against 129 TFLOP/s in tf32, bench/results/mma-*.md.)
  int64_t numAcc = t.mTiles() * t.nTiles() * 4;
  if (t.wgmma())
    return emitWgmmaLoopAndEpilogue(numK, aligned, numAcc);
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

  // 6. The epilogue in registers.
  if (failed(emitEpilogue(loop.getResults())))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return success();
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
  TileCopy c{ptr, rows, cols / t.vec(), sPitch, rowLimit, colLimit, pitch,
             {}, {}, {}};
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
    Value col = row0 ? col0
                     : mul(arith::RemUIOp::create(b, loc, f,
                                                  c64(c.chunksPerRow)),
                           vec);
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
  Value base = smemAt(smemBase, b.getI8Type(),
                      toI32(mul(stage, c64(t.stageBytes()))));
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

/// A 32-bit shared load at element `lane + off` of region `base`.
Value MmaEmitter::loadShared(Value base, Value lane, int64_t off, Type ty) {
  Value p = smemAt(base, elem, add(lane, c32(off)));
  return LLVM::LoadOp::create(b, loc, ty, p, 4);
}

/// Two adjacent f32 elements at `lane + off` of region `base`, one
/// 64-bit shared load.
std::pair<Value, Value> MmaEmitter::loadPair(Value base, Value lane,
                                             int64_t off) {
  Value p = smemAt(base, elem, add(lane, c32(off)));
  Value v = LLVM::LoadOp::create(b, loc, VectorType::get({2}, f32), p, 8);
  return {vector::ExtractOp::create(b, loc, v, 0),
          vector::ExtractOp::create(b, loc, v, 1)};
}

/// Two consecutive 16-bit elements along k (rows `off` and `off + pitch`
/// of an N-major B tile) packed into one 32-bit register, low half first.
Value MmaEmitter::loadPairAlongRows(Value base, Value lane, int64_t off) {
  auto i16 = b.getI16Type();
  Value lo = arith::ExtUIOp::create(
      b, loc, i32,
      LLVM::LoadOp::create(b, loc, i16,
                           smemAt(base, elem, add(lane, c32(off))), 2));
  Value hi = arith::ExtUIOp::create(
      b, loc, i32,
      LLVM::LoadOp::create(
          b, loc, i16, smemAt(base, elem, add(lane, c32(off + t.bPitch()))),
          2));
  return arith::OrIOp::create(
      b, loc, lo, arith::ShLIOp::create(b, loc, hi, c32(16)));
}

/// cvt.rna.tf32.f32: `x` rounded to tf32, as the i32 mma.sync takes.
Value MmaEmitter::toTf32(Value x) {
  return NVVM::ConvertFloatToTF32Op::create(b, loc, i32, x,
                                            NVVM::FPRoundingMode::RNA);
}

/// The mma operands of 32-bit fragment values: one tf32 (hi) or for
/// 3xtf32 also the rounding error (lo); bf16/f16 words pass as they are.
void MmaEmitter::splitOperands(ArrayRef<Value> raw, SmallVector<Value> &hi,
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
      Value hf = LLVM::BitcastOp::create(b, loc, f32, h);
      lo.push_back(toTf32(arith::SubFOp::create(b, loc, x, hf)));
    }
  }
}

void MmaEmitter::mma(ArrayRef<Value> a, ArrayRef<Value> bv,
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
SmallVector<Value> MmaEmitter::loadFragments(Value stage, int64_t kk) {
  Value aBase = smemAt(smemBase, b.getI8Type(),
                       toI32(mul(stage, c64(t.stageBytes()))));
  Value bBase = smemAt(aBase, elem, c32(t.aStageElems()));
  Type fragTy = elemBytesIs4() ? f32 : i32;
  int64_t halfK = t.kStep() / 2, k0 = kk * t.kStep();
  SmallVector<Value> raw;
  if (t.pairedK()) { // (k t, k t+4) = one 64-bit load (MmaTiling::pairedK)
    for (int64_t i = 0; i < t.mTiles(); ++i) {
      auto [r0, r2] = loadPair(aBase, aLane, i * 16 * t.aPitch() + k0);
      auto [r1, r3] =
          loadPair(aBase, aLane, (i * 16 + 8) * t.aPitch() + k0);
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
          (i * 16 + (r % 2) * 8) * t.aPitch() + k0 + (r / 2) * halfK,
          fragTy));
  for (int64_t j = 0; j < t.nTiles(); ++j) {
    for (int64_t r = 0; r < 2; ++r) {
      if (t.transB)
        raw.push_back(loadShared(bBase, bLane,
                                 j * 8 * t.bPitch() + k0 + r * halfK,
                                 fragTy));
      else if (elemBytesIs4())
        raw.push_back(loadShared(
            bBase, bLane, (k0 + r * halfK) * t.bPitch() + j * 8, fragTy));
      else
        raw.push_back(loadPairAlongRows(
            bBase, bLane, (k0 + r * halfK) * t.bPitch() + j * 8));
    }
  }
  return raw;
}

/// The mma.syncs of one step on raw fragments from loadFragments.
void MmaEmitter::multiplyAccumulate(ArrayRef<Value> raw,
                                    SmallVector<Value> &acc) {
  SmallVector<SmallVector<Value>> aHi(t.mTiles()), aLo(t.mTiles());
  for (int64_t i = 0; i < t.mTiles(); ++i)
    splitOperands(raw.slice(i * 4, 4), aHi[i], aLo[i]);
  ArrayRef<Value> bRaw = raw.drop_front(t.mTiles() * 4);
  SmallVector<SmallVector<Value>> bHi(t.nTiles()), bLo(t.nTiles());
  for (int64_t j = 0; j < t.nTiles(); ++j)
    splitOperands(bRaw.slice(j * 2, 2), bHi[j], bLo[j]);
  for (int64_t i = 0; i < t.mTiles(); ++i) {
    for (int64_t j = 0; j < t.nTiles(); ++j) {
      MutableArrayRef<Value> c(&acc[(i * t.nTiles() + j) * 4], 4);
      if (t.split3()) { // small terms first
        mma(aLo[i], bHi[j], c);
        mma(aHi[i], bLo[j], c);
      }
      mma(aHi[i], bHi[j], c);
    }
  }
}

LogicalResult mlir::fuser::buildMmaGemmKernel(MatmulOp op,
                                              const MmaTiling &tiling,
                                              gpu::GPUFuncOp kernel) {
  return MmaEmitter(op, tiling, kernel).emit();
}
