//===- MmaTiling.h - tiling and validity of the tensor-core GEMMs -*- C++
//-*-===//
//
// The lowest floor of the tensor-core GEMM kernels (strategies mma, wgmma
// and wgmma_tma): the shape of their shared-memory stages (StageGeometry,
// which the pipeline pieces TmaPipeline.h, WgmmaSteps.h and SplitTf32.h
// take), the warp tiling on top of it (MmaTiling), and the one check that a
// #fuser.config describes a tiling the kernels support (getMmaTiling). It
// includes nothing else of MatmulToGPU.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_MMATILING_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_MMATILING_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

namespace mlir::fuser {

/// The shared-memory stages of a block's BM x BN output tile, BK deep each:
/// what the copies fill and the tensor cores read.
struct StageGeometry {
  int64_t bm = 0, bn = 0, bk = 0, stages = 0;
  /// Operand element type: f32 (tf32 or f64 math), bf16 or f16.
  Type elemTy;
  /// The config's precision (attribute storage: lives with the context).
  StringRef precision;
  bool transB = false;
  /// The kernel: mma (mma.sync from registers), wgmma (wgmma.mma_async from
  /// 128-byte-swizzled shared memory) or wgmma_tma (wgmma with TMA copies
  /// and a producer warpgroup).
  GemmStrategy strategy = GemmStrategy::mma;
  /// 3xtf32 on wgmma_tma: K elements after which the tensor-core sums are
  /// added into fp32 registers and restarted (0: never).
  int64_t promoteEvery = 0;
  /// wgmma_tma: blocks per thread-block cluster (#fuser.config's
  /// cluster_m). With 2, a cluster's blocks take vertically adjacent output
  /// tiles and each copies half of their common B tile into both by TMA
  /// multicast; a stage is refilled once both blocks' consumers released it.
  int64_t clusterM = 1;
  /// A's prologue (fuser.matmul's `prologue` region) applied by the
  /// splitter (3xtf32 on wgmma_tma): its one input is copied into the
  /// stage's lo parts of A, which the splitter then overwrites.
  bool prologue = false;
  /// The prologue reads an input beside A.
  bool prologueInput = false;
  /// wgmma_tma where the staging fits (getMmaTiling's rule): each consumer
  /// warpgroup stages kBulkRows of its output rows at a time in shared
  /// memory, after the stages and their mbarriers, and one bulk copy per
  /// row writes them out while the warpgroup goes on
  /// (BulkStoreEpilogue.cpp).
  bool bulkStores = false;
  static constexpr int64_t kBulkRows = 32;
  /// The result's element bytes (bulkStores).
  int64_t resultBytes = 4;

  /// A split precision (hi/lo parts, three products' terms per step)
  /// instead of one product.
  bool split3() const { return isSplitPrecision(precision); }
  /// tf32_2xbf16: the cross terms as one bf16 product, whose stage halves
  /// (the lo parts' bytes) hold each operand's bf16 hi and lo parts.
  bool crossBf16() const { return hasBf16CrossTerms(precision); }
  /// f32 operands widened to f64 in registers, f64 mma and accumulators
  /// (DMMA): more accurate than FFMA, and on Hopper as fast in peak.
  bool f64Math() const { return precision == "fp64"; }
  /// wgmma.mma_async (wgmma or wgmma_tma) instead of mma.sync.
  bool wgmma() const {
    return strategy == GemmStrategy::wgmma ||
           strategy == GemmStrategy::wgmma_tma;
  }
  /// TMA copies from a producer warpgroup (wgmma_tma).
  bool tma() const { return strategy == GemmStrategy::wgmma_tma; }
  /// The warps reading a stage with wgmma: a warpgroup of four per 64 rows.
  int64_t consumerWarps() const { return bm / 16; }
  int64_t elemBytes() const { return elemTy.getIntOrFloatBitWidth() / 8; }
  /// Elements per 16-byte cp.async chunk.
  int64_t vec() const { return 16 / elemBytes(); }
  /// The mma's K: 8 for tf32, 16 for bf16/f16.
  int64_t kStep() const { return elemBytes() == 4 ? 8 : 16; }
  /// fp64 with both operands K-major: the mma's k = t and k = t + 4 are
  /// read from the adjacent stage columns 2t and 2t + 1 (a permutation of
  /// k inside each step, the same for A and B, so the sum is unchanged),
  /// making each fragment pair one 64-bit shared load.
  bool pairedK() const { return f64Math() && transB; }
  /// Shared-memory row pitches in elements. K-major rows (A, and B when
  /// transposed) are padded by 16 bytes (32 for paired loads), N-major B
  /// rows by 8 elements, so that the fragment loads of a warp (or of each
  /// half warp, for 64-bit loads) hit 32 distinct banks.
  int64_t kPad() const { return wgmma() ? 0 : pairedK() ? 8 : vec(); }
  int64_t aPitch() const { return bk + kPad(); }
  int64_t bPitch() const {
    return transB ? bk + kPad() : bn + (wgmma() ? 0 : 8);
  }
  int64_t aStageElems() const { return bm * aPitch(); }
  int64_t bStageElems() const { return (transB ? bn : bk) * bPitch(); }
  /// The bytes the copies fill per stage.
  int64_t copyBytes() const {
    return (aStageElems() + bStageElems()) * elemBytes();
  }
  /// The lo parts of 3xtf32 on wgmma_tma, made in shared memory.
  bool splitInShared() const { return split3() && tma(); }
  /// splitInShared with an N-major B (K x N): TMA lands B in boxes of
  /// kNMajorBoxCols columns by BK rows (128-byte rows, swizzled), which the
  /// splitter transposes in place into the K-major rows wgmma reads.
  bool transposesB() const { return splitInShared() && !transB; }
  static constexpr int64_t kNMajorBoxCols = 32;
  /// The rows of B's K-major box: each block of a cluster copies its share.
  int64_t bBoxRows() const { return bn / clusterM; }
  /// The bytes the tensor copies land per stage: A and B, and the
  /// prologue's input.
  int64_t tmaBytes() const {
    return copyBytes() + (prologueInput ? aStageBytes() : 0);
  }
  /// The bytes of A in a stage (B follows).
  int64_t aStageBytes() const { return aStageElems() * elemBytes(); }
  /// A stage: the copied A and B, then (splitInShared) their lo parts in
  /// the same layout.
  int64_t stageBytes() const { return copyBytes() * (splitInShared() ? 2 : 1); }
  /// K tiles between promotions (0: never).
  int64_t promoteTiles() const { return promoteEvery / bk; }
  /// 3xtf32's splitter: warps 1 and 2 of the producer warpgroup.
  static constexpr int64_t kSplitterThreads = 64;
  /// The splitter's threads: kSplitterThreads, and with an N-major B
  /// (transposesB()) also warp 3, which transposes boxes only. The splitter
  /// bounds the kernel there: 4096^3 x @ W took 1.677 ms with two warps,
  /// 1.494 with three (1.354 K-major; H100, 2026-11-24).
  int64_t splitterThreads() const {
    return transposesB() || threeWarpFlatSplit() ? kSplitterThreads + 32
                                                 : kSplitterThreads;
  }
  /// tf32_2xbf16 with a K-major B and no prologue: warp 3, which has no
  /// boxes to transpose, splits too, the three warps taking the stage's
  /// pairs of chunks in turn, two pairs in flight: W2 1.59 ms with two
  /// warps, 1.42 with three (both then with a clamp of Inf since dropped:
  /// 1.19 without; H200, 2026-11-30, bench/experiments/split_variants.py).
  /// 3xtf32 ran 1.31 -> 1.42 ms with three warps at one chunk each in
  /// flight: it keeps two.
  bool threeWarpFlatSplit() const {
    return splitInShared() && crossBf16() && !transposesB() && !prologue;
  }
  /// A staged output row: BN results, padded to 16 bytes past a multiple
  /// of 128, so that a warp's fragment stores (8 rows, 4 lanes each) of
  /// 16-bit pairs hit 32 distinct banks (f32 pairs: two lanes a bank; 32
  /// bytes past would avoid that, but 3xtf32's rows would not fit).
  int64_t bulkRowPitch() const {
    int64_t bytes = bn * resultBytes;
    return bytes + ((16 - bytes % 128) % 128 + 128) % 128;
  }
  /// Where the staged rows start: after the stages and their mbarriers
  /// (two 8-byte mbarriers per stage, three with the lo parts), aligned to
  /// 128 bytes (the copies read 16-byte aligned rows).
  int64_t bulkStagingOffset() const {
    return llvm::alignTo(barriersEnd(), 128);
  }
  int64_t barriersEnd() const {
    return stages * stageBytes() + (splitInShared() ? 24 : 16) * stages;
  }
  int64_t bulkStagingBytes() const {
    return bulkStores ? consumerWarps() / 4 * kBulkRows * bulkRowPitch() : 0;
  }
  /// Dynamic shared memory of one block (wgmma: and room to align the
  /// stages to the 1024-byte swizzle atom; tma: and the mbarriers, and the
  /// staged output rows).
  int64_t sharedBytes() const {
    return (wgmma() ? 1024 : 0) +
           (!tma()       ? stages * stageBytes()
            : bulkStores ? bulkStagingOffset() + bulkStagingBytes()
                         : barriersEnd());
  }
};

/// The tiling of the tensor-core kernels, from the config's
/// tile = [BM, BN, BK, WM, WN, STAGES]: the stages of StageGeometry, and
/// the block tile split among (BM/WM) x (BN/WN) warps of WM x WN outputs.
struct MmaTiling : StageGeometry {
  int64_t wm = 0, wn = 0;
  /// wgmma_tma: K slices (1: K not split). The kernel then loops over
  /// (output tile, slice) pairs and stores raw fp32 sums into slice s of
  /// the [splitK, M, N] buffer its C parameter points to.
  int64_t splitK = 1;
  /// wgmma_tma: the M tiles per band of the blocks' tile order
  /// (#fuser.config's group_m; 0: one band of every M tile).
  int64_t groupM = 0;

  /// The warps computing the tile (the consumers, with tma).
  int64_t warps() const { return (bm / wm) * (bn / wn); }
  /// The block's threads, the strategy record's count for the tile.
  int64_t threads() const {
    return getGemmStrategyRecord(strategy).threads(
        {bm, bn, bk, wm, wn, stages});
  }
  int64_t mTiles() const { return wm / 16; }
  int64_t nTiles() const { return wn / 8; }
};

/// Checks that `op`'s element types suit `config`'s precision and that the
/// tile is one the kernel of `strategy` (mma, wgmma or wgmma_tma) supports
/// within `maxSharedBytes` of shared memory per block (the chip's), with a
/// diagnostic on `op` otherwise.
FailureOr<MmaTiling> getMmaTiling(MatmulOp op, KernelConfigAttr config,
                                  GemmStrategy strategy,
                                  int64_t maxSharedBytes);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_MMATILING_H
