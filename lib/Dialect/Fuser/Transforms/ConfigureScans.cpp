//===- ConfigureScans.cpp - configs of scan kernels -----------------------===//

#include "ConfigureScans.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/Transforms/ScanPrologue.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Consecutive elements per thread of a row scan (its loads in flight, and
/// the in-register part of the scan before the threads combine), and at
/// most this many threads per row. H200, 2026-11-29
/// (bench/experiments/scan_sweep.py, cumsum along rows of 32768 floats,
/// each chunk's loads issued before the previous chunk combines): 1024
/// threads of 4 elements 0.270 ms (3.98 TB/s), 512 of 4 0.275, 1024 of 8
/// 0.345, 512 of 16 0.423 (eager 0.664).
constexpr int64_t kRowVector = 4;
constexpr int64_t kMaxRowThreads = 1024;
/// At most this many threads per row when each element reads two or more
/// tensors (a fused prologue's: a masked cumsum's x and mask): blocks of
/// half the size, twice as many per SM, keep more loads in flight while
/// others combine a chunk. H200, 2026-12-01 (a bench/memory_bound.py
/// config sweep), torch.cumsum(x * (m > 0), dim=1) on 4096 x 32768: 1024
/// threads 0.475 ms, 512 0.393, 256 0.404; one input (cumsum, cumprod of
/// the same rows): 1024 0.268-0.270, 512 0.274-0.278, 256 0.270-0.271.
constexpr int64_t kMaxRowThreadsSeveralInputs = 512;
/// Elements a serial scan's thread loads before it folds them: its loads
/// in flight. H200, 2026-12-01 (a config sweep, cumsum down 4096 rows of
/// 32768 columns, blocks of 256): 16 0.454-0.458 ms, 32 0.324 (blocks of
/// 64 or 128: within 4% at 16, 0.35-0.37 at 32; torch.compile 0.49-0.52).
constexpr int64_t kSerialAhead = 32;
/// Threads per block of either kernel unless a row takes more.
constexpr int64_t kBlock = 256;
/// An unknown (dynamic) extent counts as this large.
constexpr int64_t kDynamicExtent = 1 << 12;
/// Below this many threads in all (half a wave on an H100: 132 SMs x
/// 2048), each a chain of at least kLongChain dependent steps (chunks of a
/// row, or groups of four loads of a line), a remark says the scan leaves
/// most of the GPU idle.
constexpr int64_t kBusyThreads = 1 << 17;
constexpr int64_t kLongChain = 64;

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) // saturating: only the order of magnitude counts
    n = std::min<int64_t>(int64_t(1) << 40,
                          n * (ShapedType::isDynamic(d) ? kDynamicExtent : d));
  return n;
}

} // namespace

void mlir::fuser::configureScans(ModuleOp module, const ChipInfo &chip,
                                 bool report) {
  module.walk([&](ScanOp op) {
    if (op.getConfigAttr())
      return; // chosen by the user
    RankedTensorType type = op.getInputType();
    ArrayRef<int64_t> shape = type.getShape();
    int64_t dim = op.getDimension();
    int64_t outer = product(shape.take_front(dim));
    int64_t length = product(shape.slice(dim, 1));
    int64_t inner = product(shape.drop_front(dim + 1));
    Type element = type.getElementType();
    unsigned bits =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
    bool rows = dim == type.getRank() - 1 && (bits == 32 || bits == 64);
    KernelConfigAttr config;
    int64_t threads, steps;
    std::optional<ScanPrologue> prologue = scanPrologue(op);
    int64_t streams = prologue ? prologue->readInputs.size() : 1;
    if (rows) {
      // The fewest threads that take a row in one chunk, up to
      // kMaxRowThreads, and rows shorter than a block share it. Each
      // thread's elements move in 16-byte accesses where the rows are
      // whole vectors.
      int64_t vec = std::min<int64_t>(
          kRowVector, llvm::PowerOf2Ceil(std::max<int64_t>(length, 1)));
      int64_t perRow = std::clamp<int64_t>(
          llvm::PowerOf2Ceil(llvm::divideCeil(length, vec)), 1,
          streams > 1 ? kMaxRowThreadsSeveralInputs : kMaxRowThreads);
      int64_t access = 128 / bits;
      while (access > 1 && (ShapedType::isDynamic(shape[dim]) ||
                            length % access != 0 || vec % access != 0))
        access /= 2;
      int64_t block = std::max(kBlock, perRow);
      config = KernelConfigAttr::get(op.getContext(), "scan_rows",
                                     {block, 1, 1}, access, /*max_grid=*/0,
                                     {perRow, block / perRow, vec},
                                     /*min_blocks_per_sm=*/0, "fp32",
                                     /*promote_every=*/0);
      threads = outer * perRow;
      steps = llvm::divideCeil(length, perRow * vec);
    } else {
      config = KernelConfigAttr::get(op.getContext(), "scan_serial",
                                     {kBlock, 1, 1}, 1, /*max_grid=*/0,
                                     {kSerialAhead},
                                     /*min_blocks_per_sm=*/0, "fp32",
                                     /*promote_every=*/0);
      threads = outer * inner;
      steps = llvm::divideCeil(length, kSerialAhead);
    }
    op.setConfigAttr(config);
    if (!report)
      return;
    InFlightDiagnostic remark = op.emitRemark();
    remark << "scan kernel: " << outer * inner << " line(s) of " << length
           << " elements, ";
    if (rows)
      remark << config.getTile()[0] << " threads per row, "
             << config.getTile()[2] << " consecutive elements each"
             << (config.getVectorWidth() > 1
                     ? " in " + std::to_string(config.getVectorWidth()) +
                           "-element vectors"
                     : std::string())
             << (streams > 1 ? " (its input's producer runs in the kernel: " +
                                   std::to_string(streams) +
                                   " inputs read per element)"
                             : std::string());
    else
      remark << "one thread per line"
             << (inner > 1 ? " (a warp reads 32 neighbouring lines)"
                           : (dim == type.getRank() - 1
                                  ? " (its " + std::to_string(bits) +
                                        "-bit elements take no warp "
                                        "shuffles)"
                                  : std::string()));
    if (threads < kBusyThreads && steps >= kLongChain)
      remark << "; " << threads << " threads, each a chain of " << steps
             << " steps, leave most of " << chip.name
             << "'s GPU idle: slower than a device-wide scan";
  });
}
