//===- FuserDialect.h - fuser dialect ---------------------------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERDIALECT_H
#define FUSER_DIALECT_FUSER_IR_FUSERDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "fuser/Dialect/Fuser/IR/FuserDialect.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_FUSERDIALECT_H
