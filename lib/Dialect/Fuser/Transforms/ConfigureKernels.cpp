//===- ConfigureKernels.cpp - choose each group's kernel config -*- C++ -*-===//
//
// The one place where code generation heuristics live. Lowerings read the
// #fuser.config this pass attaches and never choose sizes themselves.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERCONFIGUREKERNELSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Pointwise heuristics. 256 threads keep 8 blocks resident per SM on Hopper;
/// 4 x 32-bit lanes make each access 128 bits. Grid-striding past about a
/// million blocks only adds loop overhead, so the grid is capped there.
constexpr int64_t kPointwiseBlock = 256;
constexpr int64_t kPointwiseMaxGrid = 1 << 20;

/// Matmul: fp32 FMA on CUDA cores, 256 threads computing a 256 x 128 (M x N)
/// output tile, 16 x 8 elements per thread, stepping K by 8. Best of 15
/// tilings on W2 (H200, 2026-11-22, bench/results/H200-2026-11-22*.md):
/// 46.6 TFLOP/s, against 44.2 for 128 x 128 with 8 x 16 per thread and 41.0
/// for 128 x 128 with 8 x 8.
constexpr StringLiteral kMatmulStrategy = "ffma";
constexpr int64_t kMatmulBlock = 256;
constexpr int64_t kMatmulTile[] = {256, 128, 8, 16, 8};
constexpr int64_t kMatmulMinBlocksPerSM = 1; // ~246 registers: one block

/// Tensor-core matmuls (strategy "mma", MmaGemmKernel.cpp): mma.sync with
/// fp32 accumulators, tile = [BM, BN, BK, WM, WN, STAGES], one warp per
/// WM x WN outputs, a STAGES-deep cp.async pipeline in dynamic shared
/// memory. f32 operands get it when the precision option asks for tf32 or
/// 3xtf32; bf16 and f16 operands always (their own type, whatever the
/// option). Each warp tile stays within 255 registers without spills
/// (ptxas, sm_90a). Fastest measured on W2 (H100, 2026-11-22, of 9 tilings
/// each, bench/results/mma-*.md): tf32: 128 x 128 x 16, 4 warps of 64 x 64,
/// 4 stages (80 KiB; 129 TFLOP/s); bf16/f16: 128 x 128 x 32, 4 warps of
/// 64 x 64, 3 stages (60 KiB; 290 TFLOP/s). 3xtf32 keeps hi and lo
/// fragments, so 8 warps of 64 x 32.
constexpr StringLiteral kMmaStrategy = "mma";
constexpr int64_t kMmaTf32Tile[] = {128, 128, 16, 64, 64, 4};
/// fp64 (DMMA) accumulators take two registers each, so warps of 64 x 32.
/// Best spill-free tiling of 9 on W2 and W3 (H100, 2026-11-22,
/// bench/results/H100-2026-11-22-fp64.md): 52.8 TFLOP/s on W2 (cuBLAS SGEMM
/// 51), 52.4 on W3; 128 x 64 and 64 x 128 tiles at 2 blocks/SM are within
/// 1% but spill.
constexpr int64_t kMmaFp64Tile[] = {128, 128, 32, 64, 32, 4};
constexpr int64_t kMma3xTf32Tile[] = {128, 128, 16, 64, 32, 4};
constexpr int64_t kMmaHalfTile[] = {128, 128, 32, 64, 64, 3};

/// wgmma (sm_90a, K-major operands): two warpgroups of 64 x 128, BK one
/// 128-byte swizzled row, 4 stages (128 KiB); the default for bf16/f16
/// only. W2 on an H100 (bench/results/H100-2026-11-22-wgmma.md): bf16 418
/// TFLOP/s (mma.sync: 286; 128 x 256 reaches 494 but spills). tf32 through
/// wgmma truncates operands instead of rounding them (cvt.rna), which
/// doubles the error (2.5e-3 on W2, 2e-2 on the odd-shape tests), so tf32
/// keeps mma.sync unless tensor-core-kernel=wgmma.
constexpr StringLiteral kWgmmaStrategy = "wgmma";
constexpr int64_t kWgmmaTf32Tile[] = {128, 128, 32, 16, 128, 4};
constexpr int64_t kWgmmaHalfTile[] = {128, 128, 64, 16, 128, 4};

/// wgmma fed by TMA from a producer warpgroup (sm_90a, K-major operands
/// whose rows are 16-byte multiples apart): two consumer warpgroups of
/// 64 x 256, 4 stages of 48 KiB.
constexpr StringLiteral kWgmmaTmaStrategy = "wgmma_tma";
constexpr int64_t kWgmmaTmaTf32Tile[] = {128, 256, 32, 16, 256, 4};
constexpr int64_t kWgmmaTmaHalfTile[] = {128, 256, 64, 16, 256, 4};
/// Its grid: at most one block per SM of an H100 SXM or H200 (132), each
/// looping over output tiles, so that a tile's epilogue overlaps the next
/// one's copies.
constexpr int64_t kWgmmaTmaMaxGrid = 132;

/// Whether the copy engine can read `op`'s operands: K-major (transpose_b)
/// with a static, non-zero K whose rows are a multiple of 16 bytes apart
/// (the runtime checks the base addresses).
bool tmaCanCopy(MatmulOp op) {
  return op.getTransposeB() && op.hasTmaCopyableK();
}


/// Whether the fp64 tensor-core kernel's epilogue can normalize `op`'s
/// groups: whole 8-column pieces of one warp's row, a power of two
/// (MmaGemmKernel's normalizeGroups).
bool mmaHoldsGroups(MatmulOp op) {
  int64_t g = *op.getNormGroupSize();
  return g % 8 == 0 && llvm::isPowerOf2_64(g) && kMmaFp64Tile[4] % g == 0;
}

/// The tensor-core precision of `op`, or "" for the fp32 FFMA kernel.
/// `fp32Kernel` (auto, ffma, fp64) picks the kernel of fp32 f32 matmuls.
/// On chips whose fp64 tensor cores (DMMA) match their fp32 FMA peak
/// (Hopper), f32 operands widened to f64 give fp32-or-better results
/// fastest: DMMA issues one instruction per 512 FMAs, so the kernel is no
/// longer bound by the issue slots that cap an FFMA main loop. W2 on an
/// H100, 2026-11-22: cuBLAS DGEMM 63 TFLOP/s against 50 for cuBLAS SGEMM and
/// 46 for fuser's FFMA kernel (bench/results/).
StringRef mmaPrecision(MatmulOp op, StringRef precision, StringRef fp32Kernel,
                       const ChipInfo &chip) {
  Type elem = getElementTypeOrSelf(op.getLhs().getType());
  if (elem.isBF16())
    return "bf16";
  if (elem.isF16())
    return "f16";
  if (precision != "fp32")
    return precision;
  if (!elem.isF32() || fp32Kernel == "ffma" ||
      (op.hasGroupNorm() && !mmaHoldsGroups(op)))
    return StringRef();
  if (fp32Kernel == "fp64" || chip.fastFp64TensorCores)
    return "fp64";
  return StringRef();
}

/// GroupNorm: one block per (sample, group), threads striding over the
/// group with 128-bit accesses when its size allows. The block is sized for
/// about 2 vectors per thread, so small groups still put many loads in
/// flight: one warp for W3's 16 elements, 128 threads for 1024, at most 512
/// threads (64K elements: 32 vectors per thread).
constexpr int64_t kGroupNormMaxBlock = 512;
constexpr int64_t kGroupNormVectorsPerThread = 2;

/// The config of a group norm, or null after a diagnostic.
KernelConfigAttr groupNormConfig(GroupNormOp op, StringRef precision) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t groupSize = 1;
  for (int64_t d : type.getShape().drop_front())
    groupSize = ShapedType::isDynamic(d) || ShapedType::isDynamic(groupSize)
                    ? ShapedType::kDynamic
                    : groupSize * d;
  int64_t width = 1, block = kGroupNormMaxBlock;
  if (!ShapedType::isDynamic(groupSize)) {
    groupSize /= op.getNumGroups();
    width = groupSize % 4 == 0 ? 4 : groupSize % 2 == 0 ? 2 : 1;
    int64_t perThread = llvm::divideCeil(groupSize / width,
                                         kGroupNormVectorsPerThread);
    block = std::clamp<int64_t>(llvm::PowerOf2Ceil(perThread), 32,
                                kGroupNormMaxBlock);
  }
  return KernelConfigAttr::getChecked(
      [&] { return op.emitError(); }, op.getContext(), StringRef("group_norm"),
      ArrayRef<int64_t>{block, 1, 1}, width, /*max_grid=*/int64_t(0),
      ArrayRef<int64_t>{}, /*min_blocks_per_sm=*/int64_t(0), precision);
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
    if (!llvm::is_contained({"auto", "ffma", "fp64"}, fp32Kernel)) {
      getOperation().emitError()
          << "fp32-kernel must be auto, ffma or fp64, got '" << fp32Kernel
          << "'";
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
    if (fp32Kernel == "fp64" && !hasFp64Mma(*chipInfo)) {
      getOperation().emitError()
          << "fp32-kernel=fp64 needs fp64 tensor cores with mma.sync "
             "m16n8k8 (sm_90 or newer); "
          << chip << " has none: use fp32-kernel=auto or ffma";
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
    getOperation().walk([&](PointwiseOp op) {
      if (op.getConfigAttr())
        return; // chosen earlier or by the user
      int64_t block = blockSize > 0 ? blockSize.getValue() : kPointwiseBlock;
      int64_t width =
          vectorWidth > 0 ? vectorWidth.getValue() : pointwiseVectorWidth(op);
      int64_t grid = maxGrid >= 0 ? maxGrid.getValue() : kPointwiseMaxGrid;
      auto config = KernelConfigAttr::getChecked(
          [&] { return op.emitError(); }, ctx, StringRef("pointwise"),
          ArrayRef<int64_t>{block, 1, 1}, width, grid, ArrayRef<int64_t>{},
          /*min_blocks_per_sm=*/int64_t(0), StringRef(precision));
      if (!config) {
        failedAny = true;
        return;
      }
      op.setConfigAttr(config);
    });
    getOperation().walk([&](MatmulOp op) {
      if (op.getConfigAttr())
        return; // chosen earlier or by the user
      // A group norm divides by the spread of its group, which amplifies
      // the GEMM's error by 1/sigma: it keeps fp32 accuracy (FFMA, or fp64
      // tensor cores where the groups fit their epilogue).
      StringRef opPrecision = precision;
      if (op.hasGroupNorm() && opPrecision != "fp32") {
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
                        << kMmaFp64Tile[4] << "); FFMA instead";
      if (StringRef mma = mmaPrecision(op, opPrecision, fp32Kernel, *chipInfo);
          !mma.empty()) {
        if (!configureMma(op, mma))
          failedAny = true;
        return;
      }
      SmallVector<int64_t> tile(std::begin(kMatmulTile), std::end(kMatmulTile));
      int64_t block = kMatmulBlock;
      if (!tileSizes.empty()) {
        if (tileSizes.size() != 3 && tileSizes.size() != 5) {
          op.emitError() << "tile-sizes must list 3 values (M, N, K) or 5 "
                            "(M, N, K, thread M, thread N), got "
                         << tileSizes.size();
          failedAny = true;
          return;
        }
        tile.assign(tileSizes.begin(), tileSizes.end());
        // One thread per thread tile (8 x 8 unless given).
        int64_t tm = tile.size() == 5 ? tile[3] : 8;
        int64_t tn = tile.size() == 5 ? tile[4] : 8;
        block = (tm > 0 && tn > 0) ? (tile[0] / tm) * (tile[1] / tn) : 0;
      }
      auto config = KernelConfigAttr::getChecked(
          [&] { return op.emitError(); }, ctx, StringRef(kMatmulStrategy),
          ArrayRef<int64_t>{block, 1, 1}, /*vector_width=*/int64_t(1),
          /*max_grid=*/int64_t(0), ArrayRef<int64_t>(tile),
          /*min_blocks_per_sm=*/kMatmulMinBlocksPerSM, opPrecision);
      if (!config) {
        failedAny = true;
        return;
      }
      op.setConfigAttr(config);
    });
    getOperation().walk([&](GroupNormOp op) {
      if (op.getConfigAttr())
        return; // chosen earlier or by the user
      if (KernelConfigAttr config = groupNormConfig(op, StringRef(precision)))
        op.setConfigAttr(config);
      else
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

private:
  /// The `chip` option's entry (set first in runOnOperation).
  const ChipInfo *chipInfo = nullptr;

  /// Attaches the tensor-core config of `op`; false after a diagnostic.
  bool configureMma(MatmulOp op, StringRef mma) {
    bool wgmmaOk = mma != "fp64" && mma != "3xtf32" && op.getTransposeB() &&
                   !op.hasGroupNorm();
    bool autoHalf = tensorCoreKernel == "auto" && chipInfo->wgmma &&
                    mma != "tf32";
    bool tma = wgmmaOk && tmaCanCopy(op) &&
               (tensorCoreKernel == "wgmma-tma" ||
                (tensorCoreKernel == "auto" && chipInfo->wgmma));
    if (tensorCoreKernel == "wgmma-tma" && !tma && mma != "fp64" &&
        mma != "3xtf32")
      op.emitRemark() << "tensor-core-kernel=wgmma-tma not applied: TMA "
                         "needs K-major operands with a static K whose rows "
                         "are a multiple of 16 bytes apart, and no group "
                         "norm";
    bool wgmma = wgmmaOk && (tma || tensorCoreKernel == "wgmma" ||
                             tensorCoreKernel == "wgmma-tma" || autoHalf);
    ArrayRef<int64_t> defaults =
        tma     ? (mma == "tf32" ? ArrayRef(kWgmmaTmaTf32Tile)
                                 : ArrayRef(kWgmmaTmaHalfTile))
        : wgmma ? (mma == "tf32" ? ArrayRef(kWgmmaTf32Tile)
                                 : ArrayRef(kWgmmaHalfTile))
        : mma == "tf32"   ? ArrayRef(kMmaTf32Tile)
        : mma == "3xtf32" ? ArrayRef(kMma3xTf32Tile)
        : mma == "fp64"   ? ArrayRef(kMmaFp64Tile)
                          : ArrayRef(kMmaHalfTile);
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
    // One warp per WM x WN (wgmma: WM = 16, WN = BN, four per warpgroup);
    // wgmma_tma adds the producer warpgroup.
    int64_t block =
        tile[3] > 0 && tile[4] > 0 ? 32 * (tile[0] / tile[3]) * (tile[1] / tile[4])
                                   : 0;
    if (tma)
      block += 128;
    auto config = KernelConfigAttr::getChecked(
        [&] { return op.emitError(); }, &getContext(),
        StringRef(tma ? kWgmmaTmaStrategy : wgmma ? kWgmmaStrategy : kMmaStrategy),
        ArrayRef<int64_t>{std::max<int64_t>(block, 1), 1, 1},
        /*vector_width=*/int64_t(1),
        /*max_grid=*/tma ? kWgmmaTmaMaxGrid : int64_t(0),
        ArrayRef<int64_t>(tile), /*min_blocks_per_sm=*/int64_t(1), mma);
    if (!config)
      return false;
    op.setConfigAttr(config);
    return true;
  }
};

} // namespace
