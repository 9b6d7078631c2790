//===- FuserOps.h - fuser ops and attributes --------------------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSEROPS_H
#define FUSER_DIALECT_FUSER_IR_FUSEROPS_H

#include "fuser/Dialect/Fuser/IR/FuserDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserAttrs.h.inc"

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.h.inc"

namespace mlir::fuser {
/// Kernel attribute listing the parameters that are TMA tensor maps
/// (fuser.tensor_map on the host), passed by value once lowered
/// (-fuser-lower-tensor-map-params).
constexpr llvm::StringLiteral kTensorMapArgsAttr = "fuser.tensor_map_args";
} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_H
