//===- NarrowFPowIExponents.cpp - i32 exponents for libdevice's powi ------===//
//
// convert-gpu-to-nvvm calls __nv_powif(float, int) for math.fpowi with any
// exponent width; an i64 exponent (torch-mlir's x ** 3) then reaches it as
// 64 bits the callee reads 32 of. This pass narrows the exponents first
// (see the pass description for why each case is exact).
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERNARROWFPOWIEXPONENTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

/// A constant `v` of `type` (an integer or a vector of them).
static Value intConstant(OpBuilder &b, Location loc, Type type, int64_t v) {
  auto elem = cast<IntegerType>(getElementTypeOrSelf(type));
  TypedAttr attr = IntegerAttr::get(elem, v);
  if (auto shaped = dyn_cast<ShapedType>(type))
    attr = SplatElementsAttr::get(shaped, attr);
  return arith::ConstantOp::create(b, loc, attr);
}

/// `type` with i32 elements.
static Type withI32(Type type) {
  Type i32 = IntegerType::get(type.getContext(), 32);
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(i32);
  return i32;
}

/// `n` as i32s of the same parity, saturated to the i32 range.
static Value saturateKeepingParity(OpBuilder &b, Location loc, Value n) {
  Type type = n.getType();
  auto c = [&](int64_t v) { return intConstant(b, loc, type, v); };
  Value odd = arith::AndIOp::create(b, loc, n, c(1));
  Value high = arith::AddIOp::create(b, loc, c(INT32_MAX - 1), odd);
  Value low = arith::AddIOp::create(b, loc, c(INT32_MIN), odd);
  Value clamped = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n,
                            c(INT32_MAX)),
      high,
      arith::SelectOp::create(b, loc,
                              arith::CmpIOp::create(b, loc,
                                                    arith::CmpIPredicate::slt,
                                                    n, c(INT32_MIN)),
                              low, n));
  return arith::TruncIOp::create(b, loc, withI32(type), clamped);
}

class NarrowFPowIExponentsPass
    : public fuser::impl::FuserNarrowFPowIExponentsPassBase<
          NarrowFPowIExponentsPass> {
public:
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](math::FPowIOp op) {
      Type exponentTy = op.getRhs().getType();
      unsigned width = getElementTypeOrSelf(exponentTy).getIntOrFloatBitWidth();
      if (width == 32)
        return WalkResult::advance();
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value exponent;
      APInt constant;
      if (width < 32) { // sign-extending is exact
        exponent = arith::ExtSIOp::create(b, loc, withI32(exponentTy),
                                          op.getRhs());
      } else if (matchPattern(op.getRhs(), m_ConstantInt(&constant)) &&
                 constant.isSignedIntN(32)) {
        exponent = intConstant(b, loc, withI32(exponentTy),
                               constant.getSExtValue());
      } else if (!getElementTypeOrSelf(op.getType()).isF64()) {
        exponent = saturateKeepingParity(b, loc, op.getRhs());
      } else {
        op.emitError() << "math.fpowi of " << op.getType()
                       << " with an exponent that may not fit in 32 bits: "
                          "libdevice's powi takes an i32";
        return WalkResult::interrupt();
      }
      op.getRhsMutable().assign(exponent);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
