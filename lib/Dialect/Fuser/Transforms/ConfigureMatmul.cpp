//===- ConfigureMatmul.cpp - configs of matmul kernels --------------------===//

#include "ConfigureMatmul.h"

#include "MatmulCluster.h"
#include "MatmulOperandCopies.h"
#include "MatmulSplitK.h"
#include "MatmulWaveTile.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Matmul kernels, their tiles and what each needs: GemmStrategy.h's
/// records. This pass chooses among them (mmaPrecision, configureMma).
const GemmStrategyRecord &ffmaRecord() {
  return getGemmStrategyRecord(GemmStrategy::ffma);
}
const GemmStrategyRecord &mmaRecord() {
  return getGemmStrategyRecord(GemmStrategy::mma);
}

/// Whether the fp64 tensor-core kernel's epilogue can normalize `op`'s
/// groups with its default tile (the record's rule).
bool mmaHoldsGroups(MatmulOp op) {
  return mmaRecord().holdsGroups(mmaRecord().defaultTile("fp64"),
                                 *op.getNormGroupSize());
}

const GemmStrategyRecord &tmaRecord() {
  return getGemmStrategyRecord(GemmStrategy::wgmma_tma);
}

/// Matrix-vector products and a few columns (a static N of at most 8) are
/// memory-bound on A. The fp64 tensor-core kernel with an 8-column tile
/// streams A at 2561 GB/s on 8192 x 1 x 8192: 1.18x cuBLAS (torch.mm) and
/// 3.1x the 3xtf32 128 x 128 tile, with 4x less error than cuBLAS (H100,
/// 2026-11-24, bench/experiments/gemv_tiles.py; [128, 8, 64, 32, 8, 4] 0.98x,
/// 3xtf32 on this tile 1.12x but 8e-5 error).
constexpr int64_t kNarrowMaxN = 8;
constexpr int64_t kNarrowFp64Tile[] = {64, 8, 64, 16, 8, 4};

bool hasNarrowN(MatmulOp op) {
  auto type = cast<RankedTensorType>(op.getResult().getType());
  int64_t n = type.getDimSize(type.getRank() - 1);
  return !ShapedType::isDynamic(n) && n <= kNarrowMaxN && !op.hasGroupNorm();
}

/// The fp32-accurate kernel of an f32 matmul under precision fp32, as a
/// tensor-core precision ("" for the fp32 FFMA kernel), and why.
/// `fp32Kernel` (auto, 3xtf32, tf32_2xbf16, fp64, ffma) forces one where it
/// applies; auto takes the chip's split precision (Chips.h).
///  - 3xtf32 on wgmma_tma (sm_90a, K-major A, TMA-copyable K and B):
///    three tf32 products with promoted fp32 sums, more accurate than
///    cuBLAS SGEMM and past the fp32 FMA peak (docs/kernels.md).
///  - fp64 on mma.sync where fp64 tensor cores (DMMA) match the fp32 FMA
///    peak (Hopper): f32 operands widened exactly; DMMA issues one
///    instruction per 512 FMAs, so the kernel is not bound by issue slots
///    (W2 on an H100, 2026-11-22: cuBLAS DGEMM 63 TFLOP/s, SGEMM 50, fuser's
///    FFMA 46).
///  - FFMA otherwise.
std::pair<StringRef, std::string> fp32Choice(MatmulOp op, StringRef fp32Kernel,
                                             const ChipInfo &chip,
                                             bool tmaAllowed) {
  bool groupsFitMma = !op.hasGroupNorm() || mmaHoldsGroups(op);
  std::string why;
  if (fp32Kernel == "ffma")
    return {StringRef(), "fp32-kernel=ffma"};
  if ((fp32Kernel == "auto" || fp32Kernel == "fp64") &&
      chip.fastFp64TensorCores && hasNarrowN(op) &&
      mmaRecord().applies(op, "fp64"))
    return {"fp64", "N of at most " + std::to_string(kNarrowMaxN) +
                        ": memory-bound on A, fp64 tensor cores with an "
                        "8-column tile"};
  if (fp32Kernel == "auto" || isSplitPrecision(fp32Kernel)) {
    // The chip's split precision, measured fastest on its GPUs.
    StringRef split = fp32Kernel != "auto" ? fp32Kernel
                      : !chip.splitPrecision.empty()
                          ? StringRef(chip.splitPrecision)
                          : StringRef("3xtf32");
    if (chip.wgmma && tmaAllowed && tmaRecord().applies(op, split))
      return {split,
              std::string(hasBf16CrossTerms(split)
                              ? "tf32 hi parts and bf16 cross terms on "
                                "wgmma_tma with promoted fp32 sums "
                                "(fp32-class, 2-4x SGEMM's error)"
                              : "split tf32 on wgmma_tma with promoted fp32 "
                                "sums (fp32-accurate, past the fp32 peak)") +
                  (op.getTransposeB() ? ""
                                      : "; B read N-major and transposed in "
                                        "shared memory") +
                  (op.isBatched() ? "; every batch's tiles in one "
                                    "persistent grid"
                                  : "")};
    // An operand the configuration step did not copy K-major: why not.
    std::string copy = kMajorCopyRefusal(op);
    if (!copy.empty())
      copy = " and not copied K-major: " + copy;
    else if (fp32Kernel != "auto")
      // ConfigureKernels copies operands under fp32-kernel=auto only.
      copy = " and not copied K-major: fp32-kernel=" + fp32Kernel.str() +
             " (the copies run under auto)";
    why = !chip.wgmma          ? "no wgmma on this chip"
          : !tmaAllowed        ? "tensor-core-kernel excludes wgmma-tma"
          : op.getTransposeA() ? "A is not K-major (x.T)" + copy
          : !op.hasTmaCopyableK()
              ? "K is dynamic, zero or not a multiple of 4 (TMA rows)" + copy
          : !op.getTransposeB() && !wgmmaTmaReadsNMajorB(op)
              ? "B is N-major (x * W) with N dynamic or not a multiple of "
                "4, or batched with K not a multiple of the k tile" +
                    copy
              : "its groups do not fit the 64 x 128 warpgroup tiles";
    why = split.str() + " not applicable: " + why;
  }
  if (fp32Kernel == "fp64" ||
      (fp32Kernel != "ffma" && chip.fastFp64TensorCores)) {
    if (groupsFitMma && mmaRecord().applies(op, "fp64"))
      return {"fp64", why.empty() ? std::string("fp32-kernel=fp64")
                                  : why + "; fp64 tensor cores"};
    why +=
        (why.empty() ? "" : "; ") +
        std::string(groupsFitMma ? "the fp64 tensor-core kernel reads K-major A"
                                 : "groups do not fit the fp64 tensor-core "
                                   "epilogue");
  }
  return {StringRef(), why.empty() ? std::string("no fp32 tensor-core kernel "
                                                 "on this chip")
                                   : why + "; FFMA"};
}

/// The tensor-core precision of `op`, or "" for the fp32 FFMA kernel; sets
/// `why` for a remark.
StringRef mmaPrecision(MatmulOp op, StringRef precision, StringRef fp32Kernel,
                       const ChipInfo &chip, bool tmaAllowed,
                       std::string &why) {
  Type elem = getElementTypeOrSelf(op.getLhs().getType());
  if (elem.isBF16())
    return "bf16";
  if (elem.isF16())
    return "f16";
  // precision=tf32_2xbf16 asks for fp32 accuracy through that kernel,
  // which only wgmma_tma runs: elsewhere fp32-kernel=tf32_2xbf16's choice.
  if (hasBf16CrossTerms(precision) && elem.isF32())
    fp32Kernel = precision;
  else if (precision != "fp32" || !elem.isF32()) {
    why = "precision " + precision.str();
    return precision != "fp32" ? precision : StringRef();
  }
  auto [choice, reason] = fp32Choice(op, fp32Kernel, chip, tmaAllowed);
  why = reason;
  return choice;
}

/// Attaches the tensor-core config of `op`; false after a diagnostic.
bool configureMma(MatmulOp op, StringRef mma, StringRef why,
                  const MatmulConfigOptions &opts) {
  const GemmStrategyRecord &wgmmaRec =
      getGemmStrategyRecord(GemmStrategy::wgmma);
  const GemmStrategyRecord &tmaRec =
      getGemmStrategyRecord(GemmStrategy::wgmma_tma);
  auto forced = [&](GemmStrategy s) { return opts.tensorCoreKernel == s; };
  // wgmma's epilogue could hold a group norm, but one keeps fp32, which
  // wgmma does not compute in.
  bool wgmmaOk = wgmmaRec.applies(op, mma) && !op.hasGroupNorm();
  bool autoHalf = !opts.tensorCoreKernel && opts.chip->wgmma && mma != "tf32";
  bool tma =
      tmaRec.applies(op, mma) && (forced(GemmStrategy::wgmma_tma) ||
                                  (!opts.tensorCoreKernel && opts.chip->wgmma));
  if (forced(GemmStrategy::wgmma_tma) && !tma && mma != "fp64")
    op.emitRemark() << "tensor-core-kernel="
                    << gemmStrategyOptionName(GemmStrategy::wgmma_tma)
                    << " not applied: TMA "
                       "needs K-major operands (3xtf32: or an N-major B) "
                       "with a static K whose rows are a multiple of 16 "
                       "bytes apart, and no group norm (3xtf32: groups "
                       "fitting 64 x 128 tiles)";
  bool wgmma = wgmmaOk && (tma || forced(GemmStrategy::wgmma) ||
                           forced(GemmStrategy::wgmma_tma) || autoHalf);
  const GemmStrategyRecord &rec = tma ? tmaRec : wgmma ? wgmmaRec : mmaRecord();
  ArrayRef<int64_t> defaults =
      rec.kind == GemmStrategy::mma && mma == "fp64" && hasNarrowN(op)
          ? ArrayRef(kNarrowFp64Tile)
          : rec.defaultTile(mma);
  SmallVector<int64_t> tile(defaults);
  if (opts.tileSizes.size() == 6) {
    tile.assign(opts.tileSizes.begin(), opts.tileSizes.end());
  } else if (opts.tileSizes.size() == 3 && wgmma) { // 64-row warpgroups
    tile = {opts.tileSizes[0], opts.tileSizes[1], opts.tileSizes[2], 16,
            opts.tileSizes[1], defaults[5]};
  } else if (opts.tileSizes.size() == 3) { // warps of at most the default's
    tile = {opts.tileSizes[0],
            opts.tileSizes[1],
            opts.tileSizes[2],
            std::min<int64_t>(opts.tileSizes[0], defaults[3]),
            std::min<int64_t>(opts.tileSizes[1], defaults[4]),
            defaults[5]};
  } else if (!opts.tileSizes.empty()) {
    op.emitError() << "tile-sizes of a tensor-core matmul must list 3 "
                      "values (M, N, K) or 6 (M, N, K, warp M, warp N, "
                      "stages), got "
                   << opts.tileSizes.size();
    if (mma == "fp64")
      op.emitRemark() << "fp32 matmuls for " << opts.chipName
                      << " run on fp64 tensor cores; fp32-kernel=ffma "
                         "selects the FFMA kernel and its tiles";
    return false;
  }
  std::string waveWhy;
  if (opts.tileSizes.empty())
    std::tie(tile, waveWhy) = waveTileChoice(op, rec, mma, tile);
  int64_t kSize =
      cast<ShapedType>(op.getLhs().getType()).getDimSize(op.getLhsKDim());
  int64_t promoteEvery = isSplitPrecision(mma) && rec.splitPromoteEvery
                             ? rec.splitPromoteEvery(mma, kSize)
                             : 0;
  if (promoteEvery && opts.promoteEvery >= 0)
    promoteEvery = opts.promoteEvery;
  auto [split, splitWhy] = splitKChoice(op, rec, tile, opts.splitK);
  if (opts.splitK > 1 && split == 1)
    op.emitRemark() << "split-k=" << opts.splitK
                    << " not applied: " << splitWhy;
  auto [cluster, clusterWhy] =
      clusterChoice(op, rec, tile, split, opts.clusterM);
  if (opts.clusterM > 1 && cluster == 1)
    op.emitRemark() << "cluster-m=" << opts.clusterM
                    << " not applied: " << clusterWhy;
  // Bands of M tiles where the product has more (GemmStrategy.cpp).
  int64_t mSize =
      cast<ShapedType>(op.getLhs().getType()).getDimSize(op.getLhsMDim());
  int64_t band = rec.tileGroupM ? rec.tileGroupM(mma) : 0;
  int64_t groupM = band > 0 && (ShapedType::isDynamic(mSize) ||
                                int64_t(llvm::divideCeil(mSize, tile[0])) > band)
                       ? band
                       : 0;
  auto config = KernelConfigAttr::getChecked(
      [&] { return op.emitError(); }, op.getContext(), rec.name(),
      ArrayRef<int64_t>{std::max<int64_t>(rec.threads(tile), 1), 1, 1},
      /*vector_width=*/int64_t(1), rec.maxGrid, ArrayRef<int64_t>(tile),
      rec.minBlocksPerSm, mma, promoteEvery, split, cluster, groupM);
  if (!config)
    return false;
  op.setConfigAttr(config);
  if (opts.report) {
    auto remark = op.emitRemark()
                  << "matmul kernel: " << rec.name() << " in " << mma;
    if (promoteEvery)
      remark << ", sums promoted to fp32 every " << promoteEvery << " K";
    if (split > 1)
      remark << ", K split " << split << " ways";
    if (cluster > 1)
      remark << ", in clusters of " << cluster << " blocks";
    std::string reasons = why.str();
    if (!waveWhy.empty())
      reasons += (reasons.empty() ? "" : "; ") + waveWhy;
    if (split > 1)
      reasons += (reasons.empty() ? "" : "; ") + splitWhy;
    if (cluster > 1)
      reasons += (reasons.empty() ? "" : "; ") + clusterWhy;
    if (!reasons.empty())
      remark << " (" << reasons << ")";
  }
  return true;
}

} // namespace

bool mlir::fuser::configureMatmul(MatmulOp op,
                                  const MatmulConfigOptions &opts) {
  if (op.getConfigAttr())
    return true; // chosen earlier or by the user
  // A group norm divides by the spread of its group, which amplifies
  // the GEMM's error by 1/sigma: it keeps fp32 accuracy (FFMA, or fp64
  // tensor cores where the groups fit their epilogue).
  StringRef opPrecision = opts.precision;
  if (op.hasGroupNorm() && opPrecision != "fp32" &&
      !isSplitPrecision(opPrecision)) {
    op.emitRemark() << "precision " << opPrecision
                    << " not applied: a group-norm epilogue keeps fp32 "
                       "accuracy";
    opPrecision = "fp32";
  }
  if (op.hasGroupNorm() && opts.fp32Kernel == "fp64" && !mmaHoldsGroups(op))
    op.emitRemark() << "fp32-kernel=fp64 not applied: groups of "
                    << *op.getNormGroupSize()
                    << " columns do not fit the tensor-core epilogue "
                       "(a power of two, a multiple of 8 dividing "
                    << mmaRecord().defaultTile("fp64")[4] << "); FFMA instead";
  std::string why;
  StringRef mma = mmaPrecision(op, opPrecision, opts.fp32Kernel, *opts.chip,
                               opts.tmaAllowed(), why);
  if (isSplitPrecision(opts.fp32Kernel) && opPrecision == "fp32" &&
      mma != opts.fp32Kernel)
    op.emitRemark() << "fp32-kernel=" << opts.fp32Kernel
                    << " not applied: " << why;
  // precision=tf32_2xbf16 asked for fp32 accuracy through that kernel:
  // elsewhere the fp32 kernels' (FFMA's config takes fp32).
  if (hasBf16CrossTerms(opPrecision)) {
    if (mma != opPrecision)
      op.emitRemark() << "precision=" << opPrecision << " not applied: " << why;
    opPrecision = "fp32";
  }
  if (!mma.empty() && op.getTransposeA()) {
    // Every tensor-core kernel reads K-major A (GemmStrategy records).
    if (!getElementTypeOrSelf(op.getLhs().getType()).isF32()) {
      op.emitError() << "transpose_a needs f32 operands: only the FFMA "
                        "kernel reads an M-major A";
      return false;
    }
    op.emitRemark() << "precision " << mma
                    << " not applied: A is M-major (x.T), which only the "
                       "fp32 FFMA kernel reads";
    why = "A is M-major (x.T): the tensor-core kernels read K-major A";
    mma = "";
    opPrecision = "fp32";
  }
  if (!mma.empty())
    return configureMma(op, mma, why, opts);
  const GemmStrategyRecord &ffma = ffmaRecord();
  SmallVector<int64_t> tile(ffma.defaultTile(opPrecision));
  if (!opts.tileSizes.empty()) {
    if (opts.tileSizes.size() != 3 && opts.tileSizes.size() != 5) {
      op.emitError() << "tile-sizes must list 3 values (M, N, K) or 5 "
                        "(M, N, K, thread M, thread N), got "
                     << opts.tileSizes.size();
      return false;
    }
    tile.assign(opts.tileSizes.begin(), opts.tileSizes.end());
  }
  auto config = KernelConfigAttr::getChecked(
      [&] { return op.emitError(); }, op.getContext(), ffma.name(),
      ArrayRef<int64_t>{ffma.threads(tile), 1, 1},
      /*vector_width=*/int64_t(1), ffma.maxGrid, ArrayRef<int64_t>(tile),
      ffma.minBlocksPerSm, opPrecision, /*promote_every=*/int64_t(0));
  if (!config)
    return false;
  op.setConfigAttr(config);
  if (opts.splitK > 1)
    op.emitRemark() << "split-k=" << opts.splitK << " not applied: "
                    << splitKChoice(op, ffma, tile, opts.splitK).second;
  if (opts.report)
    op.emitRemark() << "matmul kernel: ffma in fp32 (" << why << ")";
  return true;
}
