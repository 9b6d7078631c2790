//===- RegisterEpilogue.cpp - the GEMM epilogue's shared parts -----------===//
//
// Each IR-building call is its own statement (GuardedAccess.cpp says why).
//
//===----------------------------------------------------------------------===//

#include "RegisterEpilogue.h"

#include "GuardedAccess.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

EpilogueInputs::EpilogueInputs(OpBuilder &b, Location loc, MatmulOp op,
                               ValueRange args, int64_t width, Value m,
                               Value n, Value alignedOk,
                               bool columnsInBounds)
    : b(b), loc(loc), args(args), width(width), m(m), n(n),
      alignedOk(alignedOk), colLimit(columnsInBounds ? Value() : n) {
  always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  ValueRange inputs = op.getEpilogueInputs();
  singles.resize(inputs.size());
  for (auto [j, in] : llvm::enumerate(inputs)) {
    readKinds.push_back(
        classifyEpilogueRead(in, op.getEpilogueMapOverMN(j)));
    types.push_back(elementTypeOf(in.getType()));
    if (readKinds.back() == EpilogueRead::Scalar)
      singles[j] = splat(args[j]);
    if (readKinds.back() == EpilogueRead::SingleValue) {
      Value v = LLVM::LoadOp::create(b, loc, types[j], args[j],
                                     types[j].getIntOrFloatBitWidth() / 8);
      singles[j] = splat(v);
    }
  }
}

Value EpilogueInputs::splat(Value s) {
  auto ty = VectorType::get({width}, s.getType());
  return vector::BroadcastOp::create(b, loc, ty, s);
}

Value EpilogueInputs::loadRow(int64_t input, Value col) {
  return loadVectorIf(b, loc, args[input], types[input], width, col, always,
                      col, colLimit, alignedOk);
}

SmallVector<Value> EpilogueInputs::loadColumns(Value row, Value rowOk) {
  SmallVector<Value> columns(readKinds.size());
  for (auto [e, read] : llvm::enumerate(readKinds))
    if (read == EpilogueRead::Column) {
      Value v = loadScalarIf(b, loc, args[e], types[e], row, rowOk);
      columns[e] = splat(v);
    }
  return columns;
}

SmallVector<Value> EpilogueInputs::at(Value row, Value rowOk, Value col,
                                      ArrayRef<Value> columns,
                                      function_ref<Value(int64_t)> heldRows) {
  SmallVector<Value> in;
  for (auto [e, read] : llvm::enumerate(readKinds)) {
    switch (read) {
    case EpilogueRead::Scalar:
    case EpilogueRead::SingleValue:
      in.push_back(singles[e]);
      break;
    case EpilogueRead::Row: {
      Value held = heldRows(e);
      in.push_back(held ? held : loadRow(e, col));
      break;
    }
    case EpilogueRead::Column:
      in.push_back(columns[e]);
      break;
    case EpilogueRead::Full: {
      Value rowStart = arith::MulIOp::create(b, loc, row, n);
      Value base = arith::AddIOp::create(b, loc, rowStart, col);
      in.push_back(loadVectorIf(b, loc, args[e], types[e], width, base, rowOk,
                                col, colLimit, alignedOk));
      break;
    }
    case EpilogueRead::Transposed: {
      SmallVector<Value> lanes;
      for (int64_t l = 0; l < width; ++l) {
        Value lane = constI64(b, loc, l);
        Value c = arith::AddIOp::create(b, loc, col, lane);
        Value ok = rowOk;
        if (colLimit) {
          Value below = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, c, colLimit);
          ok = arith::AndIOp::create(b, loc, rowOk, below);
        }
        Value colStart = arith::MulIOp::create(b, loc, c, m);
        Value idx = arith::AddIOp::create(b, loc, colStart, row);
        lanes.push_back(loadScalarIf(b, loc, args[e], types[e], idx, ok));
      }
      auto ty = VectorType::get({width}, types[e]);
      in.push_back(vector::FromElementsOp::create(b, loc, ty, lanes));
      break;
    }
    }
  }
  return in;
}

Value mlir::fuser::sumAcrossLanes(OpBuilder &b, Location loc, Value s,
                                  int64_t lanes) {
  for (int64_t step = 1; step < lanes; step *= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, s, step, /*width=*/32,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    s = arith::AddFOp::create(b, loc, s, other);
  }
  return s;
}

void mlir::fuser::normalizeGroup(OpBuilder &b, Location loc,
                                 MutableArrayRef<Value> pieces,
                                 int64_t groupSize, double epsilon,
                                 function_ref<Value(Value)> acrossLanes) {
  Value invG = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(1.0f / static_cast<float>(groupSize)));
  Value eps = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(epsilon)));
  auto splat = [&](Value x, Value like) -> Value {
    return vector::BroadcastOp::create(b, loc, like.getType(), x);
  };
  // This lane's sum of its pieces, then the group's.
  auto groupSum = [&](ArrayRef<Value> xs) {
    Value s;
    for (Value x : xs) {
      Value r = vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                            x);
      s = s ? arith::AddFOp::create(b, loc, s, r).getResult() : r;
    }
    return acrossLanes(s);
  };
  Value sum = groupSum(pieces);
  Value mean = arith::MulFOp::create(b, loc, sum, invG);
  SmallVector<Value> dev, sq;
  for (Value v : pieces) {
    Value meanV = splat(mean, v);
    Value d = arith::SubFOp::create(b, loc, v, meanV);
    dev.push_back(d);
    sq.push_back(arith::MulFOp::create(b, loc, d, d));
  }
  Value sqSum = groupSum(sq);
  Value var = arith::MulFOp::create(b, loc, sqSum, invG);
  Value varEps = arith::AddFOp::create(b, loc, var, eps);
  Value rstd = math::RsqrtOp::create(b, loc, varEps);
  for (auto [p, d] : llvm::enumerate(dev)) {
    Value rstdV = splat(rstd, d);
    pieces[p] = arith::MulFOp::create(b, loc, d, rstdV);
  }
}
