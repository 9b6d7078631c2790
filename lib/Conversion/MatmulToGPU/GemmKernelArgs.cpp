//===- GemmKernelArgs.cpp - the parameters of a matmul group's kernel -----===//

#include "GemmKernelArgs.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;

SmallVector<Type> mlir::fuser::gemmKernelParamTypes(MatmulOp op,
                                                    bool withMaps,
                                                    bool withEpilogue) {
  MLIRContext *ctx = op.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params{ptrTy, ptrTy};
  if (withEpilogue)
    for (Value in : op.getEpilogueInputs())
      params.push_back(isa<RankedTensorType>(in.getType()) ? Type(ptrTy)
                                                           : in.getType());
  params.append({ptrTy, i64, i64, i64});
  if (withMaps) {
    auto mapTy = LLVM::LLVMPointerType::get(ctx);
    if (op.isBatched())
      params.push_back(i64);
    params.append({i64, i64, i64, i64}); // the tile counts
    params.append({mapTy, mapTy});
    if (!op.getPrologueInputs().empty()) // the prologue input's
      params.push_back(mapTy);
  }
  return params;
}

GemmKernelArgs GemmKernelArgs::atBatch(MatmulOp op, OpBuilder &b, Value z,
                                       bool operands) const {
  Location loc = op.getLoc();
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  // Each operand's batch is the product of its other dimensions (M, N or
  // K) elements long.
  GemmKernelArgs at = *this;
  auto offset = [&](Value &ptr, Type tensorTy, Value batchElems) {
    ptr = gepElement(b, loc, ptr, elementTypeOf(tensorTy), mul(z, batchElems));
  };
  if (operands) {
    offset(at.a, op.getLhs().getType(), mul(m, k));
    offset(at.b, op.getRhs().getType(), mul(k, n));
  }
  offset(at.c, op.getResult().getType(), mul(m, n));
  for (auto [j, in] : llvm::enumerate(op.getEpilogueInputs())) {
    if (!op.epilogueInputReadsBatch(j))
      continue;
    Value elems = constI64(b, loc, 1);
    for (AffineExpr e : op.getEpilogueMapOverMN(j).getResults())
      elems = mul(elems, cast<AffineDimExpr>(e).getPosition() == 0 ? m : n);
    offset(at.epilogue[j], in.getType(), elems);
  }
  return at;
}

/// Decodes block x into a batch and an M tile (`tileM` rows), sets
/// args.blockM, and offsets `args`' pointers to the batch.
static void offsetToBatch(MatmulOp op, GemmKernelArgs &args, OpBuilder &b,
                          int64_t tileM) {
  Location loc = op.getLoc();
  Value bx = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value mTiles = arith::CeilDivUIOp::create(b, loc, args.m,
                                            constI64(b, loc, tileM));
  Value z = arith::DivUIOp::create(b, loc, bx, mTiles);
  Value blockM = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, bx, mTiles),
      constI64(b, loc, tileM));
  args = args.atBatch(op, b, z, /*operands=*/true);
  args.blockM = blockM;
}

GemmKernelArgs GemmKernelArgs::of(MatmulOp op, gpu::GPUFuncOp kernel,
                                  OpBuilder &b, int64_t tileM,
                                  bool withEpilogue) {
  Block &entry = kernel.getBody().front();
  GemmKernelArgs args;
  unsigned i = 0;
  args.a = entry.getArgument(i++);
  args.b = entry.getArgument(i++);
  for (size_t j = 0; withEpilogue && j < op.getEpilogueInputs().size(); ++j)
    args.epilogue.push_back(entry.getArgument(i++));
  args.c = entry.getArgument(i++);
  args.m = entry.getArgument(i++);
  args.n = entry.getArgument(i++);
  args.k = entry.getArgument(i++);
  // Static sizes as constants: index math, bounds checks and loop counts
  // fold (the parameters still carry them, for one ABI).
  auto lhsTy = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsTy = cast<RankedTensorType>(op.getRhs().getType());
  auto fold = [&](Value &size, RankedTensorType ty, int64_t d) {
    if (!ty.isDynamicDim(d))
      size = constI64(b, op.getLoc(), ty.getDimSize(d));
  };
  fold(args.m, lhsTy, op.getLhsMDim());
  fold(args.n, rhsTy, op.getRhsNDim());
  fold(args.k, lhsTy, op.getLhsKDim());
  // gemmKernelParamTypes' withMaps (the entry block's further arguments
  // are workgroup buffers).
  if (kernel.getFunctionType().getNumInputs() > i) {
    if (op.isBatched())
      args.batch = entry.getArgument(i++);
    args.kTiles = entry.getArgument(i++);
    args.mTiles = entry.getArgument(i++);
    args.batchTiles = entry.getArgument(i++);
    args.tiles = entry.getArgument(i++);
    args.mapA = entry.getArgument(i);
    args.mapB = entry.getArgument(i + 1);
    if (!op.getPrologueInputs().empty())
      args.mapP = entry.getArgument(i + 2);
  }
  // wgmma_tma's blocks find their batches tile by tile (WgmmaKernel.cpp).
  if (op.isBatched() && !args.mapA)
    offsetToBatch(op, args, b, tileM);
  return args;
}
