//===- PipelineFuzzer.cpp - libFuzzer target for fuser's pipelines --------===//
//
// Checks the input with fuser's parser guard as fuser-opt does, parses it as
// MLIR with the dialects fuser-opt registers and runs fuser's pipelines on it
// in-process:
//   1. the CPU reference pipeline (fusion, then loops and LLVM) on a clone;
//   2. the GPU pipeline down to PTX (verify entry points, fusion, kernels,
//      bufferization, fallback, NVVM, gpu-module-to-binary), with remarks on;
//   3. when that succeeds, fuser-translate's manifest and C header emission,
//      and the runtime's parser on that manifest.
// Diagnostics are swallowed: rejecting bad input with an error is the
// expected outcome. A finding is a crash, an assertion (fuser's own are on in
// this build), an ASan/UBSan report, a hang (-timeout), a pass of fuser's
// that leaves IR the verifier rejects, or a manifest the runtime rejects.
//
//===----------------------------------------------------------------------===//

#include "fuser/InitAll.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Manifest/Manifest.h"
#include "fuser/Pipelines/Pipelines.h"
#include "fuser/Target/CHeader.h"
#include "fuser/Target/Manifest.h"
#include "fuser/Tools/ParserGuard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

namespace {
/// The PassManager verifies the IR after every pass, as in fuser-opt, and
/// turns invalid IR into a pass failure. After one of fuser's own passes
/// (`fuser-*`) this aborts when the IR is invalid: the pass either produced
/// it or failed and left it behind. After an upstream pass invalid IR stays
/// an error, as in fuser-opt: e.g. one-shot-bufferize turns a
/// tensor.expand_shape whose output_shape contradicts its type, which the
/// tensor verifier accepts, into an invalid memref.expand_shape.
struct AbortOnInvalidIRAfterFuserPass : public PassInstrumentation {
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (!pass->getArgument().starts_with("fuser-"))
      return;
    // Print the verifier's messages, which the fuzzer otherwise swallows.
    ScopedDiagnosticHandler print(op->getContext(), [](Diagnostic &diag) {
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    if (succeeded(verify(op)))
      return; // an ordinary failure with a diagnostic
    llvm::errs() << "fuser-pipeline-fuzzer: pass '" << pass->getArgument()
                 << "' left IR that fails verification\n";
    std::abort();
  }
};
} // namespace

using PipelineOptions = mlir::fuser::FuserPipelineOptions;

/// Runs one pipeline on `module` with verification after each pass. Failing
/// with a diagnostic is fine.
static LogicalResult runPipeline(ModuleOp module,
                                 void (*build)(OpPassManager &,
                                               const PipelineOptions &),
                                 const PipelineOptions &opts) {
  PassManager pm(module->getContext());
  pm.enableVerifier(true); // the default, and what the findings rely on
  pm.addInstrumentation(std::make_unique<AbortOnInvalidIRAfterFuserPass>());
  build(pm, opts);
  return pm.run(module);
}

/// fuser-translate's outputs for a compiled module. The manifest the
/// compiler emits must load in the runtime: a rejection is a finding.
static void translate(ModuleOp module) {
  std::string manifest;
  llvm::raw_string_ostream os(manifest);
  if (succeeded(mlir::fuser::translateToManifest(module, os))) {
    try {
      (void)::fuser::parseManifest(manifest);
    } catch (const ::fuser::Error &e) {
      llvm::errs() << "fuser-pipeline-fuzzer: the runtime rejects the "
                      "compiler's manifest: "
                   << e.what() << "\n"
                   << manifest << "\n";
      std::abort();
    }
  }
  (void)mlir::fuser::translateToCHeader(module, "fuzz", llvm::nulls());
}

/// Run directly or by `make fuzz`, the same ASan defaults as `make sanitize`
/// (see SAN_ENV in the Makefile): LLVM's BumpPtrAllocator poisons slabs in
/// our instrumented copy of its inline code that uninstrumented MLIR code
/// then hands out, a false use-after-poison. ASAN_OPTIONS still overrides.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input, so a finding reproduces from its input alone.
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    mlir::fuser::registerFuserDialects(*r);
    return r;
  }();
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });

  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // The lexer relies on the NUL terminator that a copied buffer has.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  // What fuser-opt and fuser-translate do first: reject the lists MLIR 22's
  // linalg parsers crash on (F2). A crash past it is a gap in the guard.
  if (failed(mlir::fuser::checkParserHazards(sourceMgr, &context)))
    return 0;
  ParserConfig config(&context); // verifies after parsing
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module)
    return 0;

  PipelineOptions cpuOpts;
  OwningOpRef<ModuleOp> clone = cast<ModuleOp>((*module)->clone());
  (void)runPipeline(*clone, mlir::fuser::buildCpuReferencePipeline, cpuOpts);

  PipelineOptions gpuOpts;
  gpuOpts.report = true; // the remark paths are code too
  if (succeeded(runPipeline(*module, mlir::fuser::buildGpuPipeline, gpuOpts)))
    translate(*module);
  return 0;
}
