//===- Passes.h - fuser conversion passes -----------------------*- C++ -*-===//

#ifndef FUSER_CONVERSION_PASSES_H
#define FUSER_CONVERSION_PASSES_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fuser {

#define GEN_PASS_DECL
#include "fuser/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuser/Conversion/Passes.h.inc"

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_PASSES_H
