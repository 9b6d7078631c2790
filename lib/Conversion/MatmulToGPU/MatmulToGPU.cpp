//===- MatmulToGPU.cpp - fuser.matmul to a GEMM kernel and launch ---------===//
//
// This file holds the pass and the host side of the lowering: the gpu.func
// with the parameters of GemmKernelArgs.h, and in the op's place the size
// asserts, the output allocation, the tensor maps and the launch. The
// config's strategy string names a GemmStrategy (FuserAttrs.td), whose
// record (GemmStrategy.h) holds the rules this lowering shares with the
// configuration step; the strategy's kernel file checks the config and
// returns a GemmKernelPlan (GemmKernelPlan.h), which is all this file reads
// of the kernel: tile, threads, shared memory, tensor maps, persistent grid.
// A batched matmul launches its batches' M tiles along grid x (GemmKernelArgs
// decodes them and offsets the pointers), unless the kernel is persistent
// (its blocks loop over (batch, tile) pairs). With split_k > 1 the GEMM
// kernel writes partial sums into an intermediate and a second kernel
// (SplitKReduce.cpp) adds them and applies the epilogue.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "GemmKernelArgs.h"
#include "GemmKernelPlan.h"
#include "SplitKReduce.h"
#include "fuser/Conversion/Common/KernelUtils.h"
#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
  using Base::Base;

  void runOnOperation() override {
    chipInfo = lookupChip(chip);
    if (!chipInfo) {
      getOperation().emitError() << "unsupported chip '" << chip
                                 << "'; supported: " << supportedChipNames();
      return signalPassFailure();
    }
    if (failed(lowerEachGroup<MatmulOp>(
            getOperation(), [&](MatmulOp op, SymbolTable &kernelSymbols) {
              return lower(op, kernelSymbols);
            })))
      signalPassFailure();
  }

private:
  /// The `chip` option's entry (set first in runOnOperation).
  const ChipInfo *chipInfo = nullptr;

  /// The strategy `config` names, or failure after a diagnostic.
  FailureOr<GemmStrategy> getStrategy(MatmulOp op, KernelConfigAttr config) {
    if (!config)
      return op.emitOpError()
             << "has no #fuser.config; run -fuser-configure-kernels first";
    std::optional<GemmStrategy> strategy =
        symbolizeGemmStrategy(config.getStrategy());
    if (!strategy)
      return op.emitOpError()
             << "has strategy '" << config.getStrategy()
             << "'; this lowering implements " << gemmStrategyNames();
    return *strategy;
  }

  /// The plan of `op`'s kernel from its strategy's kernel file: the one
  /// dispatch on the strategy.
  FailureOr<GemmKernelPlan> planGemmKernel(MatmulOp op, KernelConfigAttr config,
                                           GemmStrategy strategy) {
    const GemmStrategyRecord &rec = getGemmStrategyRecord(strategy);
    if (op.hasPrologue() &&
        (!rec.readsPrologue || !rec.readsPrologue(op, config.getPrecision())))
      return op.emitOpError()
             << "has a prologue, which '" << rec.name() << "' in '"
             << config.getPrecision()
             << "' does not read (3xtf32 on wgmma_tma does, with at most "
                "one prologue input of A's type); fuser-configure-kernels "
                "computes such a prologue in a kernel of its own";
    switch (strategy) {
    case GemmStrategy::ffma:
      return planFfmaKernel(op, config, *chipInfo);
    case GemmStrategy::mma:
      return planMmaSyncKernel(op, config, *chipInfo);
    case GemmStrategy::wgmma:
      return planWgmmaKernel(op, config, *chipInfo);
    case GemmStrategy::wgmma_tma:
      return planWgmmaTmaKernel(op, config, *chipInfo);
    }
    llvm_unreachable("unknown GemmStrategy");
  }

  /// Split K's second kernel (SplitKReduce.h) and its launch after the
  /// GEMM's: the slices of `partials` added, the epilogue, into `out`.
  LogicalResult launchSplitKReduce(MatmulOp op, SymbolTable &kernelSymbols,
                                   OpBuilder &b, StringRef gemmName,
                                   Value partials, ArrayRef<Value> epilogueArgs,
                                   Value out, Value m, Value n) {
    Location loc = op.getLoc();
    int64_t splitK = op.getConfigAttr().getSplitK();
    auto kernel =
        createKernel(kernelSymbols, loc, (gemmName + "_reduce").str(),
                     splitKReduceParamTypes(op), {kSplitKReduceThreads, 1, 1});
    if (failed(buildSplitKReduceKernel(op, splitK, kernel)))
      return failure();
    auto i64 = b.getI64Type();
    SmallVector<Value> args{hostPointerToMemRef(b, loc, partials)};
    args.append(epilogueArgs.begin(), epilogueArgs.end());
    args.push_back(hostPointerToMemRef(b, loc, out));
    for (Value size : {m, n})
      args.push_back(arith::IndexCastUIOp::create(b, loc, i64, size));
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value elems = arith::MulIOp::create(b, loc, m, n);
    Value threads = index(kSplitKReduceThreads);
    Value grid = arith::CeilDivUIOp::create(b, loc, elems, threads);
    grid = arith::MinUIOp::create(b, loc, grid, index(kSplitKReduceMaxGrid));
    Value one = index(1);
    gpu::LaunchFuncOp::create(b, loc, kernel, gpu::KernelDim3{grid, one, one},
                              gpu::KernelDim3{threads, one, one},
                              /*dynamicSharedMemorySize=*/Value(), args);
    return success();
  }

  LogicalResult lower(MatmulOp op, SymbolTable &kernelSymbols) {
    KernelConfigAttr config = op.getConfigAttr();
    FailureOr<GemmStrategy> strategy = getStrategy(op, config);
    if (failed(strategy))
      return failure();
    FailureOr<GemmKernelPlan> kp = planGemmKernel(op, config, *strategy);
    if (failed(kp))
      return failure();
    int64_t tileM = kp->tileM, tileN = kp->tileN;
    int64_t numThreads = kp->threads, sharedBytes = kp->sharedBytes;
    bool persistent = kp->persistent;
    int64_t splitK = config.getSplitK(); // the plan checked it

    // 1. The kernel (GemmKernelArgs.h).
    MLIRContext *ctx = op.getContext();
    auto i64 = IntegerType::get(ctx, 64);
    SmallVector<Type> params =
        gemmKernelParamTypes(op, persistent, /*withEpilogue=*/splitK == 1);
    auto func = op->getParentOfType<FunctionOpInterface>();
    std::string name =
        (func ? func.getName().str() : std::string("fuser")) + "_matmul";
    auto kernel = createKernel(kernelSymbols, op.getLoc(), name, params,
                               config.getBlock(), kp->workgroupBuffers);
    if (config.getMinBlocksPerSm() > 0) // caps registers, for occupancy
      kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 32),
                                       config.getMinBlocksPerSm()));
    // Compile-time cluster dims (.reqnctapercluster): a plain launch runs
    // the blocks in clusters.
    if (config.getClusterM() > 1)
      kernel->setAttr(
          NVVM::NVVMDialect::getClusterDimAttrName(),
          DenseI32ArrayAttr::get(ctx, {int32_t(config.getClusterM()), 1, 1}));
    if (persistent) { // the tensor maps are the last parameters
      int64_t maps = 2 + op.getPrologueInputs().size();
      SmallVector<int64_t> mapArgs;
      for (int64_t i = int64_t(params.size()) - maps;
           i < int64_t(params.size()); ++i)
        mapArgs.push_back(i);
      kernel->setAttr(kTensorMapArgsAttr, DenseI64ArrayAttr::get(ctx, mapArgs));
    }
    if (failed(kp->build(kernel)))
      return failure();

    // 2. Host code: sizes, checks, output, launch.
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto dim = [&](Value t, int64_t d) { return tensorDimSize(b, loc, t, d); };
    Value lhs = op.getLhs(), rhs = op.getRhs();
    Value m = dim(lhs, op.getLhsMDim()), k = dim(lhs, op.getLhsKDim());
    Value n = dim(rhs, op.getRhsNDim());
    assertSizesEqual(b, loc, k, dim(rhs, op.getRhsKDim()),
                     "fuser.matmul: the reduction sizes of lhs and rhs differ");
    // Result dimensions by the epilogue maps' dimension positions.
    SmallVector<Value> resultDims{m, n};
    SmallVector<StringRef> dimNames{"M", "N"};
    if (op.isBatched()) {
      Value batch = dim(lhs, 0);
      assertSizesEqual(b, loc, batch, dim(rhs, 0),
                       "fuser.matmul: the batch sizes of lhs and rhs differ");
      resultDims.insert(resultDims.begin(), batch);
      dimNames.insert(dimNames.begin(), "batch");
    }
    SmallVector<Value> args{hostPointerToTensor(b, loc, lhs),
                            hostPointerToTensor(b, loc, rhs)};
    SmallVector<Value> epilogueArgs;
    for (auto [j, in] : llvm::enumerate(op.getEpilogueInputs())) {
      if (!isa<RankedTensorType>(in.getType())) {
        epilogueArgs.push_back(in);
        continue;
      }
      auto map = cast<AffineMapAttr>(op.getEpilogueMaps()[j]).getValue();
      for (unsigned p = 0; p < map.getNumResults(); ++p)
        assertSizesEqual(b, loc, dim(in, p), resultDims[map.getDimPosition(p)],
                         "fuser.matmul: epilogue input #" + Twine(j) +
                             " dimension " + Twine(p) +
                             " must equal the result's " +
                             dimNames[map.getDimPosition(p)]);
      epilogueArgs.push_back(hostPointerToTensor(b, loc, in));
    }
    if (splitK == 1)
      args.append(epilogueArgs.begin(), epilogueArgs.end());
    auto resultTy = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<Value> dynDims;
    for (auto [d, size] : llvm::enumerate(resultDims))
      if (resultTy.isDynamicDim(d))
        dynDims.push_back(size);
    Value out = memref::AllocOp::create(
        b, loc, MemRefType::get(resultTy.getShape(), resultTy.getElementType()),
        dynDims, b.getI64IntegerAttr(64));
    // Split K: the GEMM kernel's C is the [split_k, M, N] fp32 partial
    // sums, an intermediate (the runtime allocates it per call).
    Value partials;
    if (splitK > 1) {
      SmallVector<int64_t> shape{splitK};
      llvm::append_range(shape, resultTy.getShape());
      partials = memref::AllocOp::create(b, loc,
                                         MemRefType::get(shape, b.getF32Type()),
                                         dynDims, b.getI64IntegerAttr(64));
    }
    args.push_back(hostPointerToMemRef(b, loc, partials ? partials : out));
    for (Value size : {m, n, k})
      args.push_back(arith::IndexCastUIOp::create(b, loc, i64, size));
    auto ceilDiv = [&](Value x, int64_t y) -> Value {
      return arith::CeilDivUIOp::create(
          b, loc, x, arith::ConstantIndexOp::create(b, loc, y));
    };
    Value tmaTiles; // every batch's tiles, which persistent blocks walk
    if (persistent) {
      // Batched: the batch count, and each operand viewed as its batches'
      // rows stacked (B * M or B * N rows of K; an N-major B's B * K rows
      // of N). A tile's rows past M (or
      // N) read the next batch's, which only reach outputs the epilogue
      // does not store; past the last batch TMA reads zeros. (2-D maps of
      // a view keep the runtime's rank-2 encoding; 3-D maps would gain
      // nothing but the clipped rows.)
      // A cluster's blocks take adjacent M tiles: the M tiles are counted
      // in whole clusters (a block past M computes zeros, stores nothing).
      int64_t clusterM = config.getClusterM();
      Value mTiles = ceilDiv(m, tileM * clusterM);
      if (clusterM > 1)
        mTiles = arith::MulIOp::create(
            b, loc, mTiles, arith::ConstantIndexOp::create(b, loc, clusterM));
      Value batchTiles =
          arith::MulIOp::create(b, loc, mTiles, ceilDiv(n, tileN));
      tmaTiles = batchTiles;
      if (op.isBatched())
        tmaTiles = arith::MulIOp::create(b, loc, tmaTiles, resultDims.front());
      SmallVector<Value> counts{ceilDiv(k, kp->kTile), mTiles, batchTiles,
                                tmaTiles};
      if (op.isBatched())
        counts.insert(counts.begin(), resultDims.front());
      for (Value count : counts)
        args.push_back(arith::IndexCastUIOp::create(b, loc, i64, count));
      auto map = [&](Value t, const TensorMapBox &box) -> Value {
        Value buffer = hostBufferOfTensor(b, loc, t);
        if (op.isBatched())
          buffer = memref::CollapseShapeOp::create(
              b, loc, buffer, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
        return TensorMapOp::create(b, loc, params.back(), buffer,
                                   b.getDenseI64ArrayAttr({box.rows, box.cols}),
                                   b.getI64IntegerAttr(box.swizzleBytes));
      };
      args.push_back(map(lhs, kp->mapA));
      args.push_back(map(rhs, kp->mapB));
      for (auto [j, in] : llvm::enumerate(op.getPrologueInputs())) {
        for (int64_t d : {0, 1})
          assertSizesEqual(b, loc, dim(in, d), d ? k : m,
                           "fuser.matmul: prologue input #" + Twine(j) +
                               " must have lhs's shape");
        args.push_back(map(in, kp->mapA));
      }
    }

    // M tiles along x: the blocks that share a B panel run back to back.
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value threads = arith::ConstantIndexOp::create(b, loc, numThreads);
    Value gridX, gridY;
    if (!persistent) {
      gridX = ceilDiv(m, tileM);
      gridY = ceilDiv(n, tileN);
      if (op.isBatched()) // every batch's M tiles, batch-major (GemmKernelArgs)
        gridX = arith::MulIOp::create(b, loc, gridX, resultDims.front());
    } else { // one block per tile, or max_grid blocks looping over them
      gridX = tmaTiles;
      gridY = one;
      if (splitK > 1) // a block per (tile, K slice)
        gridX = arith::MulIOp::create(
            b, loc, gridX, arith::ConstantIndexOp::create(b, loc, splitK));
      if (config.getMaxGrid() > 0)
        gridX = arith::MinUIOp::create(
            b, loc, gridX,
            arith::ConstantIndexOp::create(b, loc, config.getMaxGrid()));
    }
    gpu::LaunchFuncOp::create(
        b, loc, kernel, gpu::KernelDim3{gridX, gridY, one},
        gpu::KernelDim3{threads, one, one},
        /*dynamicSharedMemorySize=*/
        sharedBytes ? Value(arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                         sharedBytes))
                    : Value(),
        args);
    if (splitK > 1 &&
        failed(launchSplitKReduce(op, kernelSymbols, b, name, partials,
                                  epilogueArgs, out, m, n)))
      return failure();
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultTy, out, /*restrict=*/true, /*writable=*/true);
    op.replaceAllUsesWith(result);
    op->erase();
    return success();
  }
};

} // namespace
