//===- Passes.h - fuser dialect transformation passes -----------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fuser {

#define GEN_PASS_DECL
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_H
