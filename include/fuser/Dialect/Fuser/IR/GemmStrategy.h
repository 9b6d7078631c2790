//===- GemmStrategy.h - one record per GEMM kernel strategy -----*- C++ -*-===//
//
// The GEMM kernels fuser builds for a fuser.matmul (the GemmStrategy enum of
// FuserAttrs.td), one record each: the precisions it computes in, what it
// needs of the operands, its default tiles, its threads per block and its
// grid. The configuration step chooses among them and the lowering
// (MatmulToGPU) checks and builds the one the config names, both from these
// records, so no rule is written twice. Adding a strategy: its enum case, its
// record (GemmStrategy.cpp), its kernel file and its tests.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_GEMMSTRATEGY_H
#define FUSER_DIALECT_FUSER_IR_GEMMSTRATEGY_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include <optional>

#include "fuser/Dialect/Fuser/IR/FuserEnums.h.inc"

namespace mlir::fuser {

/// What a GEMM kernel's epilogue keeps in registers beside the
/// accumulators, for GemmStrategyRecord::holdsRowVectors.
struct EpilogueRegisterUse {
  StringRef precision;
  /// A group norm (its inputs are needed before and after normalizing).
  bool groupNorm;
  /// A batched product (per-batch offset pointers).
  bool batched;
  /// An input read whole or transposed (a value per output element).
  bool readsMatrix;
};

/// The spelling of `strategy` in pass and pipeline options: its
/// #fuser.config name with '-' for '_' (`wgmma-tma`).
std::string gemmStrategyOptionName(GemmStrategy strategy);

/// The strategy an option spells (gemmStrategyOptionName), if any.
std::optional<GemmStrategy> symbolizeGemmStrategyOption(StringRef name);

struct GemmStrategyRecord {
  GemmStrategy kind;
  /// The `precision` values of #fuser.config the kernel computes in.
  ArrayRef<StringLiteral> precisions;
  /// What the kernel needs of `op` in `precision` (operand layout, static
  /// sizes, epilogue); null when it takes any matmul.
  bool (*supportsOp)(MatmulOp op, StringRef precision);
  /// The default tile for `precision` (one of `precisions`): [BM, BN, BK,
  /// TM, TN] for ffma (a thread's TM x TN outputs), [BM, BN, BK, WM, WN,
  /// STAGES] for the tensor-core kernels (a warp's WM x WN outputs; wgmma:
  /// WM = 16, WN = BN, four warps per warpgroup of 64 rows).
  ArrayRef<int64_t> (*defaultTile)(StringRef precision);
  /// Threads per block for `tile`; 0 for a degenerate tile.
  int64_t (*threads)(ArrayRef<int64_t> tile);
  /// The grid's cap along x (0: one block per output tile).
  int64_t maxGrid;
  /// #fuser.config's min_blocks_per_sm (register cap).
  int64_t minBlocksPerSm;
  /// #fuser.config's promote_every for split `precision` (3xtf32,
  /// tf32_2xbf16) at K
  /// `k` (ShapedType::kDynamic: unknown): K elements per promotion of the
  /// tensor-core sums into fp32 registers; null where the kernel does not
  /// promote.
  int64_t (*splitPromoteEvery)(StringRef precision, int64_t k);
  /// Whether the kernel can split K among blocks (#fuser.config's
  /// split_k > 1): partial sums into an intermediate, then a reduction
  /// kernel with the epilogue.
  bool splitK;
  /// A narrower tile for `precision` (empty: none) that the configuration
  /// step takes instead of the default when the default's tiles leave much
  /// of the last wave of maxGrid blocks idle and the narrower ones do not
  /// (MatmulWaveTile.h), and the time one of its tiles takes relative to a
  /// default tile's. Last, so records without one leave them null.
  ArrayRef<int64_t> (*waveTile)(StringRef precision) = nullptr;
  double waveTileTime = 1.0;
  /// Whether the epilogue holds row vectors (a bias over N) in registers
  /// for all of a thread's rows, given what else it holds; false: it loads
  /// them again per row (they hit L1). Null: always held.
  bool (*holdsRowVectors)(const EpilogueRegisterUse &use) = nullptr;
  /// Persistent kernels: the M tiles per band of the order the blocks walk
  /// the output tiles in `precision` (#fuser.config's group_m), for
  /// products of more M tiles (or a dynamic M); 0 (or null): M fastest
  /// over every M tile.
  int64_t (*tileGroupM)(StringRef precision) = nullptr;
  /// Whether the kernel applies `op`'s A prologue (fuser.matmul's
  /// `prologue` region) in `precision` as it reads A; null: never. Where
  /// it does not, the configuration step computes the prologue in a
  /// pointwise kernel of its own.
  bool (*readsPrologue)(MatmulOp op, StringRef precision) = nullptr;
  /// The columns of an output row that one thread (ffma) or one warp (the
  /// tensor-core kernels) holds in registers with `tile`: a group norm's
  /// groups must lie within them, so that their statistics are sums over
  /// a thread's registers and shuffles.
  int64_t (*groupSpan)(ArrayRef<int64_t> tile) = nullptr;
  /// Whether the epilogue with `tile` normalizes groups of `groupSize`
  /// consecutive columns (fuser.matmul's group_norm): the one statement of
  /// that rule, for fusion, configuration and the lowerings.
  bool (*holdsGroups)(ArrayRef<int64_t> tile, int64_t groupSize) = nullptr;

  /// Its #fuser.config strategy string.
  StringRef name() const { return stringifyGemmStrategy(kind); }
  /// Its spelling in pass and pipeline options (`wgmma-tma`).
  std::string optionName() const { return gemmStrategyOptionName(kind); }
  /// Whether the kernel can compute `op` in `precision`.
  bool applies(MatmulOp op, StringRef precision) const {
    return llvm::is_contained(precisions, precision) &&
           (!supportsOp || supportsOp(op, precision));
  }
};

/// The split precisions: fp32-accurate products on tf32 tensor cores from
/// each operand's hi part (x truncated to tf32, what tf32 wgmma reads) and
/// lo part (x - hi), with the tensor-core sums promoted into fp32
/// registers. `3xtf32`: hi.hi + hi.lo + lo.hi, three tf32 products.
/// `tf32_2xbf16`: hi.hi in tf32, the two cross terms (2^-10 of it) in
/// bf16 as one product of twice the K (bf16 runs at twice tf32's rate): two
/// tf32 products' time instead of three, error about 2^-19 per product.
inline bool isSplitPrecision(StringRef precision) {
  return precision == "3xtf32" || precision == "tf32_2xbf16";
}
/// `tf32_2xbf16`: the cross terms in bf16.
inline bool hasBf16CrossTerms(StringRef precision) {
  return precision == "tf32_2xbf16";
}

/// The record of `strategy`.
const GemmStrategyRecord &getGemmStrategyRecord(GemmStrategy strategy);

/// Every strategy's record, in enum order.
ArrayRef<GemmStrategyRecord> gemmStrategyRecords();

/// Whether 3xtf32 on wgmma_tma reads `op`'s N-major B (K x N) as it is,
/// its splitter transposing the TMA boxes in shared memory: the one
/// statement of that rule, for the record, the operand copies and remarks.
bool wgmmaTmaReadsNMajorB(MatmulOp op);

/// Why wgmma_tma cannot run `op` with `tile` ([BM, BN, ...]) and `splitK`
/// slices in clusters of `clusterM` blocks sharing B, or "" when it can:
/// the one statement of that rule, for the configuration step and the
/// lowering. Each block copies every clusterM-th share of B (K-major rows
/// whole 8-row swizzle atoms, or N-major 32-column boxes) into all blocks.
std::string wgmmaTmaClusterError(MatmulOp op, ArrayRef<int64_t> tile,
                                 int64_t splitK, int64_t clusterM);

/// "'ffma', 'mma', 'wgmma' and 'wgmma_tma'", for messages.
std::string gemmStrategyNames();

/// Split K's second kernel (the slices added, then the epilogue): threads
/// per block and its grid's cap along x (threads stride past it). It reads
/// at most one wave of GEMM tiles' partial sums (a few MiB): its launch,
/// not its shape, is what costs.
inline constexpr int64_t kSplitKReduceThreads = 256;
inline constexpr int64_t kSplitKReduceMaxGrid = 1 << 20;

/// The strategies whose records allow split_k > 1, for messages.
std::string splitKStrategyNames();

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_GEMMSTRATEGY_H
