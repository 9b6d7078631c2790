//===- ParserGuard.h - reject input that crashes MLIR's parser --*- C++ -*-===//
//
// MLIR 22's custom parsers of linalg.transpose (`permutation = [...]`) and
// linalg.broadcast/reduce (`dimensions = [...]`) store the null result of
// DenseI64ArrayAttr::parse when the list is malformed and then segfault
// (docs/robustness.md, F2). fuser builds against the Debian MLIR, so its
// tools check the text for such lists before MLIR parses it and report them
// as an ordinary parse error instead.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_PARSERGUARD_H
#define FUSER_TOOLS_PARSERGUARD_H

#include "mlir/Support/LLVM.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::fuser {

/// Fails on the first `permutation =`/`dimensions =` in the main buffer of
/// `sourceMgr` that the MLIR 22 parser would crash on, after printing an
/// error at its line and column through `sourceMgr`. Bytecode is not checked.
LogicalResult checkParserHazards(llvm::SourceMgr &sourceMgr);

/// The same, reported as an MLIR diagnostic in `context`, so that the
/// context's handlers (e.g. --verify-diagnostics) see it like a parse error.
LogicalResult checkParserHazards(llvm::SourceMgr &sourceMgr,
                                 MLIRContext *context);

} // namespace mlir::fuser

#endif // FUSER_TOOLS_PARSERGUARD_H
