//===- FuserBase.td - fuser dialect definition -------------*- tablegen -*-===//
//
// The fuser dialect holds fusion groups: each op is one unit of code
// generation (ideally one GPU kernel) over tensors.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERBASE_TD
#define FUSER_DIALECT_FUSER_IR_FUSERBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Fuser_Dialect : Dialect {
  let name = "fuser";
  let cppNamespace = "::mlir::fuser";
  let summary = "Fusion groups for GPU kernel generation";
  let description = [{
    Each fuser op is a fusion group: a computation on tensors that fuser
    lowers to one GPU kernel (or the fewest kernels). Groups are formed from
    linalg on tensors by the fusion passes and carry the kernel configuration
    chosen by `fuser-configure-kernels` as a `#fuser.config` attribute.

    - `fuser.pointwise`: a DAG of elementwise scalar ops over broadcast inputs.
    - `fuser.matmul`: a matrix product with a pointwise epilogue.
    - `fuser.group_norm`: a group normalization with a pointwise epilogue.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

class Fuser_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuser_Dialect, mnemonic, traits>;

class Fuser_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Fuser_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERBASE_TD
