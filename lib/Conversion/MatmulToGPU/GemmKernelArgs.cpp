//===- GemmKernelArgs.cpp - the parameters of a matmul group's kernel -----===//

#include "GemmKernelArgs.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::fuser;

SmallVector<Type> mlir::fuser::gemmKernelParamTypes(MatmulOp op,
                                                    bool withMaps) {
  MLIRContext *ctx = op.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  auto i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params{ptrTy, ptrTy};
  for (Value in : op.getEpilogueInputs())
    params.push_back(isa<RankedTensorType>(in.getType()) ? Type(ptrTy)
                                                         : in.getType());
  params.append({ptrTy, i64, i64, i64});
  if (withMaps) {
    auto mapTy = LLVM::LLVMPointerType::get(ctx);
    params.append({mapTy, mapTy});
  }
  return params;
}

GemmKernelArgs GemmKernelArgs::of(MatmulOp op, gpu::GPUFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  GemmKernelArgs args;
  unsigned i = 0;
  args.a = entry.getArgument(i++);
  args.b = entry.getArgument(i++);
  for (size_t j = 0; j < op.getEpilogueInputs().size(); ++j)
    args.epilogue.push_back(entry.getArgument(i++));
  args.c = entry.getArgument(i++);
  args.m = entry.getArgument(i++);
  args.n = entry.getArgument(i++);
  args.k = entry.getArgument(i++);
  if (entry.getNumArguments() == i + 2) {
    args.mapA = entry.getArgument(i);
    args.mapB = entry.getArgument(i + 1);
  }
  return args;
}
