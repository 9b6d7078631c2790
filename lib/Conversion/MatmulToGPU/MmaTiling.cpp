//===- MmaTiling.cpp - tiling and validity of the tensor-core GEMMs -------===//
//
// getMmaTiling: every rule a #fuser.config must satisfy for the mma, wgmma
// and wgmma_tma kernels, checked once before any of them is built.
//
//===----------------------------------------------------------------------===//

#include "MmaTiling.h"

#include "fuser/Conversion/Common/KernelUtils.h"

using namespace mlir;
using namespace mlir::fuser;

FailureOr<MmaTiling> mlir::fuser::getMmaTiling(MatmulOp op,
                                               KernelConfigAttr config,
                                               GemmStrategy strategy,
                                               int64_t maxSharedBytes) {
  MLIRContext *ctx = op.getContext();
  StringRef precision = config.getPrecision();
  Type want;
  if (precision == "tf32" || isSplitPrecision(precision) ||
      precision == "fp64")
    want = Float32Type::get(ctx);
  else if (precision == "bf16")
    want = BFloat16Type::get(ctx);
  else if (precision == "f16")
    want = Float16Type::get(ctx);
  else
    return op.emitOpError() << "precision '" << precision
                            << "' has no tensor-core ('mma') kernel; use "
                               "tf32, 3xtf32, tf32_2xbf16 (wgmma_tma), fp64, bf16 or f16";
  Type a = elementTypeOf(op.getLhs().getType());
  Type bt = elementTypeOf(op.getRhs().getType());
  if (a != want || bt != want)
    return op.emitOpError()
           << "precision '" << precision << "' needs " << want
           << " operands, got " << a << " x " << bt
           << " (tf32, 3xtf32, tf32_2xbf16 and fp64 take f32; bf16 and f16 take their own "
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
    return op.emitOpError()
           << "a batched matmul needs the '"
           << stringifyGemmStrategy(GemmStrategy::mma) << "', '"
           << stringifyGemmStrategy(GemmStrategy::wgmma_tma) << "' or '"
           << stringifyGemmStrategy(GemmStrategy::ffma) << "' strategy";

  ArrayRef<int64_t> tile = config.getTile();
  if (tile.size() != 6)
    return op.emitOpError() << "the 'mma' strategy needs a config tile of "
                               "[BM, BN, BK, WM, WN, STAGES], got "
                            << tile.size() << " sizes";
  MmaTiling t;
  t.bm = tile[0];
  t.bn = tile[1];
  t.bk = tile[2];
  t.wm = tile[3];
  t.wn = tile[4];
  t.stages = tile[5];
  t.elemTy = want;
  t.precision = precision;
  t.transB = op.getTransposeB();
  t.strategy = strategy;
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
  if (t.crossBf16() && !t.tma())
    return describe(op.emitOpError())
           << "unsupported: precision tf32_2xbf16 runs on wgmma_tma only";
  if (t.wgmma() &&
      (!llvm::is_contained(getGemmStrategyRecord(strategy).precisions,
                           precision) ||
       t.wm != 16 || t.wn != t.bn || t.bm % 64 || t.bn % 8 || t.bn > 256 ||
       t.bk * t.elemBytes() != 128 || t.stages < 3))
    return describe(op.emitOpError())
           << "unsupported: wgmma needs tf32, bf16 or f16 (wgmma_tma: or "
              "3xtf32, tf32_2xbf16), WM = 16, WN = BN (at most 256, a multiple of 8), BM "
              "a multiple of 64, BK of 128 bytes and at least 3 stages";
  // An N-major B: only a split precision on wgmma_tma, whose splitter
  // transposes it.
  if (t.wgmma() && !t.transB &&
      (!t.splitInShared() || t.bn % MmaTiling::kNMajorBoxCols ||
       !op.hasTmaCopyableNMajorB(t.bk)))
    return describe(op.emitOpError())
           << "unsupported: wgmma reads K-major B (transpose_b); an N-major "
              "B needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma, BN a multiple of "
           << MmaTiling::kNMajorBoxCols
           << " and static N rows a multiple of 16 bytes apart (batched: K a "
              "multiple of BK)";
  if (t.wm % 16 || t.wn % 8 || t.bm % t.wm || t.bn % t.wn || t.bk % t.kStep() ||
      t.stages < 2)
    return describe(op.emitOpError())
           << "unsupported: WM must be a multiple of 16 and WN of 8, "
              "dividing BM and BN; BK a multiple of "
           << t.kStep() << "; at least 2 stages";
  if (op.hasGroupNorm()) {
    // Each group: whole m16n8 pieces of one warp's row (normalizeGroups).
    int64_t groupSize = *op.getNormGroupSize();
    if (!getGemmStrategyRecord(strategy).holdsGroups(tile, groupSize))
      return describe(op.emitOpError())
             << "cannot hold group_norm(size = " << groupSize
             << "): a group must be a power of two of whole 8-column pieces "
                "of a warp's "
             << t.wn << " columns";
    if (!elementTypeOf(op.getResult().getType()).isF32())
      return op.emitOpError() << "the group-norm epilogue needs an f32 result";
  }
  if (t.threads() > 1024)
    return describe(op.emitOpError())
           << "needs " << t.threads() << " threads; the limit is 1024";
  if (config.getBlock()[0] != t.threads() || config.getBlock()[1] != 1 ||
      config.getBlock()[2] != 1)
    return describe(op.emitOpError())
           << "needs a block of [" << t.threads() << ", 1, 1] (one warp per "
           << t.wm << " x " << t.wn << " outputs"
           << (t.tma() ? ", and a producer warpgroup)" : ")");
  if (t.tma() && op.hasGroupNorm() && !t.split3())
    return describe(op.emitOpError())
           << "holds a group norm only in a split precision (3xtf32, "
              "tf32_2xbf16); use the 'mma' "
              "strategy";
  if (t.promoteEvery && (!t.splitInShared() || t.promoteEvery % t.bk))
    return describe(op.emitOpError())
           << "promote_every = " << t.promoteEvery
           << " needs a split precision (3xtf32, tf32_2xbf16) on wgmma_tma "
              "and a multiple of BK";
  // Two accumulator sets (the tensor cores' and the promoted sums) in the
  // consumers' registers; the splitter's threads take the lo parts in
  // whole groups of four 16-byte chunks each.
  if (t.splitInShared() &&
      (t.bn > 128 ||
       (t.copyBytes() / 16) % (StageGeometry::kSplitterThreads * 4) ||
       (t.aStageBytes() / 16) % (StageGeometry::kSplitterThreads * 4)))
    return describe(op.emitOpError())
           << "unsupported: split precisions on wgmma_tma need BN <= 128 (three "
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
  // The results of a 2-D wgmma_tma product leave through shared memory and
  // bulk copies of whole rows, where the staged rows fit beside the stages
  // (bf16's 128 x 256 tile, 3xtf32's f32 128 x 128, not tf32's f32
  // 128 x 256) and a row's bytes are a multiple of 16 (the copies' unit):
  // the warpgroups go on to the next tile while the copies run. Storing 2
  // results per lane from registers instead, bf16 x * W^T at 1024 x 8192 x
  // 1024 took 36.4 us against cuBLAS's 25.7 (H200, 2026-11-30).
  int64_t nSize = cast<ShapedType>(op.getResult().getType()).getShape().back();
  t.resultBytes = c.getIntOrFloatBitWidth() / 8;
  StageGeometry staged = t;
  staged.bulkStores = true;
  t.bulkStores = t.tma() && t.splitK == 1 && !op.isBatched() &&
                 !op.hasGroupNorm() && !ShapedType::isDynamic(nSize) &&
                 (nSize * t.resultBytes) % 16 == 0 &&
                 staged.sharedBytes() <= maxSharedBytes;
  if (t.sharedBytes() > maxSharedBytes)
    return describe(op.emitOpError())
           << "needs " << t.sharedBytes()
           << " bytes of shared memory; a block may have " << maxSharedBytes;
  return t;
}
