//===- fuser-opt.cpp - the fuser optimizer driver -------------------------===//
//
// mlir-opt for fuser: parses linalg on tensors, runs fuser's passes and
// registered pipelines (see --help), and prints the result.
//
// main() is MlirOptMain(argc, argv, ...) spelled out, so that the input is
// read once and checked by checkParserHazards (fuser/Tools/ParserGuard.h)
// before MLIR parses it: the whole buffer, before -split-input-file cuts it,
// and an error stops the tool.
//
//===----------------------------------------------------------------------===//

#include "fuser/InitAll.h"
#include "fuser/Tools/ParserGuard.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

using namespace mlir;

static LogicalResult run(int argc, char **argv, DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv,
      "fuser optimizer driver\n\n"
      "Fuses linalg on tensors into GPU kernels. Typical use:\n"
      "  fuser-opt model.mlir --fuser-gpu-pipeline=\"chip=sm_90a\" | "
      "fuser-translate --fuser-to-ptx\n",
      registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // These print and return before any input is read.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(argc, argv, inputFilename, outputFilename, registry);
  // What MlirOptMain(argc, argv, ...) sets up: stack traces on a crash, etc.
  llvm::InitLLVM initLLVM(argc, argv);

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  {
    // A view of the buffer, which MlirOptMain then takes over.
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (failed(fuser::checkParserHazards(sourceMgr)))
      return failure();
  }

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return failure();
  output->keep(); // only a successful run writes the output file
  return success();
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  fuser::registerFuserDialects(registry);
  fuser::registerFuserPasses();
  return asMainReturnCode(run(argc, argv, registry));
}
