//===- ConfigureKernels.cpp - choose each group's kernel config -*- C++ -*-===//
//
// The one place where code generation heuristics live. Lowerings read the
// #fuser.config this pass attaches and never choose sizes themselves. This
// file holds the pass: the options, the chip, and the order in which the
// kernel families are configured (ConfigurePointwise, ConfigureMatmul,
// ConfigureNorms, ConfigureReductions, ConfigureScans).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include "ConfigureMatmul.h"
#include "ConfigureNorms.h"
#include "ConfigurePointwise.h"
#include "ConfigureReductions.h"
#include "ConfigureScans.h"
#include "MatmulOperandCopies.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERCONFIGUREKERNELSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

class ConfigureKernelsPass
    : public fuser::impl::FuserConfigureKernelsPassBase<ConfigureKernelsPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    // tensor-core-kernel: auto, or a tensor-core strategy's option name.
    std::optional<GemmStrategy> forced =
        symbolizeGemmStrategyOption(tensorCoreKernel);
    if (tensorCoreKernel != "auto" &&
        (!forced || *forced == GemmStrategy::ffma)) {
      std::string names = "auto";
      for (const GemmStrategyRecord &r : gemmStrategyRecords())
        if (r.kind != GemmStrategy::ffma)
          names += (r.kind == GemmStrategy::wgmma_tma ? " or " : ", ") +
                   r.optionName();
      getOperation().emitError() << "tensor-core-kernel must be " << names
                                 << ", got '" << tensorCoreKernel << "'";
      return signalPassFailure();
    }
    if (!llvm::is_contained({"auto", "3xtf32", "tf32_2xbf16", "fp64", "ffma"},
                            fp32Kernel)) {
      getOperation().emitError()
          << "fp32-kernel must be auto, 3xtf32, tf32_2xbf16, fp64 or ffma, got '"
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
    if (isSplitPrecision(fp32Kernel) && !chipInfo->wgmma) {
      getOperation().emitError()
          << "fp32-kernel=" << fp32Kernel
          << " needs wgmma.mma_async and TMA, which only "
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
    if ((forced == GemmStrategy::wgmma || forced == GemmStrategy::wgmma_tma) &&
        !chipInfo->wgmma) {
      getOperation().emitError()
          << "tensor-core-kernel=" << tensorCoreKernel
          << " needs wgmma.mma_async, which only sm_90a has; " << chip
          << " gets mma.sync with tensor-core-kernel=auto or mma";
      return signalPassFailure();
    }
    MatmulConfigOptions matmulOpts;
    matmulOpts.chip = chipInfo;
    matmulOpts.chipName = chip;
    matmulOpts.precision = precision;
    matmulOpts.fp32Kernel = fp32Kernel;
    matmulOpts.tensorCoreKernel = forced;
    SmallVector<int64_t> tiles(tileSizes.begin(), tileSizes.end());
    matmulOpts.tileSizes = tiles;
    matmulOpts.promoteEvery = promoteEvery;
    matmulOpts.splitK = splitK;
    matmulOpts.clusterM = clusterM;
    matmulOpts.report = report;
    PointwiseConfigOptions pointwiseOpts{blockSize,        vectorWidth,
                                         vectorsPerThread, l2Prefetch,
                                         maxGrid,          precision,
                                         chipInfo};
    bool failedAny = false;
    // Operand copies first: they are pointwise groups configured below.
    if (precision == "fp32" && fp32Kernel == "auto")
      getOperation().walk([&](MatmulOp op) {
        if (!op.getConfigAttr())
          copyOperandsKMajor(op, *chipInfo, matmulOpts.tmaAllowed(), report);
      });
    getOperation().walk([&](PointwiseOp op) {
      failedAny |= !configurePointwise(op, pointwiseOpts);
    });
    getOperation().walk(
        [&](MatmulOp op) { failedAny |= !configureMatmul(op, matmulOpts); });
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
      failedAny |= !configurePointwise(op.materializePrologue(), pointwiseOpts);
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
    configureReductions(getOperation(), *chipInfo, report);
    configureScans(getOperation(), *chipInfo, report);
    if (failedAny)
      signalPassFailure();
  }

private:
  /// The `chip` option's entry (set first in runOnOperation).
  const ChipInfo *chipInfo = nullptr;
};

} // namespace
