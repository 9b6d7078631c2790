//===- ConfigureKernels.cpp - choose each group's kernel config -*- C++ -*-===//
//
// The one place where code generation heuristics live. Lowerings read the
// #fuser.config this pass attaches and never choose sizes themselves.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include "ConfigureReductions.h"
#include "MatmulCluster.h"
#include "MatmulOperandCopies.h"
#include "MatmulSplitK.h"
#include "MatmulWaveTile.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERCONFIGUREKERNELSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Pointwise heuristics. 4 x 32-bit lanes make each access 128 bits.
/// 1024-thread blocks (2 resident per SM on Hopper): W1 (1.6 G elements) at
/// 3060 GB/s, 1.025x eager and above torch's device copy, against 3024 GB/s
/// with 256 threads and 3037 with 512 (H100, 2026-11-24, interleaved,
/// bench/pointwise_sweep.py). Grid-striding past about a million blocks
/// only adds loop overhead, so the grid is capped there; caps of 16 or 64
/// blocks per SM measured 4-6% slower.
constexpr int64_t kPointwiseBlock = 1024;
constexpr int64_t kPointwiseMaxGrid = 1 << 20;
/// One vector per thread per iteration: 2, 4 or 8 (loads before stores)
/// measured 0.2-16% slower on W1 at every block size (H100, 2026-11-24,
/// bench/pointwise_sweep.py over scripts/build-pointwise-sweep.sh).
constexpr int64_t kPointwiseVectorsPerThread = 1;
/// Plain loads. `.L2::128B` on the loads made an nvcc-built W1 kernel 1.6%
/// faster (H100, 2026-11-24, bench/w1_variants.py), but fuser's own W1
/// kernel not measurably (-0.1% to +0.2% against l2_prefetch = 0 on three
/// machines; the seed chain the same; bench/l2_prefetch.py). The option
/// stays for other chips and kernels.
constexpr int64_t kPointwiseL2Prefetch = 0;
/// A group reading inputs transposed (PointwiseOp::getTransposedTileInputs:
/// the K-major weight copies of W2's and W3's backward) walks the input's
/// columns in the row kernel, 4 useful bytes per 32-byte sector: W2's
/// 8192 x 8192 f32 copy took 571 us, 0.94 TB/s against ~3 TB/s for a
/// straight copy (H100, bench/training_profile.py). `pointwise_transpose`
/// stages 64 x 64 tiles through shared memory instead, read along the
/// input's rows and written along the result's; 256 threads, 16 elements
/// each per phase. Against 32 x 32 tiles (4 per thread): 8192 x 4096 in
/// 98.0 us against 101.9 (a straight copy 92.7), 8192 x 8192 190.9 against
/// 198.8, 4097 x 1000 17.7 against 19.4; 512 or 1024 threads were no
/// better or slower (H100, 2026-11-24, bench/transpose.py --sweep).
constexpr int64_t kTransposeTile = 64;
constexpr int64_t kTransposeBlock = 256;

/// Whether `op` gets the transposed-tile kernel: it has a transposed input
/// and neither swapped size is statically 1 (the row kernel reads such an
/// input contiguously already).
bool wantsTransposeTiles(PointwiseOp op) {
  if (op.getTransposedTileInputs().empty())
    return false;
  ArrayRef<int64_t> shape = op.getResultTensorType().getShape();
  return shape[shape.size() - 2] != 1 && shape.back() != 1;
}

/// Matmul kernels, their tiles and what each needs: GemmStrategy.h's
/// records. This pass chooses among them (mmaPrecision, configureMma).
const GemmStrategyRecord &ffmaRecord() {
  return getGemmStrategyRecord(GemmStrategy::ffma);
}
const GemmStrategyRecord &mmaRecord() {
  return getGemmStrategyRecord(GemmStrategy::mma);
}

/// Whether the fp64 tensor-core kernel's epilogue can normalize `op`'s
/// groups: whole 8-column pieces of one warp's row, a power of two
/// (MmaGemmKernel's normalizeGroups).
bool mmaHoldsGroups(MatmulOp op) {
  int64_t g = *op.getNormGroupSize();
  return g % 8 == 0 && llvm::isPowerOf2_64(g) &&
         mmaRecord().defaultTile("fp64")[4] % g == 0;
}

const GemmStrategyRecord &tmaRecord() {
  return getGemmStrategyRecord(GemmStrategy::wgmma_tma);
}

/// Matrix-vector products and a few columns (a static N of at most 8) are
/// memory-bound on A. The fp64 tensor-core kernel with an 8-column tile
/// streams A at 2561 GB/s on 8192 x 1 x 8192: 1.18x cuBLAS (torch.mm) and
/// 3.1x the 3xtf32 128 x 128 tile, with 4x less error than cuBLAS (H100,
/// 2026-11-24, bench/gemv_tiles.py; [128, 8, 64, 32, 8, 4] 0.98x, 3xtf32
/// on this tile 1.12x but 8e-5 error).
constexpr int64_t kNarrowMaxN = 8;
constexpr int64_t kNarrowFp64Tile[] = {64, 8, 64, 16, 8, 4};

bool hasNarrowN(MatmulOp op) {
  auto type = cast<RankedTensorType>(op.getResult().getType());
  int64_t n = type.getDimSize(type.getRank() - 1);
  return !ShapedType::isDynamic(n) && n <= kNarrowMaxN && !op.hasGroupNorm();
}

/// The fp32-accurate kernel of an f32 matmul under precision fp32, as a
/// tensor-core precision ("" for the fp32 FFMA kernel), and why.
/// `fp32Kernel` (auto, 3xtf32, fp64, ffma) forces one where it applies.
///  - 3xtf32 on wgmma_tma (sm_90a, K-major A, TMA-copyable K and B):
///    three tf32 products with promoted fp32 sums, more accurate than
///    cuBLAS SGEMM and past the fp32 peak (PERFORMANCE.md).
///  - fp64 on mma.sync where fp64 tensor cores (DMMA) match the fp32 FMA
///    peak (Hopper): f32 operands widened exactly; DMMA issues one
///    instruction per 512 FMAs, so the kernel is not bound by issue slots
///    (W2 on an H100, 2026-11-22: cuBLAS DGEMM 63 TFLOP/s, SGEMM 50, fuser's
///    FFMA 46).
///  - FFMA otherwise.
std::pair<StringRef, std::string> fp32Choice(MatmulOp op,
                                             StringRef fp32Kernel,
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
  if (fp32Kernel == "auto" || fp32Kernel == "3xtf32") {
    if (chip.wgmma && tmaAllowed && tmaRecord().applies(op, "3xtf32"))
      return {"3xtf32",
              std::string("split tf32 on wgmma_tma with promoted fp32 sums "
                          "(fp32-accurate, past the fp32 peak)") +
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
    why = !chip.wgmma ? "no wgmma on this chip"
          : !tmaAllowed ? "tensor-core-kernel excludes wgmma-tma"
          : op.getTransposeA() ? "A is not K-major (x.T)" + copy
          : !op.hasTmaCopyableK()
              ? "K is dynamic, zero or not a multiple of 4 (TMA rows)"
          : !op.getTransposeB() && !wgmmaTmaReadsNMajorB(op)
              ? "B is N-major (x * W) with N dynamic or not a multiple of "
                "4, or batched with K not a multiple of the k tile" +
                    copy
              : "its groups do not fit the 64 x 128 warpgroup tiles";
    why = "3xtf32 not applicable: " + why;
  }
  if (fp32Kernel == "fp64" ||
      (fp32Kernel != "ffma" && chip.fastFp64TensorCores)) {
    if (groupsFitMma && mmaRecord().applies(op, "fp64"))
      return {"fp64", why.empty() ? std::string("fp32-kernel=fp64")
                                  : why + "; fp64 tensor cores"};
    why += (why.empty() ? "" : "; ") +
           std::string(groupsFitMma
                           ? "the fp64 tensor-core kernel reads K-major A"
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
  if (precision != "fp32" || !elem.isF32()) {
    why = "precision " + precision.str();
    return precision != "fp32" ? precision : StringRef();
  }
  auto [choice, reason] = fp32Choice(op, fp32Kernel, chip, tmaAllowed);
  why = reason;
  return choice;
}

/// GroupNorm and its input gradient: one block per (sample, group), threads
/// striding over the group with 128-bit accesses when its size allows. The
/// block is sized for about 2 vectors per thread, so small groups still put
/// many loads in flight: one warp for W3's 16 elements, 128 threads for
/// 1024, at most 512 threads (64K elements: 32 vectors per thread).
constexpr int64_t kGroupNormMaxBlock = 512;
constexpr int64_t kGroupNormVectorsPerThread = 2;
/// Threads per block when several small groups share one.
constexpr int64_t kGroupNormSharedBlock = 256;

/// The config of a group norm or its gradient (`strategy`) on `type` split
/// into `groups`, or null after a diagnostic on `op`.
KernelConfigAttr groupNormConfig(Operation *op, RankedTensorType type,
                                 int64_t groups, StringRef strategy,
                                 StringRef precision) {
  int64_t groupSize = 1;
  for (int64_t d : type.getShape().drop_front())
    groupSize = ShapedType::isDynamic(d) || ShapedType::isDynamic(groupSize)
                    ? ShapedType::kDynamic
                    : groupSize * d;
  int64_t width = 1, block = kGroupNormMaxBlock;
  SmallVector<int64_t> tile;
  if (!ShapedType::isDynamic(groupSize)) {
    groupSize /= groups;
    width = groupSize % 4 == 0 ? 4 : groupSize % 2 == 0 ? 2 : 1;
    int64_t perThread = llvm::divideCeil(groupSize / width,
                                         kGroupNormVectorsPerThread);
    int64_t threads = llvm::PowerOf2Ceil(perThread);
    block = std::clamp<int64_t>(threads, 32, kGroupNormMaxBlock);
    // Groups smaller than a warp's work share a block (tile = [threads per
    // group]) instead of one block each.
    if (threads < 32) {
      block = kGroupNormSharedBlock;
      tile.push_back(threads);
    }
  }
  return KernelConfigAttr::getChecked(
      [&] { return op->emitError(); }, op->getContext(), strategy,
      ArrayRef<int64_t>{block, 1, 1}, width, /*max_grid=*/int64_t(0),
      ArrayRef<int64_t>(tile), /*min_blocks_per_sm=*/int64_t(0), precision,
      /*promote_every=*/int64_t(0));
}

int64_t pointwiseVectorWidth(PointwiseOp op) {
  // 128-bit accesses: as many lanes as fit, for the widest element type.
  unsigned maxBits = 8;
  auto consider = [&](Type t) {
    if (auto s = dyn_cast<ShapedType>(t))
      t = s.getElementType();
    if (t.isIntOrFloat())
      maxBits = std::max(maxBits, t.getIntOrFloatBitWidth());
  };
  for (Value v : op.getInputs())
    consider(v.getType());
  for (Type t : op.getResultTypes())
    consider(t);
  return std::clamp<int64_t>(128 / maxBits, 1, 4);
}

class ConfigureKernelsPass
    : public fuser::impl::FuserConfigureKernelsPassBase<ConfigureKernelsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (!llvm::is_contained({"auto", "mma", "wgmma", "wgmma-tma"},
                            tensorCoreKernel)) {
      getOperation().emitError()
          << "tensor-core-kernel must be auto, mma, wgmma or wgmma-tma, got '"
          << tensorCoreKernel << "'";
      return signalPassFailure();
    }
    if (!llvm::is_contained({"auto", "3xtf32", "fp64", "ffma"}, fp32Kernel)) {
      getOperation().emitError()
          << "fp32-kernel must be auto, 3xtf32, fp64 or ffma, got '"
          << fp32Kernel << "'";
      return signalPassFailure();
    }
    chipInfo = lookupChip(chip);
    if (!chipInfo) {
      getOperation().emitError() << "unsupported chip '" << chip
                                 << "'; supported: " << supportedChipNames();
      return signalPassFailure();
    }
    // Kernels the chip cannot run are refused, not compiled for ptxas to
    // reject.
    if (fp32Kernel == "3xtf32" && !chipInfo->wgmma) {
      getOperation().emitError()
          << "fp32-kernel=3xtf32 needs wgmma.mma_async and TMA, which only "
             "sm_90a has; "
          << chip << " gets fp32-kernel=auto, fp64 or ffma";
      return signalPassFailure();
    }
    if (fp32Kernel == "fp64" && !hasFp64Mma(*chipInfo)) {
      getOperation().emitError()
          << "fp32-kernel=fp64 needs fp64 tensor cores with mma.sync "
             "m16n8k8 (sm_90 or newer); "
          << chip << " has none: use fp32-kernel=auto or ffma";
      return signalPassFailure();
    }
    if (clusterM < 0 || clusterM > 2) {
      getOperation().emitError()
          << "cluster-m must be 0 or 1 (no clusters) or 2, got "
          << clusterM.getValue();
      return signalPassFailure();
    }
    if (splitK < 0) {
      getOperation().emitError()
          << "split-k must be >= 0 (0: heuristic, 1: never split), got "
          << splitK.getValue();
      return signalPassFailure();
    }
    if (StringRef(tensorCoreKernel).starts_with("wgmma") && !chipInfo->wgmma) {
      getOperation().emitError()
          << "tensor-core-kernel=" << tensorCoreKernel
          << " needs wgmma.mma_async, which only sm_90a has; " << chip
          << " gets mma.sync with tensor-core-kernel=auto or mma";
      return signalPassFailure();
    }
    bool failedAny = false;
    // Operand copies first: they are pointwise groups configured below.
    if (precision == "fp32" && fp32Kernel == "auto")
      getOperation().walk([&](MatmulOp op) {
        if (!op.getConfigAttr())
          copyOperandsKMajor(op, *chipInfo,
                             tensorCoreKernel == "auto" ||
                                 tensorCoreKernel == "wgmma-tma",
                             report);
      });
    auto configurePointwise = [&](PointwiseOp op) {
      if (op.getConfigAttr())
        return; // chosen earlier or by the user
      int64_t block = blockSize > 0 ? blockSize.getValue() : kPointwiseBlock;
      int64_t width =
          vectorWidth > 0 ? vectorWidth.getValue() : pointwiseVectorWidth(op);
      int64_t grid = maxGrid >= 0 ? maxGrid.getValue() : kPointwiseMaxGrid;
      if (wantsTransposeTiles(op)) {
        auto config = KernelConfigAttr::getChecked(
            [&] { return op.emitError(); }, ctx,
            StringRef("pointwise_transpose"),
            ArrayRef<int64_t>{kTransposeBlock, 1, 1},
            /*vector_width=*/int64_t(1), grid,
            ArrayRef<int64_t>{kTransposeTile, kTransposeTile},
            /*min_blocks_per_sm=*/int64_t(0), StringRef(precision),
            /*promote_every=*/int64_t(0));
        if (!config)
          failedAny = true;
        else
          op.setConfigAttr(config);
        return;
      }
      int64_t perThread = vectorsPerThread > 0 ? vectorsPerThread.getValue()
                                               : kPointwiseVectorsPerThread;
      SmallVector<int64_t> tile;
      if (perThread > 1)
        tile.push_back(perThread);
      int64_t prefetch =
          l2Prefetch >= 0 ? l2Prefetch.getValue() : kPointwiseL2Prefetch;
      auto config = KernelConfigAttr::getChecked(
          [&] { return op.emitError(); }, ctx, StringRef("pointwise"),
          ArrayRef<int64_t>{block, 1, 1}, width, grid, ArrayRef<int64_t>(tile),
          /*min_blocks_per_sm=*/int64_t(0), StringRef(precision),
          /*promote_every=*/int64_t(0), /*split_k=*/int64_t(1), prefetch,
          /*cluster_m=*/int64_t(1), /*group_m=*/int64_t(0));
      if (!config) {
        failedAny = true;
        return;
      }
      op.setConfigAttr(config);
    };
    getOperation().walk(configurePointwise);
    getOperation().walk([&](MatmulOp op) {
      if (op.getConfigAttr())
        return; // chosen earlier or by the user
      // A group norm divides by the spread of its group, which amplifies
      // the GEMM's error by 1/sigma: it keeps fp32 accuracy (FFMA, or fp64
      // tensor cores where the groups fit their epilogue).
      StringRef opPrecision = precision;
      if (op.hasGroupNorm() && opPrecision != "fp32" &&
          opPrecision != "3xtf32") {
        op.emitRemark() << "precision " << opPrecision
                        << " not applied: a group-norm epilogue keeps fp32 "
                           "accuracy";
        opPrecision = "fp32";
      }
      if (op.hasGroupNorm() && fp32Kernel == "fp64" && !mmaHoldsGroups(op))
        op.emitRemark() << "fp32-kernel=fp64 not applied: groups of "
                        << *op.getNormGroupSize()
                        << " columns do not fit the tensor-core epilogue "
                           "(a power of two, a multiple of 8 dividing "
                        << mmaRecord().defaultTile("fp64")[4]
                        << "); FFMA instead";
      std::string why;
      StringRef mma =
          mmaPrecision(op, opPrecision, fp32Kernel, *chipInfo,
                       tensorCoreKernel == "auto" ||
                           tensorCoreKernel == "wgmma-tma",
                       why);
      if (fp32Kernel == "3xtf32" && opPrecision == "fp32" && mma != "3xtf32")
        op.emitRemark() << "fp32-kernel=3xtf32 not applied: " << why;
      if (!mma.empty() && op.getTransposeA()) {
        // Every tensor-core kernel reads K-major A (GemmStrategy records).
        if (!getElementTypeOrSelf(op.getLhs().getType()).isF32()) {
          op.emitError() << "transpose_a needs f32 operands: only the FFMA "
                            "kernel reads an M-major A";
          failedAny = true;
          return;
        }
        op.emitRemark() << "precision " << mma
                        << " not applied: A is M-major (x.T), which only the "
                           "fp32 FFMA kernel reads";
        why = "A is M-major (x.T): the tensor-core kernels read K-major A";
        mma = "";
        opPrecision = "fp32";
      }
      if (!mma.empty()) {
        if (!configureMma(op, mma, why))
          failedAny = true;
        return;
      }
      const GemmStrategyRecord &ffma = ffmaRecord();
      SmallVector<int64_t> tile(ffma.defaultTile(opPrecision));
      if (!tileSizes.empty()) {
        if (tileSizes.size() != 3 && tileSizes.size() != 5) {
          op.emitError() << "tile-sizes must list 3 values (M, N, K) or 5 "
                            "(M, N, K, thread M, thread N), got "
                         << tileSizes.size();
          failedAny = true;
          return;
        }
        tile.assign(tileSizes.begin(), tileSizes.end());
      }
      auto config = KernelConfigAttr::getChecked(
          [&] { return op.emitError(); }, ctx, ffma.name(),
          ArrayRef<int64_t>{ffma.threads(tile), 1, 1},
          /*vector_width=*/int64_t(1), ffma.maxGrid, ArrayRef<int64_t>(tile),
          ffma.minBlocksPerSm, opPrecision, /*promote_every=*/int64_t(0));
      if (!config) {
        failedAny = true;
        return;
      }
      op.setConfigAttr(config);
      if (splitK > 1)
        op.emitRemark() << "split-k=" << splitK.getValue() << " not applied: "
                        << splitKChoice(op, ffma, tile, splitK).second;
      if (report)
        op.emitRemark() << "matmul kernel: ffma in fp32 (" << why << ")";
    });
    // A prologue the chosen kernel does not read gets a kernel of its own.
    SmallVector<MatmulOp> unread;
    getOperation().walk([&](MatmulOp op) {
      KernelConfigAttr config = op.getConfigAttr();
      if (!op.hasPrologue() || !config)
        return;
      std::optional<GemmStrategy> strategy =
          symbolizeGemmStrategy(config.getStrategy());
      const GemmStrategyRecord *rec =
          strategy ? &getGemmStrategyRecord(*strategy) : nullptr;
      if (!rec || !rec->readsPrologue ||
          !rec->readsPrologue(op, config.getPrecision()))
        unread.push_back(op);
    });
    for (MatmulOp op : unread) {
      if (report)
        op.emitRemark() << "A's prologue computed by a pointwise kernel of "
                           "its own: "
                        << op.getConfigAttr().getStrategy() << " in "
                        << op.getConfigAttr().getPrecision()
                        << " does not read one";
      configurePointwise(op.materializePrologue());
    }
    // Group norms and their input gradients read their groups alike.
    auto configureNorm = [&](auto op, StringRef strategy) {
      if (op.getConfigAttr())
        return; // chosen earlier or by the user
      if (KernelConfigAttr config = groupNormConfig(
              op, cast<RankedTensorType>(op.getInput().getType()),
              op.getNumGroups(), strategy, StringRef(precision)))
        op.setConfigAttr(config);
      else
        failedAny = true;
    };
    getOperation().walk(
        [&](GroupNormOp op) { configureNorm(op, "group_norm"); });
    getOperation().walk(
        [&](GroupNormGradOp op) { configureNorm(op, "group_norm_grad"); });
    configureReductions(getOperation(), report);
    if (failedAny)
      signalPassFailure();
  }

private:
  /// The `chip` option's entry (set first in runOnOperation).
  const ChipInfo *chipInfo = nullptr;

  /// Attaches the tensor-core config of `op`; false after a diagnostic.
  bool configureMma(MatmulOp op, StringRef mma, StringRef why) {
    const GemmStrategyRecord &wgmmaRec =
        getGemmStrategyRecord(GemmStrategy::wgmma);
    const GemmStrategyRecord &tmaRec =
        getGemmStrategyRecord(GemmStrategy::wgmma_tma);
    // wgmma's epilogue could hold a group norm, but one keeps fp32, which
    // wgmma does not compute in.
    bool wgmmaOk = wgmmaRec.applies(op, mma) && !op.hasGroupNorm();
    bool autoHalf = tensorCoreKernel == "auto" && chipInfo->wgmma &&
                    mma != "tf32";
    bool tma = tmaRec.applies(op, mma) &&
               (tensorCoreKernel == "wgmma-tma" ||
                (tensorCoreKernel == "auto" && chipInfo->wgmma));
    if (tensorCoreKernel == "wgmma-tma" && !tma && mma != "fp64")
      op.emitRemark() << "tensor-core-kernel=wgmma-tma not applied: TMA "
                         "needs K-major operands (3xtf32: or an N-major B) "
                         "with a static K whose rows are a multiple of 16 "
                         "bytes apart, and no group norm (3xtf32: groups "
                         "fitting 64 x 128 tiles)";
    bool wgmma = wgmmaOk && (tma || tensorCoreKernel == "wgmma" ||
                             tensorCoreKernel == "wgmma-tma" || autoHalf);
    const GemmStrategyRecord &rec = tma     ? tmaRec
                                    : wgmma ? wgmmaRec
                                            : mmaRecord();
    ArrayRef<int64_t> defaults = rec.kind == GemmStrategy::mma &&
                                         mma == "fp64" && hasNarrowN(op)
                                     ? ArrayRef(kNarrowFp64Tile)
                                     : rec.defaultTile(mma);
    SmallVector<int64_t> tile(defaults);
    if (tileSizes.size() == 6) {
      tile.assign(tileSizes.begin(), tileSizes.end());
    } else if (tileSizes.size() == 3 && wgmma) { // 64-row warpgroups
      tile = {tileSizes[0], tileSizes[1], tileSizes[2], 16, tileSizes[1],
              defaults[5]};
    } else if (tileSizes.size() == 3) { // warps of at most the default's
      tile = {tileSizes[0], tileSizes[1], tileSizes[2],
              std::min<int64_t>(tileSizes[0], defaults[3]),
              std::min<int64_t>(tileSizes[1], defaults[4]), defaults[5]};
    } else if (!tileSizes.empty()) {
      op.emitError() << "tile-sizes of a tensor-core matmul must list 3 "
                        "values (M, N, K) or 6 (M, N, K, warp M, warp N, "
                        "stages), got "
                     << tileSizes.size();
      if (mma == "fp64")
        op.emitRemark() << "fp32 matmuls for " << chip
                        << " run on fp64 tensor cores; fp32-kernel=ffma "
                           "selects the FFMA kernel and its tiles";
      return false;
    }
    std::string waveWhy;
    if (tileSizes.empty())
      std::tie(tile, waveWhy) = waveTileChoice(op, rec, mma, tile);
    int64_t kSize =
        cast<ShapedType>(op.getLhs().getType()).getDimSize(op.getLhsKDim());
    int64_t promoteEvery = mma == "3xtf32" && rec.splitPromoteEvery
                               ? rec.splitPromoteEvery(kSize)
                               : 0;
    if (promoteEvery && this->promoteEvery >= 0)
      promoteEvery = this->promoteEvery;
    auto [split, splitWhy] = splitKChoice(op, rec, tile, splitK);
    if (splitK > 1 && split == 1)
      op.emitRemark() << "split-k=" << splitK.getValue()
                      << " not applied: " << splitWhy;
    auto [cluster, clusterWhy] =
        clusterChoice(op, rec, tile, split, clusterM);
    if (clusterM > 1 && cluster == 1)
      op.emitRemark() << "cluster-m=" << clusterM.getValue()
                      << " not applied: " << clusterWhy;
    // Bands of M tiles where the product has more (GemmStrategy.cpp).
    int64_t mSize =
        cast<ShapedType>(op.getLhs().getType()).getDimSize(op.getLhsMDim());
    int64_t band = rec.tileGroupM ? rec.tileGroupM(mma) : 0;
    int64_t groupM = band > 0 && (ShapedType::isDynamic(mSize) ||
                                  llvm::divideCeil(mSize, tile[0]) > band)
                         ? band
                         : 0;
    auto config = KernelConfigAttr::getChecked(
        [&] { return op.emitError(); }, &getContext(), rec.name(),
        ArrayRef<int64_t>{std::max<int64_t>(rec.threads(tile), 1), 1, 1},
        /*vector_width=*/int64_t(1), rec.maxGrid, ArrayRef<int64_t>(tile),
        rec.minBlocksPerSm, mma, promoteEvery, split, cluster, groupM);
    if (!config)
      return false;
    op.setConfigAttr(config);
    if (report) {
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
};

} // namespace
