//===- FuserDialect.cpp - fuser dialect registration ----------------------===//

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fuser;

#include "fuser/Dialect/Fuser/IR/FuserDialect.cpp.inc"

/// Parses `[1, 2, 3]` for Fuser_I64ListParameter.
static FailureOr<SmallVector<int64_t>> parseBracketedI64List(AsmParser &p) {
  SmallVector<int64_t> values;
  if (p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return p.parseInteger(values.emplace_back());
      }))
    return failure();
  return values;
}

#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserAttrs.cpp.inc"

void FuserDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fuser/Dialect/Fuser/IR/FuserAttrs.cpp.inc"
      >();
}

LogicalResult
KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         StringRef strategy, ArrayRef<int64_t> block,
                         int64_t vectorWidth, int64_t maxGrid,
                         ArrayRef<int64_t> tile, int64_t minBlocksPerSM,
                         StringRef precision, int64_t promoteEvery,
                         int64_t splitK, int64_t l2Prefetch,
                         int64_t clusterM, int64_t groupM) {
  if (strategy.empty())
    return emitError() << "kernel config needs a non-empty strategy";
  if (block.size() != 3)
    return emitError() << "kernel config block must have 3 entries (x, y, z), "
                          "got "
                       << block.size();
  int64_t threads = 1;
  for (int64_t b : block) {
    if (b <= 0)
      return emitError() << "kernel config block sizes must be positive";
    threads *= b;
  }
  if (threads > 1024)
    return emitError() << "kernel config block has " << threads
                       << " threads; the limit is 1024";
  if (vectorWidth != 1 && vectorWidth != 2 && vectorWidth != 4)
    return emitError() << "kernel config vector_width must be 1, 2 or 4, got "
                       << vectorWidth;
  if (maxGrid < 0)
    return emitError() << "kernel config max_grid must be >= 0 (0: no limit)";
  if (minBlocksPerSM < 0)
    return emitError() << "kernel config min_blocks_per_sm must be >= 0";
  if (llvm::any_of(tile, [](int64_t t) { return t <= 0; }))
    return emitError() << "kernel config tile sizes must be positive";
  if (!llvm::is_contained({StringRef("fp32"), StringRef("tf32"),
                           StringRef("3xtf32"), StringRef("tf32_2xbf16"),
                           StringRef("fp64"),
                           StringRef("bf16"), StringRef("f16")},
                          precision))
    return emitError() << "kernel config precision must be one of fp32, tf32, "
                          "3xtf32, tf32_2xbf16, fp64, bf16, f16; got '"
                       << precision << "'";
  if (promoteEvery < 0)
    return emitError() << "kernel config promote_every must be >= 0 (0: "
                          "never), got "
                       << promoteEvery;
  if (splitK < 1)
    return emitError() << "kernel config split_k must be >= 1 (1: K not "
                          "split), got "
                       << splitK;
  if (splitK > 1) {
    std::optional<GemmStrategy> gemm = symbolizeGemmStrategy(strategy);
    if (!gemm || !getGemmStrategyRecord(*gemm).splitK)
      return emitError() << "kernel config split_k = " << splitK
                         << " needs a matmul strategy that splits K ("
                         << splitKStrategyNames() << "), not '" << strategy
                         << "'";
  }
  if (!llvm::is_contained({0, 64, 128, 256}, l2Prefetch))
    return emitError() << "kernel config l2_prefetch must be 0, 64, 128 or "
                          "256 (bytes), got "
                       << l2Prefetch;
  if (l2Prefetch && strategy != "pointwise")
    return emitError() << "kernel config l2_prefetch applies to the "
                          "'pointwise' strategy only, not '"
                       << strategy << "'";
  // Clusters: wgmma_tma's 2 blocks sharing B by multicast, or the blocks
  // of a reduction sharing each output (up to 8, the portable cluster size
  // every sm_90 launch allows).
  bool reduction = strategy.starts_with("reduction");
  if (reduction && (clusterM < 1 || clusterM > 8 ||
                    !llvm::isPowerOf2_64(clusterM)))
    return emitError() << "kernel config cluster_m of a reduction must be a "
                          "power of two from 1 (no cluster) to 8, got "
                       << clusterM;
  if (!reduction && clusterM != 1 && clusterM != 2)
    return emitError() << "kernel config cluster_m must be 1 (no cluster) or "
                          "2, got "
                       << clusterM;
  if (clusterM > 1 && !reduction && strategy != "wgmma_tma")
    return emitError() << "kernel config cluster_m = " << clusterM
                       << " needs the 'wgmma_tma' strategy (TMA multicast) "
                          "or a reduction, not '"
                       << strategy << "'";
  if (clusterM > 1 && splitK > 1)
    return emitError() << "kernel config cluster_m = " << clusterM
                       << " and split_k = " << splitK
                       << " do not combine: a cluster's blocks share the K "
                          "loop of one B tile";
  if (groupM < 0)
    return emitError() << "kernel config group_m must be >= 0 (0: one band "
                          "of every M tile), got "
                       << groupM;
  if (groupM > 0 && strategy != "wgmma_tma")
    return emitError() << "kernel config group_m = " << groupM
                       << " orders the tiles of the 'wgmma_tma' strategy's "
                          "persistent blocks, not '"
                       << strategy << "'";
  if (groupM % clusterM)
    return emitError() << "kernel config group_m = " << groupM
                       << " must hold whole clusters of cluster_m = "
                       << clusterM << " M tiles";
  return success();
}
