//===- KernelUtils.cpp - helpers shared by the group lowerings ------------===//

#include "fuser/Conversion/Common/KernelUtils.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::fuser;

Value mlir::fuser::tensorDimSize(OpBuilder &b, Location loc, Value tensor,
                                 int64_t d) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(d));
  return tensor::DimOp::create(b, loc, tensor, d);
}

void mlir::fuser::assertSizesEqual(OpBuilder &b, Location loc, Value x,
                                   Value y, const Twine &msg) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (x == y || (cx && cy && *cx == *cy))
    return;
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  cf::AssertOp::create(b, loc, eq, msg.str());
}

constexpr StringLiteral kKernelModuleName = "fuser_kernels";

gpu::GPUModuleOp mlir::fuser::getOrCreateKernelModule(ModuleOp module) {
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  for (auto gm : module.getOps<gpu::GPUModuleOp>())
    if (gm.getName() == kKernelModuleName)
      return gm;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
}

gpu::GPUFuncOp mlir::fuser::createKernel(SymbolTable &kernelSymbols,
                                         Location loc, StringRef name,
                                         ArrayRef<Type> params,
                                         ArrayRef<int64_t> block,
                                         TypeRange workgroupBuffers) {
  Operation *module = kernelSymbols.getOp();
  MLIRContext *ctx = module->getContext();
  OpBuilder b = OpBuilder::atBlockEnd(&module->getRegion(0).front());
  auto kernel = gpu::GPUFuncOp::create(b, loc, name,
                                       FunctionType::get(ctx, params, {}),
                                       workgroupBuffers);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  SmallVector<int32_t, 3> sizes;
  for (int64_t s : block)
    sizes.push_back(static_cast<int32_t>(s));
  kernel.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, sizes));
  kernel->remove();
  kernelSymbols.insert(kernel); // uniques the name
  return kernel;
}

Type mlir::fuser::elementTypeOf(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.getElementType();
  return t;
}

Type mlir::fuser::storageType(Type t) {
  // index is 64 bits wide on the host and in the kernels (NVVM lowering
  // with 64-bit indices).
  if (t.isIndex())
    return IntegerType::get(t.getContext(), 64);
  return t.isInteger(1) ? IntegerType::get(t.getContext(), 8) : t;
}

unsigned mlir::fuser::storageBytes(Type t) {
  return storageType(t).getIntOrFloatBitWidth() / 8;
}

LogicalResult mlir::fuser::checkLoadableElementType(Operation *op, Type t) {
  Type e = elementTypeOf(t);
  if (!e.isIntOrFloat() || e.getIntOrFloatBitWidth() % 8 != 0)
    return op->emitOpError() << "has element type " << e
                             << ", which the GPU lowering does not support "
                                "(it needs whole-byte ints or floats)";
  return success();
}

Value mlir::fuser::hostPointerToMemRef(OpBuilder &b, Location loc,
                                       Value memref) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace);
  Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr);
  return LLVM::IntToPtrOp::create(b, loc, ptrTy, i64);
}

Value mlir::fuser::hostBufferOfTensor(OpBuilder &b, Location loc,
                                      Value tensor) {
  auto tensorTy = cast<RankedTensorType>(tensor.getType());
  auto memrefTy =
      MemRefType::get(tensorTy.getShape(), tensorTy.getElementType());
  return bufferization::ToBufferOp::create(b, loc, memrefTy, tensor,
                                           /*read_only=*/true);
}

Value mlir::fuser::hostPointerToTensor(OpBuilder &b, Location loc,
                                       Value tensor) {
  return hostPointerToMemRef(b, loc, hostBufferOfTensor(b, loc, tensor));
}

Value mlir::fuser::loadElements(OpBuilder &b, Location loc, Type elemTy,
                                int64_t width, Value ptr, unsigned align) {
  Type mem = storageType(elemTy);
  Type memTy = width ? Type(VectorType::get({width}, mem)) : mem;
  Value v = LLVM::LoadOp::create(b, loc, memTy, ptr, align);
  if (mem == elemTy)
    return v;
  if (elemTy.isIndex())
    return arith::IndexCastOp::create(
        b, loc, width ? Type(VectorType::get({width}, elemTy)) : elemTy, v);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(memTy));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

Value mlir::fuser::gepElement(OpBuilder &b, Location loc, Value ptr,
                              Type elemTy, Value idx) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), elemTy, ptr,
                             ArrayRef<LLVM::GEPArg>{idx},
                             LLVM::GEPNoWrapFlags::inbounds);
}

Value mlir::fuser::constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value mlir::fuser::shuffle(OpBuilder &b, Location loc, Value v, Value offset,
                           gpu::ShuffleMode mode) {
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 32);
  auto shuffleBits = [&](Value x) {
    return gpu::ShuffleOp::create(b, loc, x, offset, width, mode)
        .getShuffleResult();
  };
  Type t = v.getType();
  if (t.getIntOrFloatBitWidth() == 32)
    return shuffleBits(v);
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits = t == i64 ? v : arith::BitcastOp::create(b, loc, i64, v);
  Value lo = shuffleBits(arith::TruncIOp::create(b, loc, i32, bits));
  Value hi = shuffleBits(arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, bits, constI64(b, loc, 32))));
  Value joined = arith::OrIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                            constI64(b, loc, 32)));
  return t == i64 ? joined : arith::BitcastOp::create(b, loc, t, joined);
}

Value mlir::fuser::shuffle(OpBuilder &b, Location loc, Value v, int64_t offset,
                           gpu::ShuffleMode mode) {
  return shuffle(
      b, loc, v,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset).getResult(),
      mode);
}

Value mlir::fuser::shuffleXor(OpBuilder &b, Location loc, Value v,
                              int64_t offset) {
  return shuffle(b, loc, v, offset, gpu::ShuffleMode::XOR);
}

TypedAttr mlir::fuser::constantFillValue(Value init) {
  Attribute value;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    if (matchPattern(fill.getInputs()[0], m_Constant(&value)))
      return dyn_cast<TypedAttr>(value);
    return {};
  }
  auto group = init.getDefiningOp<PointwiseOp>();
  if (!group || group->getNumResults() != 1 ||
      !llvm::all_of(group.getBodyBlock().getArguments(),
                    [](BlockArgument a) { return a.use_empty(); }))
    return {};
  Value yielded =
      cast<YieldOp>(group.getBodyBlock().getTerminator()).getValues()[0];
  if (matchPattern(yielded, m_Constant(&value)))
    return dyn_cast<TypedAttr>(value);
  return {};
}

FailureOr<SmallVector<Value>>
mlir::fuser::emitBodyWidened(OpBuilder &b, Block &body, IRMapping &mapping,
                             int64_t width) {
  auto widen = [&](Type t) -> Type {
    return width == 1 ? t : VectorType::get({width}, t);
  };
  for (Operation &inner : body.without_terminator()) {
    if (width == 1) {
      b.clone(inner, mapping);
      continue;
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(inner)) {
      auto vecTy = cast<VectorType>(widen(cst.getType()));
      Value splat = arith::ConstantOp::create(
          b, cst.getLoc(), vecTy,
          SplatElementsAttr::get(vecTy, cast<TypedAttr>(cst.getValue())));
      mapping.map(cst.getResult(), splat);
      continue;
    }
    if (!OpTrait::hasElementwiseMappableTraits(&inner))
      return inner.emitOpError()
             << "cannot be vectorized by the GPU lowering; set "
                "vector_width = 1 in its #fuser.config";
    OperationState state(inner.getLoc(), inner.getName());
    for (Value operand : inner.getOperands())
      state.addOperands(mapping.lookup(operand));
    for (Type t : inner.getResultTypes())
      state.addTypes(widen(t));
    state.addAttributes(inner.getAttrs());
    Operation *vecOp = b.create(state);
    mapping.map(inner.getResults(), vecOp->getResults());
  }
  SmallVector<Value> yielded;
  for (Value v : cast<YieldOp>(body.getTerminator()).getValues())
    yielded.push_back(mapping.lookup(v));
  return yielded;
}

FailureOr<Value> mlir::fuser::applyBodyWidened(OpBuilder &b, Block &body,
                                               Value value,
                                               ArrayRef<Value> inputs,
                                               int64_t width) {
  IRMapping mapping;
  mapping.map(body.getArgument(0), value);
  for (auto [j, v] : llvm::enumerate(inputs))
    mapping.map(body.getArgument(j + 1), v);
  auto out = emitBodyWidened(b, body, mapping, width);
  if (failed(out))
    return failure();
  return (*out)[0];
}
