//===- fuser-translate.cpp - compiled module -> PTX, manifest, header -----===//
//
// Reads a module produced by `fuser-opt --fuser-gpu-pipeline` and writes one
// artifact: the PTX, the cubin, the kernel manifest (JSON) or a C header
// that embeds the PTX with a typed launcher per entry function.
//
//===----------------------------------------------------------------------===//

#include "fuser/InitAll.h"
#include "fuser/Target/CHeader.h"
#include "fuser/Target/KernelImage.h"
#include "fuser/Target/Manifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string> headerPrefix(
    "fuser-header-prefix",
    llvm::cl::desc("Prefix of the C symbols in --fuser-to-c-header output"),
    llvm::cl::init("fuser"));

static void registerDialects(DialectRegistry &registry) {
  fuser::registerFuserDialects(registry);
}

static LogicalResult writeImage(ModuleOp module, llvm::raw_ostream &os,
                                bool wantPtx) {
  auto image = fuser::getKernelImage(module);
  if (failed(image))
    return failure();
  if (image->isPtx != wantPtx)
    return module.emitError()
           << "the module holds " << (image->isPtx ? "PTX" : "a cubin")
           << "; compile with --fuser-gpu-pipeline=\"format="
           << (wantPtx ? "ptx" : "cubin") << "\"";
  os << image->bytes;
  return success();
}

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration ptx(
      "fuser-to-ptx", "the PTX of a module compiled with format=ptx",
      [](ModuleOp m, llvm::raw_ostream &os) { return writeImage(m, os, true); },
      registerDialects);
  TranslateFromMLIRRegistration cubin(
      "fuser-to-cubin", "the cubin of a module compiled with format=cubin",
      [](ModuleOp m, llvm::raw_ostream &os) {
        return writeImage(m, os, false);
      },
      registerDialects);
  TranslateFromMLIRRegistration manifest(
      "fuser-to-manifest",
      "the kernel manifest (JSON): how the runtime runs each entry function",
      [](ModuleOp m, llvm::raw_ostream &os) {
        return fuser::translateToManifest(m, os);
      },
      registerDialects);
  TranslateFromMLIRRegistration header(
      "fuser-to-c-header",
      "a C header embedding the PTX, with a typed launcher per entry "
      "function (needs only cuda.h and libcuda)",
      [](ModuleOp m, llvm::raw_ostream &os) {
        return fuser::translateToCHeader(m, headerPrefix, os);
      },
      registerDialects);
  return failed(mlirTranslateMain(argc, argv, "fuser translation tool"));
}
