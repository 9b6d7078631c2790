//===- SplitKReduce.cpp - split K's second kernel -------------------------===//
//
// for i = gtid; i < M * N; i += nthreads:
//   s = sum over k = 0 .. S-1 of partials[k * M * N + i], in f64, in order
//   C[i] = epilogue(trunc(s), inputs at (i / N, i % N))
// The f64 sum rounds once to f32; the GEMM's slices err far more.
//
//===----------------------------------------------------------------------===//

#include "SplitKReduce.h"

#include "EpilogueRead.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;

/// Partial sums loaded before they are added: loads in flight per thread
/// without holding all S slices in registers.
constexpr int64_t kLoadsInFlight = 16;

SmallVector<Type> mlir::fuser::splitKReduceParamTypes(MatmulOp op) {
  MLIRContext *ctx = op.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params{ptrTy};
  for (Value in : op.getEpilogueInputs())
    params.push_back(isa<RankedTensorType>(in.getType()) ? Type(ptrTy)
                                                         : in.getType());
  params.append({ptrTy, i64, i64});
  return params;
}

LogicalResult mlir::fuser::buildSplitKReduceKernel(MatmulOp op, int64_t splitK,
                                                   gpu::GPUFuncOp kernel) {
  Location loc = op.getLoc();
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Type i64 = b.getI64Type(), f32 = b.getF32Type(), f64 = b.getF64Type();
  Type resElem = elementTypeOf(op.getResult().getType());
  ValueRange inputs = op.getEpilogueInputs();
  unsigned a = 0;
  Value partials = entry.getArgument(a++);
  SmallVector<Value> epiArgs;
  for (size_t j = 0; j < inputs.size(); ++j)
    epiArgs.push_back(entry.getArgument(a++));
  Value c = entry.getArgument(a++);
  Value m = entry.getArgument(a++);
  Value n = entry.getArgument(a++);

  auto toI64 = [&](Value idx) -> Value {
    return arith::IndexCastUIOp::create(b, loc, i64, idx);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto load = [&](Value ptr, Type ty, Value idx) -> Value {
    return LLVM::LoadOp::create(b, loc, ty, gepElement(b, loc, ptr, ty, idx),
                                ty.getIntOrFloatBitWidth() / 8);
  };

  // 1. The grid-stride loop over the M * N elements.
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value bdim = toI64(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
  Value gdim = toI64(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  Value start = add(mul(bid, bdim), tid);
  Value stride = mul(gdim, bdim);
  Value total = mul(m, n);
  auto loop = scf::ForOp::create(b, loc, start, total, stride);
  b.setInsertionPointToStart(loop.getBody());
  Value i = loop.getInductionVar();

  // 2. The slices' sum, in slice order.
  Value sum;
  for (int64_t s0 = 0; s0 < splitK; s0 += kLoadsInFlight) {
    SmallVector<Value> parts;
    for (int64_t s = s0; s < std::min(splitK, s0 + kLoadsInFlight); ++s) {
      Value offset = mul(constI64(b, loc, s), total);
      parts.push_back(load(partials, f32, add(offset, i)));
    }
    for (Value p : parts) {
      Value wide = arith::ExtFOp::create(b, loc, f64, p);
      sum = sum ? arith::AddFOp::create(b, loc, sum, wide).getResult() : wide;
    }
  }
  Value value = arith::TruncFOp::create(b, loc, f32, sum);
  if (resElem != f32) // the epilogue takes the result's type, as the GEMMs'
    value = arith::TruncFOp::create(b, loc, resElem, value);

  // 3. The epilogue inputs at (row, col), then the op's epilogue.
  Value row = arith::DivUIOp::create(b, loc, i, n);
  Value col = arith::RemUIOp::create(b, loc, i, n);
  SmallVector<Value> in;
  for (auto [j, input] : llvm::enumerate(inputs)) {
    Type ty = elementTypeOf(input.getType());
    switch (classifyEpilogueRead(input, op.getEpilogueMapOverMN(j))) {
    case EpilogueRead::Scalar:
      in.push_back(epiArgs[j]);
      break;
    case EpilogueRead::SingleValue:
      in.push_back(load(epiArgs[j], ty, constI64(b, loc, 0)));
      break;
    case EpilogueRead::Row:
      in.push_back(load(epiArgs[j], ty, col));
      break;
    case EpilogueRead::Column:
      in.push_back(load(epiArgs[j], ty, row));
      break;
    case EpilogueRead::Full:
      in.push_back(load(epiArgs[j], ty, i));
      break;
    case EpilogueRead::Transposed:
      in.push_back(load(epiArgs[j], ty, add(mul(col, m), row)));
      break;
    }
  }
  FailureOr<Value> out =
      applyBodyWidened(b, op.getEpilogue().front(), value, in, 1);
  if (failed(out))
    return failure();
  LLVM::StoreOp::create(b, loc, *out, gepElement(b, loc, c, resElem, i),
                        resElem.getIntOrFloatBitWidth() / 8);
  b.setInsertionPointAfter(loop);
  gpu::ReturnOp::create(b, loc);
  return success();
}
