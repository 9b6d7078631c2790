//===- PointwiseToGPU.cpp - fuser.pointwise to a GPU kernel ------*- C++ -*-===//
//
// Lowers each configured fuser.pointwise to one gpu.func and, in its place,
// tensor-level host code that allocates the outputs, checks broadcast sizes
// and launches the kernel. The kernel reads and writes through !llvm.ptr<1>
// (global memory), which gives ld.global/st.global and a C-friendly ABI.
//
// With strategy `pointwise_transpose` (an input read transposed), the kernel
// is TransposeKernel.cpp's shared-memory tiled one; else the row kernel:
//
// Kernel signature: (inputs..., outputs..., n: i64 [, sizes: i64 x rank]);
// where the result's shape (or a size) is static, the body uses the constant
// and leaves that argument unread.
// Kernel body (U = the config's vectors per thread, tile = [U]):
//   for v = gtid; v + (U-1)*nthreads < n / W; v += U*nthreads:
//     U W-wide vector loads, nthreads vectors apart, then their stores
//   for (the rest); v < n / W; v += nthreads:   W-wide vector loads/stores
//   for i = (n / W) * W + gtid; i < n; i += nthreads:   scalar tail
// i1 tensors (masks) are one byte per element in memory, as PyTorch's bool:
// loaded as i8 and compared with 0, stored zero-extended.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "PointwiseKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#define DEBUG_TYPE "fuser-pointwise-to-gpu"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTPOINTWISETOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::pointwise;

Value pointwise::loadStreamed(OpBuilder &b, Location loc, Type elemTy,
                              int64_t width, Value ptr, int64_t prefetch) {
  unsigned bytes = storageBytes(elemTy) * std::max<int64_t>(width, 1);
  if (!prefetch || storageType(elemTy) != elemTy ||
      !llvm::is_contained({4u, 8u, 16u}, bytes))
    return loadElements(b, loc, elemTy, width, ptr, bytes);
  // Inline PTX: LLVM's loads have no spelling for the prefetch size. The
  // access is loaded as 32-bit words and bitcast back.
  unsigned words = bytes / 4;
  std::string ptx = "ld.global.L2::" + std::to_string(prefetch) + "B";
  if (words > 1)
    ptx += ".v" + std::to_string(words);
  std::string regs, constraints;
  for (unsigned i = 0; i < words; ++i) {
    regs += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  ptx += ".b32 " + (words > 1 ? "{" + regs + "}" : regs) + ", [$" +
         std::to_string(words) + "];";
  constraints += "l";
  MLIRContext *ctx = b.getContext();
  Type i32 = b.getI32Type();
  Type resTy = words == 1 ? i32
                          : LLVM::LLVMStructType::getLiteral(
                                ctx, SmallVector<Type>(words, i32));
  // Side effects keep it ordered with the kernel's stores, as a load is.
  auto ld = LLVM::InlineAsmOp::create(
      b, loc, resTy, ValueRange{ptr}, ptx, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  Value bits = ld.getRes();
  if (words > 1) {
    SmallVector<Value> lanes;
    for (unsigned i = 0; i < words; ++i)
      lanes.push_back(LLVM::ExtractValueOp::create(b, loc, bits, i));
    bits = vector::FromElementsOp::create(
        b, loc, VectorType::get({words}, i32), lanes);
  }
  Type want = width ? Type(VectorType::get({width}, elemTy)) : elemTy;
  return want == bits.getType()
             ? bits
             : LLVM::BitcastOp::create(b, loc, want, bits).getResult();
}

void pointwise::storeElements(OpBuilder &b, Location loc, Value value,
                              Value ptr, unsigned align) {
  Type t = value.getType();
  Type elemTy = getElementTypeOrSelf(t);
  Type mem = storageType(elemTy);
  if (mem != elemTy) {
    auto vecTy = dyn_cast<VectorType>(t);
    Type memTy = vecTy ? Type(VectorType::get(vecTy.getShape(), mem)) : mem;
    value = elemTy.isIndex()
                ? arith::IndexCastOp::create(b, loc, memTy, value).getResult()
                : arith::ExtUIOp::create(b, loc, memTy, value).getResult();
  }
  LLVM::StoreOp::create(b, loc, value, ptr, align);
}

namespace {

/// Vectors each thread handles per loop iteration: the config's pointwise
/// tile, [vectors per thread], or 1.
static int64_t vectorsPerThread(KernelConfigAttr config) {
  return config.getTile().empty() ? 1 : config.getTile()[0];
}

/// Emits the body of one pointwise kernel.
class KernelEmitter {
public:
  KernelEmitter(PointwiseOp op, KernelConfigAttr config,
                ArrayRef<InputInfo> inputs, bool passesSizes)
      : op(op), config(config), inputs(inputs), passesSizes(passesSizes) {}

  LogicalResult emit(gpu::GPUFuncOp kernel) {
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = op.getLoc();
    i64 = b.getI64Type();
    rank = op.getResultTensorType().getRank();

    // Parameters, in signature order.
    unsigned argNo = 0;
    for (size_t k = 0; k < inputs.size(); ++k)
      inputArgs.push_back(entry.getArgument(argNo++));
    for (unsigned r = 0; r < op.getNumResults(); ++r)
      outputArgs.push_back(entry.getArgument(argNo++));
    // Static sizes are constants in the kernel (the arguments stay, unread):
    // the coordinates then come from multiplications instead of divisions,
    // and a vector's row alignment is known.
    ShapedType resultType = op.getResultTensorType();
    auto sizeOr = [&](Value arg, int64_t size) {
      return ShapedType::isDynamic(size) ? arg : constI64(b, loc, size);
    };
    Value n = entry.getArgument(argNo++);
    if (resultType.hasStaticShape())
      n = constI64(b, loc, resultType.getNumElements());
    if (passesSizes)
      for (int64_t d = 0; d < rank; ++d)
        sizes.push_back(
            sizeOr(entry.getArgument(argNo++), resultType.getDimSize(d)));

    // Global thread id and thread count, in 64 bits.
    auto toI64 = [&](Value idx) {
      return arith::IndexCastUIOp::create(b, loc, i64, idx).getResult();
    };
    Value bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value bdim = toI64(gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
    Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value gdim = toI64(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, bdim), tid);
    Value stride = arith::MulIOp::create(b, loc, gdim, bdim);

    hoistLoopInvariants(b, loc);

    int64_t width = config.getVectorWidth();
    Value tailStart = start;
    if (width > 1) {
      Value w = constI64(b, loc, width);
      Value numVec = arith::DivUIOp::create(b, loc, n, w);
      Value vecStart = start;
      int64_t unroll = vectorsPerThread(config);
      if (unroll > 1) {
        // Each iteration loads `unroll` vectors `stride` apart, then stores
        // them: more loads in flight per thread, all coalesced.
        Value span = arith::MulIOp::create(b, loc, stride,
                                           constI64(b, loc, unroll - 1));
        Value step = arith::AddIOp::create(b, loc, span, stride);
        Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                           numVec, span);
        Value bound = arith::SelectOp::create(
            b, loc, fits, arith::SubIOp::create(b, loc, numVec, span),
            constI64(b, loc, 0));
        auto loop = scf::ForOp::create(b, loc, start, bound, step);
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        SmallVector<Value> bases;
        SmallVector<SmallVector<Value>> values;
        for (int64_t u = 0; u < unroll; ++u) {
          Value v = arith::AddIOp::create(
              lb, loc, loop.getInductionVar(),
              arith::MulIOp::create(lb, loc, stride, constI64(lb, loc, u)));
          bases.push_back(arith::MulIOp::create(lb, loc, v, w));
          auto computed = computeElements(lb, loc, bases.back(), width);
          if (failed(computed))
            return failure();
          values.push_back(std::move(*computed));
        }
        for (int64_t u = 0; u < unroll; ++u)
          storeResults(lb, loc, bases[u], width, values[u]);
        // The rest, one vector at a time: from this thread's first vector
        // the loop above did not reach.
        Value ahead = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                            bound, start);
        Value iters = arith::SelectOp::create(
            b, loc, ahead,
            arith::CeilDivUIOp::create(
                b, loc, arith::SubIOp::create(b, loc, bound, start), step),
            constI64(b, loc, 0));
        vecStart = arith::AddIOp::create(
            b, loc, start, arith::MulIOp::create(b, loc, iters, step));
      }
      auto loop = scf::ForOp::create(b, loc, vecStart, numVec, stride);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value base = arith::MulIOp::create(lb, loc, loop.getInductionVar(), w);
      if (failed(emitElements(lb, loc, base, width)))
        return failure();
      Value vecEnd = arith::MulIOp::create(b, loc, numVec, w);
      tailStart = arith::AddIOp::create(b, loc, vecEnd, start);
    }
    auto tail = scf::ForOp::create(b, loc, tailStart, n, stride);
    OpBuilder tb = OpBuilder::atBlockBegin(tail.getBody());
    if (failed(emitElements(tb, loc, tail.getInductionVar(), 1)))
      return failure();
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// Loads of rank-0 inputs and the row-major strides of broadcast inputs
  /// do not change across iterations.
  void hoistLoopInvariants(OpBuilder &b, Location loc) {
    for (auto [k, in] : llvm::enumerate(inputs)) {
      Type elemTy = elementTypeOf(op.getInputs()[in.index].getType());
      if (in.isSingleValue)
        singleValues[k] = loadElements(b, loc, elemTy, 0, inputArgs[k],
                                       storageBytes(elemTy));
      if (!in.isTensor || in.isContiguous || in.isSingleValue)
        continue;
      // stride of input position p = product of the sizes of later positions.
      AffineMap map = op.getIndexingMap(in.index);
      SmallVector<Value> strides(map.getNumResults());
      Value s = constI64(b, loc, 1);
      for (int64_t p = map.getNumResults() - 1; p >= 0; --p) {
        strides[p] = s;
        if (p > 0)
          s = arith::MulIOp::create(b, loc, s, sizes[map.getDimPosition(p)]);
      }
      inputStrides[k] = strides;
    }
    if (passesSizes && config.getVectorWidth() > 1) {
      Value rem = arith::RemUIOp::create(
          b, loc, sizes[rank - 1], constI64(b, loc, config.getVectorWidth()));
      rowAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                                         constI64(b, loc, 0));
    }
  }

  /// Splits a linear result index into per-dimension coordinates.
  SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear) {
    SmallVector<Value> coords(rank);
    Value rest = linear;
    for (int64_t d = rank - 1; d > 0; --d) {
      coords[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
    }
    coords[0] = rest;
    return coords;
  }

  /// The coordinates of the next element: increment the last one and carry.
  SmallVector<Value> nextCoords(OpBuilder &b, Location loc,
                                ArrayRef<Value> coords) {
    SmallVector<Value> next(coords);
    Value one = constI64(b, loc, 1), zero = constI64(b, loc, 0);
    next[rank - 1] = arith::AddIOp::create(b, loc, next[rank - 1], one);
    for (int64_t d = rank - 1; d > 0; --d) {
      Value wrap = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         next[d], sizes[d]);
      next[d] = arith::SelectOp::create(b, loc, wrap, zero, next[d]);
      Value carry = arith::ExtUIOp::create(b, loc, i64, wrap);
      next[d - 1] = arith::AddIOp::create(b, loc, next[d - 1], carry);
    }
    return next;
  }

  Value broadcastIndex(OpBuilder &b, Location loc, unsigned k,
                       ArrayRef<Value> coords) {
    AffineMap map = op.getIndexingMap(inputs[k].index);
    Value idx = constI64(b, loc, 0);
    for (unsigned p = 0; p < map.getNumResults(); ++p)
      idx = arith::AddIOp::create(
          b, loc, idx,
          arith::MulIOp::create(b, loc, coords[map.getDimPosition(p)],
                                inputStrides[k][p]));
    return idx;
  }

  /// A broadcast input read by `width` lanes from lane-0 coordinates. When
  /// the innermost result size is a multiple of `width` (a uniform branch),
  /// the lanes stay in one row: one aligned vector load if the input reads
  /// the innermost dimension, else one scalar splat. Otherwise each lane
  /// gathers its own element.
  Value loadBroadcastVector(OpBuilder &b, Location loc, unsigned k,
                            ArrayRef<Value> coords, Type elemTy,
                            int64_t width) {
    auto vecTy = VectorType::get({width}, elemTy);
    unsigned bytes = storageBytes(elemTy);
    AffineMap map = op.getIndexingMap(inputs[k].index);
    bool readsInnermost =
        map.getNumResults() > 0 &&
        map.getDimPosition(map.getNumResults() - 1) == rank - 1;
    bool skipsInnermost = !map.getResultPosition(
        getAffineDimExpr(rank - 1, op.getContext()));
    Value base = gepElement(b, loc, inputArgs[k], storageType(elemTy),
                            broadcastIndex(b, loc, k, coords));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{vecTy}, rowAligned,
                                  /*withElseRegion=*/true);
    {
      OpBuilder tb = ifOp.getThenBodyBuilder();
      Value v;
      if (readsInnermost)
        v = loadElements(tb, loc, elemTy, width, base, bytes * width);
      else if (skipsInnermost)
        v = vector::BroadcastOp::create(
            tb, loc, vecTy, loadElements(tb, loc, elemTy, 0, base, bytes));
      else
        v = gatherLanes(tb, loc, k, coords, elemTy, width);
      scf::YieldOp::create(tb, loc, v);
    }
    OpBuilder eb = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc,
                         gatherLanes(eb, loc, k, coords, elemTy, width));
    return ifOp.getResult(0);
  }

  Value gatherLanes(OpBuilder &b, Location loc, unsigned k,
                    ArrayRef<Value> coords, Type elemTy, int64_t width) {
    unsigned bytes = storageBytes(elemTy);
    SmallVector<Value> lanes;
    SmallVector<Value> c(coords);
    for (int64_t l = 0; l < width; ++l) {
      if (l > 0)
        c = nextCoords(b, loc, c);
      Value p = gepElement(b, loc, inputArgs[k], storageType(elemTy),
                           broadcastIndex(b, loc, k, c));
      lanes.push_back(loadElements(b, loc, elemTy, 0, p, bytes));
    }
    return vector::FromElementsOp::create(
        b, loc, VectorType::get({width}, elemTy), lanes);
  }

  /// Loads, computes and stores `width` consecutive elements from `base`.
  LogicalResult emitElements(OpBuilder &b, Location loc, Value base,
                             int64_t width) {
    auto values = computeElements(b, loc, base, width);
    if (failed(values))
      return failure();
    storeResults(b, loc, base, width, *values);
    return success();
  }

  /// Stores the group's results for `width` elements from `base`.
  void storeResults(OpBuilder &b, Location loc, Value base, int64_t width,
                    ArrayRef<Value> values) {
    for (auto [r, value] : llvm::enumerate(values)) {
      Type elemTy = elementTypeOf(op.getResultTypes()[r]);
      Value p = gepElement(b, loc, outputArgs[r], storageType(elemTy), base);
      storeElements(b, loc, value, p, storageBytes(elemTy) * width);
    }
  }

  /// Loads and computes `width` consecutive elements from `base`: the
  /// group's results, not yet stored.
  FailureOr<SmallVector<Value>> computeElements(OpBuilder &b, Location loc,
                                                Value base, int64_t width) {
    auto widen = [&](Type t) -> Type {
      return width == 1 ? t : VectorType::get({width}, t);
    };
    bool needCoords = llvm::any_of(inputs, [](const InputInfo &in) {
      return in.isTensor && !in.isContiguous && !in.isSingleValue;
    });
    SmallVector<Value> coords;
    if (needCoords)
      coords = delinearize(b, loc, base);

    IRMapping mapping;
    Block &body = op.getBodyBlock();
    for (auto [k, in] : llvm::enumerate(inputs)) {
      Type elemTy = elementTypeOf(op.getInputs()[in.index].getType());
      unsigned bytes = storageBytes(elemTy);
      Value v;
      if (!in.isTensor || in.isSingleValue) {
        Value s = in.isTensor ? singleValues[k] : inputArgs[k];
        v = width == 1 ? s
                       : vector::BroadcastOp::create(b, loc, widen(elemTy), s)
                             .getResult();
      } else if (in.isContiguous) {
        Value p = gepElement(b, loc, inputArgs[k], storageType(elemTy), base);
        v = loadStreamed(b, loc, elemTy, width == 1 ? 0 : width, p,
                         config.getL2Prefetch());
      } else if (width == 1) {
        Value p = gepElement(b, loc, inputArgs[k], storageType(elemTy),
                             broadcastIndex(b, loc, k, coords));
        v = loadElements(b, loc, elemTy, 0, p, bytes);
      } else {
        v = loadBroadcastVector(b, loc, k, coords, elemTy, width);
      }
      mapping.map(body.getArgument(in.index), v);
    }

    auto yielded = emitBodyWidened(b, body, mapping, width);
    if (failed(yielded))
      return failure();
    return *yielded;
  }

  PointwiseOp op;
  KernelConfigAttr config;
  ArrayRef<InputInfo> inputs;
  bool passesSizes;
  Type i64;
  int64_t rank = 0;
  SmallVector<Value> inputArgs, outputArgs, sizes;
  DenseMap<unsigned, Value> singleValues;
  DenseMap<unsigned, SmallVector<Value>> inputStrides;
  /// True when the innermost result size is a multiple of the vector width.
  Value rowAligned;
};

class ConvertPointwiseToGPUPass
    : public fuser::impl::ConvertPointwiseToGPUPassBase<
          ConvertPointwiseToGPUPass> {
public:
  void runOnOperation() override {
    if (failed(lowerEachGroup<PointwiseOp>(
            getOperation(), [&](PointwiseOp op, SymbolTable &kernelSymbols) {
              return lower(op, kernelSymbols);
            })))
      signalPassFailure();
  }

private:
  LogicalResult lower(PointwiseOp op, SymbolTable &kernelSymbols) {
    auto config = op.getConfigAttr();
    if (!config)
      return op.emitOpError()
             << "has no #fuser.config; run -fuser-configure-kernels first";
    bool transpose = config.getStrategy() == "pointwise_transpose";
    if (config.getStrategy() != "pointwise" && !transpose)
      return op.emitOpError() << "has strategy '" << config.getStrategy()
                              << "'; this lowering implements 'pointwise' "
                                 "and 'pointwise_transpose'";
    if (transpose && !transposeElementsPerThread(op, config))
      return failure();
    if (!transpose && config.getTile().size() > 1)
      return op.emitOpError()
             << "has a pointwise tile of " << config.getTile().size()
             << " sizes; it takes one, [vectors per thread]";
    for (Type t : llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes()))
      if (failed(checkLoadableElementType(op, storageType(elementTypeOf(t)))))
        return failure();

    // 1. Classify the inputs the body reads; unread ones only carry shapes.
    MLIRContext *ctx = op.getContext();
    Block &body = op.getBodyBlock();
    SmallVector<InputInfo> inputs;
    bool passesSizes = false;
    for (auto [i, v] : llvm::enumerate(op.getInputs())) {
      if (body.getArgument(i).use_empty())
        continue;
      auto tensorTy = dyn_cast<RankedTensorType>(v.getType());
      InputInfo in{static_cast<unsigned>(i), tensorTy != nullptr,
                   tensorTy && op.isIdentityInput(i),
                   tensorTy && tensorTy.getRank() == 0};
      passesSizes |= in.isTensor && !in.isContiguous && !in.isSingleValue;
      inputs.push_back(in);
    }
    // The transposed-tile kernel always computes coordinates, and needs no
    // element count.
    passesSizes |= transpose;

    // 2. The kernel.
    auto func = op->getParentOfType<FunctionOpInterface>();
    std::string name =
        (func ? func.getName().str() : std::string("fuser")) + "_pointwise";
    auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    auto i64 = IntegerType::get(ctx, 64);
    SmallVector<Type> params;
    for (const InputInfo &in : inputs)
      params.push_back(in.isTensor ? Type(ptrTy)
                                   : op.getInputs()[in.index].getType());
    params.append(op.getNumResults(), ptrTy);
    if (!transpose)
      params.push_back(i64);
    int64_t rank = op.getResultTensorType().getRank();
    if (passesSizes)
      params.append(rank, i64);

    if (transpose) {
      Type tileTy = transposeTileType(op, config);
      auto kernel = createKernel(kernelSymbols, op.getLoc(), name, params,
                                 config.getBlock(), TypeRange{tileTy});
      if (failed(emitTransposeKernel(op, config, inputs, kernel)))
        return failure();
      return launch(op, config, kernel, inputs, /*passesSizes=*/true);
    }
    auto kernel = createKernel(kernelSymbols, op.getLoc(), name, params,
                               config.getBlock());
    KernelEmitter emitter(op, config, inputs, passesSizes);
    if (failed(emitter.emit(kernel)))
      return failure();
    return launch(op, config, kernel, inputs, passesSizes);
  }

  /// Host code on tensors in place of `op`: sizes, checks, outputs, the
  /// launch of `kernel`; `passesSizes`: whether it takes the result sizes.
  LogicalResult launch(PointwiseOp op, KernelConfigAttr config,
                       gpu::GPUFuncOp kernel, ArrayRef<InputInfo> inputs,
                       bool passesSizes) {
    bool transpose = config.getStrategy() == "pointwise_transpose";
    auto i64 = IntegerType::get(op.getContext(), 64);
    int64_t rank = op.getResultTensorType().getRank();

    // 3. Host code on tensors: sizes, checks, outputs, launch.
    OpBuilder b(op);
    Location loc = op.getLoc();
    ReifiedRankedShapedTypeDims reified;
    if (failed(op.reifyResultShapes(b, reified)))
      return op.emitOpError() << "cannot compute its result sizes";
    SmallVector<Value> dims;
    for (OpFoldResult ofr : reified[0])
      dims.push_back(getValueOrCreateConstantIndexOp(b, loc, ofr));
    emitBroadcastChecks(b, op, dims);

    Value n = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value d : dims)
      n = arith::MulIOp::create(b, loc, n, d);
    auto toI64 = [&](Value idx) {
      return arith::IndexCastUIOp::create(b, loc, i64, idx).getResult();
    };

    SmallVector<Value> args;
    for (const InputInfo &in : inputs) {
      Value v = op.getInputs()[in.index];
      if (!in.isTensor) {
        args.push_back(v);
        continue;
      }
      args.push_back(hostPointerToTensor(b, loc, v));
    }
    SmallVector<Value> dynDims;
    RankedTensorType resultTy = op.getResultTensorType();
    for (int64_t d = 0; d < rank; ++d)
      if (resultTy.isDynamicDim(d))
        dynDims.push_back(dims[d]);
    SmallVector<Value> allocs;
    for (Type t : op.getResultTypes()) {
      auto memrefTy = MemRefType::get(resultTy.getShape(),
                                      cast<RankedTensorType>(t).getElementType());
      Value alloc = memref::AllocOp::create(b, loc, memrefTy, dynDims,
                                            b.getI64IntegerAttr(64));
      allocs.push_back(alloc);
      args.push_back(hostPointerToMemRef(b, loc, alloc));
    }
    if (!transpose)
      args.push_back(toI64(n));
    if (passesSizes)
      for (Value d : dims)
        args.push_back(toI64(d));

    Value grid, threads;
    if (transpose) {
      // grid = min(batch * ceildiv(P, TM) * ceildiv(Q, TN), max_grid): one
      // block per tile, grid-striding past max_grid.
      ArrayRef<int64_t> tile = config.getTile();
      Value tiles = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t d = 0; d < rank; ++d) {
        Value extent = dims[d];
        if (d >= rank - 2)
          extent = arith::CeilDivUIOp::create(
              b, loc, extent,
              arith::ConstantIndexOp::create(b, loc, tile[d - (rank - 2)]));
        tiles = arith::MulIOp::create(b, loc, tiles, extent);
      }
      grid = tiles;
      threads = arith::ConstantIndexOp::create(b, loc, config.getBlock()[0]);
    } else {
      // grid = min(ceildiv(ceildiv(n, width * vectors per thread), block),
      //           max_grid)
      int64_t perThread =
          config.getVectorWidth() > 1
              ? config.getVectorWidth() * vectorsPerThread(config)
              : 1;
      Value width = arith::ConstantIndexOp::create(b, loc, perThread);
      threads = arith::ConstantIndexOp::create(b, loc, config.getBlock()[0]);
      grid = arith::CeilDivUIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, n, width), threads);
    }
    if (config.getMaxGrid() > 0)
      grid = arith::MinUIOp::create(
          b, loc, grid,
          arith::ConstantIndexOp::create(b, loc, config.getMaxGrid()));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::LaunchFuncOp::create(b, loc, kernel, gpu::KernelDim3{grid, one, one},
                              gpu::KernelDim3{threads, one, one},
                              /*dynamicSharedMemorySize=*/Value(), args);

    SmallVector<Value> results;
    for (auto [alloc, t] : llvm::zip(allocs, op.getResultTypes()))
      results.push_back(bufferization::ToTensorOp::create(
          b, loc, t, alloc, /*restrict=*/true, /*writable=*/true));
    op->replaceAllUsesWith(results);
    op->erase();
    return success();
  }

  /// Dynamic sizes of broadcast operands must agree with the result's; the
  /// verifier already rejected static mismatches.
  void emitBroadcastChecks(OpBuilder &b, PointwiseOp op, ArrayRef<Value> dims) {
    Location loc = op.getLoc();
    RankedTensorType resultTy = op.getResultTensorType();
    for (auto [i, v] : llvm::enumerate(op.getInputs())) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        continue;
      AffineMap map = op.getIndexingMap(i);
      for (unsigned p = 0; p < map.getNumResults(); ++p) {
        unsigned d = map.getDimPosition(p);
        if (!t.isDynamicDim(p) && !resultTy.isDynamicDim(d))
          continue;
        auto dimOp = dims[d].getDefiningOp<tensor::DimOp>();
        if (dimOp && dimOp.getSource() == v &&
            dimOp.getConstantIndex() == static_cast<int64_t>(p))
          continue; // the size was read from this very dimension
        Value size = tensor::DimOp::create(b, loc, v, p);
        Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         size, dims[d]);
        cf::AssertOp::create(
            b, loc, eq,
            (Twine("fuser.pointwise: input #") + Twine(i) + " dimension " +
             Twine(p) + " must equal result dimension " + Twine(d))
                .str());
      }
    }
  }
};

} // namespace
