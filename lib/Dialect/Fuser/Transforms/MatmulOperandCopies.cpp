//===- MatmulOperandCopies.cpp - K-major copies of matmul operands --------===//
//
// Part of the configuration step (fuser-configure-kernels): where a matmul
// reads an operand in a layout the fast kernel does not, and the product is
// large enough, the operand is copied into that layout first.
//
//===----------------------------------------------------------------------===//

#include "MatmulOperandCopies.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

using namespace mlir;
using namespace mlir::fuser;

/// An f32 matmul whose A is M-major (transpose_a) or whose B is N-major
/// (K x N) misses 3xtf32 on wgmma_tma, which reads both K-major: FFMA (45
/// TFLOP/s on an H100) or fp64 tensor cores (52) instead of ~105. Copying
/// the operands K-major (a transposing pointwise kernel each, (M + N) * K
/// elements read and written) pays when M * N / (M + N) is large: about 128
/// at those rates and 3 TB/s; this takes 512 (static M and N), so that the
/// copies cost at most a quarter of what they save. The backward GEMMs of
/// nn.Linear (dX = g * W, dW = g^T * x) are such products.
static constexpr int64_t kKMajorCopyMinHarmonic = 512;

/// `v` (2-D) transposed by a pointwise copy built at `b`.
static Value transposedCopy(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  auto resultType = RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  MLIRContext *ctx = b.getContext();
  AffineMap swap = AffineMap::get(
      2, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(0, ctx)}, ctx);
  auto copy = PointwiseOp::create(
      b, loc, TypeRange{resultType}, ValueRange{v},
      b.getArrayAttr({AffineMapAttr::get(swap)}), /*config=*/nullptr);
  Block *body = new Block();
  copy.getBody().push_back(body);
  Value arg = body->addArgument(type.getElementType(), loc);
  OpBuilder end = OpBuilder::atBlockEnd(body);
  YieldOp::create(end, loc, ValueRange{arg});
  return copy.getResult(0);
}

bool mlir::fuser::copyOperandsKMajor(MatmulOp op, const ChipInfo &chip, bool tmaAllowed,
                        bool report) {
  auto resTy = cast<RankedTensorType>(op.getResult().getType());
  auto lhsTy = cast<RankedTensorType>(op.getLhs().getType());
  if (!chip.wgmma || !tmaAllowed || op.isBatched() || op.hasGroupNorm() ||
      !resTy.getElementType().isF32() || !lhsTy.getElementType().isF32() ||
      (!op.getTransposeA() && op.getTransposeB()) || !resTy.hasStaticShape())
    return false;
  int64_t m = resTy.getDimSize(0), n = resTy.getDimSize(1);
  int64_t k = lhsTy.getDimSize(op.getLhsKDim());
  if (ShapedType::isDynamic(k) || k % 4 ||
      m * n < kKMajorCopyMinHarmonic * (m + n))
    return false;
  OpBuilder b(op);
  Location loc = op.getLoc();
  StringRef which = op.getTransposeA() && !op.getTransposeB() ? "A and B"
                    : op.getTransposeA()                      ? "A"
                                                              : "B";
  if (op.getTransposeA()) {
    op.getLhsMutable().assign(transposedCopy(b, loc, op.getLhs()));
    op.setTransposeA(false);
  }
  if (!op.getTransposeB()) {
    op.getRhsMutable().assign(transposedCopy(b, loc, op.getRhs()));
    op.setTransposeB(true);
  }
  if (report)
    op.emitRemark() << which
                    << " copied K-major by a transposing kernel so that "
                       "3xtf32 on wgmma_tma applies (M * N / (M + N) = "
                    << m * n / (m + n) << ", at least "
                    << kKMajorCopyMinHarmonic << ")";
  return true;
}
