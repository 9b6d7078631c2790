//===- KernelUtils.h - helpers shared by the group lowerings ----*- C++ -*-===//
//
// Each fusion group lowers to a gpu.func in the gpu.module @fuser_kernels
// plus tensor-level host code. These helpers build the pieces every
// lowering needs, so the lowerings differ only in their kernel bodies.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_COMMON_KERNELUTILS_H
#define FUSER_CONVERSION_COMMON_KERNELUTILS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fuser {

/// Global memory, where kernel pointer arguments point.
constexpr unsigned kGlobalAddressSpace = 1;

/// The gpu.module every fuser kernel goes into, created on first use; also
/// marks `module` as a GPU container module.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module);

/// Lowers every `OpT` group in `module` with `lower(op, kernelSymbols)`,
/// collecting them first (lowering erases them); the kernel module is
/// created only when there is a group.
template <typename OpT, typename LowerFn>
LogicalResult lowerEachGroup(ModuleOp module, LowerFn &&lower) {
  SmallVector<OpT> groups;
  module.walk([&](OpT op) { groups.push_back(op); });
  if (groups.empty())
    return success();
  SymbolTable kernelSymbols(getOrCreateKernelModule(module));
  for (OpT op : groups)
    if (failed(lower(op, kernelSymbols)))
      return failure();
  return success();
}

/// Host code: dimension `d` of a ranked tensor, as a constant index when it
/// is static, else tensor.dim.
Value tensorDimSize(OpBuilder &b, Location loc, Value tensor, int64_t d);

/// Host code: `cf.assert(x == y, msg)`, unless x and y are the same value or
/// equal constants (the verifier compared static sizes already).
void assertSizesEqual(OpBuilder &b, Location loc, Value x, Value y,
                      const Twine &msg);

/// Creates a `kernel` gpu.func at the end of the kernel module with a known
/// block size. The name is uniqued through `kernelSymbols`.
gpu::GPUFuncOp createKernel(SymbolTable &kernelSymbols, Location loc,
                            StringRef name, ArrayRef<Type> params,
                            ArrayRef<int64_t> block,
                            TypeRange workgroupBuffers = {});

/// The element type of a shaped type, or the type itself.
Type elementTypeOf(Type t);

/// The type an element of type `t` has in memory: i1 is a byte (PyTorch's
/// bool), index an i64.
Type storageType(Type t);

/// Bytes of one element of type `t` in memory.
unsigned storageBytes(Type t);

/// Fails with a diagnostic on `op` unless `t` (or its element type) is an
/// int or float of whole bytes, which the lowerings load and store.
LogicalResult checkLoadableElementType(Operation *op, Type t);

/// Host side: a tensor's (read-only) buffer, a dense row-major memref.
Value hostBufferOfTensor(OpBuilder &b, Location loc, Value tensor);

/// Host side: the `!llvm.ptr<1>` device address of a tensor's buffer.
Value hostPointerToTensor(OpBuilder &b, Location loc, Value tensor);

/// Host side: the `!llvm.ptr<1>` device address of a memref.
Value hostPointerToMemRef(OpBuilder &b, Location loc, Value memref);

/// Kernel side: loads `width` elements of type `elemTy` (a scalar when
/// `width` is 0) from `ptr`: i1 from bytes (true where not zero), index from
/// i64.
Value loadElements(OpBuilder &b, Location loc, Type elemTy, int64_t width,
                   Value ptr, unsigned align);

/// Kernel side: `&ptr[idx]` for elements of `elemTy`.
Value gepElement(OpBuilder &b, Location loc, Value ptr, Type elemTy,
                 Value idx);

/// Kernel side: an i64 constant.
Value constI64(OpBuilder &b, Location loc, int64_t v);

/// Kernel side: `v` from another lane of the whole warp (`mode` and
/// `offset`, an i32, as in gpu.shuffle of width 32); 32-bit values in one
/// shuffle, 64-bit ones as two 32-bit halves.
Value shuffle(OpBuilder &b, Location loc, Value v, Value offset,
              gpu::ShuffleMode mode);
Value shuffle(OpBuilder &b, Location loc, Value v, int64_t offset,
              gpu::ShuffleMode mode);

/// Kernel side: `v` from the lane `offset` away (xor) in the warp.
Value shuffleXor(OpBuilder &b, Location loc, Value v, int64_t offset);

/// The value every element of `init` holds when a fill made it (a
/// linalg.fill of a constant, or the fuser.pointwise that reads none of its
/// inputs that fuser-fuse-pointwise makes of one), else null: a kernel uses
/// the constant and the fill needs no kernel.
TypedAttr constantFillValue(Value init);

/// Clones the scalar ops of a fusion group body so they compute on
/// vector<width x T> (width 1: plain scalars). `mapping` must map every
/// block argument the body reads to a value of the right (widened) type.
/// Returns the values the body yields.
FailureOr<SmallVector<Value>> emitBodyWidened(OpBuilder &b, Block &body,
                                              IRMapping &mapping,
                                              int64_t width);

/// The first result of `body` widened to `width` lanes, with `value` for
/// its first argument and `inputs` for the rest (a GEMM epilogue or a
/// group norm's `then` region applied to a register fragment).
FailureOr<Value> applyBodyWidened(OpBuilder &b, Block &body, Value value,
                                  ArrayRef<Value> inputs, int64_t width);

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_COMMON_KERNELUTILS_H
