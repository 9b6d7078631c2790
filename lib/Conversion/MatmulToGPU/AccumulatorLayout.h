//===- AccumulatorLayout.h - where a GEMM's sums sit in registers -*- C++
//-*-===//
//
// The GEMM epilogue (MmaEpilogue.cpp) reads a kernel's accumulators through
// this interface: which register of a thread holds which element of the
// block's output tile. The tensor-core kernels leave their sums in the
// mma.sync C layout (MmaFragmentLayout); a kernel whose accumulators sit
// otherwise brings a layout of its own and keeps the same epilogue.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_ACCUMULATORLAYOUT_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_ACCUMULATORLAYOUT_H

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::fuser {

/// A thread's accumulators are pairs of adjacent columns of one row:
/// rows() rows by pairsPerRow() pairs, pair (r, j) in registers index(r, j)
/// and index(r, j) + 1. The offsets are inside the warp's tile (i64).
class AccumulatorLayout {
public:
  virtual ~AccumulatorLayout() = default;
  virtual int64_t rows() const = 0;
  virtual int64_t pairsPerRow() const = 0;
  virtual int64_t index(int64_t r, int64_t j) const = 0;
  /// Row r of the thread, inside the warp's tile.
  virtual Value rowInWarp(OpBuilder &b, Location loc, int64_t r) const = 0;
  /// The thread's column within each pair's piece (built once, passed to
  /// colInWarp).
  virtual Value laneColumn(OpBuilder &b, Location loc) const = 0;
  /// Pair j's first column inside the warp's tile.
  virtual Value colInWarp(OpBuilder &b, Location loc, int64_t j,
                          Value laneColumn) const = 0;
  /// A pair belongs to a piece of pieceColumns() columns of its row spread
  /// over lanesPerPiece() lanes: a sum over a row's piece is a shuffle sum
  /// over those lanes (a group norm's statistics).
  virtual int64_t pieceColumns() const = 0;
  virtual int64_t lanesPerPiece() const = 0;
};

/// The mma.sync C layout, which mma.sync leaves and wgmma's accumulators
/// match with one 16-row piece per warp: with g = lane / 4 and
/// t = lane % 4, an m16n8 piece holds c0 c1 at (g, 2t..2t+1) and c2 c3 at
/// (g+8, 2t..2t+1); a warp's WM x WN tile is (WM / 16) x (WN / 8) pieces,
/// piece (i, j) in registers 4 (i * WN / 8 + j) ...
class MmaFragmentLayout final : public AccumulatorLayout {
public:
  MmaFragmentLayout(int64_t mTiles, int64_t nTiles, Value g, Value tq)
      : mTiles(mTiles), nTiles(nTiles), g(g), tq(tq) {}

  int64_t rows() const override { return mTiles * 2; }
  int64_t pairsPerRow() const override { return nTiles; }
  int64_t index(int64_t r, int64_t j) const override {
    return ((r / 2) * nTiles + j) * 4 + 2 * (r % 2);
  }
  Value rowInWarp(OpBuilder &b, Location loc, int64_t r) const override {
    Value off = constI64(b, loc, (r / 2) * 16 + (r % 2) * 8);
    return arith::AddIOp::create(b, loc, off, g);
  }
  Value laneColumn(OpBuilder &b, Location loc) const override {
    return arith::MulIOp::create(b, loc, tq, constI64(b, loc, 2));
  }
  Value colInWarp(OpBuilder &b, Location loc, int64_t j,
                  Value laneColumn) const override {
    Value off = constI64(b, loc, j * 8);
    return arith::AddIOp::create(b, loc, off, laneColumn);
  }
  int64_t pieceColumns() const override { return 8; }
  int64_t lanesPerPiece() const override { return 4; }

private:
  int64_t mTiles, nTiles;
  Value g, tq;
};

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_ACCUMULATORLAYOUT_H
