//===- GuardedAccess.h - bounds-checked global loads and stores -*- C++ -*-===//
//
// The GEMM kernels' (FFMA and tensor cores') global accesses of one element
// or one `width`-wide vector of a row, written once: a vector access when
// the row is in bounds, the whole vector is below the limit and the
// addresses are aligned, else lane by lane, each lane guarded, never
// touching memory out of bounds (a guarded load reads 0). A null `limit`
// says that the kernel's columns are all below it (N a static multiple of
// the tile's columns): only the row and the alignment are checked, which
// ptxas cannot prove where the tile's column comes from a runtime tile count.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_GUARDEDACCESS_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_GUARDEDACCESS_H

#include "mlir/IR/Builders.h"

namespace mlir::fuser {

/// ptr[idx] (elements of `ty`, i64 index) if `ok`, else 0.
Value loadScalarIf(OpBuilder &b, Location loc, Value ptr, Type ty, Value idx,
                   Value ok);

/// ptr[base .. base + width) as a vector<width x ty>: lane e valid when
/// `rowOk` and col + e < limit; one load when all are and `alignedOk`.
Value loadVectorIf(OpBuilder &b, Location loc, Value ptr, Type ty,
                   int64_t width, Value base, Value rowOk, Value col,
                   Value limit, Value alignedOk);

/// Stores vector `v` (width lanes of `ty`) at ptr[base ..], under the same
/// conditions as loadVectorIf.
void storeVectorIf(OpBuilder &b, Location loc, Value ptr, Type ty, Value v,
                   Value base, Value rowOk, Value col, Value limit,
                   Value alignedOk);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_GUARDEDACCESS_H
