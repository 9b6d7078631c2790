//===- MatmulToGPU.cpp - fuser.matmul to a GEMM kernel and launch ---------===//
//
// This file holds the pass and the host side of the lowering: the checks on
// the config, the gpu.func with the parameters of GemmKernelArgs.h, and in
// the op's place the size asserts, the output allocation, the tensor maps
// (wgmma_tma) and the launch. The kernel body comes from the builder the
// config's strategy names:
//   ffma       register-tiled fp32 FMA (FfmaGemmKernel.cpp)
//   mma        mma.sync on tf32, 3xtf32, fp64, bf16 or f16 (MmaGemmKernel.cpp)
//   wgmma      wgmma.mma_async from cp.async stages, sm_90a (WgmmaKernel.cpp)
//   wgmma_tma  wgmma.mma_async fed by TMA from a producer warpgroup, sm_90a
//              (WgmmaKernel.cpp, WgmmaTmaLoop.cpp)
// The tensor-core kernels share MmaEmitter.h and their epilogue
// (MmaEpilogue.cpp).
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "FfmaGemmKernel.h"
#include "GemmKernelArgs.h"
#include "MmaGemmKernel.h"
#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#define DEBUG_TYPE "fuser-matmul-to-gpu"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTMATMULTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

class ConvertMatmulToGPUPass
    : public fuser::impl::ConvertMatmulToGPUPassBase<ConvertMatmulToGPUPass> {
public:
  void runOnOperation() override {
    if (failed(lowerEachGroup<MatmulOp>(
            getOperation(), [&](MatmulOp op, SymbolTable &kernelSymbols) {
              return lower(op, kernelSymbols);
            })))
      signalPassFailure();
  }

private:
  LogicalResult checkSupported(MatmulOp op, KernelConfigAttr config) {
    if (!config)
      return op.emitOpError()
             << "has no #fuser.config; run -fuser-configure-kernels first";
    if (config.getStrategy() == kMmaStrategy ||
        config.getStrategy() == kWgmmaStrategy ||
        config.getStrategy() == kWgmmaTmaStrategy)
      return success(); // getMmaTiling checks types and tile
    if (config.getStrategy() != "ffma")
      return op.emitOpError() << "has strategy '" << config.getStrategy()
                              << "'; this lowering implements 'ffma', '"
                              << kMmaStrategy << "', '" << kWgmmaStrategy
                              << "' and '" << kWgmmaTmaStrategy << "'";
    if (config.getPrecision() != "fp32")
      return op.emitOpError()
             << "precision '" << config.getPrecision()
             << "' needs the tensor-core strategy '" << kMmaStrategy
             << "'; the 'ffma' kernel computes in fp32";
    auto isF32 = [](Type t) { return elementTypeOf(t).isF32(); };
    if (!isF32(op.getLhs().getType()) || !isF32(op.getRhs().getType()) ||
        !isF32(op.getResult().getType()) ||
        !llvm::all_of(op.getEpilogueInputs().getTypes(), isF32))
      return op.emitOpError() << "the fp32 FFMA kernel needs f32 operands, "
                                 "epilogue inputs and result";
    return success();
  }

  LogicalResult lower(MatmulOp op, SymbolTable &kernelSymbols) {
    KernelConfigAttr config = op.getConfigAttr();
    if (failed(checkSupported(op, config)))
      return failure();
    // The tensor-core kernel (MmaGemmKernel.cpp) or the FFMA one: block
    // tile, threads and dynamic shared memory for the launch.
    bool useMma = config.getStrategy() == kMmaStrategy ||
                  config.getStrategy() == kWgmmaStrategy ||
                  config.getStrategy() == kWgmmaTmaStrategy;
    FailureOr<MmaTiling> mmaTiling =
        useMma ? getMmaTiling(op, config) : FailureOr<MmaTiling>(MmaTiling{});
    FailureOr<GemmTiling> tiling =
        useMma ? FailureOr<GemmTiling>(GemmTiling{})
               : getGemmTiling(op, config);
    if (failed(mmaTiling) || failed(tiling))
      return failure();
    int64_t tileM = useMma ? mmaTiling->bm : tiling->bm;
    int64_t tileN = useMma ? mmaTiling->bn : tiling->bn;
    int64_t numThreads = useMma ? mmaTiling->threads() : tiling->threads();
    int64_t sharedBytes = useMma ? mmaTiling->sharedBytes() : 0;

    // 1. The kernel (GemmKernelArgs.h).
    MLIRContext *ctx = op.getContext();
    auto i64 = IntegerType::get(ctx, 64);
    bool tma = useMma && mmaTiling->tma;
    SmallVector<Type> params = gemmKernelParamTypes(op, tma);
    auto func = op->getParentOfType<FunctionOpInterface>();
    std::string name =
        (func ? func.getName().str() : std::string("fuser")) + "_matmul";
    auto kernel = createKernel(kernelSymbols, op.getLoc(), name, params,
                               config.getBlock(),
                               useMma ? SmallVector<Type>()
                                      : getGemmWorkgroupBuffers(ctx, *tiling));
    if (config.getMinBlocksPerSm() > 0) // caps registers, for occupancy
      kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 32),
                                       config.getMinBlocksPerSm()));
    if (tma)
      kernel->setAttr(kTensorMapArgsAttr,
                      DenseI64ArrayAttr::get(
                          ctx, {int64_t(params.size()) - 2,
                                int64_t(params.size()) - 1}));
    if (failed(useMma ? buildMmaGemmKernel(op, *mmaTiling, kernel)
                      : buildFfmaGemmKernel(op, *tiling, kernel)))
      return failure();

    // 2. Host code: sizes, checks, output, launch.
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto dim = [&](Value t, int64_t d) { return tensorDimSize(b, loc, t, d); };
    Value lhs = op.getLhs(), rhs = op.getRhs();
    Value m = dim(lhs, 0), k = dim(lhs, 1);
    Value n = dim(rhs, op.getTransposeB() ? 0 : 1);
    assertSizesEqual(b, loc, k, dim(rhs, op.getTransposeB() ? 1 : 0),
                "fuser.matmul: the reduction sizes of lhs and rhs differ");
    SmallVector<Value> args{hostPointerToTensor(b, loc, lhs),
                            hostPointerToTensor(b, loc, rhs)};
    for (auto [j, in] : llvm::enumerate(op.getEpilogueInputs())) {
      if (!isa<RankedTensorType>(in.getType())) {
        args.push_back(in);
        continue;
      }
      auto map = cast<AffineMapAttr>(op.getEpilogueMaps()[j]).getValue();
      for (unsigned p = 0; p < map.getNumResults(); ++p)
        assertSizesEqual(b, loc, dim(in, p), map.getDimPosition(p) == 0 ? m : n,
                    "fuser.matmul: epilogue input #" + Twine(j) +
                        " dimension " + Twine(p) + " must equal the result's " +
                        (map.getDimPosition(p) == 0 ? "M" : "N"));
      args.push_back(hostPointerToTensor(b, loc, in));
    }
    auto resultTy = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<Value> dynDims;
    if (resultTy.isDynamicDim(0))
      dynDims.push_back(m);
    if (resultTy.isDynamicDim(1))
      dynDims.push_back(n);
    Value out = memref::AllocOp::create(
        b, loc, MemRefType::get(resultTy.getShape(), resultTy.getElementType()),
        dynDims, b.getI64IntegerAttr(64));
    args.push_back(hostPointerToMemRef(b, loc, out));
    for (Value size : {m, n, k})
      args.push_back(arith::IndexCastUIOp::create(b, loc, i64, size));
    if (tma) { // [BM, BK] boxes of A, [BN, BK] of B, 128-byte swizzled
      auto map = [&](Value t, int64_t boxRows) -> Value {
        return TensorMapOp::create(
            b, loc, params.back(), hostBufferOfTensor(b, loc, t),
            b.getDenseI64ArrayAttr({boxRows, mmaTiling->bk}),
            b.getI64IntegerAttr(mmaTiling->bk * mmaTiling->elemBytes()));
      };
      args.push_back(map(lhs, mmaTiling->bm));
      args.push_back(map(rhs, mmaTiling->bn));
    }

    // M tiles along x: the blocks that share a B panel run back to back.
    auto ceilDiv = [&](Value x, int64_t y) -> Value {
      return arith::CeilDivUIOp::create(
          b, loc, x, arith::ConstantIndexOp::create(b, loc, y));
    };
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value threads = arith::ConstantIndexOp::create(b, loc, numThreads);
    Value gridX = ceilDiv(m, tileM), gridY = ceilDiv(n, tileN);
    if (tma) { // one block per tile, or max_grid blocks looping over them
      gridX = arith::MulIOp::create(b, loc, gridX, gridY);
      gridY = one;
      if (config.getMaxGrid() > 0)
        gridX = arith::MinUIOp::create(
            b, loc, gridX,
            arith::ConstantIndexOp::create(b, loc, config.getMaxGrid()));
    }
    gpu::LaunchFuncOp::create(
        b, loc, kernel,
        gpu::KernelDim3{gridX, gridY, one},
        gpu::KernelDim3{threads, one, one},
        /*dynamicSharedMemorySize=*/
        sharedBytes ? Value(arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                         sharedBytes))
                    : Value(),
        args);
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultTy, out, /*restrict=*/true, /*writable=*/true);
    op.replaceAllUsesWith(result);
    op->erase();
    return success();
  }
};

} // namespace
