//===- ReductionKernel.cpp - the reduction kernels' bodies ----------------===//
//
// The body of each reduction kernel: one stage or the two, and the
// reduction epilogue (ReductionToGPU.cpp's header says what they compute).
//
//===----------------------------------------------------------------------===//

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

#include <map>
#include <numeric>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::reduction;

bool mlir::fuser::reduction::usesShuffles(KernelConfigAttr config,
                                          TypeRange types) {
  return config.getTile()[1] == 1 && config.getTile()[0] <= 32 &&
         llvm::all_of(types, [](Type t) {
           unsigned bits = t.getIntOrFloatBitWidth();
           return bits == 32 || bits == 64;
         });
}

int64_t mlir::fuser::reduction::windowRowsPerThread(KernelConfigAttr config) {
  return config.getTile().size() >= 4 ? config.getTile()[3] : 1;
}

int64_t
mlir::fuser::reduction::windowColumnsPerThread(KernelConfigAttr config) {
  return config.getTile().size() == 5 ? config.getTile()[4] : 1;
}

SmallVector<Type>
mlir::fuser::reduction::accumulatorTypes(linalg::GenericOp op) {
  SmallVector<Type> types;
  for (Value r : op->getResults())
    types.push_back(cast<ShapedType>(r.getType()).getElementType());
  return types;
}

namespace {

/// `values` (not empty) folded by `fn` as a balanced tree: neighbours
/// first, in a fixed order, so the chains are short and the result the same
/// on every run.
template <typename T, typename Fn>
T pairwiseTree(SmallVector<T> values, Fn fn) {
  while (values.size() > 1) {
    SmallVector<T> next;
    for (size_t k = 0; k + 1 < values.size(); k += 2)
      next.push_back(fn(values[k], values[k + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values[0];
}

/// Emits the body of one reduction kernel. Each thread keeps one running
/// value per result (the value and its index for an arg reduction).
class KernelEmitter {
public:
  KernelEmitter(linalg::GenericOp op, const ReductionShape &shape,
                KernelConfigAttr config, ArrayRef<unsigned> readInputs,
                ArrayRef<TypedAttr> initConstants, Stage stage, int64_t slices,
                const ReductionEpilogue *epilogue = nullptr,
                bool writeResults = true)
      : op(op), shape(shape), config(config), readInputs(readInputs),
        initConstants(initConstants), stage(stage), slices(slices),
        epilogue(epilogue), writeResults(writeResults), loc(op.getLoc()),
        clusterBlocks(stage == Stage::Whole ? config.getClusterM() : 1),
        accTypes(accumulatorTypes(op)),
        vec(stage == Stage::Combine
                ? 1
                : std::max<int64_t>(1, config.getVectorWidth())),
        innerLoop(shape.reductionLoops.empty() ? 0
                                               : shape.reductionLoops.back()) {
    for (unsigned i : readInputs)
      padded.push_back(paddedRead(op->getOperand(i)));
    // An epilogue's threads, and a softmax's statistics (two passes over
    // registers instead of an online update per element), hold their
    // elements where the rule allows.
    int64_t share = config.getTile()[0];
    if (stage == Stage::Whole && clusterBlocks == 1 &&
        ((epilogue && !epilogue->overOutputs) || shape.online) &&
        epilogueHoldsElements(op, shape, share, vec)) {
      int64_t elements = 1;
      for (unsigned d : shape.reductionLoops)
        elements *= op.getStaticLoopRanges()[d];
      heldTotal = elements / vec;
      heldGroups = llvm::divideCeil(heldTotal, share);
    }
    if (!epilogue)
      return;
    PointwiseOp consumer = epilogue->consumer;
    for (auto [i, statistic] : llvm::enumerate(epilogue->readsStatistic)) {
      if (statistic)
        continue;
      elementInputs.push_back(i);
      // An element input the fold reads too, at the same coordinates.
      int64_t source = -1;
      for (auto [k, r] : llvm::enumerate(readInputs))
        if (op->getOperand(r) == consumer.getInputs()[i] &&
            consumer.isIdentityInput(i) &&
            op.getIndexingMapsArray()[r].isIdentity())
          source = k;
      heldSource.push_back(source);
    }
  }

  void emit(gpu::GPUFuncOp kernel) {
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    unsigned n = accTypes.size();
    unsigned argNo = 0;
    SmallVector<Value> partialsPtrs, initPtrs(n), outPtrs;
    auto takePointers = [&](SmallVector<Value> &into) {
      for (unsigned k = 0; k < n; ++k)
        into.push_back(entry.getArgument(argNo++));
    };
    if (stage == Stage::Combine)
      takePointers(partialsPtrs);
    else
      for (size_t k = 0; k < readInputs.size(); ++k)
        inputPtrs.push_back(entry.getArgument(argNo++));
    for (size_t k = 0; k < elementInputs.size(); ++k)
      elementPtrs.push_back(entry.getArgument(argNo++));
    if (stage == Stage::Partials) {
      takePointers(partialsPtrs);
    } else {
      for (unsigned k = 0; k < n; ++k)
        if (!initConstants[k])
          initPtrs[k] = entry.getArgument(argNo++);
      if (writeResults)
        takePointers(outPtrs);
    }
    if (epilogue)
      for (unsigned k = 0; k < epilogue->consumer->getNumResults(); ++k)
        consumerPtrs.push_back(entry.getArgument(argNo++));
    SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
    for (unsigned d = 0; d < op.getNumLoops(); ++d) {
      Value arg = entry.getArgument(argNo++);
      extents.push_back(ShapedType::isDynamic(staticRanges[d])
                            ? arg
                            : constI64(b, loc, staticRanges[d]));
      unitLoop.push_back(staticRanges[d] == 1);
    }
    if (vec > 1)
      innerGroups = arith::DivUIOp::create(b, loc, extents[innerLoop],
                                           constI64(b, loc, vec));

    int64_t block = config.getBlock()[0];
    int64_t share = config.getTile()[0];
    bool consecutive = config.getTile()[1] == 1;
    int64_t perBlock = block / share;
    auto toI64 = [&](Value idx) {
      return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), idx)
          .getResult();
    };
    Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value slicesV, slice;
    if (stage != Stage::Whole)
      slicesV = constI64(b, loc, slices);
    if (clusterBlocks > 1) // a cluster's C blocks share an output
      slicesV = constI64(b, loc, clusterBlocks);
    if (stage == Stage::Partials || clusterBlocks > 1) {
      // P (or C) consecutive blocks share outputs.
      slice = arith::RemUIOp::create(b, loc, bid, slicesV);
      bid = arith::DivUIOp::create(b, loc, bid, slicesV);
    }
    Value shareV = constI64(b, loc, share),
          perBlockV = constI64(b, loc, perBlock);
    Value lane = consecutive
                     ? Value(arith::RemUIOp::create(b, loc, tid, shareV))
                     : Value(arith::DivUIOp::create(b, loc, tid, perBlockV));
    Value local = consecutive
                      ? Value(arith::DivUIOp::create(b, loc, tid, shareV))
                      : Value(arith::RemUIOp::create(b, loc, tid, perBlockV));
    Value o = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, perBlockV), local);
    // With U outputs per thread along the window's row loop, that loop
    // counts groups of U rows.
    // With V more along the window's column loop, that loop counts groups
    // of V columns.
    int64_t rows = windowRowsPerThread(config);
    int64_t cols = windowColumnsPerThread(config);
    std::optional<unsigned> rowLoop, colLoop;
    int64_t rowExtent = 0, colExtent = 0;
    if (rows > 1 || cols > 1) {
      rowLoop = windowRowLoop(op, shape);
      rowExtent = staticRanges[*rowLoop];
      extents[*rowLoop] = constI64(b, loc, llvm::divideCeil(rowExtent, rows));
    }
    if (cols > 1) {
      colLoop = windowColumnLoop(op, shape, cols);
      colExtent = staticRanges[*colLoop];
      extents[*colLoop] = constI64(b, loc, llvm::divideCeil(colExtent, cols));
    }
    Value outputs = product(b, shape.parallelLoops);
    // In groups of `vec` consecutive elements, one vector load each.
    Value length = product(b, shape.reductionLoops, /*grouped=*/true);
    Value valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, o, outputs);
    // One thread per output over a static extent (a pooling window): a
    // spare thread reads the last output's elements and stores nothing, so
    // the fold's bounds are constants and it unrolls, its index math
    // folded.
    bool staticFold = stage == Stage::Whole && share == 1 &&
                      llvm::none_of(shape.reductionLoops, [&](unsigned d) {
                        return ShapedType::isDynamic(staticRanges[d]);
                      });
    // The same for an epilogue's threads holding their elements: their
    // loads are unrolled, unguarded.
    if (staticFold || heldGroups)
      o = arith::MinUIOp::create(
          b, loc, o,
          arith::SubIOp::create(b, loc, outputs, constI64(b, loc, 1)));
    coords.assign(op.getNumLoops(), Value());
    delinearize(b, o, shape.parallelLoops);
    Value firstRow;
    if (rowLoop) {
      extents[*rowLoop] = constI64(b, loc, rowExtent);
      // The last group ends at the last row: its first rows are the
      // previous group's too, stored twice with the same values.
      firstRow =
          arith::MinUIOp::create(b, loc,
                                 arith::MulIOp::create(b, loc, coords[*rowLoop],
                                                       constI64(b, loc, rows)),
                                 constI64(b, loc, rowExtent - rows));
    }
    // Columns are not clamped: the group's vectors stay aligned, and the
    // outputs past the extent are not stored.
    Value firstCol;
    if (colLoop) {
      extents[*colLoop] = constI64(b, loc, colExtent);
      firstCol = arith::MulIOp::create(b, loc, coords[*colLoop],
                                       constI64(b, loc, cols));
    }

    // Each input's offset from its parallel coordinates, once per thread.
    SmallVector<Value> bases;
    for (auto [k, i] : llvm::enumerate(
             stage == Stage::Combine ? ArrayRef<unsigned>() : readInputs))
      bases.push_back(padded[k] ? Value()
                                : offset(b, op.getIndexingMapsArray()[i],
                                         /*parallel=*/true, constI64(b, loc, 0),
                                         operandType(i)));

    // This thread's share of the reduction: of all of it, of its block's
    // slice, or of its output's partials.
    Value zero = constI64(b, loc, 0);
    Value begin = lane, last = length;
    if (slice) {
      // Slices of whole 32-element multiples, so that they start aligned;
      // the last ones may be short or empty (their partial: the identity).
      Value c31 = constI64(b, loc, 31), c32 = constI64(b, loc, 32);
      Value chunk = arith::CeilDivUIOp::create(b, loc, length, slicesV);
      chunk = arith::MulIOp::create(
          b, loc,
          arith::DivUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, chunk, c31), c32),
          c32);
      Value from = arith::MinUIOp::create(
          b, loc, arith::MulIOp::create(b, loc, slice, chunk), length);
      last = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, from, chunk), length);
      begin = arith::AddIOp::create(b, loc, from, lane);
    } else if (stage == Stage::Combine) {
      last = slicesV;
    }
    Value end = staticFold
                    ? last
                    : Value(arith::SelectOp::create(b, loc, valid, last, zero));
    if (colLoop) {
      emitWindowTile(b, kernel, *rowLoop, *colLoop, firstRow, firstCol, rows,
                     cols, tid, arith::MulIOp::create(b, loc, bid, perBlockV),
                     outputs, initPtrs, outPtrs);
      gpu::ReturnOp::create(b, loc);
      return;
    }
    if (rowLoop) {
      emitWindowRows(b, *rowLoop, firstRow, rows, valid, lane, last, shareV,
                     initPtrs, outPtrs);
      gpu::ReturnOp::create(b, loc);
      return;
    }
    partialsBase = stage == Stage::Combine
                       ? Value(arith::MulIOp::create(b, loc, o, slicesV))
                       : Value();
    SmallVector<Value> partial =
        heldGroups ? foldHeld(b, begin, shareV, identities(b), bases)
                   : foldRange(b, begin, end, shareV, identities(b),
                               partialsPtrs, bases);

    // The S threads of an output combine their results.
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
    if (share > 1 && usesShuffles(config, accTypes)) {
      // Within a warp: a butterfly of shuffles, no shared memory or barrier.
      for (int64_t step = share / 2; step >= 1; step /= 2) {
        SmallVector<Value> theirs;
        for (Value v : partial)
          theirs.push_back(shuffleXor(b, loc, v, step));
        partial = combine(b, partial, theirs);
      }
    } else if (share > 1) {
      ArrayRef<BlockArgument> smem = kernel.getWorkgroupAttributions();
      auto index = [&](OpBuilder &ib, Value v) {
        return arith::IndexCastUIOp::create(ib, loc, ib.getIndexType(), v)
            .getResult();
      };
      for (unsigned k = 0; k < n; ++k)
        memref::StoreOp::create(b, loc, partial[k], smem[k], index(b, tid));
      gpu::BarrierOp::create(b, loc);
      for (int64_t step = share / 2; step >= 1; step /= 2) {
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            lane, constI64(b, loc, step));
        auto ifOp = scf::IfOp::create(b, loc, below, /*withElse=*/false);
        OpBuilder tb = ifOp.getThenBodyBuilder();
        Value partner = arith::AddIOp::create(
            tb, loc, tid,
            constI64(tb, loc, consecutive ? step : step * perBlock));
        SmallVector<Value> mine, theirs;
        for (unsigned k = 0; k < n; ++k) {
          mine.push_back(
              memref::LoadOp::create(tb, loc, smem[k], index(tb, tid)));
          theirs.push_back(
              memref::LoadOp::create(tb, loc, smem[k], index(tb, partner)));
        }
        SmallVector<Value> both = combine(tb, mine, theirs);
        for (unsigned k = 0; k < n; ++k)
          memref::StoreOp::create(tb, loc, both[k], smem[k], index(tb, tid));
        gpu::BarrierOp::create(b, loc);
      }
      // The tree ends in the output's first slot; an epilogue needs the
      // result in every thread of the output.
      Value slot = tid;
      if (epilogue)
        slot = consecutive ? Value(arith::SubIOp::create(b, loc, tid, lane))
                           : local;
      for (unsigned k = 0; k < n; ++k)
        partial[k] = memref::LoadOp::create(b, loc, smem[k], index(b, slot));
    }
    if (clusterBlocks > 1) {
      // The block's result is in its output's first slot (tile = [B, 1]:
      // slot 0); every block of the cluster combines all of theirs.
      partial = combineAcrossCluster(b, kernel, zero);
      first = arith::AndIOp::create(
          b, loc, first,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slice,
                                zero));
    }
    if (epilogue && !epilogue->overOutputs) {
      auto ifValid = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
      OpBuilder vb = ifValid.getThenBodyBuilder();
      SmallVector<Value> result = withInits(vb, partial, initPtrs);
      if (writeResults) {
        auto ifFirst = scf::IfOp::create(vb, loc, first, /*withElse=*/false);
        OpBuilder fb = ifFirst.getThenBodyBuilder();
        storeResults(fb, result, outPtrs);
      }
      emitEpilogue(vb, begin, end, shareV, result);
      leaveCluster(b);
      gpu::ReturnOp::create(b, loc);
      return;
    }
    Value writes = arith::AndIOp::create(b, loc, first, valid);
    auto ifOp = scf::IfOp::create(b, loc, writes, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    if (stage == Stage::Partials) {
      Value at = arith::AddIOp::create(
          tb, loc, arith::MulIOp::create(tb, loc, o, slicesV), slice);
      for (unsigned k = 0; k < n; ++k)
        LLVM::StoreOp::create(
            tb, loc, partial[k],
            gepElement(tb, loc, partialsPtrs[k], accTypes[k], at),
            byteWidth(accTypes[k]));
    } else {
      SmallVector<Value> result = withInits(tb, partial, initPtrs);
      if (writeResults)
        storeResults(tb, result, outPtrs);
      if (epilogue)
        emitOutputConsumer(tb, result);
    }
    leaveCluster(b);
    gpu::ReturnOp::create(b, loc);
  }

private:
  /// The results of the cluster's C blocks (each in slot `slot` of its
  /// shared buffers), combined in rank order, the same in every block: a
  /// cluster barrier (its arrive releases, its wait acquires this block's
  /// stores), then each block's slot read through distributed shared
  /// memory. The arrive after the reads pairs with leaveCluster's wait: no
  /// block exits, freeing its shared memory, while another still reads it.
  /// Every thread reaches both barriers (top-level code), so they are the
  /// warp-aligned forms.
  SmallVector<Value> combineAcrossCluster(OpBuilder &b, gpu::GPUFuncOp kernel,
                                          Value slot) {
    NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/b.getUnitAttr());
    MLIRContext *ctx = b.getContext();
    auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
    auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
    ArrayRef<BlockArgument> smem = kernel.getWorkgroupAttributions();
    SmallVector<Value> mine;
    for (auto [k, t] : llvm::enumerate(accTypes)) {
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc,
                                                                  smem[k]);
      Value address =
          arith::IndexCastUIOp::create(b, loc, b.getI64Type(), base);
      Value p = LLVM::IntToPtrOp::create(b, loc, sharedPtr, address,
                                         /*dereferenceable=*/nullptr);
      mine.push_back(gepElement(b, loc, p, t, slot));
    }
    SmallVector<Value> acc;
    for (int64_t r = 0; r < clusterBlocks; ++r) {
      Value rank = arith::ConstantIntOp::create(b, loc, b.getI32Type(), r);
      SmallVector<Value> theirs;
      for (auto [k, t] : llvm::enumerate(accTypes)) {
        Value remote = NVVM::MapaOp::create(b, loc, clusterPtr, mine[k], rank);
        theirs.push_back(
            LLVM::LoadOp::create(b, loc, t, remote, byteWidth(t)));
      }
      acc = r == 0 ? theirs : combine(b, acc, theirs);
    }
    NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/b.getUnitAttr());
    return acc;
  }

  /// Waits, in a cluster, until every block has read the others' results.
  void leaveCluster(OpBuilder &b) {
    if (clusterBlocks > 1)
      NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/b.getUnitAttr());
  }

  /// One thread's `rows` outputs along the window's row loop `row`, from row
  /// `firstRow` on: each input's offsets are the first row's plus a
  /// constant, so that the loads of the input rows their windows share
  /// fold to the same addresses, and every fold comes before the stores,
  /// which could otherwise alias the loads that follow them.
  void emitWindowRows(OpBuilder &b, unsigned row, Value firstRow, int64_t rows,
                      Value valid, Value begin, Value end, Value step,
                      ArrayRef<Value> initPtrs, ArrayRef<Value> outPtrs) {
    coords[row] = firstRow;
    SmallVector<Value> firstBases;
    for (auto [k, i] : llvm::enumerate(readInputs))
      firstBases.push_back(padded[k]
                               ? Value()
                               : offset(b, op.getIndexingMapsArray()[i],
                                        /*parallel=*/true, constI64(b, loc, 0),
                                        operandType(i)));
    SmallVector<SmallVector<Value>> results;
    for (int64_t u = 0; u < rows; ++u) {
      SmallVector<Value> bases;
      for (auto [k, i] : llvm::enumerate(readInputs))
        bases.push_back(padded[k]
                            ? Value()
                            : arith::AddIOp::create(
                                  b, loc, firstBases[k],
                                  rowDelta(b, op.getIndexingMapsArray()[i],
                                           operandType(i), row, u)));
      coords[row] =
          arith::AddIOp::create(b, loc, firstRow, constI64(b, loc, u));
      results.push_back(
          foldRange(b, begin, end, step, identities(b), {}, bases));
    }
    auto ifValid = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
    OpBuilder tb = ifValid.getThenBodyBuilder();
    for (int64_t u = 0; u < rows; ++u) {
      coords[row] =
          arith::AddIOp::create(tb, loc, firstRow, constI64(tb, loc, u));
      storeResults(tb, withInits(tb, results[u], initPtrs), outPtrs);
    }
  }

  /// One thread's `rows` x `cols` outputs from (`firstRow`, `firstCol`)
  /// along the window's row and column loops (windowColumnLoop): every
  /// input row their windows read is loaded once, as `cols`-element
  /// vectors covering the columns they read, and each output folds its
  /// window from those in the window's order. An input element's offset
  /// from the first output's is a constant: its row's part, and its column
  /// (output column v plus window column k) within the vector loaded at
  /// column v + k rounded down to a multiple of `cols`. Such a vector past
  /// the input row (for outputs past the extent alone) is loaded from the
  /// row's last columns instead, so that no load leaves the tensor.
  /// The results go out through shared memory (stagedStores), so that each
  /// store instruction writes a warp's neighbouring outputs.
  void emitWindowTile(OpBuilder &b, gpu::GPUFuncOp kernel, unsigned row,
                      unsigned col, Value firstRow, Value firstCol,
                      int64_t rows, int64_t cols, Value tid, Value blockFirst,
                      Value outputs, ArrayRef<Value> initPtrs,
                      ArrayRef<Value> outPtrs) {
    coords[row] = firstRow;
    coords[col] = firstCol;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t window = 1;
    for (unsigned d : shape.reductionLoops)
      window *= ranges[d];
    // Input k's (row part, column) offsets of output (u, v)'s window
    // element r.
    auto elementOffset = [&](unsigned k, int64_t u, int64_t v, int64_t r) {
      SmallVector<int64_t> point(op.getNumLoops(), 0);
      point[row] = u;
      point[col] = v;
      for (unsigned d : llvm::reverse(shape.reductionLoops)) {
        point[d] = r % ranges[d];
        r /= ranges[d];
      }
      AffineMap map = op.getIndexingMapsArray()[readInputs[k]];
      ArrayRef<int64_t> dims = operandType(readInputs[k]).getShape();
      int64_t rowPart = 0, stride = dims.back();
      for (unsigned p = map.getNumResults() - 1; p-- > 0;) {
        for (auto [d, c] : windowTerms(map.getResult(p)))
          rowPart += c * point[d] * stride;
        stride *= dims[p];
      }
      int64_t column = 0;
      for (auto [d, c] : windowTerms(map.getResults().back()))
        column += c * point[d];
      return std::make_pair(rowPart, column);
    };
    // The vectors, (input, row part, first column), and the elements read
    // from each.
    using VectorKey = std::tuple<unsigned, int64_t, int64_t>;
    std::map<VectorKey, std::set<int64_t>> reads;
    for (unsigned k = 0; k < readInputs.size(); ++k)
      for (int64_t u = 0; u < rows; ++u)
        for (int64_t v = 0; v < cols; ++v)
          for (int64_t r = 0; r < window; ++r) {
            auto [rowPart, column] = elementOffset(k, u, v, r);
            int64_t first = column / cols * cols;
            reads[{k, rowPart, first}].insert(column - first);
          }
    SmallVector<Value> tileBases;
    auto loadVector = [&](OpBuilder &lb, unsigned k, int64_t rowPart,
                          int64_t first) {
      unsigned i = readInputs[k];
      Type t = op.getRegion().front().getArgument(i).getType();
      int64_t width = operandType(i).getShape().back();
      Value at = constI64(lb, loc, first);
      if (first > 0) {
        // The first column group, [firstCol, firstCol + cols), lies in the
        // row: the row's width is a multiple of `cols`.
        Value inRow = arith::CmpIOp::create(
            lb, loc, arith::CmpIPredicate::ult,
            arith::AddIOp::create(lb, loc, firstCol, at),
            constI64(lb, loc, width));
        at = arith::SelectOp::create(
            lb, loc, inRow, at,
            arith::SubIOp::create(lb, loc, constI64(lb, loc, width - cols),
                                  firstCol));
      }
      at = arith::AddIOp::create(
          lb, loc, tileBases[k],
          arith::AddIOp::create(lb, loc, at, constI64(lb, loc, rowPart)));
      return loadStored(
          lb, t, gepElement(lb, loc, inputPtrs[k], storageType(t), at), cols);
    };
    for (unsigned i : readInputs)
      tileBases.push_back(offset(b, op.getIndexingMapsArray()[i],
                                 /*parallel=*/true, constI64(b, loc, 0),
                                 operandType(i)));
    std::map<VectorKey, Value> vectors;
    for (auto &[key, elements] : reads)
      if (std::get<2>(key) == 0)
        vectors[key] = loadVector(b, std::get<0>(key), std::get<1>(key), 0);
    // A vector further along the row is the first vector of the thread
    // `first / cols` lanes up, where that thread is in the warp and holds
    // the next groups of the same row (threads take a row's column groups
    // in order): its elements come by shuffles, and the loads are the
    // warp's edges' and the rows' ends'.
    bool wholeWarps = config.getBlock()[0] % 32 == 0;
    Value lane = arith::RemUIOp::create(b, loc, tid, constI64(b, loc, 32));
    int64_t groupsInRow =
        llvm::divideCeil(ranges[col], cols) * cols; // columns of whole groups
    for (auto &[key, elements] : reads) {
      auto [k, rowPart, first] = key;
      if (first == 0)
        continue;
      if (!wholeWarps) {
        vectors[key] = loadVector(b, k, rowPart, first);
        continue;
      }
      int64_t ahead = first / cols;
      Value own = vectors.at({k, rowPart, 0});
      SmallVector<Value> parts;
      for (int64_t e = 0; e < cols; ++e) {
        Value x = vector::ExtractOp::create(b, loc, own, e);
        parts.push_back(elements.count(e)
                            ? shuffle(b, loc, x, ahead, gpu::ShuffleMode::DOWN)
                            : x);
      }
      Value near = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult,
              arith::AddIOp::create(b, loc, lane, constI64(b, loc, ahead)),
              constI64(b, loc, 32)),
          arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult,
              arith::AddIOp::create(b, loc, firstCol, constI64(b, loc, first)),
              constI64(b, loc, groupsInRow)));
      auto ifNear = scf::IfOp::create(b, loc, own.getType(), near,
                                      /*withElseRegion=*/true);
      OpBuilder tb = ifNear.getThenBodyBuilder();
      scf::YieldOp::create(
          tb, loc,
          ValueRange{vector::FromElementsOp::create(
              tb, loc, cast<VectorType>(own.getType()), parts)});
      OpBuilder eb = ifNear.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc,
                           ValueRange{loadVector(eb, k, rowPart, first)});
      vectors[key] = ifNear.getResult(0);
    }
    // Each output's fold, in the window's order.
    SmallVector<SmallVector<SmallVector<Value>>> results(rows);
    for (int64_t u = 0; u < rows; ++u) {
      coords[row] = arith::AddIOp::create(b, loc, firstRow, constI64(b, loc, u));
      for (int64_t v = 0; v < cols; ++v) {
        coords[col] =
            arith::AddIOp::create(b, loc, firstCol, constI64(b, loc, v));
        SmallVector<Value> acc = identities(b);
        for (int64_t r = 0; r < window; ++r) {
          int64_t rest = r;
          for (unsigned d : llvm::reverse(shape.reductionLoops)) {
            coords[d] = constI64(b, loc, rest % ranges[d]);
            rest /= ranges[d];
          }
          SmallVector<SmallVector<Value>> lanes;
          for (unsigned k = 0; k < readInputs.size(); ++k) {
            auto [rowPart, column] = elementOffset(k, u, v, r);
            int64_t first = column / cols * cols;
            lanes.push_back({vector::ExtractOp::create(
                b, loc, vectors.at({k, rowPart, first}), column - first)});
          }
          acc = combine(b, acc, bodyValues(b, lanes).front());
        }
        results[u].push_back(acc);
      }
    }
    stagedStores(b, kernel, row, col, rows, cols, results, tid, blockFirst,
                 outputs, initPtrs, outPtrs);
  }

  /// Stores emitWindowTile's `results` (results[u][v]: the thread's output
  /// (u, v)) through shared memory: each group of W = gcd(block, 32)
  /// threads writes its results to its own area, slot (u, lane, v) at
  /// u * W * (cols + 1) + lane * (cols + 1) + v (a spare slot per lane
  /// spreads the banks); after a barrier, lane l stores, for each j < cols
  /// and u, the group's output e = j * W + l of row u: thread e / cols's
  /// output (u, e % cols). Consecutive lanes store consecutive columns,
  /// whole sectors where the group's outputs lie in one row, instead of
  /// each lane's `cols` neighbours a sector apart from the next lane's.
  void stagedStores(OpBuilder &b, gpu::GPUFuncOp kernel, unsigned row,
                    unsigned col, int64_t rows, int64_t cols,
                    ArrayRef<SmallVector<SmallVector<Value>>> results,
                    Value tid, Value blockFirst, Value outputs,
                    ArrayRef<Value> initPtrs, ArrayRef<Value> outPtrs) {
    ArrayRef<BlockArgument> smem = kernel.getWorkgroupAttributions();
    int64_t group = std::gcd(config.getBlock()[0], int64_t(32));
    int64_t pitch = cols + 1;
    auto index = [&](OpBuilder &ib, Value v) {
      return arith::IndexCastUIOp::create(ib, loc, ib.getIndexType(), v)
          .getResult();
    };
    Value lane = arith::RemUIOp::create(b, loc, tid, constI64(b, loc, group));
    Value groupFirst = arith::SubIOp::create(b, loc, tid, lane);
    Value area = arith::MulIOp::create(b, loc, groupFirst,
                                       constI64(b, loc, rows * pitch));
    auto slot = [&](OpBuilder &ib, int64_t u, Value from, Value v) {
      Value at = arith::AddIOp::create(
          ib, loc, area, constI64(ib, loc, u * group * pitch));
      at = arith::AddIOp::create(
          ib, loc, at,
          arith::MulIOp::create(ib, loc, from, constI64(ib, loc, pitch)));
      return index(ib, arith::AddIOp::create(ib, loc, at, v));
    };
    for (int64_t u = 0; u < rows; ++u)
      for (int64_t v = 0; v < cols; ++v)
        for (auto [k, value] : llvm::enumerate(results[u][v]))
          memref::StoreOp::create(b, loc, value, smem[k],
                                  slot(b, u, lane, constI64(b, loc, v)));
    gpu::BarrierOp::create(b, loc);

    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t rowExtent = ranges[row], colExtent = ranges[col];
    Value last = arith::SubIOp::create(b, loc, outputs, constI64(b, loc, 1));
    for (int64_t j = 0; j < cols; ++j) {
      Value e = arith::AddIOp::create(b, loc, lane, constI64(b, loc, j * group));
      Value from = arith::DivUIOp::create(b, loc, e, constI64(b, loc, cols));
      Value v = arith::RemUIOp::create(b, loc, e, constI64(b, loc, cols));
      // Thread `from`'s output coordinates, as emit() derives them.
      Value o = arith::AddIOp::create(
          b, loc, blockFirst, arith::AddIOp::create(b, loc, groupFirst, from));
      Value stored =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, o, outputs);
      extents[row] = constI64(b, loc, llvm::divideCeil(rowExtent, rows));
      extents[col] = constI64(b, loc, llvm::divideCeil(colExtent, cols));
      delinearize(b, arith::MinUIOp::create(b, loc, o, last),
                  shape.parallelLoops);
      extents[row] = constI64(b, loc, rowExtent);
      extents[col] = constI64(b, loc, colExtent);
      Value firstRow = arith::MinUIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, coords[row], constI64(b, loc, rows)),
          constI64(b, loc, rowExtent - rows));
      Value column = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, coords[col], constI64(b, loc, cols)),
          v);
      if (colExtent % cols != 0) // the last group's outputs past the extent
        stored = arith::AndIOp::create(
            b, loc, stored,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, column,
                                  constI64(b, loc, colExtent)));
      auto ifStored = scf::IfOp::create(b, loc, stored, /*withElse=*/false);
      OpBuilder sb = ifStored.getThenBodyBuilder();
      coords[col] = column;
      for (int64_t u = 0; u < rows; ++u) {
        coords[row] =
            arith::AddIOp::create(sb, loc, firstRow, constI64(sb, loc, u));
        SmallVector<Value> values;
        for (unsigned k = 0; k < results[u][0].size(); ++k)
          values.push_back(
              memref::LoadOp::create(sb, loc, smem[k], slot(sb, u, from, v)));
        storeResults(sb, withInits(sb, values, initPtrs), outPtrs);
      }
    }
  }

  /// The offset of row `u` of the window's row loop `row` from row 0 in an
  /// input read through `map`: a constant (window reads are static).
  Value rowDelta(OpBuilder &b, AffineMap map, ShapedType type, unsigned row,
                 int64_t u) {
    SmallVector<Value> saved = coords;
    Value zero = constI64(b, loc, 0);
    for (unsigned d : shape.parallelLoops)
      coords[d] = zero;
    coords[row] = constI64(b, loc, u);
    Value delta = offset(b, map, /*parallel=*/true, zero, type);
    coords = saved;
    return delta;
  }

  /// This thread's output's offset in the outputs.
  Value outputOffset(OpBuilder &b) {
    OpOperand *init = op.getDpsInitOperand(0);
    return offset(b, op.getMatchingIndexingMap(init), /*parallel=*/true,
                  constI64(b, loc, 0), operandType(init->getOperandNumber()));
  }

  /// The output's result: its init (a constant or loaded) combined with
  /// the threads' `partial`.
  SmallVector<Value> withInits(OpBuilder &b, ArrayRef<Value> partial,
                               ArrayRef<Value> initPtrs) {
    Value at = outputOffset(b);
    SmallVector<Value> initValues;
    for (unsigned k = 0; k < accTypes.size(); ++k) {
      Type t = accTypes[k];
      initValues.push_back(
          initConstants[k]
              ? Value(arith::ConstantOp::create(b, loc, initConstants[k]))
              : Value(LLVM::LoadOp::create(
                    b, loc, t, gepElement(b, loc, initPtrs[k], t, at),
                    byteWidth(t))));
    }
    return combine(b, initValues, partial, /*strictlyBetter=*/true);
  }

  void storeResults(OpBuilder &b, ArrayRef<Value> result,
                    ArrayRef<Value> outPtrs) {
    Value at = outputOffset(b);
    for (auto [k, t] : llvm::enumerate(accTypes))
      LLVM::StoreOp::create(b, loc, result[k],
                            gepElement(b, loc, outPtrs[k], t, at),
                            byteWidth(t));
  }

  /// Where a loop taking kReductionUnroll iterations at a time over
  /// `begin`, `begin + step`, ... < `end` stops: the first one it leaves.
  Value unrolledEnd(OpBuilder &b, Value begin, Value end, Value step) {
    Value zero = constI64(b, loc, 0);
    Value unroll = constI64(b, loc, kReductionUnroll);
    Value nonEmpty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, end, begin);
    Value count = arith::SelectOp::create(
        b, loc, nonEmpty,
        arith::CeilDivUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, end, begin), step),
        zero);
    Value whole = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, count, unroll), unroll);
    return arith::AddIOp::create(b, loc, begin,
                                 arith::MulIOp::create(b, loc, whole, step));
  }

  /// The consumer's statistic `v` for this thread's output: a result, a
  /// reshape of a statistic, or a fuser.pointwise of statistics, computed
  /// here once.
  Value statistic(OpBuilder &b, Value v, IRMapping &known) {
    if (Value s = known.lookupOrNull(v))
      return s;
    Value s;
    if (auto pw = v.getDefiningOp<PointwiseOp>()) {
      Block &body = pw.getBodyBlock();
      IRMapping mapping;
      for (auto [arg, in] : llvm::zip(body.getArguments(), pw.getInputs()))
        mapping.map(arg, statistic(b, in, known));
      for (Operation &inner : body.without_terminator())
        b.clone(inner, mapping);
      s = mapping.lookup(body.getTerminator()->getOperand(0));
    } else { // a reshape
      s = statistic(b, v.getDefiningOp()->getOperand(0), known);
    }
    known.map(v, s);
    return s;
  }

  /// The consumer over the outputs at this thread's output, from its
  /// `result`: the statistics computed, the other inputs loaded there.
  void emitOutputConsumer(OpBuilder &b, ArrayRef<Value> result) {
    PointwiseOp consumer = epilogue->consumer;
    IRMapping known;
    for (auto [r, v] : llvm::zip(op->getResults(), result))
      known.map(r, v);
    Value at = outputOffset(b);
    Block &body = consumer.getBodyBlock();
    IRMapping mapping;
    unsigned k = 0;
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      if (epilogue->readsStatistic[i]) {
        mapping.map(arg, statistic(b, consumer.getInputs()[i], known));
        continue;
      }
      Type t = arg.getType();
      mapping.map(arg,
                  loadStored(b, t, gepElement(b, loc, elementPtrs[k++], t, at),
                             0));
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, mapping);
    for (auto [q, v] : llvm::enumerate(body.getTerminator()->getOperands())) {
      Value value = mapping.lookup(v);
      Type t = value.getType();
      LLVM::StoreOp::create(b, loc, value,
                            gepElement(b, loc, consumerPtrs[q], t, at),
                            byteWidth(t));
    }
  }

  /// The consumer over this thread's elements: groups r = begin, begin +
  /// step, ... < end of `vec` elements, kReductionUnroll groups loaded
  /// before any is computed and stored, then the rest one at a time.
  void emitEpilogue(OpBuilder &b, Value begin, Value end, Value step,
                    ArrayRef<Value> result) {
    PointwiseOp consumer = epilogue->consumer;
    IRMapping known;
    for (auto [r, v] : llvm::zip(op->getResults(), result))
      known.map(r, v);
    statistics.assign(consumer.getInputs().size(), Value());
    for (auto [i, input] : llvm::enumerate(consumer.getInputs()))
      if (epilogue->readsStatistic[i])
        statistics[i] = statistic(b, input, known);
    Value zero = constI64(b, loc, 0);
    elementBases.clear();
    for (unsigned i : elementInputs)
      elementBases.push_back(offset(b, consumer.getIndexingMap(i),
                                    /*parallel=*/true, zero,
                                    consumerInputType(i)));
    resultBase = offset(
        b, AffineMap::getMultiDimIdentityMap(op.getNumLoops(), b.getContext()),
        /*parallel=*/true, zero, consumer.getResultTensorType());

    if (heldGroups) { // no loads of the inputs the fold read
      for (auto [c, lanes, valid] :
           llvm::zip(heldCoords, heldLanes, heldValid)) {
        coords = c;
        OpBuilder gb = b;
        if (valid)
          gb = scf::IfOp::create(b, loc, valid, /*withElse=*/false)
                   .getThenBodyBuilder();
        storeElements(gb, loadElements(gb, &lanes));
      }
      return;
    }
    Value mainEnd = unrolledEnd(b, begin, end, step);
    auto main = scf::ForOp::create(
        b, loc, begin, mainEnd,
        arith::MulIOp::create(b, loc, step,
                              constI64(b, loc, kReductionUnroll)));
    {
      OpBuilder lb = OpBuilder::atBlockBegin(main.getBody());
      SmallVector<Value> groups{main.getInductionVar()};
      for (int64_t u = 1; u < kReductionUnroll; ++u)
        groups.push_back(arith::AddIOp::create(lb, loc, groups.back(), step));
      epilogueGroups(lb, groups);
    }
    auto rest = scf::ForOp::create(b, loc, mainEnd, end, step);
    OpBuilder lb = OpBuilder::atBlockBegin(rest.getBody());
    epilogueGroups(lb, {rest.getInductionVar()});
  }

  /// Loads the element inputs of groups `rs`, then computes and stores
  /// each group's elements.
  void epilogueGroups(OpBuilder &b, ArrayRef<Value> rs) {
    SmallVector<SmallVector<Value>> groupCoords;
    SmallVector<SmallVector<SmallVector<Value>>> loaded;
    for (Value r : rs) {
      delinearize(b, r, shape.reductionLoops, /*grouped=*/true);
      groupCoords.push_back(coords);
      loaded.push_back(loadElements(b));
    }
    for (auto [c, lanes] : llvm::zip(groupCoords, loaded)) {
      coords = c;
      storeElements(b, lanes);
    }
  }

  /// Whether `map` reads loop `d` anywhere.
  static bool readsLoop(AffineMap map, unsigned d) {
    return llvm::any_of(map.getResults(),
                        [&](AffineExpr e) { return e.isFunctionOfDim(d); });
  }

  /// Calls `fn` once per element j of the group, with coords[innerLoop]
  /// moved to the element's, and restores it.
  void forEachLane(OpBuilder &b, function_ref<void(int64_t)> fn) {
    Value first = coords[innerLoop];
    for (int64_t j = 0; j < vec; ++j) {
      if (j > 0)
        coords[innerLoop] =
            arith::AddIOp::create(b, loc, first, constI64(b, loc, j));
      fn(j);
    }
    coords[innerLoop] = first;
  }

  /// Per element input, its `vec` values of the group at coords: one
  /// vector load where the input's innermost dimension is the innermost
  /// reduction loop and 16 bytes hold the vector, one load for all where it
  /// does not read that loop, else one load each.
  /// With `held`, an input the fold read (heldSource) takes its values.
  SmallVector<SmallVector<Value>>
  loadElements(OpBuilder &b,
               const SmallVector<SmallVector<Value>> *held = nullptr) {
    PointwiseOp consumer = epilogue->consumer;
    Block &body = consumer.getBodyBlock();
    SmallVector<SmallVector<Value>> lanes;
    for (auto [k, i] : llvm::enumerate(elementInputs)) {
      AffineMap map = consumer.getIndexingMap(i);
      Type t = body.getArgument(i).getType();
      ShapedType type = consumerInputType(i);
      if (held && heldSource[k] >= 0) {
        lanes.push_back((*held)[heldSource[k]]);
        continue;
      }
      Value ptr = elementPtrs[k], base = elementBases[k];
      auto load = [&](Type loaded, int64_t align) {
        Value at = offset(b, map, /*parallel=*/false, base, type);
        return LLVM::LoadOp::create(b, loc, loaded,
                                    gepElement(b, loc, ptr, t, at), align)
            .getResult();
      };
      SmallVector<Value> values;
      if (vec > 1 && readsInnerLoop(map) && byteWidth(t) * vec <= 16) {
        Value v = load(VectorType::get({vec}, t), byteWidth(t) * vec);
        for (int64_t j = 0; j < vec; ++j)
          values.push_back(vector::ExtractOp::create(b, loc, v, j));
      } else if (vec > 1 && readsLoop(map, innerLoop)) {
        forEachLane(b,
                    [&](int64_t) { values.push_back(load(t, byteWidth(t))); });
      } else {
        values.assign(vec, load(t, byteWidth(t)));
      }
      lanes.push_back(values);
    }
    return lanes;
  }

  /// The consumer's body for each element of the group, and its stores:
  /// one vector store per result where its innermost dimension is the
  /// innermost reduction loop and 16 bytes hold the vector.
  void storeElements(OpBuilder &b, ArrayRef<SmallVector<Value>> lanes) {
    PointwiseOp consumer = epilogue->consumer;
    Block &body = consumer.getBodyBlock();
    unsigned results = consumer->getNumResults();
    SmallVector<SmallVector<Value>> values(results);
    for (int64_t j = 0; j < vec; ++j) {
      IRMapping mapping;
      unsigned k = 0;
      for (auto [i, arg] : llvm::enumerate(body.getArguments()))
        mapping.map(arg, epilogue->readsStatistic[i] ? statistics[i]
                                                     : lanes[k++][j]);
      for (Operation &inner : body.without_terminator())
        b.clone(inner, mapping);
      for (auto [q, v] : llvm::enumerate(body.getTerminator()->getOperands()))
        values[q].push_back(mapping.lookup(v));
    }
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(op.getNumLoops(), b.getContext());
    ShapedType type = consumer.getResultTensorType();
    for (unsigned q = 0; q < results; ++q) {
      Type t = values[q][0].getType();
      auto at = [&] {
        Value offsetValue =
            offset(b, identity, /*parallel=*/false, resultBase, type);
        return gepElement(b, loc, consumerPtrs[q], t, offsetValue);
      };
      if (vec > 1 && innerLoop + 1 == op.getNumLoops() &&
          byteWidth(t) * vec <= 16) {
        Value v = vector::FromElementsOp::create(
            b, loc, VectorType::get({vec}, t), values[q]);
        LLVM::StoreOp::create(b, loc, v, at(), byteWidth(t) * vec);
        continue;
      }
      forEachLane(b, [&](int64_t j) {
        LLVM::StoreOp::create(b, loc, values[q][j], at(), byteWidth(t));
      });
    }
  }

  ShapedType consumerInputType(unsigned i) {
    PointwiseOp consumer = epilogue->consumer;
    return cast<ShapedType>(consumer.getInputs()[i].getType());
  }

  static unsigned byteWidth(Type t) { return t.getIntOrFloatBitWidth() / 8; }

  /// `n` elements of type `t` (a scalar when `n` is 0) loaded at `p` as
  /// they are stored: an input's i1 (a mask) as bytes.
  Value loadStored(OpBuilder &b, Type t, Value p, int64_t n) {
    Type mem = storageType(t);
    auto shaped = [&](Type e) -> Type {
      return n ? Type(VectorType::get({n}, e)) : e;
    };
    Value v = LLVM::LoadOp::create(b, loc, shaped(mem), p,
                                   storageBytes(t) * std::max<int64_t>(n, 1));
    return mem == t ? v : arith::TruncIOp::create(b, loc, shaped(t), v);
  }

  /// Each running value's start: the combiner's identity; an arg
  /// reduction's index starts at the largest index, which every real one
  /// beats on a tie.
  SmallVector<Value> identities(OpBuilder &b) {
    SmallVector<Value> ids;
    for (unsigned k = 0; k < accTypes.size(); ++k) {
      if (shape.online && k == shape.online->sumResult) {
        ids.push_back(arith::ConstantOp::create(
            b, loc, b.getFloatAttr(accTypes[k], 0.0)));
        continue;
      }
      if (shape.arg && k == shape.arg->indexResult) {
        auto t = cast<IntegerType>(accTypes[k]);
        ids.push_back(arith::ConstantOp::create(
            b, loc,
            b.getIntegerAttr(t, APInt::getSignedMaxValue(t.getWidth()))));
        continue;
      }
      ids.push_back(arith::ConstantOp::create(b, loc, shape.fold(k).identity));
    }
    return ids;
  }

  /// Folds the elements (groups of `vec` elements) r = begin, begin + step,
  /// ... < end into `acc`, kReductionUnroll of them per iteration so that
  /// their loads are in flight together, into as many accumulators that
  /// combine at the end; then the rest one at a time. A fixed order: the
  /// same bits on every run.
  SmallVector<Value> foldRange(OpBuilder &b, Value begin, Value end, Value step,
                               ValueRange acc, ArrayRef<Value> partialsPtrs,
                               ArrayRef<Value> bases) {
    Value unroll = constI64(b, loc, kReductionUnroll);
    Value mainEnd = unrolledEnd(b, begin, end, step);
    // kReductionUnroll accumulators, element i of an iteration folding
    // into accumulator i % kReductionUnroll: independent chains, a quarter
    // as long (less rounding, and the adds overlap).
    unsigned n = acc.size();
    SmallVector<Value> accs;
    for (int64_t k = 0; k < kReductionUnroll; ++k)
      llvm::append_range(accs, acc);
    auto main =
        scf::ForOp::create(b, loc, begin, mainEnd,
                           arith::MulIOp::create(b, loc, step, unroll), accs);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(main.getBody());
      SmallVector<SmallVector<Value>> values;
      Value r = main.getInductionVar();
      for (int64_t u = 0; u < kReductionUnroll; ++u) {
        if (u > 0)
          r = arith::AddIOp::create(lb, loc, r, step);
        llvm::append_range(values, elementValues(lb, r, partialsPtrs, bases));
      }
      SmallVector<Value> a(main.getRegionIterArgs());
      for (auto [i, v] : llvm::enumerate(values)) {
        MutableArrayRef<Value> slot =
            MutableArrayRef<Value>(a).slice((i % kReductionUnroll) * n, n);
        llvm::copy(combine(lb, slot, v), slot.begin());
      }
      scf::YieldOp::create(lb, loc, a);
    }
    SmallVector<SmallVector<Value>> partials;
    for (int64_t k = 0; k < kReductionUnroll; ++k)
      partials.push_back(SmallVector<Value>(main.getResults().slice(k * n, n)));
    auto rest = scf::ForOp::create(b, loc, mainEnd, end, step,
                                   combinePairwise(b, std::move(partials)));
    {
      OpBuilder lb = OpBuilder::atBlockBegin(rest.getBody());
      SmallVector<Value> a(rest.getRegionIterArgs());
      for (ArrayRef<Value> v :
           elementValues(lb, rest.getInductionVar(), partialsPtrs, bases))
        a = combine(lb, a, v);
      scf::YieldOp::create(lb, loc, a);
    }
    return SmallVector<Value>(rest.getResults());
  }

  /// foldRange's fold over this thread's heldGroups groups begin, begin +
  /// step, ..., unrolled, keeping each group's coordinates and loaded
  /// values for the epilogue.
  SmallVector<Value> foldHeld(OpBuilder &b, Value begin, Value step,
                              ValueRange acc, ArrayRef<Value> bases) {
    SmallVector<SmallVector<Value>> accs(kReductionUnroll,
                                         SmallVector<Value>(acc));
    Value r = begin;
    int64_t i = 0;
    int64_t share = config.getTile()[0];
    SmallVector<SmallVector<Value>> all;
    for (int64_t u = 0; u < heldGroups; ++u) {
      if (u > 0)
        r = arith::AddIOp::create(b, loc, r, step);
      // A group past the extent (the last, where the threads do not divide
      // it) loads the last group and folds identities (`acc`, the fold's
      // start).
      Value valid, at = r;
      if ((u + 1) * share > heldTotal) {
        Value last = constI64(b, loc, heldTotal - 1);
        valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, r,
                                      last);
        at = arith::MinUIOp::create(b, loc, r, last);
      }
      heldValid.push_back(valid);
      SmallVector<SmallVector<Value>> raw;
      for (SmallVector<Value> v : elementValues(b, at, {}, bases, &raw)) {
        if (valid)
          for (auto [x, id] : llvm::zip(v, acc))
            x = arith::SelectOp::create(b, loc, valid, x, id);
        if (shape.online) {
          all.push_back(SmallVector<Value>(v));
          continue;
        }
        SmallVector<Value> &slot = accs[i++ % kReductionUnroll];
        slot = combine(b, slot, v);
      }
      heldCoords.push_back(coords);
      heldLanes.push_back(std::move(raw));
    }
    if (shape.online)
      return heldSoftmaxStatistics(b, all);
    return combinePairwise(b, std::move(accs));
  }

  /// The accumulators `partials` combined pairwise, in a fixed order.
  SmallVector<Value> combinePairwise(OpBuilder &b,
                                     SmallVector<SmallVector<Value>> partials) {
    return pairwiseTree(
        std::move(partials),
        [&](ArrayRef<Value> x, ArrayRef<Value> y) { return combine(b, x, y); });
  }

  /// A softmax's statistics of a thread's held elements, each (x, w) as
  /// elementValues gives them, in two passes instead of the online update:
  /// m = max x (NaN wins), s = sum of w * exp(x - m), a NaN difference
  /// (both -inf) counting 0, and NaN where m is. The same (m, s) the online
  /// fold reaches, with a handful of operations per element instead of a
  /// rescale each.
  SmallVector<Value> heldSoftmaxStatistics(OpBuilder &b,
                                           ArrayRef<SmallVector<Value>> all) {
    unsigned mi = shape.online->maxResult, si = shape.online->sumResult;
    Type t = accTypes[mi];
    auto constant = [&](double v) {
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v))
          .getResult();
    };
    SmallVector<Value> xs, terms;
    for (ArrayRef<Value> e : all)
      xs.push_back(e[mi]);
    Value m = pairwiseTree(xs, [&](Value x, Value y) {
      return arith::MaximumFOp::create(b, loc, x, y).getResult();
    });
    for (ArrayRef<Value> e : all) {
      Value d = arith::SubFOp::create(b, loc, e[mi], m);
      Value ex = math::ExpOp::create(b, loc, d);
      Value isNan =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, d, d);
      ex = arith::SelectOp::create(b, loc, isNan, constant(0.0), ex);
      terms.push_back(arith::MulFOp::create(b, loc, ex, e[si]));
    }
    Value sum = pairwiseTree(terms, [&](Value x, Value y) {
      return arith::AddFOp::create(b, loc, x, y).getResult();
    });
    Value nan = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(
            t, APFloat::getQNaN(cast<FloatType>(t).getFloatSemantics())));
    SmallVector<Value> result(shape.numResults());
    result[mi] = m;
    result[si] = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, m, m),
        nan, sum);
    // The siblings' folds of the same elements, pairwise.
    for (unsigned k = shape.firstSibling(); k < shape.numResults(); ++k) {
      SmallVector<Value> values;
      for (ArrayRef<Value> e : all)
        values.push_back(e[k]);
      ReductionShape::Fold f = shape.fold(k);
      result[k] = pairwiseTree(
          values, [&](Value x, Value y) { return fold(b, f, x, y); });
    }
    return result;
  }

  /// The values element r folds in: partial r of this thread's output
  /// (Combine), else the body's values at reduction index r (with r itself
  /// as an arg reduction's index); with `vec` > 1, those of the `vec`
  /// elements of group r, in order, from one vector load per input that
  /// walks the innermost reduction loop (inputs that do not read it load
  /// one value for all).
  /// With `raw`, also each read input's loaded values (lanes[k][j]).
  SmallVector<SmallVector<Value>>
  elementValues(OpBuilder &lb, Value r, ArrayRef<Value> partialsPtrs,
                ArrayRef<Value> bases,
                SmallVector<SmallVector<Value>> *raw = nullptr) {
    if (stage == Stage::Combine) { // in the layout kernel 1 stored
      SmallVector<Value> values;
      Value at = arith::AddIOp::create(lb, loc, partialsBase, r);
      for (auto [t, ptr] : llvm::zip(accTypes, partialsPtrs))
        values.push_back(LLVM::LoadOp::create(
            lb, loc, t, gepElement(lb, loc, ptr, t, at), byteWidth(t)));
      return {values};
    }
    delinearize(lb, r, shape.reductionLoops, /*grouped=*/true);
    Block &body = op.getRegion().front();
    // lanes[k][j]: input k's value for element j of the group.
    SmallVector<SmallVector<Value>> lanes;
    for (auto [k, i] : llvm::enumerate(readInputs)) {
      AffineMap map = op.getIndexingMapsArray()[i];
      Type t = body.getArgument(i).getType();
      if (padded[k]) {
        lanes.push_back({paddedValue(lb, map, *padded[k], inputPtrs[k], t)});
        continue;
      }
      Value at = offset(lb, map, /*parallel=*/false, bases[k], operandType(i));
      Value p = gepElement(lb, loc, inputPtrs[k], storageType(t), at);
      if (vec > 1 && readsInnerLoop(map)) {
        Value v = loadStored(lb, t, p, vec);
        SmallVector<Value> elems;
        for (int64_t j = 0; j < vec; ++j)
          elems.push_back(vector::ExtractOp::create(lb, loc, v, j));
        lanes.push_back(elems);
      } else {
        lanes.push_back(SmallVector<Value>(vec, loadStored(lb, t, p, 0)));
      }
    }
    if (raw)
      *raw = lanes;
    return bodyValues(lb, lanes);
  }

  /// The body's values (what elementValues returns) for the loaded values
  /// `lanes` (lanes[k][j]: read input k's for element j of the group at
  /// coords).
  SmallVector<SmallVector<Value>>
  bodyValues(OpBuilder &lb, ArrayRef<SmallVector<Value>> lanes) {
    Block &body = op.getRegion().front();
    SmallVector<SmallVector<Value>> all;
    for (int64_t j = 0; j < vec; ++j) {
      // The reduction coordinates of element j.
      auto coord = [&](unsigned d) -> Value {
        if (j == 0 || d != innerLoop)
          return coords[d];
        return arith::AddIOp::create(lb, loc, coords[d], constI64(lb, loc, j));
      };
      IRMapping mapping;
      for (auto [k, i] : llvm::enumerate(readInputs))
        mapping.map(body.getArgument(i), lanes[k][j]);
      for (Operation &inner : body.without_terminator()) {
        // Constants from outside the body (the analysis allows no other
        // captured values) are cloned into the kernel.
        for (Value v : inner.getOperands())
          if (v.getParentRegion() != &op.getRegion() && !mapping.contains(v))
            mapping.map(v, lb.clone(*v.getDefiningOp())->getResult(0));
        if (llvm::is_contained(shape.accumulating, &inner))
          continue;
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          mapping.map(index.getResult(),
                      arith::IndexCastUIOp::create(lb, loc, lb.getIndexType(),
                                                   coord(index.getDim())));
          continue;
        }
        lb.clone(inner, mapping);
      }
      Value value = mapping.lookup(
          shape.combiner->getOperand(1 - shape.accumulatorOperand));
      if (shape.online) { // x alone: (x, exp(x - x)), NaN for +inf
        SmallVector<Value> values(shape.numResults());
        values[shape.online->maxResult] = value;
        Type t = value.getType();
        const llvm::fltSemantics &sem = cast<FloatType>(t).getFloatSemantics();
        Value isInf = arith::CmpFOp::create(
            lb, loc, arith::CmpFPredicate::OEQ, value,
            arith::ConstantOp::create(
                lb, loc, lb.getFloatAttr(t, APFloat::getInf(sem))));
        values[shape.online->sumResult] = arith::SelectOp::create(
            lb, loc, isInf,
            arith::ConstantOp::create(
                lb, loc, lb.getFloatAttr(t, APFloat::getQNaN(sem))),
            arith::ConstantOp::create(lb, loc, lb.getFloatAttr(t, 1.0)));
        for (unsigned k = shape.firstSibling(); k < shape.numResults(); ++k) {
          ReductionShape::Fold f = shape.fold(k);
          values[k] =
              mapping.lookup(f.combiner->getOperand(1 - f.accumulatorOperand));
        }
        all.push_back(values);
        continue;
      }
      if (!shape.arg) { // each result's own value
        SmallVector<Value> values{value};
        for (const ReductionShape::Fold &f : shape.siblings)
          values.push_back(
              mapping.lookup(f.combiner->getOperand(1 - f.accumulatorOperand)));
        all.push_back(values);
        continue;
      }
      SmallVector<Value> values(2);
      values[shape.arg->valueResult] = value;
      Value index = coord(shape.arg->loop);
      Type indexTy = accTypes[shape.arg->indexResult];
      if (indexTy != index.getType())
        index = arith::TruncIOp::create(lb, loc, indexTy, index);
      values[shape.arg->indexResult] = index;
      all.push_back(values);
    }
    return all;
  }

  /// The padded tensor's element at the current coordinates, read from
  /// the unpadded source: the padding value outside it (its address then
  /// clamped to the source's first element).
  Value paddedValue(OpBuilder &b, AffineMap map, const PaddedRead &pad,
                    Value ptr, Type t) {
    auto source = cast<ShapedType>(pad.source.getType());
    Value inside = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value zero = constI64(b, loc, 0), at = zero, stride = constI64(b, loc, 1);
    for (unsigned p = map.getNumResults(); p-- > 0;) {
      Value c = zero;
      for (auto [d, coefficient] : windowTerms(map.getResult(p)))
        c = arith::AddIOp::create(
            b, loc, c,
            arith::MulIOp::create(b, loc, coords[d],
                                  constI64(b, loc, coefficient)));
      c = arith::SubIOp::create(b, loc, c, constI64(b, loc, pad.low[p]));
      Value size = constI64(b, loc, source.getDimSize(p));
      // A coordinate below the source wraps to a huge unsigned value.
      Value ok =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, size);
      inside = arith::AndIOp::create(b, loc, inside, ok);
      at = arith::AddIOp::create(
          b, loc, at,
          arith::MulIOp::create(
              b, loc, arith::SelectOp::create(b, loc, ok, c, zero), stride));
      stride = arith::MulIOp::create(b, loc, stride, size);
    }
    at = arith::SelectOp::create(b, loc, inside, at, zero);
    Value loaded =
        loadStored(b, t, gepElement(b, loc, ptr, storageType(t), at), 0);
    Value padding = b.clone(*pad.padding.getDefiningOp())->getResult(0);
    return arith::SelectOp::create(b, loc, inside, loaded, padding);
  }

  ShapedType operandType(unsigned i) {
    return cast<ShapedType>(op->getOperand(i).getType());
  }

  /// Whether `map` reads the innermost reduction loop as its innermost
  /// (contiguous) dimension.
  bool readsInnerLoop(AffineMap map) const {
    if (map.getNumResults() == 0)
      return false;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    return dim && dim.getPosition() == innerLoop;
  }

  /// The extent of loop d, in groups of `vec` for the innermost reduction
  /// loop when `grouped`.
  Value extentOf(unsigned d, bool grouped) {
    return grouped && vec > 1 && d == innerLoop ? innerGroups : extents[d];
  }

  Value product(OpBuilder &b, ArrayRef<unsigned> loops, bool grouped = false) {
    Value n = constI64(b, loc, 1);
    for (unsigned d : loops)
      if (!unitLoop[d])
        n = arith::MulIOp::create(b, loc, n, extentOf(d, grouped));
    return n;
  }

  /// Sets coords[d] for `loops` from their linear index, the last fastest;
  /// when `grouped`, the index counts groups of `vec` along the innermost
  /// reduction loop, and its coordinate is the group's first element.
  void delinearize(OpBuilder &b, Value linear, ArrayRef<unsigned> loops,
                   bool grouped = false) {
    SmallVector<unsigned> live;
    for (unsigned d : loops) {
      if (unitLoop[d])
        coords[d] = constI64(b, loc, 0);
      else
        live.push_back(d);
    }
    Value rest = linear;
    for (unsigned j = live.size(); j-- > 0;) {
      unsigned d = live[j];
      if (j == 0) {
        coords[d] = rest;
      } else {
        coords[d] = arith::RemUIOp::create(b, loc, rest, extentOf(d, grouped));
        rest = arith::DivUIOp::create(b, loc, rest, extentOf(d, grouped));
      }
      if (grouped && vec > 1 && d == innerLoop)
        coords[d] =
            arith::MulIOp::create(b, loc, coords[d], constI64(b, loc, vec));
    }
  }

  /// `base` plus the row-major offset, in the tensor `map` reads, of the
  /// coordinates of its parallel (or its reduction) loops. A window read's
  /// result (stride * i + dilation * k, ReductionAnalysis.h) contributes
  /// each of its loops' terms; its tensor's dimensions are static.
  Value offset(OpBuilder &b, AffineMap map, bool parallel, Value base,
               ShapedType type) {
    auto iterators = op.getIteratorTypesArray();
    Value stride = constI64(b, loc, 1);
    Value at = base;
    for (unsigned p = map.getNumResults(); p-- > 0;) {
      AffineExpr e = map.getResult(p);
      if (isa<AffineConstantExpr>(e))
        continue; // a constant 0 into a dimension of size 1
      auto dim = dyn_cast<AffineDimExpr>(e);
      for (auto [d, coefficient] : windowTerms(e)) {
        if ((iterators[d] == utils::IteratorType::parallel) != parallel ||
            unitLoop[d])
          continue;
        Value term = arith::MulIOp::create(b, loc, coords[d], stride);
        if (coefficient != 1)
          term = arith::MulIOp::create(b, loc, term,
                                       constI64(b, loc, coefficient));
        at = arith::AddIOp::create(b, loc, at, term);
      }
      if (p == 0)
        break;
      if (dim && !unitLoop[dim.getPosition()])
        stride =
            arith::MulIOp::create(b, loc, stride, extents[dim.getPosition()]);
      else if (!dim)
        stride = arith::MulIOp::create(b, loc, stride,
                                       constI64(b, loc, type.getDimSize(p)));
    }
    return at;
  }

  /// `acc` combined with `value`.
  ///
  /// One result: the combiner applied to (acc, value), without fast-math or
  /// overflow flags: seeded with an infinity or NaN identity and
  /// reassociated, the source's `ninf`, `nnan`, `nsw` or `nuw` would make it
  /// poison.
  ///
  /// An arg reduction: `value` replaces `acc` when its value is better (a
  /// NaN beats a number), or, unless `strictlyBetter` (the init, which
  /// comes first), equally good at a smaller index. Partial results cover
  /// interleaved indices, so the tie goes by index, not by order.
  SmallVector<Value> combine(OpBuilder &b, ArrayRef<Value> acc,
                             ArrayRef<Value> value,
                             bool strictlyBetter = false) {
    if (shape.online) {
      SmallVector<Value> results = mergeOnlineSoftmax(b, acc, value);
      for (unsigned k = shape.firstSibling(); k < shape.numResults(); ++k)
        results.push_back(fold(b, shape.fold(k), acc[k], value[k]));
      return results;
    }
    if (!shape.arg) {
      SmallVector<Value> results;
      for (unsigned k = 0; k < shape.numResults(); ++k)
        results.push_back(fold(b, shape.fold(k), acc[k], value[k]));
      return results;
    }
    unsigned vr = shape.arg->valueResult, ir = shape.arg->indexResult;
    bool max = shape.arg->seeksMax;
    Value va = acc[vr], ia = acc[ir], vn = value[vr], in = value[ir];
    Value better, equal;
    if (isa<FloatType>(va.getType())) {
      using P = arith::CmpFPredicate;
      auto cmp = [&](P p, Value x, Value y) {
        return arith::CmpFOp::create(b, loc, p, x, y).getResult();
      };
      Value nanNew = cmp(P::UNO, vn, vn), numberAcc = cmp(P::ORD, va, va);
      better = arith::OrIOp::create(
          b, loc, cmp(max ? P::OGT : P::OLT, vn, va),
          arith::AndIOp::create(b, loc, nanNew, numberAcc));
      equal = arith::OrIOp::create(
          b, loc, cmp(P::OEQ, vn, va),
          arith::AndIOp::create(b, loc, nanNew, cmp(P::UNO, va, va)));
    } else {
      using P = arith::CmpIPredicate;
      better = arith::CmpIOp::create(b, loc, max ? P::sgt : P::slt, vn, va);
      equal = arith::CmpIOp::create(b, loc, P::eq, vn, va);
    }
    Value take = better;
    if (!strictlyBetter)
      take = arith::OrIOp::create(
          b, loc, better,
          arith::AndIOp::create(b, loc, equal,
                                arith::CmpIOp::create(b, loc,
                                                      arith::CmpIPredicate::slt,
                                                      in, ia)));
    SmallVector<Value> result(2);
    result[vr] = arith::SelectOp::create(b, loc, take, vn, va);
    result[ir] = arith::SelectOp::create(b, loc, take, in, ia);
    return result;
  }

  /// `acc` and `value` folded by `f`'s combiner, without fast-math or
  /// overflow flags (see combine).
  Value fold(OpBuilder &b, const ReductionShape::Fold &f, Value acc,
             Value value) {
    IRMapping mapping;
    mapping.map(f.combiner->getOperand(f.accumulatorOperand), acc);
    mapping.map(f.combiner->getOperand(1 - f.accumulatorOperand), value);
    Operation *op = b.clone(*f.combiner, mapping);
    MLIRContext *ctx = op->getContext();
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(op))
      op->setAttr(fm.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::none));
    if (auto of = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op))
      op->setAttr(of.getIntegerOverflowAttrName(),
                  arith::IntegerOverflowFlagsAttr::get(
                      ctx, arith::IntegerOverflowFlags::none));
    return op->getResult(0);
  }

  /// Two online softmax states (m1, s1), (m2, s2) as one: m = max(m1, m2)
  /// (NaN wins), and with e = exp(-|m1 - m2|) (0 where that is NaN: both
  /// -inf), s = s1 * e + s2 where m2 > m1, else s1 + s2 * e; NaN where m
  /// is. One exp.
  SmallVector<Value> mergeOnlineSoftmax(OpBuilder &b, ArrayRef<Value> a,
                                        ArrayRef<Value> o) {
    unsigned mi = shape.online->maxResult, si = shape.online->sumResult;
    Value m1 = a[mi], s1 = a[si], m2 = o[mi], s2 = o[si];
    Value d = arith::SubFOp::create(b, loc, m2, m1);
    Value magnitude = math::AbsFOp::create(b, loc, d);
    Value e =
        math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, magnitude));
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(d.getType(), 0.0));
    e = arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, d, d),
        zero, e);
    Value grows =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, m2, m1);
    Value up = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, s1, e).getResult(), s2);
    Value keep = arith::AddFOp::create(
        b, loc, s1, arith::MulFOp::create(b, loc, s2, e).getResult());
    Value sum = arith::SelectOp::create(b, loc, grows, up, keep);
    SmallVector<Value> result(2);
    result[mi] = arith::MaximumFOp::create(b, loc, m1, m2);
    // A NaN maximum makes the sum NaN (a NaN element, as in PyTorch).
    Value nan = arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(d.getType(),
                       APFloat::getQNaN(
                           cast<FloatType>(d.getType()).getFloatSemantics())));
    result[si] = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, result[mi],
                              result[mi]),
        nan, sum);
    return result;
  }

  linalg::GenericOp op;
  const ReductionShape &shape;
  KernelConfigAttr config;
  ArrayRef<unsigned> readInputs;
  ArrayRef<TypedAttr> initConstants; // per result; null: read from memory
  Stage stage;
  int64_t slices; // P: slices of the reduced extent (1: one stage)
  const ReductionEpilogue *epilogue; // the consumer this kernel computes
  bool writeResults; // the results are stored (else only the consumer's)
  SmallVector<unsigned> elementInputs; // the consumer's, not statistics
  SmallVector<int64_t> heldSource; // per element input: the read input, or -1
  int64_t heldGroups = 0;          // groups each thread holds (0: re-read them)
  int64_t heldTotal = 0;           // groups in an output's extent
  SmallVector<SmallVector<Value>> heldCoords;
  SmallVector<Value> heldValid; // per held group: within the extent (null: always)
  SmallVector<SmallVector<SmallVector<Value>>> heldLanes;
  SmallVector<Value> elementPtrs, consumerPtrs, elementBases, statistics;
  Value resultBase;   // this output's offset in the consumer's results
  Value partialsBase; // Combine: o * P, where output o's partials start
  Location loc;
  int64_t clusterBlocks; // C blocks per output in a cluster (1: none)
  SmallVector<Type> accTypes;
  int64_t vec;        // elements per vector load (kernel 2: 1)
  unsigned innerLoop; // the innermost reduction loop, which vectors walk
  Value innerGroups;  // its extent / vec
  SmallVector<Value> inputPtrs, extents, coords;
  SmallVector<bool> unitLoop;
  SmallVector<std::optional<PaddedRead>> padded; // per read input
};

} // namespace

void mlir::fuser::reduction::emitReductionKernel(
    gpu::GPUFuncOp kernel, linalg::GenericOp op, const ReductionShape &shape,
    KernelConfigAttr config, ArrayRef<unsigned> readInputs,
    ArrayRef<TypedAttr> initConstants, Stage stage, int64_t slices,
    const ReductionEpilogue *epilogue, bool writeResults) {
  KernelEmitter(op, shape, config, readInputs, initConstants, stage, slices,
                epilogue, writeResults)
      .emit(kernel);
}
