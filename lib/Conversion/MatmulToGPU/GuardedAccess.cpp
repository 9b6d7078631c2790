//===- GuardedAccess.cpp - bounds-checked global loads and stores ---------===//
//
// Each IR-building call is its own statement: the op order steers ptxas's
// register allocation, and C++ leaves the order of nested arguments to the
// compiler (MmaEmitter.h). The order kept is the one both kernels had.
//
//===----------------------------------------------------------------------===//

#include "GuardedAccess.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
Value addConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  Value cst = constI64(b, loc, c);
  return arith::AddIOp::create(b, loc, x, cst);
}
Value both(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
/// rowOk && col + e < limit (a null limit: columns known in bounds).
Value laneOk(OpBuilder &b, Location loc, Value rowOk, Value col, int64_t e,
             Value limit) {
  if (!limit)
    return rowOk;
  Value c = addConst(b, loc, col, e);
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, limit);
  return both(b, loc, rowOk, below);
}
/// rowOk && col + width <= limit && alignedOk (a null limit: columns known
/// in bounds).
Value wholeOk(OpBuilder &b, Location loc, Value rowOk, Value col,
              int64_t width, Value limit, Value alignedOk) {
  if (!limit)
    return both(b, loc, rowOk, alignedOk);
  Value end = addConst(b, loc, col, width);
  Value fits =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, end, limit);
  Value inRow = both(b, loc, rowOk, fits);
  return both(b, loc, inRow, alignedOk);
}
int64_t bytesOf(Type ty) { return ty.getIntOrFloatBitWidth() / 8; }
} // namespace

Value mlir::fuser::loadScalarIf(OpBuilder &b, Location loc, Value ptr,
                                Type ty, Value idx, Value ok) {
  Value zeroIdx = constI64(b, loc, 0);
  Value safe = arith::SelectOp::create(b, loc, ok, idx, zeroIdx);
  Value addr = gepElement(b, loc, ptr, ty, safe);
  Value v = LLVM::LoadOp::create(b, loc, ty, addr, bytesOf(ty));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(ty));
  return arith::SelectOp::create(b, loc, ok, v, zero);
}

Value mlir::fuser::loadVectorIf(OpBuilder &b, Location loc, Value ptr,
                                Type ty, int64_t width, Value base,
                                Value rowOk, Value col, Value limit,
                                Value alignedOk) {
  auto vecTy = VectorType::get({width}, ty);
  Value whole = wholeOk(b, loc, rowOk, col, width, limit, alignedOk);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{vecTy}, whole, true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value addr = gepElement(b, loc, ptr, ty, base);
  Value v = LLVM::LoadOp::create(b, loc, vecTy, addr, width * bytesOf(ty));
  scf::YieldOp::create(b, loc, v);
  b.setInsertionPointToStart(ifOp.elseBlock());
  SmallVector<Value> lanes;
  for (int64_t e = 0; e < width; ++e) {
    Value ok = laneOk(b, loc, rowOk, col, e, limit);
    Value idx = addConst(b, loc, base, e);
    lanes.push_back(loadScalarIf(b, loc, ptr, ty, idx, ok));
  }
  Value gathered = vector::FromElementsOp::create(b, loc, vecTy, lanes);
  scf::YieldOp::create(b, loc, gathered);
  return ifOp.getResult(0);
}

void mlir::fuser::storeVectorIf(OpBuilder &b, Location loc, Value ptr,
                                Type ty, Value v, Value base, Value rowOk,
                                Value col, Value limit, Value alignedOk) {
  int64_t width = cast<VectorType>(v.getType()).getNumElements();
  Value whole = wholeOk(b, loc, rowOk, col, width, limit, alignedOk);
  auto ifOp = scf::IfOp::create(b, loc, whole, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value addr = gepElement(b, loc, ptr, ty, base);
  LLVM::StoreOp::create(b, loc, v, addr, width * bytesOf(ty));
  b.setInsertionPointToStart(ifOp.elseBlock());
  for (int64_t e = 0; e < width; ++e) {
    Value ok = laneOk(b, loc, rowOk, col, e, limit);
    auto lane = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
    OpBuilder::InsertionGuard laneGuard(b);
    b.setInsertionPointToStart(lane.thenBlock());
    Value idx = addConst(b, loc, base, e);
    Value dst = gepElement(b, loc, ptr, ty, idx);
    Value x = vector::ExtractOp::create(b, loc, v, e);
    LLVM::StoreOp::create(b, loc, x, dst, bytesOf(ty));
  }
}
