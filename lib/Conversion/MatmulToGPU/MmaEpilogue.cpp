//===- MmaEpilogue.cpp - the tensor-core GEMM epilogue in registers -------===//
//
// The epilogue of the tensor-core kernels (MmaEmitter), applied to the
// accumulators in registers, two columns at a time. It finds each
// accumulator's row and column through the kernel's AccumulatorLayout (all
// three leave the mma.sync C layout today). What the epilogue reads and the
// group-norm arithmetic are the FFMA kernel's too (RegisterEpilogue.h,
// GuardedAccess.h); this file walks the layout.
//
//===----------------------------------------------------------------------===//

#include "MmaEmitter.h"

#include "GuardedAccess.h"
#include "RegisterEpilogue.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::detail;

/// Registers of loaded epilogue inputs in flight together
/// (emitEpilogueInBatches), beside wgmma_tma's accumulators: 8 pairs of an
/// f32 bias. Four f32 matrices (a batched product's, 3xtf32) spill with 2.
static constexpr int64_t kEpilogueLoadRegs = 16;
static constexpr int64_t kMaxEpilogueLoadBatch = 8;

/// Stores 2 results at C[row, col..col+1]: one store when both are in
/// bounds and aligned, else lane by lane.
void MmaEmitter::storeTwo(Value v, Value row, Value rowOk, Value col,
                          Value alignedOk) {
  Value base = add(mul(row, n), col);
  storeVectorIf(b, loc, cPtr, resElem, v, base, rowOk, col,
                columnsInBounds() ? Value() : n, alignedOk);
}

/// Applies the epilogue to each pair of accumulators (c0 c1 or c2 c3 of
/// an m16n8 piece: one row, two columns) and stores it.
LogicalResult MmaEmitter::emitEpilogue(ValueRange acc,
                                       const AccumulatorLayout &layout) {
  Block &body = op.getEpilogue().front();
  Value nEven = isMultipleOf(n, 2);
  EpilogueInputs inputs(b, loc, op, epiArgs, 2, m, n, nEven,
                        columnsInBounds());
  ArrayRef<EpilogueRead> reads = inputs.reads();
  auto colOf = [&](int64_t j) {
    Value lanePair = layout.laneColumn(b, loc);
    Value inWarp = layout.colInWarp(b, loc, j, lanePair);
    return add(add(blockN, warpCol0), inWarp);
  };
  // Row vectors (a bias over n) are shared by all rows of a column: held
  // in registers where the strategy's record says there is room, else
  // loaded in batches (a group norm's: per row, and again after the
  // normalization).
  Block *norm = op.hasGroupNorm() ? &op.getNormEpilogue().front() : nullptr;
  bool readsMatrix = llvm::any_of(reads, [](EpilogueRead r) {
    return r == EpilogueRead::Full || r == EpilogueRead::Transposed;
  });
  const GemmStrategyRecord &record = getGemmStrategyRecord(t.strategy);
  bool lazyRows = record.holdsRowVectors &&
                  !record.holdsRowVectors({t.precision, norm != nullptr,
                                           op.isBatched(), readsMatrix});
  // No group norm there (MmaTiling.cpp); row vectors are loaded per round
  // rather than held.
  if (t.bulkStores)
    return emitBulkStoreEpilogue(acc, layout, inputs, colOf);
  if (lazyRows && !norm)
    return emitEpilogueInBatches(
        acc, layout, inputs, colOf, /*onlyRows=*/{},
        [&](int64_t, int64_t, Value row, Value rowOk, Value col, Value v) {
          storeTwo(v, row, rowOk, col, nEven);
        });
  SmallVector<SmallVector<Value>> rowVecs(reads.size());
  for (auto [e, read] : llvm::enumerate(reads))
    if (read == EpilogueRead::Row && !lazyRows)
      for (int64_t j = 0; j < layout.pairsPerRow(); ++j)
        rowVecs[e].push_back(inputs.loadRow(e, colOf(j)));
  // Piece j's epilogue inputs on row `row`.
  auto loadInputs = [&](Value row, Value rowOk, ArrayRef<Value> colVals,
                        int64_t j) {
    Value col = colOf(j);
    return inputs.at(row, rowOk, col, colVals, [&](int64_t e) {
      return lazyRows ? Value() : rowVecs[e][j];
    });
  };
  int64_t pairs = layout.pairsPerRow();
  for (int64_t r = 0; r < layout.rows(); ++r) {
    Value inWarp = layout.rowInWarp(b, loc, r);
    Value row = add(add(blockM, warpRow0), inWarp);
    Value rowOk = lt(row, m);
    SmallVector<Value> colVals = inputs.loadColumns(row, rowOk);
    // The whole row of the warp tile first: a group norm needs every
    // column of its groups before it can scale any.
    SmallVector<Value> vals;
    SmallVector<SmallVector<Value>> ins(pairs);
    for (int64_t j = 0; j < pairs; ++j) {
      Value v = accPair(acc, layout, r, j);
      ins[j] = loadInputs(row, rowOk, colVals, j);
      FailureOr<Value> out = applyBody(body, v, ins[j]);
      if (failed(out))
        return failure();
      vals.push_back(*out);
    }
    if (norm) {
      normalizeGroups(vals, layout);
      for (int64_t j = 0; j < pairs; ++j) {
        FailureOr<Value> out =
            applyBody(*norm, vals[j],
                      lazyRows ? loadInputs(row, rowOk, colVals, j) : ins[j]);
        if (failed(out))
          return failure();
        vals[j] = *out;
      }
    }
    for (int64_t j = 0; j < pairs; ++j)
      storeTwo(vals[j], row, rowOk, colOf(j), nEven);
  }
  return success();
}

/// Accumulators (row r, pair j) of `layout` as a 2-vector of the type the
/// epilogue computes in.
Value MmaEmitter::accPair(ValueRange acc, const AccumulatorLayout &layout,
                          int64_t r, int64_t j) {
  int64_t a0 = layout.index(r, j);
  Value v = vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, accTy()), ValueRange{acc[a0], acc[a0 + 1]});
  if (t.f64Math()) // the epilogue computes in the result's f32
    v = arith::TruncFOp::create(b, loc, VectorType::get({2}, f32), v);
  if (resElem != f32)
    v = arith::TruncFOp::create(b, loc, VectorType::get({2}, resElem), v);
  return v;
}

/// The epilogue where no row vector is held in registers across the tile:
/// a batch of pairs at a time (kEpilogueLoadRegs of loads), the batch's loads
/// for every row first (a row vector once, for all rows), then its results and
/// stores. ptxas keeps a load after a store it may alias, so a load per pair
/// between the stores would wait out its latency once per pair.
/// Only the layout's rows `onlyRows` (empty: all of them); `store` takes each
/// result (row r of the layout, pair j, its row and column).
LogicalResult MmaEmitter::emitEpilogueInBatches(
    ValueRange acc, const AccumulatorLayout &layout, EpilogueInputs &inputs,
    function_ref<Value(int64_t)> colOf, ArrayRef<int64_t> onlyRows,
    function_ref<void(int64_t, int64_t, Value, Value, Value, Value)> store) {
  Block &body = op.getEpilogue().front();
  ArrayRef<EpilogueRead> reads = inputs.reads();
  SmallVector<int64_t> layoutRows(onlyRows);
  if (layoutRows.empty())
    layoutRows = llvm::to_vector(llvm::seq<int64_t>(0, layout.rows()));
  int64_t rows = layoutRows.size(), pairs = layout.pairsPerRow();
  // Registers per pair of the batch's loads: two per row vector (shared by
  // the rows), two per row of a matrix.
  int64_t pairRegs = 0;
  for (EpilogueRead read : reads)
    pairRegs += read == EpilogueRead::Row ? 2
                : read == EpilogueRead::Full || read == EpilogueRead::Transposed
                    ? 2 * rows
                    : 0;
  // Nothing loaded per pair: no batch (its columns would stay live).
  int64_t batch = pairRegs ? std::clamp<int64_t>(kEpilogueLoadRegs / pairRegs,
                                                 1, kMaxEpilogueLoadBatch)
                           : 1;
  SmallVector<Value> rowOf, rowOks;
  SmallVector<SmallVector<Value>> colVals;
  for (int64_t r : layoutRows) {
    Value inWarp = layout.rowInWarp(b, loc, r);
    rowOf.push_back(add(add(blockM, warpRow0), inWarp));
    rowOks.push_back(lt(rowOf.back(), m));
    colVals.push_back(inputs.loadColumns(rowOf.back(), rowOks.back()));
  }
  for (int64_t j0 = 0; j0 < pairs; j0 += batch) {
    int64_t j1 = std::min(pairs, j0 + batch);
    SmallVector<Value> cols;
    for (int64_t j = j0; j < j1; ++j)
      cols.push_back(colOf(j));
    SmallVector<SmallVector<Value>> rowVecs(reads.size());
    for (auto [e, read] : llvm::enumerate(reads))
      if (read == EpilogueRead::Row)
        for (Value col : cols)
          rowVecs[e].push_back(inputs.loadRow(e, col));
    SmallVector<SmallVector<SmallVector<Value>>> ins(rows);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = j0; j < j1; ++j)
        ins[r].push_back(
            inputs.at(rowOf[r], rowOks[r], cols[j - j0], colVals[r],
                      [&](int64_t e) { return rowVecs[e][j - j0]; }));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = j0; j < j1; ++j) {
        FailureOr<Value> out = applyBody(
            body, accPair(acc, layout, layoutRows[r], j), ins[r][j - j0]);
        if (failed(out))
          return failure();
        store(layoutRows[r], j, rowOf[r], rowOks[r], cols[j - j0], *out);
      }
  }
  return success();
}

/// Split K: the tile's raw fp32 sums into slice `slice` of the
/// [split_k, M, N] intermediate at cPtr, in the epilogue's layout; the
/// reduction kernel (SplitKReduce.h) adds the slices and applies the
/// epilogue. With N even, a slice starts 8-byte aligned, as the pair
/// stores need.
void MmaEmitter::emitPartialStore(ValueRange acc, Value slice,
                                  const AccumulatorLayout &layout) {
  Value nEven = isMultipleOf(n, 2);
  Value sliceElems = mul(m, n);
  Value first = mul(slice, sliceElems);
  Value buffer = cPtr;
  cPtr = gepElement(b, loc, buffer, f32, first);
  Value lanePair = layout.laneColumn(b, loc);
  Value colBase = add(blockN, warpCol0);
  Value rowBase = add(blockM, warpRow0);
  for (int64_t r = 0; r < layout.rows(); ++r) {
    Value inWarp = layout.rowInWarp(b, loc, r);
    Value row = add(rowBase, inWarp);
    Value rowOk = lt(row, m);
    for (int64_t j = 0; j < layout.pairsPerRow(); ++j) {
      Value inPiece = layout.colInWarp(b, loc, j, lanePair);
      Value col = add(colBase, inPiece);
      int64_t a0 = layout.index(r, j);
      Value v = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, f32), ValueRange{acc[a0], acc[a0 + 1]});
      storeTwo(v, row, rowOk, col, nEven);
    }
  }
  cPtr = buffer;
}

/// The 2-wide result of `body` on `value` and the epilogue inputs.
FailureOr<Value> MmaEmitter::applyBody(Block &body, Value value,
                                       ArrayRef<Value> in) {
  return applyBodyWidened(b, body, value, in, 2);
}

/// (v - mean) / sqrt(var + eps) over each group of one row of the warp
/// tile, in place. A group of G columns is G / pieceColumns() neighbouring
/// pieces of the layout (mma.sync's: m16n8 pieces, whose row of 8 columns
/// sits in the 4 lanes of one quad, 2 per lane): a group sum is the lane's
/// own sum, then shuffles over the piece's lanes. Every lane takes part, in
/// bounds or not (the shuffles need the whole warp); a group never
/// straddles N (G divides it).
void MmaEmitter::normalizeGroups(MutableArrayRef<Value> vals,
                                 const AccumulatorLayout &layout) {
  int64_t groupSize = *op.getNormGroupSize();
  int64_t pieces = groupSize / layout.pieceColumns();
  int64_t lanes = layout.lanesPerPiece();
  double eps = op.getNormEpsilon()->convertToDouble();
  for (int64_t q = 0; q * pieces < layout.pairsPerRow(); ++q)
    normalizeGroup(b, loc, vals.slice(q * pieces, pieces), groupSize, eps,
                   [&](Value s) { return sumAcrossLanes(b, loc, s, lanes); });
}
