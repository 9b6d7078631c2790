//===- EpilogueRead.h - how a GEMM epilogue reads its inputs ----*- C++ -*-===//
//
// Shared by the FFMA and tensor-core GEMM builders: each reads an epilogue
// input according to its (m, n) map, in its own register layout.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_EPILOGUEREAD_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_EPILOGUEREAD_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace mlir::fuser {

/// How the epilogue reads one of its extra inputs, from the (m, n) map.
enum class EpilogueRead { Scalar, SingleValue, Row, Column, Full, Transposed };

/// A scalar operand, a single value (a rank-0 tensor, or one element per
/// batch), a row vector (n), a column vector (m), a full (m, n) tensor or
/// its transpose (n, m). `map` ranges over (m, n) (a batched matmul's maps
/// without the batch: MatmulOp::getEpilogueMapOverMN).
inline EpilogueRead classifyEpilogueRead(Value input, AffineMap map) {
  if (!isa<RankedTensorType>(input.getType()))
    return EpilogueRead::Scalar;
  if (map.getNumResults() == 0)
    return EpilogueRead::SingleValue;
  if (map.getNumResults() == 1)
    return map.getDimPosition(0) == 1 ? EpilogueRead::Row
                                      : EpilogueRead::Column;
  return map.getDimPosition(0) == 0 ? EpilogueRead::Full
                                    : EpilogueRead::Transposed;
}

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_EPILOGUEREAD_H
