//===- fuser-translate.cpp - compiled module -> PTX, manifest, header -----===//
//
// Reads a module produced by `fuser-opt --fuser-gpu-pipeline` and writes one
// artifact: the PTX, the cubin, the kernel manifest (JSON) or a C header
// that embeds the PTX with a typed launcher per entry function.
//
// Each translation parses its input as TranslateFromMLIRRegistration does,
// but first checks it with checkParserHazards (fuser/Tools/ParserGuard.h),
// which reports input that would crash MLIR's parser as an ordinary error.
// One difference: the input is always parsed with an implicit top-level
// module (--no-implicit-module is not honoured), as every translation here
// takes a module.
//
//===----------------------------------------------------------------------===//

#include "fuser/InitAll.h"
#include "fuser/Target/CHeader.h"
#include "fuser/Target/KernelImage.h"
#include "fuser/Target/Manifest.h"
#include "fuser/Tools/ParserGuard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string> headerPrefix(
    "fuser-header-prefix",
    llvm::cl::desc("Prefix of the C symbols in --fuser-to-c-header output"),
    llvm::cl::init("fuser"));

/// Registers a translation of the module parsed from the input.
static void registerFromModule(
    StringRef name, StringRef description,
    std::function<LogicalResult(ModuleOp, llvm::raw_ostream &)> translate) {
  TranslateRegistration registration(
      name, description,
      [translate](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                  llvm::raw_ostream &os, MLIRContext *context) {
        DialectRegistry registry;
        mlir::fuser::registerFuserDialects(registry);
        context->appendDialectRegistry(registry);
        if (failed(mlir::fuser::checkParserHazards(*sourceMgr, context)))
          return failure();
        OwningOpRef<ModuleOp> module =
            parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
        if (!module)
          return failure();
        return translate(*module, os);
      });
}

static LogicalResult writeImage(ModuleOp module, llvm::raw_ostream &os,
                                bool wantPtx) {
  auto image = mlir::fuser::getKernelImage(module);
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
  registerFromModule("fuser-to-ptx",
                     "the PTX of a module compiled with format=ptx",
                     [](ModuleOp m, llvm::raw_ostream &os) {
                       return writeImage(m, os, true);
                     });
  registerFromModule("fuser-to-cubin",
                     "the cubin of a module compiled with format=cubin",
                     [](ModuleOp m, llvm::raw_ostream &os) {
                       return writeImage(m, os, false);
                     });
  registerFromModule(
      "fuser-to-manifest",
      "the kernel manifest (JSON): how the runtime runs each entry function",
      [](ModuleOp m, llvm::raw_ostream &os) {
        return mlir::fuser::translateToManifest(m, os);
      });
  registerFromModule(
      "fuser-to-c-header",
      "a C header embedding the PTX, with a typed launcher per entry "
      "function (needs only cuda.h and libcuda)",
      [](ModuleOp m, llvm::raw_ostream &os) {
        return mlir::fuser::translateToCHeader(m, headerPrefix, os);
      });
  return failed(mlirTranslateMain(argc, argv, "fuser translation tool"));
}
