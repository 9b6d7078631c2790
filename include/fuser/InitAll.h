//===- InitAll.h - register what fuser's tools use --------------*- C++ -*-===//
//
// Only the dialects fuser parses and the passes it runs are registered, so
// the tools link quickly and `--help` stays readable.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_INITALL_H
#define FUSER_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::fuser {

/// Dialects (and their interface models) that fuser's tools parse and use.
void registerFuserDialects(DialectRegistry &registry);

/// fuser's passes and pipelines, plus the upstream passes they are built
/// from, so each stage can be run and tested alone.
void registerFuserPasses();

} // namespace mlir::fuser

#endif // FUSER_INITALL_H
