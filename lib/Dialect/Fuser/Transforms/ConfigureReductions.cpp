//===- ConfigureReductions.cpp - configs of reduction kernels -------------===//

#include "ConfigureReductions.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionEpilogue.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Threads to keep about two full waves of an H100 busy (132 SMs x 2048):
/// below it, more threads share each output element.
constexpr int64_t kTargetThreads = 1 << 18;
/// Threads per block unless more share one element.
constexpr int64_t kBlock = 256;
/// Each thread folds at least this many elements before the threads of an
/// element combine through shared memory.
constexpr int64_t kMinPerThread = 4;
/// A thread folds at most about this many elements (or vectors) before the
/// threads of its output combine: more threads share a long reduction, so
/// that each of a thread's kReductionUnroll accumulators sums at most 64
/// and fp32 sums stay as close to exact as PyTorch's, whose kernels split a
/// reduction as finely (a column sum of 4096 in one thread's chain was 16x
/// farther from float64 than eager's and failed users' 1e-4 check).
/// Threads a block-row apart stop at 32 per output (32 outputs per warp-row
/// in blocks of at most 1024): longer columns fold more per thread unless
/// two stages split them.
constexpr int64_t kMaxFoldsPerThread = 256;
/// An unknown (dynamic) extent counts as this large.
constexpr int64_t kDynamicExtent = 1 << 12;
/// Two stages. The kernel above gives each output at most one block, so a
/// few outputs of a long reduction (a loss `out.sum()`, `x.mean()`, a norm)
/// run on a few of the 132 SMs. The rule, P = min(kTargetThreads /
/// (blocks x B), R / (kMinSliceFolds x S)) slices per output, two stages
/// when P >= 2: when the one-stage grid holds at most half of
/// kTargetThreads (2^17 threads, 64 blocks of 1024 on 132 SMs), the
/// reduced extent R splits into P slices, one block each, about
/// kTargetThreads threads in all (P <= 2^18 / 256 = 1024, one thread each
/// in the second kernel), and a second kernel combines each output's P
/// partials. Each thread still folds at least kMinSliceFolds elements of
/// its slice, so the partials and the second launch (a few microseconds)
/// stay small beside the reads. Only static extents: a dynamic one could be
/// short, where a second kernel is waste.
constexpr int64_t kMinSliceFolds = 16;
/// A reduction epilogue's threads walk their output's elements again once
/// the result is known, and should find them in L2. The elements the
/// resident blocks re-read (2048 threads per SM, each output's share) must
/// fit in the chip's L2 per SM, else the consumer gets its own kernel; more
/// threads share each output until they fit in a kEpilogueL2Fraction-th of
/// it (or the threads per output reach their limit). H200, 2026-11-29
/// (bench/memory_bound.py): RMSNorm over the 64 channels of 112x64x512x512
/// took 5.07 ms with the whole L2 per SM as the target, 4.23 with half,
/// 3.97 with a quarter; rows of 1024 and 4096 (softmax, RMSNorm, L2
/// normalization) ran at 74-92% of a device copy when fused, 52-60% as
/// two kernels. Where the chip table has no L2 size, this is assumed.
constexpr int64_t kDefaultL2BytesPerSm = 64 * 1024;
constexpr int64_t kEpilogueL2Fraction = 4;
constexpr int64_t kResidentThreadsPerSm = 2048;
/// Rows whose re-read does not fit even with 1024 threads each: the blocks
/// of a thread-block cluster (sm_90 on) share each row, each folding and
/// re-reading its slice, when at most kEpilogueMaxCluster blocks bring the
/// re-read within a kClusterL2Fraction-th of the L2 per SM; else the
/// consumer keeps its kernel. Each block's fixed costs (its tree, the
/// cluster barriers) grow with the blocks per row, and the blocks of 1024
/// threads a cluster needs leave few resident. H200, 2026-12-02 (config
/// variants, users' timing): x / ||x|| over 32768 rows of 65535, two
/// kernels 6.11 ms, clusters of 2 (256 KiB per SM) 6.37, of 4 (128 KiB)
/// 5.65, of 8 (64 KiB) 7.46; softmax over 4096 rows of 393216, two kernels
/// 4.49 ms, clusters of 8 (384 KiB per SM) 5.04 (4.57 in blocks of 512).
constexpr int64_t kClusterL2Fraction = 2;
constexpr int64_t kEpilogueMaxCluster = 4;
/// Outputs per thread along a pooling's output rows (windowRowLoop), when
/// one thread computes each output: 4 rows of a 3 x 3, stride-1 window read
/// 6 input rows instead of 12, and the loads that dominate such a kernel
/// halve. A 1-D window's outputs share elements along the row instead
/// (kWindowElementsPerThread): avg_pool1d(4, 2, 1) loads 6 elements per 2
/// outputs instead of 8, and neighbouring threads stay 4 elements apart
/// (with 4 outputs each, 8: their loads spread over twice the sectors).
/// H200, 64 x 256 x 16384: 1 output per thread 0.518 ms, 4 0.449-0.451
/// (2026-11-30), 4 0.440, 2 0.407, 8 0.803 (2026-12-01, a config sweep,
/// torch.compile 0.420). Only while the threads left still fill the GPU
/// (kTargetThreads).
constexpr int64_t kWindowRowsPerThread = 4;
constexpr int64_t kWindowElementsPerThread = 2;
/// Neighbouring outputs per thread along a 2-D or 3-D window's columns
/// (windowColumnLoop) besides its rows: each input row the thread's windows
/// read is loaded as 16-byte vectors covering their columns, instead of one
/// element per output and window column.
constexpr int64_t kWindowColumnsPerThread = 4;
/// Threads per block of a one-stage reduction whose threads share outputs a
/// block-row apart (share S > 1), with no consumer in the kernel, when the
/// outputs alone fill the GPU (a dynamic extent counts as kDynamicExtent):
/// a block-row then spans 1024 / S neighbouring outputs instead of
/// max(256, 32 S) / S. So does one whose consumer runs in the kernel from
/// elements its threads hold in registers (RMSNorm over the 64 channels of
/// 112 x 64 x 512 x 512, 8 threads per output: 256 threads 3.96-4.03 ms,
/// 512 3.72-3.80, 1024 3.75-3.81; H200, 2026-12-01, a config sweep); one
/// that reads its elements again from L2 keeps its block, which the L2
/// rule above was measured with. A block-row's
/// first and last 32-byte sectors are shared with the neighbouring blocks
/// whenever rows are not 128-byte aligned, and blocks many waves into the
/// grid drift apart until L2 no longer holds the sector the neighbour read.
/// H200, 2026-11-30 (bench/experiments/middle_reduction.py), a sum over the
/// middle of 128 x 4096 x 4095 at 16 threads per output: 32 outputs per
/// block-row read 9.13 GB from DRAM for 8.59 GB of input and took 2.243 ms,
/// 64 read 8.64 GB in 2.078 ms (eager 2.111).
constexpr int64_t kWideStridedBlock = 1024;
/// Long columns. Threads a block-row apart stop at 32 per output, so a
/// strided reduction over columns longer than 32 x kMaxFoldsPerThread
/// (x @ A for a vector x, a column sum of a tall matrix) keeps each thread
/// on thousands of scalar loads, one block-row of 32 outputs (128 bytes of
/// each row) per block. Two stages instead: block-rows of up to
/// kLongColumnNeighbours neighbouring outputs in blocks of
/// kWideStridedBlock threads, the columns split into slices until about
/// kTargetThreads threads run. H200, 2026-12-01 (a config sweep of
/// bench/memory_bound.py's vecmat, x @ A, A 65536 x 8192): 32 threads x 32
/// outputs in one stage 0.563 ms, 8 x 128 in 4 slices 0.507, 4 x 256 in 8
/// 0.503, 2 x 512 in 16 0.498 (eager 0.537).
constexpr int64_t kLongColumnNeighbours = 512;

int64_t product(linalg::GenericOp op, ArrayRef<unsigned> loops) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t n = 1;
  for (unsigned d : loops) // saturating: only the order of magnitude counts
    n = std::min<int64_t>(int64_t(1) << 40,
                          n * (ShapedType::isDynamic(ranges[d])
                                   ? kDynamicExtent
                                   : ranges[d]));
  return n;
}

} // namespace

/// The bytes of each output's elements that `epilogue` reads again: its
/// inputs that the reduction reads too.
static int64_t rereadBytesPerOutput(linalg::GenericOp op,
                                    const ReductionEpilogue &epilogue,
                                    int64_t elements) {
  int64_t bytes = 0;
  PointwiseOp consumer = epilogue.consumer;
  for (auto [i, input] : llvm::enumerate(consumer.getInputs()))
    if (!epilogue.readsStatistic[i] &&
        llvm::is_contained(op.getDpsInputs(), input))
      bytes += elements *
               cast<ShapedType>(input.getType()).getElementTypeBitWidth() / 8;
  return bytes;
}

void mlir::fuser::configureReductions(ModuleOp module, const ChipInfo &chip,
                                      bool report) {
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kReductionConfigAttrName) ||
        op->getParentOfType<gpu::GPUModuleOp>() ||
        op.getNumReductionLoops() == 0)
      return;
    std::string why;
    FailureOr<ReductionShape> shape = analyzeReduction(op, why);
    if (failed(shape)) {
      if (report)
        op.emitRemark() << "reduction left to the generic fallback: " << why;
      return;
    }
    int64_t outputs = std::max<int64_t>(1, product(op, shape->parallelLoops));
    // 16-byte loads where the rows allow: a thread's loads in flight carry
    // four times the bytes of scalar ones, which a row reduction needs to
    // keep an H200's memory busy. The threads below share vectors.
    int64_t vector = reductionVectorWidth(op, *shape);
    int64_t length = std::max<int64_t>(
        1, product(op, shape->reductionLoops) / vector);
    // Threads per output: a power of two, more while the outputs alone
    // leave the GPU idle and each thread keeps kMinPerThread elements.
    // Consecutive threads reading one row take at least a warp's worth so
    // every load is one coalesced stretch.
    int64_t maxShare = std::min<int64_t>(
        1024, std::max<int64_t>(1, llvm::PowerOf2Ceil(length) / kMinPerThread));
    int64_t share = 1;
    if (shape->innermostReduces)
      share = std::min<int64_t>(32, llvm::PowerOf2Ceil(length));
    while (share < maxShare && (outputs * share < kTargetThreads ||
                                share * kMaxFoldsPerThread < length))
      share *= 2;
    // Strided sharing keeps 32 neighbouring outputs per warp.
    int64_t block = shape->innermostReduces
                        ? std::max(kBlock, share)
                        : std::max(kBlock, 32 * std::min<int64_t>(share, 32));
    share = std::min(share, block);
    if (!shape->innermostReduces)
      share = std::min<int64_t>(share, block / 32);
    int64_t blocks = llvm::divideCeil(outputs, block / share);
    int64_t slices = 1;
    if (!op.hasDynamicShape())
      slices = std::min(kTargetThreads / (blocks * block),
                        length / (kMinSliceFolds * share));
    bool longColumns = false;
    if (!shape->innermostReduces && !op.hasDynamicShape() && slices <= 1 &&
        share * kMaxFoldsPerThread < length) {
      int64_t neighbours =
          std::min<int64_t>(kLongColumnNeighbours, llvm::PowerOf2Ceil(outputs));
      int64_t wideShare = std::max<int64_t>(1, kWideStridedBlock / neighbours);
      int64_t wideBlocks =
          llvm::divideCeil(outputs, kWideStridedBlock / wideShare);
      int64_t wideSlices = std::min(
          {kTargetThreads / (wideBlocks * kWideStridedBlock),
           length / (kMinSliceFolds * wideShare), kReductionMaxSlices});
      if (wideSlices >= 2) {
        longColumns = true;
        share = wideShare;
        block = kWideStridedBlock;
        blocks = wideBlocks;
        slices = wideSlices;
      }
    }
    // The broadcast consumer in the same kernel, when one stage suffices
    // and the re-read elements fit in L2 (with more threads per output if
    // that makes them fit).
    std::string noEpilogue;
    FailureOr<ReductionEpilogue> epilogue =
        analyzeReductionEpilogue(op, *shape, noEpilogue);
    // A consumer over the outputs runs where the results are stored: in the
    // last kernel, whatever the threads. A broadcast consumer walks the
    // elements again: one stage, and the rules below.
    bool overOutputs = succeeded(epilogue) && epilogue->overOutputs;
    if (slices > 1 && succeeded(epilogue) && !overOutputs) {
      epilogue = failure();
      noEpilogue = "it runs in two stages";
    }
    bool broadcast = succeeded(epilogue) && !overOutputs;
    int64_t rereadPerSm = 0;
    // More threads per output, up to `widest`, for the epilogue.
    int64_t widest = shape->innermostReduces ? maxShare : block / 32;
    auto widenShare = [&](int64_t s) {
      share = s;
      if (shape->innermostReduces)
        block = std::max(block, share);
      blocks = llvm::divideCeil(outputs, block / share);
    };
    // Rows short enough for the threads of an output to hold them in
    // registers (kEpilogueHeldGroups groups each) are read once: the
    // fewest threads that do, if the block allows them. A softmax's
    // statistics alone (cross_entropy's) are held too: two passes over
    // registers (the maximum, then the exponentials) cost a handful of
    // operations per element where the online update costs a rescale each.
    bool held = false;
    if (broadcast || (shape->online && slices <= 1))
      for (int64_t s = share; s <= std::max(share, widest) && !held; s *= 2)
        if ((held = epilogueHoldsElements(op, *shape, s, vector)))
          widenShare(s);
    int64_t cluster = 1;
    if (broadcast && !held) {
      int64_t budget =
          chip.l2BytesPerSm ? chip.l2BytesPerSm : kDefaultL2BytesPerSm;
      int64_t perOutput = rereadBytesPerOutput(op, *epilogue, length * vector);
      auto perSm = [&](int64_t s) {
        return kResidentThreadsPerSm / s * perOutput / cluster;
      };
      int64_t fits = share;
      while (perSm(fits) > budget / kEpilogueL2Fraction && fits < widest)
        fits *= 2;
      // Rows too long for that (x / ||x|| over rows of 65535: 256 KiB per
      // row, 512 KiB per SM): the blocks of a cluster share each row.
      bool clusters = chip.sm >= 90 && shape->innermostReduces &&
                      fits == widest &&
                      std::max(block, fits) == fits && perSm(fits) > budget;
      while (clusters && perSm(fits) > budget / kClusterL2Fraction &&
             cluster < kEpilogueMaxCluster)
        cluster *= 2;
      if (perSm(fits) > budget / kClusterL2Fraction)
        cluster = 1;
      rereadPerSm = perSm(fits);
      if (rereadPerSm > budget) {
        noEpilogue = "the elements its blocks read again (" +
                     std::to_string(rereadPerSm / 1024) +
                     " KiB per SM) would not fit in " + chip.name.str() +
                     "'s L2 (" + std::to_string(budget / 1024) + " KiB per SM)";
        epilogue = failure();
        broadcast = false;
      } else {
        widenShare(fits);
      }
    }
    bool wide = !shape->innermostReduces && share > 1 && slices <= 1 &&
                (!broadcast || held) && outputs * share >= kTargetThreads &&
                block < kWideStridedBlock;
    if (wide) {
      block = kWideStridedBlock;
      blocks = llvm::divideCeil(outputs, block / share);
    }
    SmallVector<int64_t> tile{share,
                              shape->innermostReduces ? 1 : block / share};
    if (slices > 1)
      tile.push_back(slices);
    // Several outputs per thread along overlapping windows' rows.
    std::optional<unsigned> rowLoop = windowRowLoop(op, *shape);
    int64_t rows = 1, cols = 1;
    std::optional<unsigned> colLoop;
    int64_t perThread = rowLoop && *rowLoop == shape->parallelLoops.back()
                            ? kWindowElementsPerThread
                            : kWindowRowsPerThread;
    if (rowLoop && share == 1 && slices <= 1 && !broadcast &&
        op.getStaticLoopRanges()[*rowLoop] >= perThread &&
        outputs / perThread >= kTargetThreads) {
      rows = perThread;
      tile.append({1, rows});
      colLoop = windowColumnLoop(op, *shape, kWindowColumnsPerThread);
      if (colLoop && vector == 1 &&
          outputs / (rows * kWindowColumnsPerThread) >= kTargetThreads) {
        cols = kWindowColumnsPerThread;
        tile.push_back(cols);
      } else {
        colLoop.reset();
      }
      // Each thread stores several outputs; their consumer keeps a kernel.
      if (overOutputs) {
        epilogue = failure();
        noEpilogue = std::to_string(rows) +
                     " outputs per thread along its windows' rows";
      }
    }
    auto config = KernelConfigAttr::get(
        op.getContext(),
        succeeded(epilogue) ? kReductionEpilogueStrategy : "reduction",
        {block, 1, 1}, vector,
        /*max_grid=*/0, tile, /*min_blocks_per_sm=*/0, "fp32",
        /*promote_every=*/0, /*split_k=*/1, cluster);
    op->setAttr(kReductionConfigAttrName, config);
    if (!report)
      return;
    // A thread's last group may lie past the extent (rows of 1000 over 32
    // threads of 4-element vectors).
    auto heldElements = [&] {
      int64_t most = llvm::divideCeil(length, share) * vector;
      return (length % share ? "up to " : "its ") + std::to_string(most) +
             " elements";
    };
    InFlightDiagnostic remark = op.emitRemark();
    remark << "reduction kernel: " << outputs << " outputs of "
           << length * vector << " elements";
    if (vector > 1)
      remark << " in " << vector << "-element vectors";
    remark << ", ";
    if (share == 1)
      remark << "1 thread";
    else
      remark << share
             << (shape->innermostReduces ? " consecutive threads"
                                         : " threads a block-row apart");
    remark << " per output, " << block << " threads per block";
    if (wide)
      remark << " (" << block / share
             << " neighbouring outputs per block-row, so that fewer sectors "
                "straddle two blocks)";
    if (rows > 1)
      remark << ", " << rows << " outputs per thread along loop " << *rowLoop
             << " (their windows overlap: the input "
             << (*rowLoop == shape->parallelLoops.back() ? "elements"
                                                         : "rows")
             << " they share are loaded once)";
    if (cols > 1)
      remark << ", and " << cols << " neighbouring outputs along loop "
             << *colLoop
             << " (the input columns their windows read loaded as 16-byte "
                "vectors)";
    if (longColumns)
      remark << "; two stages: columns of " << length * vector
             << " elements are too long for one, so block-rows of "
             << block / share << " neighbouring outputs, " << slices
             << " blocks per output each reduce a slice of about "
             << llvm::divideCeil(length, slices) * vector
             << " elements, and a second kernel combines each output's "
             << slices << " partial results in a fixed order";
    else if (slices > 1)
      remark << "; two stages: " << blocks << " block(s) of " << block
             << " threads would leave most of the GPU idle, so " << slices
             << " blocks per output each reduce a slice of about "
             << llvm::divideCeil(length, slices) * vector
             << " elements, and a second kernel combines each output's "
             << slices << " partial results in a fixed order";
    if (succeeded(epilogue) && epilogue->overOutputs)
      remark << "; its consumer over the outputs runs where each result is "
                "stored"
             << (epilogue->resultsLive ? ", and the results are written too"
                                       : "");
    else if (succeeded(epilogue))
      remark << "; its consumer runs in the same kernel, "
             << (held ? "each thread holding " + heldElements() +
                            " in registers"
                      : "reading each output's elements again from L2 (" +
                            std::to_string(rereadPerSm / 1024) + " KiB per SM)")
             << (cluster > 1
                     ? ", in clusters of " + std::to_string(cluster) +
                           " blocks per output: each block folds and "
                           "re-reads 1/" +
                           std::to_string(cluster) +
                           " of it, the blocks' results combined through "
                           "distributed shared memory"
                     : "")
             << (epilogue->resultsLive ? ", and the results are written too"
                                       : "");
    else if (!noEpilogue.empty() &&
             noEpilogue.find("no fuser.pointwise") == std::string::npos)
      remark << "; its consumer gets a kernel of its own: " << noEpilogue;
    if (held && !broadcast)
      remark << "; each thread holds " << heldElements()
             << " in registers and takes the softmax statistics in two "
                "passes over them";
  });
}

/// Kernel 2's threads per block unless one output's partials take more.
static constexpr int64_t kCombineBlock = 256;

KernelConfigAttr mlir::fuser::reductionCombineConfig(MLIRContext *ctx,
                                                     int64_t slices) {
  int64_t share = llvm::PowerOf2Ceil(slices);
  return KernelConfigAttr::get(
      ctx, "reduction", {std::max(kCombineBlock, share), 1, 1},
      /*vector_width=*/1, /*max_grid=*/0, {share, 1},
      /*min_blocks_per_sm=*/0, "fp32", /*promote_every=*/0);
}
