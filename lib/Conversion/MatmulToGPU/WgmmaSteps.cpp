//===- WgmmaSteps.cpp - wgmma.mma_async on shared-memory stages -----------===//

#include "WgmmaSteps.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;

static Value c64(OpBuilder &b, Location loc, int64_t v) {
  return constI64(b, loc, v);
}

Value mlir::fuser::wgmmaDescriptor(OpBuilder &b, Location loc, Value addr) {
  // address / 16 in bits 0-13, leading byte offset 16 (unused by this mode)
  // in 16-29, stride byte offset 1024 (8 rows of 128 bytes) in 32-45,
  // swizzle mode 1 (128 bytes) in 62-63.
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, c64(b, loc, 4)),
      c64(b, loc, 0x3FFF));
  int64_t fixed = (int64_t(16 >> 4) << 16) | (int64_t(1024 >> 4) << 32) |
                  (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, field, c64(b, loc, fixed));
}

Value mlir::fuser::emitWgmmaSteps(OpBuilder &b, Location loc,
                                  const StageGeometry &t, Value acc,
                                  Value aAddr, Value bAddr, bool restart,
                                  bool bf16Pairs) {
  MLIRContext *ctx = b.getContext();
  auto type = bf16Pairs               ? NVVM::WGMMATypes::bf16
              : t.elemBytes() == 4  ? NVVM::WGMMATypes::tf32
              : t.elemTy.isBF16() ? NVVM::WGMMATypes::bf16
                                  : NVVM::WGMMATypes::f16;
  int64_t shapeK = bf16Pairs ? 2 * t.kStep() : t.kStep();
  for (int64_t kk = 0; kk < t.bk / t.kStep(); ++kk) {
    // Each step starts kStep elements (32 bytes) further along the swizzled
    // rows; the hardware applies the swizzle to the address.
    Value off = c64(b, loc, kk * t.kStep() * t.elemBytes());
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, acc.getType(), acc,
        wgmmaDescriptor(b, loc, arith::AddIOp::create(b, loc, aAddr, off)),
        wgmmaDescriptor(b, loc, arith::AddIOp::create(b, loc, bAddr, off)),
        NVVM::MMAShapeAttr::get(ctx, 64, t.bn, shapeK), type, type,
        NVVM::WGMMATypes::f32,
        restart && kk == 0 ? NVVM::WGMMAScaleOut::zero
                           : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col,
        /*satfinite=*/nullptr);
  }
  return acc;
}
