//===- ConfigurePointwise.cpp - configs of pointwise kernels --------------===//

#include "ConfigurePointwise.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Pointwise heuristics. 4 x 32-bit lanes make each access 128 bits.
/// Threads per block: the chip's measured choice (ChipInfo::pointwiseBlock,
/// Chips.cpp), else 1024, the H100's best before chips had their own (W1 at
/// 3060 GB/s, 1.025x eager; H100, 2026-11-24). Grid-striding past about a million
/// blocks only adds loop overhead, so the grid is capped there; caps of 16 or
/// 64 blocks per SM measured 4-6% slower.
constexpr int64_t kPointwiseBlock = 1024;
constexpr int64_t kPointwiseMaxGrid = 1 << 20;
/// One vector per thread per iteration: 2, 4 or 8 (loads before stores)
/// measured 0.2-16% slower on W1 at every block size (H100, 2026-11-24,
/// bench/experiments/pointwise_sweep.py over scripts/build-pointwise-sweep.sh).
constexpr int64_t kPointwiseVectorsPerThread = 1;
/// Plain loads. `.L2::128B` on the loads made an nvcc-built W1 kernel 1.6%
/// faster (H100, 2026-11-24, bench/experiments/w1_variants.py), but fuser's own
/// W1 kernel not measurably (-0.1% to +0.2% against l2_prefetch = 0 on three
/// machines; the seed chain the same; bench/experiments/l2_prefetch.py). The
/// option stays for other chips and kernels.
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
/// better or slower (H100, 2026-11-24, bench/experiments/transpose.py --sweep).
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

} // namespace

bool mlir::fuser::configurePointwise(PointwiseOp op,
                                     const PointwiseConfigOptions &opts) {
  if (op.getConfigAttr())
    return true; // chosen earlier or by the user
  int64_t block = opts.blockSize > 0 ? opts.blockSize
                  : opts.chip && opts.chip->pointwiseBlock > 0
                      ? opts.chip->pointwiseBlock
                      : kPointwiseBlock;
  int64_t width =
      opts.vectorWidth > 0 ? opts.vectorWidth : pointwiseVectorWidth(op);
  int64_t grid = opts.maxGrid >= 0 ? opts.maxGrid : kPointwiseMaxGrid;
  if (wantsTransposeTiles(op)) {
    auto config = KernelConfigAttr::getChecked(
        [&] { return op.emitError(); }, op.getContext(),
        StringRef("pointwise_transpose"),
        ArrayRef<int64_t>{kTransposeBlock, 1, 1},
        /*vector_width=*/int64_t(1), grid,
        ArrayRef<int64_t>{kTransposeTile, kTransposeTile},
        /*min_blocks_per_sm=*/int64_t(0), opts.precision,
        /*promote_every=*/int64_t(0));
    if (!config)
      return false;
    op.setConfigAttr(config);
    return true;
  }
  int64_t perThread = opts.vectorsPerThread > 0 ? opts.vectorsPerThread
                                                : kPointwiseVectorsPerThread;
  SmallVector<int64_t> tile;
  if (perThread > 1)
    tile.push_back(perThread);
  int64_t prefetch =
      opts.l2Prefetch >= 0 ? opts.l2Prefetch : kPointwiseL2Prefetch;
  auto config = KernelConfigAttr::getChecked(
      [&] { return op.emitError(); }, op.getContext(), StringRef("pointwise"),
      ArrayRef<int64_t>{block, 1, 1}, width, grid, ArrayRef<int64_t>(tile),
      /*min_blocks_per_sm=*/int64_t(0), opts.precision,
      /*promote_every=*/int64_t(0), /*split_k=*/int64_t(1), prefetch,
      /*cluster_m=*/int64_t(1), /*group_m=*/int64_t(0));
  if (!config)
    return false;
  op.setConfigAttr(config);
  return true;
}
