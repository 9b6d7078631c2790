//===- ConfigureKernels.cpp - choose each group's kernel config -*- C++ -*-===//
//
// The one place where code generation heuristics live. Lowerings read the
// #fuser.config this pass attaches and never choose sizes themselves.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

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
          StringRef(precision));
      if (!config) {
        failedAny = true;
        return;
      }
      op.setConfigAttr(config);
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
