//===- fuser-opt.cpp - the fuser optimizer driver -------------------------===//
//
// mlir-opt for fuser: parses linalg on tensors, runs fuser's passes and
// registered pipelines (see --help), and prints the result.
//
//===----------------------------------------------------------------------===//

#include "fuser/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fuser::registerFuserDialects(registry);
  mlir::fuser::registerFuserPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "fuser optimizer driver\n\n"
      "Fuses linalg on tensors into GPU kernels. Typical use:\n"
      "  fuser-opt model.mlir --fuser-gpu-pipeline=\"chip=sm_90a\" | "
      "fuser-translate --fuser-to-ptx\n",
      registry));
}
