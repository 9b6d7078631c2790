//===- MatmulOperandCopies.h - K-major copies of matmul operands -*- C++ -*-===//
//
// Used by fuser-configure-kernels: operand layout as part of the strategy
// choice.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULOPERANDCOPIES_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULOPERANDCOPIES_H

#include "fuser/Dialect/Fuser/IR/Chips.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include <string>

namespace mlir::fuser {

/// Makes `op`'s operands K-major with transposing pointwise copies where
/// that lets 3xtf32 on wgmma_tma compute it: a large static f32 product
/// whose A is M-major, or whose B is N-major in a shape the kernel cannot
/// transpose itself, on a chip with wgmma (`tmaAllowed`: the options allow
/// wgmma_tma). Where f32 rows of K are not 16-byte multiples apart (K not a
/// multiple of 4; K of at least a k tile), both operands are also copied
/// with K padded with zeros, so that TMA reads them. Adds a remark if `report`. False where it does
/// not apply.
bool copyOperandsKMajor(MatmulOp op, const ChipInfo &chip, bool tmaAllowed,
                        bool report);

/// Why copyOperandsKMajor leaves `op`'s operands as they are by its size
/// rule (or a group norm), for the kernel remark; "" where the rule allows
/// the copies.
std::string kMajorCopyRefusal(MatmulOp op);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_MATMULOPERANDCOPIES_H
