//===- RegisterEpilogue.h - the GEMM epilogue's shared parts ----*- C++ -*-===//
//
// What the FFMA and tensor-core GEMM kernels' register epilogues share: each
// kernel walks its own register layout in pieces of `width` adjacent columns
// of one row (FFMA 4, the mma.sync C layout 2) and asks EpilogueInputs for a
// piece's inputs (how each is read, EpilogueRead.h, and bounds-checked,
// GuardedAccess.h); a group norm's arithmetic is normalizeGroup, given how
// the layout spreads a group over lanes.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_REGISTEREPILOGUE_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_REGISTEREPILOGUE_H

#include "EpilogueRead.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::fuser {

class EpilogueInputs {
public:
  /// `args`: the kernel's values of op's epilogue inputs (pointers, or the
  /// scalars themselves). Loads the scalars' and single values' splats
  /// now. `alignedOk`: vector loads of a row are aligned (N a multiple of
  /// `width`). `columnsInBounds`: every column asked for is below N (no
  /// column checks, GuardedAccess.h).
  EpilogueInputs(OpBuilder &b, Location loc, MatmulOp op, ValueRange args,
                 int64_t width, Value m, Value n, Value alignedOk,
                 bool columnsInBounds = false);

  ArrayRef<EpilogueRead> reads() const { return readKinds; }

  /// Row-vector input `input` at columns col .. col + width.
  Value loadRow(int64_t input, Value col);
  /// Every column-vector input's value at `row`, splat (null for the
  /// others): one load per row, shared by the row's pieces.
  SmallVector<Value> loadColumns(Value row, Value rowOk);
  /// The inputs of the piece at (row, col), in op's order. Row vectors come
  /// from `heldRows(input)` where it returns a value, else are loaded.
  SmallVector<Value> at(Value row, Value rowOk, Value col,
                        ArrayRef<Value> columns,
                        function_ref<Value(int64_t)> heldRows);

private:
  Value splat(Value s);

  OpBuilder &b;
  Location loc;
  SmallVector<Value> args;
  int64_t width;
  Value m, n, alignedOk, always;
  /// The columns' bound for the checks: n, or null where they are in bounds.
  Value colLimit;
  SmallVector<EpilogueRead> readKinds;
  SmallVector<Type> types;
  SmallVector<Value> singles;
};

/// A group norm's (v - mean) * rsqrt(var + eps) over one group of a row,
/// in place: `pieces` are the vectors this lane holds of it, and
/// `acrossLanes(s)` completes a lane's partial sum to the group's (the
/// kernels' layouts spread a group over different lanes). Two passes (mean,
/// then squared deviations) avoid E[x^2] - E[x]^2 cancellation. G (the
/// group size) is a power of two: 1 / G is exact.
void normalizeGroup(OpBuilder &b, Location loc, MutableArrayRef<Value> pieces,
                    int64_t groupSize, double epsilon,
                    function_ref<Value(Value)> acrossLanes);

/// The sum of `s` over `lanes` neighbouring lanes (a power of two, at most
/// 32) by butterfly shuffles: every lane of the warp must take part.
Value sumAcrossLanes(OpBuilder &b, Location loc, Value s, int64_t lanes);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_REGISTEREPILOGUE_H
