//===- ReductionToGPU.cpp - configured reductions to GPU kernels ---------===//
//
// Lowers each linalg.generic reduction that fuser-configure-kernels gave a
// `fuser.config` (strategy "reduction"; ReductionAnalysis.h says which) to
// one gpu.func (two in the two-stage form below) and, in its place,
// tensor-level host code with the conventions of fuser-pointwise-to-gpu:
// !llvm.ptr<1> arguments, i64 sizes, the output allocated by the host code.
//
// Kernel signature: (inputs read..., inits..., outs..., extent of each
// loop: i64), one init and one out per result (one, or an arg reduction's
// value and index); an init filled with a constant (the usual zeros) is
// that constant in the kernel instead, and the fill goes.
// With tile = [S, D], B threads per block and O = B / S outputs per block,
// thread t of block b works on output o = b * O + t / S (D = 1, its S
// threads consecutive) or b * O + t % O (D = O, a block-row apart):
//   acc[0..3] = identity
//   for r = (its index among the S); r < R; r += S:  (four r per iteration,
//     loaded first, r's k-th folding into acc[k]; then the rest into one)
//     acc[k] = acc[k] (+) f(in(o, r))
//   the four accumulators combine pairwise, then the S threads' results:
//   by warp shuffles when they are consecutive lanes of one warp, else in
//   shared memory, halving each step
//   out[o] = init[o] (+) acc
// With vector_width = V > 1 (ReductionAnalysis.h: the innermost reduction
// loop is every reading input's innermost dimension), r counts groups of
// V consecutive elements, each input loaded as one V-element vector, the
// elements folded in order. An arg reduction's combine keeps the better
// value and, on a tie, the smaller index (PyTorch's first), so partial
// results over interleaved indices combine in any order.
// Outputs and reduction indices are linearized in the order the widest
// input lays its dimensions out, so the fastest index walks its innermost
// dimension and a warp's loads are coalesced. The threads of one output
// combine in a fixed order: results are deterministic.
//
// Two stages, tile = [S, D, P] with P > 1 (ConfigureReductions.cpp says
// when): the reduced extent R splits into P contiguous slices of C =
// ceil(R / P) rounded up to 32 elements. Kernel 1 (`..._reduction`) is the
// kernel above with P blocks per block of outputs: block b reduces slice
// b % P of outputs (b / P) * O ... and stores its result, without the
// init, into partials[o * P + b % P], an intermediate of (outputs x P)
// values of the accumulator's type (allocated in the host code like split K's
// slices). Kernel 2 (`..._reduction_combine`) reduces each output's P
// partials with S2 = PowerOf2Ceil(P) consecutive threads (one partial
// each, the same fixed-order tree) and applies the init as above. No
// atomics: every run sums in the same order.
//
// Overlapping windows (pooling), tile = [1, D, 1, U]: each thread computes
// U neighbouring outputs along the window's row loop (windowRowLoop), the
// last group clamped to end at the last row, loading each input row they
// share once and folding every output before storing any. With tile =
// [1, D, 1, U, V] it also computes V neighbouring outputs along the column
// loop (windowColumnLoop): each input row is loaded as V-element vectors
// covering the columns the V windows read, and the outputs of the last,
// partial column group are not stored. The results go out through shared
// memory, each warp's staged so that its lanes store neighbouring outputs.
//
// A cluster, tile = [B, 1] with cluster_m = C > 1: C consecutive blocks (a
// thread-block cluster) share each output, block b folding slice b % C of
// output b / C's reduced extent (the slices of the two stages). After the
// block's shared-memory tree, a cluster barrier; each thread then reads the
// C blocks' results through distributed shared memory (nvvm.mapa) and
// combines them in rank order, the same bits in every block; the first
// block stores the result. A consumer then walks only the block's slice
// again. A second cluster barrier (arrive after the reads, wait before the
// exit) keeps each block's shared memory until the others have read it.
//
// A reduction epilogue (strategy "reduction_epilogue", one stage;
// ReductionEpilogue.h): every thread of an output gets its result (the
// whole butterfly, or its output's slot of shared memory), computes the
// statistics from it once, then walks the elements it folded again (from
// L2), four groups loaded per iteration, and stores the consumer's
// elements. Parameters: (inputs read..., the consumer's element inputs...,
// inits..., outs... (only when something else reads the results), the
// consumer's results..., extents).
// A consumer over the outputs (ReductionEpilogue::overOutputs: logsumexp's
// log(s) + m) runs in the thread that stores each result, in the one
// kernel or in kernel 2 of two, with that kernel's parameters in the same
// order: its other inputs are loaded at the output's offset.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "ReductionKernel.h"

#include "fuser/Conversion/Common/KernelUtils.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#define DEBUG_TYPE "fuser-reduction-to-gpu"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTREDUCTIONTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::reduction;

namespace {

class ConvertReductionToGPUPass
    : public fuser::impl::ConvertReductionToGPUPassBase<
          ConvertReductionToGPUPass> {
public:
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kReductionConfigAttrName))
        reductions.push_back(op);
    });
    if (reductions.empty())
      return;
    SymbolTable kernelSymbols(getOrCreateKernelModule(getOperation()));
    for (linalg::GenericOp op : reductions)
      if (failed(lower(op, kernelSymbols)))
        return signalPassFailure();
  }

private:
  /// Host code: each loop's extent from the first operand that reads it,
  /// inputs first. An init that is a constant fill is asked for its shape
  /// (its own operands'), so nothing reads it and it goes.
  SmallVector<Value> loopSizes(OpBuilder &b, linalg::GenericOp op,
                               ArrayRef<TypedAttr> initConstants) {
    Location loc = op.getLoc();
    SmallVector<Value> sizes(op.getNumLoops());
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [p, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim || sizes[dim.getPosition()])
          continue;
        Value v = operand.get();
        if (op.isDpsInit(&operand) &&
            initConstants[operand.getOperandNumber() - op.getNumDpsInputs()]) {
          ReifiedRankedShapedTypeDims reified;
          if (auto shaped = v.getDefiningOp<ReifyRankedShapedTypeOpInterface>();
              shaped && succeeded(shaped.reifyResultShapes(b, reified))) {
            sizes[dim.getPosition()] =
                getValueOrCreateConstantIndexOp(b, loc, reified[0][p]);
            continue;
          }
        }
        sizes[dim.getPosition()] = tensorDimSize(b, loc, v, p);
      }
    }
    return sizes;
  }

  LogicalResult lower(linalg::GenericOp op, SymbolTable &kernelSymbols) {
    auto config =
        dyn_cast<KernelConfigAttr>(op->getAttr(kReductionConfigAttrName));
    bool withEpilogue =
        config && config.getStrategy() == kReductionEpilogueStrategy;
    if (!config || (config.getStrategy() != "reduction" && !withEpilogue))
      return op.emitOpError() << "has a '" << kReductionConfigAttrName
                              << "' that is no #fuser.config of strategy "
                                 "'reduction' or '"
                              << kReductionEpilogueStrategy << "'";
    std::string why;
    FailureOr<ReductionShape> shape = analyzeReduction(op, why);
    if (failed(shape))
      return op.emitOpError()
             << "is configured as a reduction kernel but " << why;
    ArrayRef<int64_t> tile = config.getTile();
    int64_t block = config.getBlock()[0];
    int64_t slices = tile.size() >= 3 ? tile[2] : 1;
    if ((tile.size() < 2 || tile.size() > 5) || !llvm::isPowerOf2_64(tile[0]) ||
        block % tile[0] != 0 || (tile[1] != 1 && tile[1] != block / tile[0]) ||
        slices > kReductionMaxSlices || config.getBlock()[1] != 1 ||
        config.getBlock()[2] != 1)
      return op.emitOpError()
             << "needs a reduction config with block = [B, 1, 1] and tile = "
                "[S, D], [S, D, P], [1, D, 1, U] or [1, D, 1, U, V]: S a power "
                "of two dividing "
                "B, D 1 or B / S, P at most "
             << kReductionMaxSlices;
    if (int64_t rows = windowRowsPerThread(config); rows > 1) {
      std::optional<unsigned> rowLoop = windowRowLoop(op, *shape);
      if (tile[0] != 1 || slices != 1 || withEpilogue || !rowLoop ||
          op.getStaticLoopRanges()[*rowLoop] < rows)
        return op.emitOpError()
               << "has a reduction config of " << rows
               << " outputs per thread, which needs one thread per output, "
                  "one stage, no consumer, static window extents and "
                  "overlapping windows along an output loop of at least "
               << rows << " outputs";
    }
    if (int64_t cols = windowColumnsPerThread(config); cols > 1) {
      std::optional<unsigned> colLoop = windowColumnLoop(op, *shape, cols);
      if (tile[0] != 1 || slices != 1 || withEpilogue || !colLoop ||
          config.getVectorWidth() != 1)
        return op.emitOpError()
               << "has a reduction config of " << cols
               << " outputs per thread along a window's columns, which needs "
                  "one thread per output, one stage, no consumer, scalar "
                  "folds, and a window column loop whose inputs load as "
               << cols << "-element 16-byte vectors";
    }
    // The attribute's verifier bounds cluster_m; the kernel needs one
    // output per block, its result in shared memory.
    int64_t cluster = config.getClusterM();
    if (cluster > 1 && (tile.size() != 2 || tile[0] != block || tile[1] != 1 ||
                        usesShuffles(config, accumulatorTypes(op))))
      return op.emitOpError()
             << "has a reduction config of cluster_m " << cluster
             << ", which needs tile = [B, 1] (one output per block, its "
                "threads combining in shared memory)";
    int64_t vector = config.getVectorWidth();
    int64_t widest = reductionVectorWidth(op, *shape);
    if (vector < 1 || !llvm::isPowerOf2_64(vector) || widest % vector != 0)
      return op.emitOpError()
             << "has a reduction config of vector_width " << vector
             << ", but its inputs allow vectors of " << widest
             << " element(s) at most (a power of two dividing that)";
    bool twoStage = slices > 1;
    std::optional<ReductionEpilogue> epilogue;
    if (withEpilogue) {
      FailureOr<ReductionEpilogue> found =
          analyzeReductionEpilogue(op, *shape, why);
      if (failed(found))
        return op.emitOpError()
               << "is configured to compute its consumer but " << why;
      if (twoStage && !found->overOutputs)
        return op.emitOpError()
               << "has a '" << kReductionEpilogueStrategy
               << "' config of two stages; its broadcast consumer runs in one";
      epilogue = *found;
    }
    bool writeResults = !epilogue || epilogue->resultsLive;
    SmallVector<Value> elementInputs; // the consumer's, not statistics
    if (epilogue)
      for (auto [i, input] : llvm::enumerate(epilogue->consumer.getInputs()))
        if (!epilogue->readsStatistic[i])
          elementInputs.push_back(input);

    // The kernels.
    MLIRContext *ctx = op.getContext();
    Block &body = op.getRegion().front();
    SmallVector<unsigned> readInputs;
    for (OpOperand *in : op.getDpsInputOperands())
      if (!body.getArgument(in->getOperandNumber()).use_empty())
        readInputs.push_back(in->getOperandNumber());
    // A filled init is a constant in the kernel: the fill needs no kernel.
    unsigned n = op->getNumResults();
    SmallVector<Value> inits;
    SmallVector<TypedAttr> initConstants;
    for (unsigned k = 0; k < n; ++k) {
      inits.push_back(op.getDpsInitOperand(k)->get());
      initConstants.push_back(constantFillValue(inits.back()));
    }
    unsigned loadedInits = llvm::count(initConstants, TypedAttr());
    auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    auto i64 = IntegerType::get(ctx, 64);
    // Pointers: (inputs..., inits..., outs...), (inputs..., partials...) or
    // (partials..., inits..., outs...), one of each per result, the inits
    // only where no constant; in the kernel that computes a consumer, its
    // element inputs after the inputs (or the partials), the outs only when
    // something else reads them, and its results after them; then the
    // extents.
    // The consumer runs in the kernel that stores the results: the only
    // one, or the second of two.
    Stage last = twoStage ? Stage::Combine : Stage::Whole;
    auto paramTypes = [&](Stage stage) {
      size_t ptrs = stage == Stage::Combine ? n : readInputs.size();
      ptrs += stage == Stage::Partials ? n : loadedInits + n;
      if (epilogue && stage == last)
        ptrs += elementInputs.size() - (writeResults ? 0 : n) +
                epilogue->consumer->getNumResults();
      SmallVector<Type> params(ptrs, ptrTy);
      params.append(op.getNumLoops(), i64);
      return params;
    };
    SmallVector<Type> accTypes = accumulatorTypes(op);
    auto sharedBuffers = [&](KernelConfigAttr c) {
      SmallVector<Type> smem;
      // The S threads' partials, or a window tile's staged results (U x V
      // per thread, a spare slot per row of V).
      int64_t slots = 0;
      if (c.getTile()[0] > 1 && !usesShuffles(c, accTypes))
        slots = c.getBlock()[0];
      else if (int64_t cols = windowColumnsPerThread(c); cols > 1)
        slots = c.getBlock()[0] * windowRowsPerThread(c) * (cols + 1);
      if (slots > 0)
        for (Type t : accTypes)
          smem.push_back(MemRefType::get(
              {slots}, t, MemRefLayoutAttrInterface{},
              gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
      return smem;
    };
    auto func = op->getParentOfType<FunctionOpInterface>();
    std::string name =
        (func ? func.getName().str() : std::string("fuser")) + "_reduction";
    Stage first = twoStage ? Stage::Partials : Stage::Whole;
    auto kernel =
        createKernel(kernelSymbols, op.getLoc(), name, paramTypes(first),
                     config.getBlock(), sharedBuffers(config));
    // Compile-time cluster dims (.reqnctapercluster): a plain launch runs
    // the blocks in clusters.
    if (cluster > 1)
      kernel->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                      DenseI32ArrayAttr::get(ctx, {int32_t(cluster), 1, 1}));
    const ReductionEpilogue *consumer = epilogue ? &*epilogue : nullptr;
    emitReductionKernel(kernel, op, *shape, config, readInputs, initConstants,
                        first, slices, twoStage ? nullptr : consumer,
                        twoStage || writeResults);
    // Kernel 2 of two: one thread per partial, consecutive, as a config.
    KernelConfigAttr combineConfig;
    gpu::GPUFuncOp combineKernel;
    if (twoStage) {
      combineConfig = reductionCombineConfig(ctx, slices);
      combineKernel = createKernel(
          kernelSymbols, op.getLoc(), (kernel.getName() + "_combine").str(),
          paramTypes(Stage::Combine), combineConfig.getBlock(),
          sharedBuffers(combineConfig));
      emitReductionKernel(combineKernel, op, *shape, combineConfig, readInputs,
                          initConstants, Stage::Combine, slices, consumer,
                          writeResults);
    }

    // Host code: extents, the outputs (and the partials), the launches.
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> sizes = loopSizes(b, op, initConstants);
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    auto allocate = [&](Value r, AffineMap map) -> Value {
      auto resultTy = cast<RankedTensorType>(r.getType());
      SmallVector<Value> dynDims;
      for (int64_t p = 0; p < resultTy.getRank(); ++p)
        if (resultTy.isDynamicDim(p)) // a loop's: constants index size 1
          dynDims.push_back(sizes[map.getDimPosition(p)]);
      auto memrefTy =
          MemRefType::get(resultTy.getShape(), resultTy.getElementType());
      return memref::AllocOp::create(b, loc, memrefTy, dynDims,
                                     b.getI64IntegerAttr(64));
    };
    SmallVector<Value> allocs, consumerAllocs;
    if (writeResults)
      for (Value r : op->getResults())
        allocs.push_back(allocate(r, outMap));
    if (epilogue)
      for (Value r : epilogue->consumer->getResults())
        consumerAllocs.push_back(allocate(
            r, epilogue->overOutputs
                   ? outMap
                   : b.getMultiDimIdentityMap(op.getNumLoops())));
    SmallVector<Value> extentArgs;
    for (Value s : sizes)
      extentArgs.push_back(arith::IndexCastUIOp::create(b, loc, i64, s));
    // Threads' outputs: groups of U rows along a window's row loop
    // and V columns along its column loop.
    int64_t rows = windowRowsPerThread(config);
    int64_t cols = windowColumnsPerThread(config);
    std::optional<unsigned> rowLoop =
        rows > 1 ? windowRowLoop(op, *shape) : std::nullopt;
    std::optional<unsigned> colLoop =
        cols > 1 ? windowColumnLoop(op, *shape, cols) : std::nullopt;
    Value outputs = arith::ConstantIndexOp::create(b, loc, 1);
    for (unsigned d : shape->parallelLoops) {
      int64_t per = d == rowLoop ? rows : d == colLoop ? cols : 1;
      outputs = arith::MulIOp::create(
          b, loc, outputs,
          per > 1 ? arith::ConstantIndexOp::create(
                        b, loc,
                        llvm::divideCeil(op.getStaticLoopRanges()[d], per))
                  : sizes[d]);
    }
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = [&](gpu::GPUFuncOp k, KernelConfigAttr c, Value grid,
                      ArrayRef<Value> args) {
      Value threads = arith::ConstantIndexOp::create(b, loc, c.getBlock()[0]);
      gpu::LaunchFuncOp::create(b, loc, k, gpu::KernelDim3{grid, one, one},
                                gpu::KernelDim3{threads, one, one},
                                /*dynamicSharedMemorySize=*/Value(), args);
    };
    auto gridFor = [&](KernelConfigAttr c) -> Value {
      return arith::CeilDivUIOp::create(
          b, loc, outputs,
          arith::ConstantIndexOp::create(b, loc,
                                         c.getBlock()[0] / c.getTile()[0]));
    };
    SmallVector<Value> args;
    SetVector<Operation *> pads; // read through, erased when unused
    for (unsigned i : readInputs) {
      Value input = op->getOperand(i);
      if (std::optional<PaddedRead> pad = paddedRead(input)) {
        pads.insert(input.getDefiningOp());
        input = pad->source;
      }
      args.push_back(hostPointerToTensor(b, loc, input));
    }
    SmallVector<Value> elementArgs;
    for (Value input : elementInputs)
      elementArgs.push_back(hostPointerToTensor(b, loc, input));
    SmallVector<Value> outArgs; // inits..., outs..., consumer results...
    for (unsigned k = 0; k < n; ++k)
      if (!initConstants[k])
        outArgs.push_back(hostPointerToTensor(b, loc, inits[k]));
    for (Value alloc : allocs)
      outArgs.push_back(hostPointerToMemRef(b, loc, alloc));
    for (Value alloc : consumerAllocs)
      outArgs.push_back(hostPointerToMemRef(b, loc, alloc));
    if (!twoStage) {
      llvm::append_range(args, elementArgs);
      llvm::append_range(args, outArgs);
      llvm::append_range(args, extentArgs);
      Value grid = gridFor(config);
      if (cluster > 1) // C blocks per block of outputs
        grid = arith::MulIOp::create(
            b, loc, grid, arith::ConstantIndexOp::create(b, loc, cluster));
      launch(kernel, config, grid, args);
    } else {
      // The partials: per result an intermediate of outputs x P values
      // (the runtime allocates it per call, as split K's slices).
      int64_t staticCount = slices;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      for (unsigned d : shape->parallelLoops)
        staticCount = ShapedType::isDynamic(ranges[d]) || staticCount < 0
                          ? ShapedType::kDynamic
                          : staticCount * ranges[d];
      SmallVector<Value> count;
      if (ShapedType::isDynamic(staticCount))
        count.push_back(arith::MulIOp::create(
            b, loc, outputs, arith::ConstantIndexOp::create(b, loc, slices)));
      SmallVector<Value> partialsPtrs;
      for (Type t : accTypes) {
        Value partials =
            memref::AllocOp::create(b, loc, MemRefType::get({staticCount}, t),
                                    count, b.getI64IntegerAttr(64));
        partialsPtrs.push_back(hostPointerToMemRef(b, loc, partials));
      }
      llvm::append_range(args, partialsPtrs);
      llvm::append_range(args, extentArgs);
      Value grid =
          arith::MulIOp::create(b, loc, gridFor(config),
                                arith::ConstantIndexOp::create(b, loc, slices));
      launch(kernel, config, grid, args);
      SmallVector<Value> combineArgs(partialsPtrs);
      llvm::append_range(combineArgs, elementArgs);
      llvm::append_range(combineArgs, outArgs);
      llvm::append_range(combineArgs, extentArgs);
      launch(combineKernel, combineConfig, gridFor(combineConfig), combineArgs);
    }
    auto replace = [&](Value r, Value alloc) {
      r.replaceAllUsesWith(bufferization::ToTensorOp::create(
          b, loc, cast<RankedTensorType>(r.getType()), alloc,
          /*restrict=*/true, /*writable=*/true));
    };
    if (epilogue) {
      // The consumer is computed; what only it read goes. The results'
      // sizes are the loops'.
      for (Value r : op->getResults())
        for (Operation *user : llvm::make_early_inc_range(r.getUsers()))
          if (auto dim = dyn_cast<tensor::DimOp>(user)) {
            std::optional<int64_t> p = dim.getConstantIndex();
            if (!p || *p < 0 || *p >= outMap.getNumResults())
              continue;
            AffineExpr e = outMap.getResult(*p);
            OpBuilder db(dim);
            dim.replaceAllUsesWith(
                isa<AffineDimExpr>(e)
                    ? sizes[cast<AffineDimExpr>(e).getPosition()]
                    : Value(arith::ConstantIndexOp::create(db, loc, 1)));
            dim.erase();
          }
      for (auto [r, alloc] :
           llvm::zip(epilogue->consumer->getResults(), consumerAllocs))
        replace(r, alloc);
      epilogue->consumer->erase();
      SmallVector<Operation *> between(epilogue->reshapes);
      llvm::append_range(between, epilogue->statisticOps);
      for (bool erased = true; erased;) {
        erased = false;
        for (Operation *&o : between)
          if (o && o->use_empty()) {
            o->erase();
            o = nullptr;
            erased = true;
          }
      }
    }
    for (auto [r, alloc] : llvm::zip(op->getResults(), allocs))
      replace(r, alloc);
    if (!op->use_empty())
      return op.emitOpError()
             << "computes its consumer, but something else still reads its "
                "results";
    op->erase();
    for (Operation *pad : pads)
      if (pad->use_empty())
        pad->erase();
    // Each fill once: sibling reductions may share one.
    SetVector<Operation *> fills;
    for (auto [init, constant] : llvm::zip(inits, initConstants))
      if (constant)
        fills.insert(init.getDefiningOp());
    for (Operation *fill : fills)
      if (fill->use_empty())
        fill->erase();
    return success();
  }
};

} // namespace
