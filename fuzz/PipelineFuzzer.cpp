//===- PipelineFuzzer.cpp - libFuzzer target for fuser's pipelines --------===//
//
// Parses the input as MLIR with the dialects fuser-opt registers and runs
// fuser's pipelines on it in-process:
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
#include "fuser/Pipelines/Pipelines.h"
#include "fuser/Runtime/Error.h"
#include "fuser/Runtime/Manifest.h"
#include "fuser/Target/CHeader.h"
#include "fuser/Target/Manifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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

/// Whether `text` has `permutation =` or `dimensions =` followed by anything
/// but a well-formed integer list. linalg.transpose/broadcast/reduce parse
/// those with DenseI64ArrayAttr::parse and store its null result on failure,
/// so MLIR 22's parser segfaults (upstream, also in fuser-opt; recorded in
/// docs/robustness.md). Skipping such inputs keeps the fuzzer on fuser's code
/// instead of rediscovering that crash.
static bool hasMalformedI64Array(llvm::StringRef text) {
  for (llvm::StringRef key : {"permutation", "dimensions"}) {
    for (size_t pos = text.find(key); pos != llvm::StringRef::npos;
         pos = text.find(key, pos + 1)) {
      llvm::StringRef rest = text.drop_front(pos + key.size()).ltrim();
      if (!rest.consume_front("="))
        continue;
      rest = rest.ltrim();
      if (!rest.consume_front("["))
        return true;
      // [ (-?digits (, -?digits)*)? ]
      for (bool first = true;; first = false) {
        rest = rest.ltrim();
        if (rest.consume_front("]"))
          break;
        if (!first && !rest.consume_front(","))
          return true;
        rest = rest.ltrim();
        rest.consume_front("-");
        size_t digits = rest.find_if_not(llvm::isDigit);
        if (digits == 0)
          return true;
        rest = rest.drop_front(std::min(digits, rest.size()));
      }
    }
  }
  return false;
}

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
  if (hasMalformedI64Array(text))
    return -1; // a known upstream parser crash; not kept in the corpus
  // The lexer relies on the NUL terminator that a copied buffer has.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
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
