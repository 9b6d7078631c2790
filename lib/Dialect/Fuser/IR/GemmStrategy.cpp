//===- GemmStrategy.cpp - one record per GEMM kernel strategy ---*- C++ -*-===//
//
// The records of GemmStrategy.h: each strategy's precisions, operand needs,
// default tiles (with the measurements that chose them), threads and grid.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include <algorithm>

#include "fuser/Dialect/Fuser/IR/FuserEnums.cpp.inc"

using namespace mlir;
using namespace mlir::fuser;

namespace {

//===----------------------------------------------------------------------===//
// ffma
//===----------------------------------------------------------------------===//

/// fp32 FMA on CUDA cores, 256 threads computing a 256 x 128 (M x N) output
/// tile, 16 x 8 elements per thread, stepping K by 8. Best of 15 tilings on
/// W2 (H200, 2026-11-22, bench/results/H200-2026-11-22*.md): 46.6 TFLOP/s,
/// against 44.2 for 128 x 128 with 8 x 16 per thread and 41.0 for 128 x 128
/// with 8 x 8. About 246 registers: one block per SM.
constexpr int64_t kFfmaTile[] = {256, 128, 8, 16, 8};
constexpr StringLiteral kFfmaPrecisions[] = {"fp32"};

ArrayRef<int64_t> ffmaTile(StringRef) { return kFfmaTile; }

/// A thread holds TN / 4 pieces of 4 columns, BN / (TN / 4) apart: a group
/// is whole pieces of one piece's span (8 x 8 threads without TM, TN).
int64_t ffmaGroupSpan(ArrayRef<int64_t> tile) {
  int64_t tn = tile.size() == 5 ? tile[4] : 8;
  return tn >= 4 ? tile[1] / (tn / 4) : 0;
}

bool ffmaHoldsGroups(ArrayRef<int64_t> tile, int64_t groupSize) {
  int64_t span = ffmaGroupSpan(tile);
  return groupSize > 0 && groupSize % 4 == 0 && span % groupSize == 0 &&
         groupSize <= 128;
}

/// One thread per thread tile (8 x 8 when the tile lists only BM, BN, BK).
int64_t ffmaThreads(ArrayRef<int64_t> tile) {
  int64_t tm = tile.size() == 5 ? tile[3] : 8;
  int64_t tn = tile.size() == 5 ? tile[4] : 8;
  return (tm > 0 && tn > 0) ? (tile[0] / tm) * (tile[1] / tn) : 0;
}

//===----------------------------------------------------------------------===//
// mma
//===----------------------------------------------------------------------===//

/// mma.sync with fp32 accumulators, tile = [BM, BN, BK, WM, WN, STAGES], one
/// warp per WM x WN outputs, a STAGES-deep cp.async pipeline in dynamic
/// shared memory. f32 operands get it when the precision option asks for
/// tf32 or 3xtf32; bf16 and f16 operands always (their own type, whatever
/// the option). Each warp tile stays within 255 registers without spills
/// (ptxas, sm_90a). Fastest measured on W2 (H100, 2026-11-22, of 9 tilings
/// each, bench/results/H100-2026-11-22-mma.md): tf32: 128 x 128 x 16, 4
/// warps of 64 x 64, 4 stages (80 KiB; 129 TFLOP/s); bf16/f16: 128 x 128 x
/// 32, 4 warps of 64 x 64, 3 stages (60 KiB; 290 TFLOP/s). 3xtf32 keeps hi
/// and lo fragments, so 8 warps of 64 x 32.
constexpr int64_t kMmaTf32Tile[] = {128, 128, 16, 64, 64, 4};
/// fp64 (DMMA) accumulators take two registers each, so warps of 64 x 32.
/// Best spill-free tiling of 9 on W2 and W3 (H100, 2026-11-22,
/// bench/results/H100-2026-11-22-fp64.md): 52.8 TFLOP/s on W2 (cuBLAS SGEMM
/// 51), 52.4 on W3; 128 x 64 and 64 x 128 tiles at 2 blocks/SM are within
/// 1% but spill.
constexpr int64_t kMmaFp64Tile[] = {128, 128, 32, 64, 32, 4};
constexpr int64_t kMma3xTf32Tile[] = {128, 128, 16, 64, 32, 4};
constexpr int64_t kMmaHalfTile[] = {128, 128, 32, 64, 64, 3};
constexpr StringLiteral kMmaPrecisions[] = {"tf32", "3xtf32", "fp64", "bf16",
                                            "f16"};

ArrayRef<int64_t> mmaTile(StringRef precision) {
  return precision == "tf32"     ? ArrayRef(kMmaTf32Tile)
         : precision == "3xtf32" ? ArrayRef(kMma3xTf32Tile)
         : precision == "fp64"   ? ArrayRef(kMmaFp64Tile)
                                 : ArrayRef(kMmaHalfTile);
}

/// A warp's row of WN columns holds each m16n8 piece's 8 columns in the 4
/// lanes of a quad (the mma.sync C layout, which every tensor-core kernel
/// leaves its sums in): a group is a power of two of whole pieces.
int64_t mmaGroupSpan(ArrayRef<int64_t> tile) { return tile[4]; }

bool mmaHoldsGroups(ArrayRef<int64_t> tile, int64_t groupSize) {
  return groupSize > 0 && groupSize % 8 == 0 &&
         llvm::isPowerOf2_64(groupSize) && mmaGroupSpan(tile) % groupSize == 0;
}

/// One warp per WM x WN (wgmma: WM = 16, WN = BN, four per warpgroup).
int64_t mmaThreads(ArrayRef<int64_t> tile) {
  return tile[3] > 0 && tile[4] > 0
             ? 32 * (tile[0] / tile[3]) * (tile[1] / tile[4])
             : 0;
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// wgmma (sm_90a, K-major operands): two warpgroups of 64 x 128, BK one
/// 128-byte swizzled row, 4 stages (128 KiB); the default for bf16/f16
/// only. W2 on an H100 (bench/results/H100-2026-11-22-wgmma.md): bf16 418
/// TFLOP/s (mma.sync: 286; 128 x 256 reaches 494 but spills). tf32 through
/// wgmma truncates operands instead of rounding them (cvt.rna), which
/// doubles the error (2.5e-3 on W2, 2e-2 on the odd-shape tests), so tf32
/// keeps mma.sync unless tensor-core-kernel=wgmma.
constexpr int64_t kWgmmaTf32Tile[] = {128, 128, 32, 16, 128, 4};
constexpr int64_t kWgmmaHalfTile[] = {128, 128, 64, 16, 128, 4};
constexpr StringLiteral kWgmmaPrecisions[] = {"tf32", "bf16", "f16"};

ArrayRef<int64_t> wgmmaTile(StringRef precision) {
  return precision == "tf32" ? ArrayRef(kWgmmaTf32Tile)
                             : ArrayRef(kWgmmaHalfTile);
}

/// Reads A as K-major (M x K) rows: an M-major A (transpose_a) needs the
/// FFMA kernel.
bool mmaSupports(MatmulOp op, StringRef) { return !op.getTransposeA(); }

/// Both operands K-major (nn.Linear's layout), unbatched: wgmma reads them
/// from 128-byte-swizzled rows of K.
bool wgmmaSupports(MatmulOp op, StringRef) {
  return op.getTransposeB() && !op.getTransposeA() && !op.isBatched();
}

//===----------------------------------------------------------------------===//
// wgmma_tma
//===----------------------------------------------------------------------===//

/// wgmma fed by TMA from a producer warpgroup (sm_90a, K-major operands
/// whose rows are 16-byte multiples apart): two consumer warpgroups of
/// 64 x 256, 4 stages of 48 KiB.
constexpr int64_t kWgmmaTmaTf32Tile[] = {128, 256, 32, 16, 256, 4};
constexpr int64_t kWgmmaTmaHalfTile[] = {128, 256, 64, 16, 256, 4};
/// 3xtf32 (fp32-accurate): three tf32 products per step, A·B + A·B_lo +
/// A_lo·B, where wgmma reads A and B as their tf32 truncations and lo =
/// x - tf32(x), rounded to nearest tf32, is made in shared memory beside
/// each stage by two warps of the producer warpgroup (the splitter; three
/// with an N-major B, which it also transposes). Three
/// accumulator sets (the tensor cores' sums of the small terms and of A·B,
/// and the promoted fp32 sums) must fit the consumers' 224 registers:
/// 64 x 128 per warpgroup. Stages of 32 KiB copied + 32 KiB of lo parts, 3
/// of them.
constexpr int64_t kWgmmaTma3xTf32Tile[] = {128, 128, 32, 16, 128, 3};
/// The tensor cores' fp32 sums truncate; promoting them into fp32
/// registers (compensated: SplitTf32.cpp) bounds that loss. Max |GEMM -
/// float64| over cuBLAS SGEMM's on the same inputs (x in [-1, 1), N = 256),
/// worst of 10 inputs at K = 200 / 1000 / 8192 (H100, 2026-11-24,
/// bench/experiments/split_promotion.py): every 32 K 0.44 / 0.71 / 0.43, every 64
/// 0.56 / 0.96 / 0.53, every 128 1.03 / 1.47 / 0.79; 32 costs W2 and W3
/// another 11-13% (bench/results/H100-2026-11-24-split-tf32-promotion.md). Never
/// promoted: 77x SGEMM at K = 8192 (bench/results/H100-2026-11-23-split-
/// tf32.md). SGEMM's error grows with K and the promoted sums' does not,
/// so a longer K allows a longer interval: every 128 K, worst of 20 inputs
/// at K = 2048 / 4096 / 8192 / 16384: 1.09 / 0.86 / 0.91 / 0.64 (every 64:
/// 0.76 / 0.54 / 0.60 / 0.43; H100, 2026-11-25,
/// bench/results/H100-2026-11-25-promotion-from-k.md). From K = 4096 the interval
/// is 128, which runs W2 5.7% and W3 3.0% faster than 64.
/// tf32_2xbf16's bf16 cross terms dominate its error: every 256 K erred
/// 2.16 / 3.84 / 2.00x SGEMM at K = 200 / 1000 / 8192 against 1.97 / 3.63 /
/// 1.74x every 128, and ran W2 1.18 ms against 1.26 (H200, 2026-11-30,
/// bench/results/H200-2026-11-30-split-bf16-cross-terms.md).
int64_t wgmmaTmaPromoteEvery(StringRef precision, int64_t k) {
  if (hasBf16CrossTerms(precision))
    return 256;
  return !ShapedType::isDynamic(k) && k >= 4096 ? 128 : 64;
}
constexpr StringLiteral kWgmmaTmaPrecisions[] = {"tf32", "3xtf32", "tf32_2xbf16",
                                                 "bf16", "f16"};
/// Its grid: at most one block per SM of an H100 SXM or H200 (132), each
/// looping over output tiles, so that a tile's epilogue overlaps the next
/// one's copies. It splits K (split_k): a slice is only an offset of the
/// TMA copies' K coordinate, and the blocks loop over (tile, slice) pairs
/// as they loop over tiles.
constexpr int64_t kWgmmaTmaMaxGrid = 132;
/// tf32, bf16 and f16: the blocks walk the output tiles in bands of 8 M
/// tiles (1024 rows), N tile after N tile within a band. M fastest over
/// every M tile re-read A from DRAM once per N tile when A outgrows L2:
/// 32768 x 1024 x 1024 read 548 MB for 132 MB of operands (ncu), 0.76x
/// cuBLAS in tf32. In bands: 1.19x faster in tf32 (0.90x cuBLAS), 1.13x in
/// bf16; 4096^3 1.007x / 1.013x; 2048 x 2048 x 8192 and W2's shape (one
/// band) unchanged. Not 3xtf32, which makes three products per copied
/// byte and is bound by shared memory: bands made 4096^3 4% slower there
/// (H100, 2026-11-25, bench/results/H100-2026-11-25-clusters.md).
constexpr int64_t kWgmmaTmaTileGroupM = 8;

int64_t wgmmaTmaTileGroupM(StringRef precision) {
  return isSplitPrecision(precision) ? 0 : kWgmmaTmaTileGroupM;
}

/// 3xtf32's narrower tile against wave quantization: 128 x 96, 4 stages of
/// 28 KiB copied + 28 KiB of lo parts. nn.Linear 1000 -> 3000 at batch 1000
/// (linear_odd) makes 256 of them, 1.94 waves of 132 blocks, against 192
/// tiles of 128 x 128 (1.45 waves): 77.9 us, 1.99x cuBLAS SGEMM, against
/// 93.9 us, 1.65x (H100, 2026-11-24, bench/experiments/gemm_sweep.py; 3 stages 82.6
/// us). Both run 2 waves there, so one 128 x 96 tile takes 0.83x the time
/// of a 128 x 128 one.
constexpr int64_t kWgmmaTma3xTf32WaveTile[] = {128, 96, 32, 16, 96, 4};
constexpr double kWgmmaTma3xTf32WaveTileTime = 0.83;

// The N-major B boxes are 32 columns of BK rows (MmaTiling::
// kNMajorBoxCols); both 3xtf32 tiles hold whole boxes and one BK, which
// wgmmaTmaReadsNMajorB's K rule uses.
static_assert(kWgmmaTma3xTf32Tile[1] % 32 == 0 &&
                  kWgmmaTma3xTf32WaveTile[1] % 32 == 0 &&
                  kWgmmaTma3xTf32Tile[2] == kWgmmaTma3xTf32WaveTile[2],
              "3xtf32 tiles of whole N-major boxes and one BK");

ArrayRef<int64_t> wgmmaTmaWaveTile(StringRef precision) {
  return isSplitPrecision(precision) ? ArrayRef(kWgmmaTma3xTf32WaveTile)
                               : ArrayRef<int64_t>();
}

ArrayRef<int64_t> wgmmaTmaTile(StringRef precision) {
  return precision == "tf32"     ? ArrayRef(kWgmmaTmaTf32Tile)
         : isSplitPrecision(precision) ? ArrayRef(kWgmmaTma3xTf32Tile)
                                 : ArrayRef(kWgmmaTmaHalfTile);
}

/// The copy engine reads the operands: K-major, with a static, non-zero K
/// whose rows are a multiple of 16 bytes apart (the runtime checks the base
/// addresses). A batched product's operands are 2-D tensor maps of their
/// batches' rows stacked (B * M and B * N rows of K), the blocks looping
/// over (batch, tile) pairs. 3xtf32 also reads an N-major B (x * W,
/// torch.bmm's right operand): its splitter, which passes over every
/// element of a stage anyway, transposes B into the K-major rows wgmma
/// reads (tf32 wgmma reads K-major operands only), so no transposing copy
/// of B runs first. A group norm needs each row's groups in registers at
/// once: only beside 3xtf32's 64-column warpgroup halves, for groups that
/// are whole 8-column pieces (a power of two) of them.
bool wgmmaTmaSupports(MatmulOp op, StringRef precision) {
  if (!op.hasTmaCopyableK())
    return false;
  if (!op.getTransposeB() &&
      (!isSplitPrecision(precision) || !wgmmaTmaReadsNMajorB(op)))
    return false;
  if (!op.hasGroupNorm())
    return true;
  return isSplitPrecision(precision) &&
         mmaHoldsGroups(kWgmmaTma3xTf32Tile, *op.getNormGroupSize());
}

/// The consumers' warps and the producer warpgroup.
int64_t wgmmaTmaThreads(ArrayRef<int64_t> tile) {
  return mmaThreads(tile) + 128;
}

/// Beside wgmma_tma's accumulators there is room for row vectors only
/// with 3xtf32's 64 tensor-core sums and 64 promoted sums per thread and
/// nothing else: not beside tf32/bf16's 128 sums, a group norm's inputs
/// (loaded again after the normalization rather than held across it), a
/// batch's offset pointers, or an input read whole (ptxas spills).
bool wgmmaTmaHoldsRowVectors(const EpilogueRegisterUse &use) {
  return isSplitPrecision(use.precision) && !use.groupNorm && !use.batched &&
         !use.readsMatrix;
}

/// 3xtf32's splitter applies A's prologue as it splits A: the prologue's
/// one other input is copied by TMA into the stage's shared memory for
/// A's lo parts (its 128-byte swizzle is A's), and the splitter writes the
/// prologue's result over A and its lo parts over that input.
bool wgmmaTmaReadsPrologue(MatmulOp op, StringRef precision) {
  Type a = cast<ShapedType>(op.getLhs().getType()).getElementType();
  return isSplitPrecision(precision) && op.getPrologueInputs().size() <= 1 &&
         llvm::all_of(op.getPrologueInputs(), [&](Value in) {
           return cast<ShapedType>(in.getType()).getElementType() == a;
         });
}

const GemmStrategyRecord kRecords[] = {
    {GemmStrategy::ffma, kFfmaPrecisions, /*supportsOp=*/nullptr, ffmaTile,
     ffmaThreads, /*maxGrid=*/0, /*minBlocksPerSm=*/1,
     /*splitPromoteEvery=*/nullptr, /*splitK=*/false, /*waveTile=*/nullptr,
     /*waveTileTime=*/1.0, /*holdsRowVectors=*/nullptr,
     /*tileGroupM=*/nullptr, /*readsPrologue=*/nullptr, ffmaGroupSpan,
     ffmaHoldsGroups},
    {GemmStrategy::mma, kMmaPrecisions, mmaSupports, mmaTile,
     mmaThreads, /*maxGrid=*/0, /*minBlocksPerSm=*/1,
     /*splitPromoteEvery=*/nullptr, /*splitK=*/false, /*waveTile=*/nullptr,
     /*waveTileTime=*/1.0, /*holdsRowVectors=*/nullptr,
     /*tileGroupM=*/nullptr, /*readsPrologue=*/nullptr, mmaGroupSpan,
     mmaHoldsGroups},
    {GemmStrategy::wgmma, kWgmmaPrecisions, wgmmaSupports, wgmmaTile,
     mmaThreads, /*maxGrid=*/0, /*minBlocksPerSm=*/1,
     /*splitPromoteEvery=*/nullptr, /*splitK=*/false, /*waveTile=*/nullptr,
     /*waveTileTime=*/1.0, /*holdsRowVectors=*/nullptr,
     /*tileGroupM=*/nullptr, /*readsPrologue=*/nullptr, mmaGroupSpan,
     mmaHoldsGroups},
    {GemmStrategy::wgmma_tma, kWgmmaTmaPrecisions, wgmmaTmaSupports,
     wgmmaTmaTile, wgmmaTmaThreads, kWgmmaTmaMaxGrid, /*minBlocksPerSm=*/1,
     wgmmaTmaPromoteEvery, /*splitK=*/true, wgmmaTmaWaveTile,
     kWgmmaTma3xTf32WaveTileTime, wgmmaTmaHoldsRowVectors,
     wgmmaTmaTileGroupM, wgmmaTmaReadsPrologue, mmaGroupSpan,
     mmaHoldsGroups},
};
static_assert(std::size(kRecords) == getMaxEnumValForGemmStrategy() + 1,
              "one record per GemmStrategy, in enum order");

} // namespace

ArrayRef<GemmStrategyRecord> mlir::fuser::gemmStrategyRecords() {
  return kRecords;
}

const GemmStrategyRecord &
mlir::fuser::getGemmStrategyRecord(GemmStrategy strategy) {
  const GemmStrategyRecord &r = kRecords[static_cast<size_t>(strategy)];
  assert(r.kind == strategy && "records out of enum order");
  return r;
}

bool mlir::fuser::wgmmaTmaReadsNMajorB(MatmulOp op) {
  return op.hasTmaCopyableNMajorB(kWgmmaTma3xTf32Tile[2]);
}

std::string mlir::fuser::wgmmaTmaClusterError(MatmulOp op,
                                              ArrayRef<int64_t> tile,
                                              int64_t splitK,
                                              int64_t clusterM) {
  if (splitK > 1)
    return "its K is split, and a cluster shares one K loop";
  if (op.isBatched())
    return "a batched product's tiles are not paired";
  int64_t bn = tile[1];
  if (bn % (clusterM * 8) ||
      (!op.getTransposeB() && (bn / 32) % clusterM))
    return "B tiles of " + std::to_string(bn) +
           " columns do not split into a share per block";
  return "";
}

std::string mlir::fuser::gemmStrategyOptionName(GemmStrategy strategy) {
  std::string name = stringifyGemmStrategy(strategy).str();
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::optional<GemmStrategy>
mlir::fuser::symbolizeGemmStrategyOption(StringRef name) {
  for (const GemmStrategyRecord &r : kRecords)
    if (r.optionName() == name)
      return r.kind;
  return std::nullopt;
}

std::string mlir::fuser::splitKStrategyNames() {
  std::string s;
  for (const GemmStrategyRecord &r : kRecords)
    if (r.splitK)
      s += (s.empty() ? "'" : ", '") + r.name().str() + "'";
  return s;
}

std::string mlir::fuser::gemmStrategyNames() {
  std::string s;
  for (auto [i, r] : llvm::enumerate(kRecords)) {
    if (i)
      s += i + 1 == std::size(kRecords) ? " and " : ", ";
    s += "'" + r.name().str() + "'";
  }
  return s;
}
