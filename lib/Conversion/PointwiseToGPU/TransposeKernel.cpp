//===- TransposeKernel.cpp - pointwise with a transposed read -*- C++ -*-===//
//
// The `pointwise_transpose` kernel, for a fuser.pointwise that reads
// inputs with the result's two innermost dimensions swapped
// (PointwiseOp::getTransposedTileInputs: x.T, K-major weight copies, an
// elementwise producer computed into its transposed copy). The row kernel
// would read such an input down its columns, 4 useful bytes per 32-byte
// sector; here each block stages TM x TN tiles of the result (P x Q
// innermost, X a staged input, [..., Q, P]) through shared memory, one
// tile per staged input:
//
//   for t = blockIdx.x; t < batch * ceil(P/TM) * ceil(Q/TN); t += gridDim.x:
//     (b, i0, j0) = the tile's batch index, first result row and column
//     1. R = TM * TN / B elements per thread, consecutive threads along X's
//        rows (result rows i): tile[j - j0][i - i0] = X[b, j, i]
//     barrier
//     2. the same elements, consecutive threads along the result's rows
//        (columns j): results[b, i, j] = body(tile[j - j0][i - i0], the
//        other inputs at (b, i, j))
//     barrier (the next tile reuses the buffer)
//
// Rows of the buffer are TM + 1 long, so that phase 2's reads down a column
// fall in distinct banks. Coordinates past the edges are clamped to the last
// row and column: every load is in bounds and unconditional (R loads in
// flight per thread), and only the stores are guarded.
//
//===----------------------------------------------------------------------===//

#include "PointwiseKernels.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::pointwise;

/// Elements per thread and phase beyond this would unroll into large
/// kernels for no gain.
static constexpr int64_t kMaxElementsPerThread = 32;
/// Static shared memory a block may have.
static constexpr int64_t kMaxSharedBytes = 48 * 1024;

static Type stagedElementType(PointwiseOp op) {
  return storageType(elementTypeOf(
      op.getInputs()[op.getTransposedTileInputs().front()].getType()));
}

/// Elements of one staged input's tile (TN rows of TM + 1).
static int64_t tileElements(KernelConfigAttr config) {
  return config.getTile()[1] * (config.getTile()[0] + 1);
}

int64_t pointwise::transposeElementsPerThread(PointwiseOp op,
                                              KernelConfigAttr config) {
  if (op.getTransposedTileInputs().empty()) {
    op.emitOpError() << "has strategy 'pointwise_transpose' but nothing to "
                        "stage: it needs read inputs (of one element type) "
                        "whose maps swap the result's two innermost "
                        "dimensions, and no other input reading the "
                        "innermost one through another dimension";
    return 0;
  }
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> block = config.getBlock();
  if (tile.size() != 2 || block[1] != 1 || block[2] != 1 ||
      config.getVectorWidth() != 1 || (tile[0] * tile[1]) % block[0] != 0) {
    op.emitOpError() << "has a pointwise_transpose config that is not "
                        "tile = [TM, TN], block = [B, 1, 1] with B dividing "
                        "TM * TN, vector_width = 1";
    return 0;
  }
  int64_t perThread = tile[0] * tile[1] / block[0];
  if (perThread > kMaxElementsPerThread) {
    op.emitOpError() << "has a pointwise_transpose config with " << perThread
                     << " elements per thread (TM * TN / B); at most "
                     << kMaxElementsPerThread;
    return 0;
  }
  int64_t bytes = int64_t(op.getTransposedTileInputs().size()) *
                  tileElements(config) * storageBytes(stagedElementType(op));
  if (bytes > kMaxSharedBytes) {
    op.emitOpError() << "has pointwise_transpose tiles of " << bytes
                     << " bytes of shared memory (TN x (TM + 1) elements per "
                        "staged input); at most "
                     << kMaxSharedBytes;
    return 0;
  }
  return perThread;
}

MemRefType pointwise::transposeTileType(PointwiseOp op,
                                        KernelConfigAttr config) {
  return MemRefType::get({int64_t(op.getTransposedTileInputs().size()) *
                          tileElements(config)},
                         stagedElementType(op),
                         MemRefLayoutAttrInterface{},
                         gpu::AddressSpaceAttr::get(
                             op.getContext(), gpu::AddressSpace::Workgroup));
}

LogicalResult pointwise::emitTransposeKernel(PointwiseOp op,
                                             KernelConfigAttr config,
                                             ArrayRef<InputInfo> inputs,
                                             gpu::GPUFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = op.getLoc();
  Type i64 = b.getI64Type();
  int64_t rank = op.getResultTensorType().getRank();
  SmallVector<unsigned> staged = op.getTransposedTileInputs();
  auto isStaged = [&](unsigned index) {
    return llvm::is_contained(staged, index);
  };
  // Input index -> its tile's first element in the buffer.
  DenseMap<unsigned, int64_t> tileBase;
  for (auto [s, index] : llvm::enumerate(staged))
    tileBase[index] = int64_t(s) * tileElements(config);
  Type stagedTy = stagedElementType(op);
  int64_t tm = config.getTile()[0], tn = config.getTile()[1];
  int64_t threads = config.getBlock()[0];
  int64_t perThread = tm * tn / threads;

  // Parameters: (inputs..., outputs..., sizes...).
  SmallVector<Value> inputArgs, outputArgs, sizes;
  unsigned argNo = 0;
  for (size_t k = 0; k < inputs.size(); ++k)
    inputArgs.push_back(entry.getArgument(argNo++));
  for (unsigned r = 0; r < op.getNumResults(); ++r)
    outputArgs.push_back(entry.getArgument(argNo++));
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(entry.getArgument(argNo++));
  Value smem = kernel.getWorkgroupAttributions()[0];

  auto toI64 = [&](Value idx) {
    return arith::IndexCastUIOp::create(b, loc, i64, idx).getResult();
  };
  auto add = [&](OpBuilder &ob, Value x, Value y) {
    return arith::AddIOp::create(ob, loc, x, y).getResult();
  };
  auto mul = [&](OpBuilder &ob, Value x, Value y) {
    return arith::MulIOp::create(ob, loc, x, y).getResult();
  };
  auto toIndex = [&](OpBuilder &ob, Value v) {
    return arith::IndexCastUIOp::create(ob, loc, ob.getIndexType(), v)
        .getResult();
  };

  // 1. Loop invariants: tile counts, rank-0 values, broadcast strides.
  Value p = sizes[rank - 2], q = sizes[rank - 1];
  Value one = constI64(b, loc, 1);
  Value tilesP = arith::CeilDivUIOp::create(b, loc, p, constI64(b, loc, tm));
  Value tilesQ = arith::CeilDivUIOp::create(b, loc, q, constI64(b, loc, tn));
  Value numTiles = mul(b, tilesP, tilesQ);
  for (int64_t d = 0; d < rank - 2; ++d)
    numTiles = mul(b, numTiles, sizes[d]);
  // Only read once a tile exists, when P and Q are at least 1.
  Value lastP = arith::SubIOp::create(b, loc, p, one);
  Value lastQ = arith::SubIOp::create(b, loc, q, one);
  Value matrix = mul(b, p, q);
  DenseMap<unsigned, Value> singleValues;
  DenseMap<unsigned, SmallVector<Value>> strides;
  bool needBatchCoords = false;
  for (auto [k, in] : llvm::enumerate(inputs)) {
    Type elemTy = elementTypeOf(op.getInputs()[in.index].getType());
    if (in.isSingleValue)
      singleValues[k] =
          loadElements(b, loc, elemTy, 0, inputArgs[k], storageBytes(elemTy));
    if (!in.isTensor || in.isContiguous || in.isSingleValue ||
        isStaged(in.index))
      continue;
    // stride of input position p = product of the sizes of later positions.
    AffineMap map = op.getIndexingMap(in.index);
    SmallVector<Value> s(map.getNumResults());
    Value acc = one;
    for (int64_t pos = map.getNumResults() - 1; pos >= 0; --pos) {
      s[pos] = acc;
      needBatchCoords |= map.getDimPosition(pos) < rank - 2;
      if (pos > 0)
        acc = mul(b, acc, sizes[map.getDimPosition(pos)]);
    }
    strides[k] = s;
  }
  Value tid = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value gdim = toI64(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));

  // 2. The tiles, grid-striding.
  auto loop = scf::ForOp::create(b, loc, bid, numTiles, gdim);
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  auto c = [&](int64_t v) { return constI64(lb, loc, v); };
  Value t = loop.getInductionVar();
  Value rest = arith::DivUIOp::create(lb, loc, t, tilesQ);
  Value j0 = mul(lb, arith::RemUIOp::create(lb, loc, t, tilesQ), c(tn));
  Value i0 = mul(lb, arith::RemUIOp::create(lb, loc, rest, tilesP), c(tm));
  Value batch = arith::DivUIOp::create(lb, loc, rest, tilesP);
  Value batchBase = mul(lb, batch, matrix);
  SmallVector<Value> coords(rank);
  if (needBatchCoords) {
    Value r = batch;
    for (int64_t d = rank - 3; d > 0; --d) {
      coords[d] = arith::RemUIOp::create(lb, loc, r, sizes[d]);
      r = arith::DivUIOp::create(lb, loc, r, sizes[d]);
    }
    coords[0] = r;
  }
  auto minU = [&](Value x, Value y) {
    return arith::MinUIOp::create(lb, loc, x, y).getResult();
  };
  auto tileIndex = [&](unsigned input, Value jj, Value ii) {
    return toIndex(lb, add(lb, c(tileBase[input]),
                           add(lb, mul(lb, jj, c(tm + 1)), ii)));
  };

  // 3. Phase 1: each X's rows into its tile, all loads before the stores.
  SmallVector<Value> loaded, slots;
  for (auto [k, in] : llvm::enumerate(inputs)) {
    if (!isStaged(in.index))
      continue;
    for (int64_t u = 0; u < perThread; ++u) {
      Value e = add(lb, tid, c(u * threads));
      Value jj = arith::DivUIOp::create(lb, loc, e, c(tm));
      Value ii = arith::RemUIOp::create(lb, loc, e, c(tm));
      Value i = minU(add(lb, i0, ii), lastP);
      Value j = minU(add(lb, j0, jj), lastQ);
      Value at = add(lb, batchBase, add(lb, mul(lb, j, p), i));
      loaded.push_back(LLVM::LoadOp::create(
          lb, loc, stagedTy, gepElement(lb, loc, inputArgs[k], stagedTy, at),
          storageBytes(stagedTy)));
      slots.push_back(tileIndex(in.index, jj, ii));
    }
  }
  for (auto [value, slot] : llvm::zip(loaded, slots))
    memref::StoreOp::create(lb, loc, value, smem, slot);
  gpu::BarrierOp::create(lb, loc);

  // 4. Phase 2: the body along the result's rows, all loads before the
  // stores.
  Block &body = op.getBodyBlock();
  SmallVector<SmallVector<Value>> values;
  SmallVector<Value> outAt, inBounds;
  for (int64_t u = 0; u < perThread; ++u) {
    Value e = add(lb, tid, c(u * threads));
    Value ii = arith::DivUIOp::create(lb, loc, e, c(tn));
    Value jj = arith::RemUIOp::create(lb, loc, e, c(tn));
    Value i = add(lb, i0, ii), j = add(lb, j0, jj);
    inBounds.push_back(arith::AndIOp::create(
        lb, loc,
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, i, p),
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, j, q)));
    // Clamped like phase 1's, so tile[jj][ii] holds X at (ic, jc).
    coords[rank - 2] = minU(i, lastP);
    coords[rank - 1] = minU(j, lastQ);
    Value at = add(lb, batchBase,
                   add(lb, mul(lb, coords[rank - 2], q), coords[rank - 1]));
    outAt.push_back(at);
    IRMapping mapping;
    for (auto [k, in] : llvm::enumerate(inputs)) {
      Type elemTy = elementTypeOf(op.getInputs()[in.index].getType());
      Value v;
      if (isStaged(in.index)) {
        v = memref::LoadOp::create(lb, loc, smem, tileIndex(in.index, jj, ii));
        if (v.getType() != elemTy) // i1 staged as bytes
          v = arith::CmpIOp::create(
              lb, loc, arith::CmpIPredicate::ne, v,
              arith::ConstantOp::create(lb, loc, lb.getZeroAttr(stagedTy)));
      } else if (!in.isTensor) {
        v = inputArgs[k];
      } else if (in.isSingleValue) {
        v = singleValues[k];
      } else {
        Value idx = at;
        if (!in.isContiguous) {
          AffineMap map = op.getIndexingMap(in.index);
          idx = c(0);
          for (unsigned pos = 0; pos < map.getNumResults(); ++pos)
            idx =
                add(lb, idx,
                    mul(lb, coords[map.getDimPosition(pos)], strides[k][pos]));
        }
        v = loadElements(
            lb, loc, elemTy, 0,
            gepElement(lb, loc, inputArgs[k], storageType(elemTy), idx),
            storageBytes(elemTy));
      }
      mapping.map(body.getArgument(in.index), v);
    }
    auto yielded = emitBodyWidened(lb, body, mapping, 1);
    if (failed(yielded))
      return failure();
    values.push_back(std::move(*yielded));
  }
  for (int64_t u = 0; u < perThread; ++u) {
    auto ifOp = scf::IfOp::create(lb, loc, inBounds[u], /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    for (auto [r, value] : llvm::enumerate(values[u])) {
      Type elemTy = elementTypeOf(op.getResultTypes()[r]);
      storeElements(
          tb, loc, value,
          gepElement(tb, loc, outputArgs[r], storageType(elemTy), outAt[u]),
          storageBytes(elemTy));
    }
  }
  gpu::BarrierOp::create(lb, loc);
  gpu::ReturnOp::create(b, loc);
  return success();
}
