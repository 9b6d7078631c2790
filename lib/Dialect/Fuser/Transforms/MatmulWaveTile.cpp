//===- MatmulWaveTile.cpp - tiles that fill the last wave -----------------===//

#include "MatmulWaveTile.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fuser;

/// The wave tile must be predicted this much faster: the time model is a
/// measurement on one shape.
constexpr double kWaveTileMargin = 0.95;

std::optional<int64_t> mlir::fuser::staticOutputTiles(MatmulOp op,
                                                      ArrayRef<int64_t> tile) {
  auto result = cast<ShapedType>(op.getResult().getType());
  if (!result.hasStaticShape())
    return std::nullopt;
  int64_t tiles = 1;
  for (int64_t d : result.getShape().drop_back(2))
    tiles *= d;
  return tiles *
         llvm::divideCeil(result.getDimSize(result.getRank() - 2), tile[0]) *
         llvm::divideCeil(result.getDimSize(result.getRank() - 1), tile[1]);
}

std::pair<SmallVector<int64_t>, std::string>
mlir::fuser::waveTileChoice(MatmulOp op, const GemmStrategyRecord &rec,
                            StringRef precision, ArrayRef<int64_t> tile) {
  SmallVector<int64_t> chosen(tile);
  ArrayRef<int64_t> narrow =
      rec.waveTile ? rec.waveTile(precision) : ArrayRef<int64_t>();
  if (narrow.empty() || rec.maxGrid <= 0 || op.hasGroupNorm())
    return {chosen, ""};
  std::optional<int64_t> tiles = staticOutputTiles(op, tile);
  std::optional<int64_t> narrowTiles = staticOutputTiles(op, narrow);
  if (!tiles || !narrowTiles || 2 * *tiles <= rec.maxGrid)
    return {chosen, ""};
  int64_t waves = llvm::divideCeil(*tiles, rec.maxGrid);
  int64_t narrowWaves = llvm::divideCeil(*narrowTiles, rec.maxGrid);
  if (narrowWaves * rec.waveTileTime >= waves * kWaveTileMargin)
    return {chosen, ""};
  chosen.assign(narrow.begin(), narrow.end());
  auto shape = [](ArrayRef<int64_t> t) {
    return std::to_string(t[0]) + " x " + std::to_string(t[1]);
  };
  return {chosen, shape(narrow) + " tiles: " + std::to_string(*narrowTiles) +
                      " fill " + std::to_string(narrowWaves) + " waves of " +
                      std::to_string(rec.maxGrid) + " blocks, where " +
                      std::to_string(*tiles) + " of " + shape(tile) +
                      " leave the last of " + std::to_string(waves) +
                      " part idle"};
}
