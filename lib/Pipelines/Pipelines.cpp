//===- Pipelines.cpp - fuser's registered pass pipelines ------------------===//

#include "fuser/Pipelines/Pipelines.h"

#include "fuser/Dialect/Fuser/IR/Chips.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::fuser;

/// The CUDA toolkit root: the option, else the usual environment variables,
/// else the default install location.
static std::string resolveCudaPath(StringRef option) {
  if (!option.empty())
    return option.str();
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(var); value && *value)
      return value;
  return "/usr/local/cuda";
}

static void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Dense row-major buffers at function boundaries: the runtime ABI.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
}

void mlir::fuser::buildFusionPipeline(OpPassManager &pm,
                                      const FuserPipelineOptions &opts) {
  // Host comparisons that integer ranges decide fold, and their asserts go
  // (torch-mlir asserts that a dynamic size is not negative, a comparison
  // the kernel manifest cannot describe).
  pm.addNestedPass<func::FuncOp>(arith::createArithIntRangeOpts());
  // Folds tensor.dim and constants so fusion sees the real producers.
  pm.addPass(createCanonicalizerPass());
  // Transposes of unit dims (einsum's output) as views, not copies.
  pm.addNestedPass<func::FuncOp>(createFuserFoldUnitTransposesPass());
  // A reversed cumsum (flip, scan, flip) as one reversed scan.
  pm.addNestedPass<func::FuncOp>(createFuserFoldScanFlipsPass());
  // torch-mlir's run-time broadcasts (tensor.extract at a select of the
  // index) read through indexing maps, which fusion takes.
  pm.addNestedPass<func::FuncOp>(createFuserFoldBroadcastExtractsPass());
  // A gather's elements from its elementwise producer's inputs: the
  // producer (cross_entropy's log_softmax) is no longer computed in full.
  pm.addNestedPass<func::FuncOp>(createFuserSinkIntoExtractsPass());
  // Divisions by constants and constant powers as PyTorch computes them.
  pm.addNestedPass<func::FuncOp>(createFuserDivideByReciprocalPass());
  pm.addNestedPass<func::FuncOp>(createFuserConstantPowersPass());
  // Pooling windows as reductions, for the reduction kernel.
  pm.addNestedPass<func::FuncOp>(createFuserGeneralizePoolingPass());
  if (opts.fuse) {
    // Reductions lose the results nobody reads (softmax's max index), then
    // the fills and index math those needed.
    pm.addNestedPass<func::FuncOp>(createFuserEraseUnusedResultsPass());
    pm.addPass(createCanonicalizerPass());
    // GroupNorm backwards first, while their statistics are plain linalg.
    FuserFuseGroupNormGradPassOptions groupNormGradOpts;
    groupNormGradOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseGroupNormGradPass(groupNormGradOpts));
    // Group norms next: a matmul before one then absorbs only up to the
    // group norm's input (its bias, say), not the normalization's ops.
    FuserFuseGroupNormPassOptions groupNormOpts;
    groupNormOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseGroupNormPass(groupNormOpts));
    // Matmuls next, so they claim their elementwise epilogues before
    // pointwise fusion groups what is left.
    FuserFuseMatmulPassOptions matmulOpts;
    matmulOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(createFuserFuseMatmulPass(matmulOpts));
    // A group norm right after a matmul joins its epilogue when it fits.
    FuserFuseMatmulGroupNormPassOptions matmulNormOpts;
    matmulNormOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseMatmulGroupNormPass(matmulNormOpts));
    // A matmul computes A from A's elementwise producers as it reads it.
    FuserFuseMatmulProloguesPassOptions matmulPrologueOpts;
    matmulPrologueOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseMatmulProloguesPass(matmulPrologueOpts));
    // 16-bit sums accumulate in f32, as PyTorch's do.
    FuserWidenHalfSumsPassOptions widenOpts;
    widenOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(createFuserWidenHalfSumsPass(widenOpts));
    // i1 all/any reductions accumulate in i32, for the reduction kernel.
    FuserWidenBoolReductionsPassOptions boolOpts;
    boolOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserWidenBoolReductionsPass(boolOpts));
    // Reductions read their elementwise producers' inputs directly.
    FuserFuseReductionProloguesPassOptions prologueOpts;
    prologueOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseReductionProloguesPass(prologueOpts));
    // A softmax's max and sum of exponentials: one reduction.
    FuserOnlineSoftmaxPassOptions onlineOpts;
    onlineOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(createFuserOnlineSoftmaxPass(onlineOpts));
    // A row sum of log_softmax reads the logits with the statistics.
    FuserSplitShiftedSumsPassOptions splitOpts;
    splitOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(createFuserSplitShiftedSumsPass(splitOpts));
    // A mean's scale goes into its sum's terms: one kernel.
    FuserScaleSumTermsPassOptions scaleOpts;
    scaleOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(createFuserScaleSumTermsPass(scaleOpts));
    // The terms those passes made (a loss's smoothing sum over the row
    // sums) go into the reductions that read them, before they merge.
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseReductionProloguesPass(prologueOpts));
    // Reductions that share a read: one kernel.
    FuserMergeSiblingReductionsPassOptions siblingOpts;
    siblingOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserMergeSiblingReductionsPass(siblingOpts));
    // Per-channel vectors broadcast through a reshape fuse into their
    // consumers (BatchNorm's scale).
    pm.addNestedPass<func::FuncOp>(createFuserFoldUnitExpandsPass());
    // A gather computes its indices as it reads them (a loss's targets).
    FuserFuseGatherProducersPassOptions gatherProducerOpts;
    gatherProducerOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(
        createFuserFuseGatherProducersPass(gatherProducerOpts));
    FuserFusePointwisePassOptions fuseOpts;
    fuseOpts.report = opts.report;
    pm.addNestedPass<func::FuncOp>(createFuserFusePointwisePass(fuseOpts));
    // Explicit constant scalings in the bodies, for code generation to fold.
    pm.addNestedPass<func::FuncOp>(createFuserSimplifyGroupBodiesPass());
  }
  // The one configuration step: every heuristic is chosen here.
  FuserConfigureKernelsPassOptions configOpts;
  configOpts.chip = opts.chip;
  configOpts.precision = opts.precision;
  configOpts.fp32Kernel = opts.fp32Kernel;
  configOpts.tensorCoreKernel = opts.tensorCoreKernel;
  configOpts.clusterM = opts.clusterM;
  configOpts.splitK = opts.splitK;
  configOpts.report = opts.report;
  pm.addPass(createFuserConfigureKernelsPass(configOpts));
  pm.addPass(createCSEPass());
}

void mlir::fuser::buildKernelPipeline(OpPassManager &pm,
                                      const FuserPipelineOptions &opts) {
  // Bad input fails first, against the source. Not in the fusion pipeline:
  // the CPU reference runs it on mlir-runner drivers that are no entry
  // points.
  pm.addPass(createFuserVerifyEntryPointsPass());
  buildFusionPipeline(pm, opts);
  // Fusion groups become kernels while still on tensors.
  ConvertMatmulToGPUPassOptions matmulOpts;
  matmulOpts.chip = opts.chip;
  pm.addPass(createConvertMatmulToGPUPass(matmulOpts));
  pm.addPass(createConvertGroupNormToGPUPass());
  pm.addPass(createConvertGroupNormGradToGPUPass());
  // Reductions before pointwise groups: a fill that only inits a
  // reduction becomes a constant of its kernel, not a kernel of its own.
  pm.addPass(createConvertReductionToGPUPass());
  pm.addPass(createConvertScanToGPUPass());
  pm.addPass(createConvertPointwiseToGPUPass());
  // Slices, concatenations and pads left in host code would bufferize to
  // strided views, which kernels cannot take: they become gathers.
  FuserSlicesToGathersPassOptions gatherOpts;
  gatherOpts.report = opts.report;
  pm.addNestedPass<func::FuncOp>(createFuserSlicesToGathersPass(gatherOpts));
  addBufferization(pm);
  // The generic fallback: whatever linalg is left becomes parallel loops
  // (its reduction loops innermost: every output element a thread), 16x16
  // tiles mapped to blocks and threads. Correct, not fast. The
  // innermost loop maps to x, so a warp's threads read neighbouring
  // elements of row-major tensors (outermost-first put a warp's 16 lanes 16
  // rows apart: one sector per lane).
  pm.addNestedPass<func::FuncOp>(createFuserCopiesToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createFuserUnitParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(createFuserReductionLoopsInnermostPass());
  pm.addNestedPass<func::FuncOp>(createFuserGuardAssertsPass());
  // Gathers and copies (every loop parallel): 4 elements per thread.
  pm.addNestedPass<func::FuncOp>(createConvertParallelGenericsToGPUPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({16, 16}, /*noMinMaxBounds=*/true));
  GpuMapParallelLoopsPassOptions mapping;
  mapping.mappingPolicyStr = "innermost-first";
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass(mapping));
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  // Constants and sizes into the launches, so that the kernels index with
  // them (a division by a known extent is a multiply and shift) instead of
  // taking them as arguments.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // One gpu.module, so one PTX image, per compiled module.
  pm.addPass(createFuserMergeGpuModulesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // What no lowering took is reported here, not by fuser-translate.
  pm.addPass(createFuserVerifyHostCodePass());
}

void mlir::fuser::buildGpuPipeline(OpPassManager &pm,
                                   const FuserPipelineOptions &opts) {
  buildKernelPipeline(pm, opts);
  GpuNVVMAttachTargetOptions target;
  target.chip = opts.chip;
  // verifyOptions checked the chip.
  target.features =
      opts.features.empty()
          ? "+ptx" + std::to_string(defaultPtxVersion(*lookupChip(opts.chip)))
          : opts.features.getValue();
  target.optLevel = opts.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createFuserNarrowFPowIExponentsPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64; // W1 indexes past 2^32 bytes
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  // NVVM ops that lower to inline PTX (wgmma.mma_async).
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createFuserLowerTensorMapParamsPass());

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = opts.format == "cubin" ? "bin" : "isa";
  // Without the toolkit, math functions (tanh, exp, ...) would stay
  // unresolved libdevice calls that only ptxas reports.
  binary.toolkitPath = resolveCudaPath(opts.cudaPath);
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::fuser::buildCpuReferencePipeline(OpPassManager &pm,
                                            const FuserPipelineOptions &opts) {
  buildFusionPipeline(pm, opts);
  pm.addPass(createConvertFuserToLinalgPass());
  addBufferization(pm);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// The newest PTX ISA LLVM 22's NVPTX backend emits (`llc -mattr=help`).
static constexpr unsigned kNewestPtxVersion = 90;

/// For format=cubin: whether the toolkit's ptxas assembles PTX ISA
/// `ptxVersion` for `chip` (an older toolkit knows neither newer chips nor
/// newer PTX). Returns the reason when it does not. Checked by assembling
/// an empty module, so the answer is ptxas's own.
static std::optional<std::string> ptxasRejects(StringRef cudaPath,
                                               StringRef chip,
                                               StringRef ptxVersion) {
  SmallString<128> ptxas(cudaPath);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  if (!llvm::sys::fs::can_execute(ptxas))
    return ("format=cubin runs ptxas, and there is none at " + ptxas +
            " (set cuda-path= or CUDA_HOME, or use format=ptx)")
        .str();
  SmallString<128> input, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("fuser-ptxas-probe", "ptx", fd,
                                         input) ||
      llvm::sys::fs::createTemporaryFile("fuser-ptxas-probe", "log", log))
    return std::nullopt; // Nothing to probe with; ptxas reports it later.
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ".version " << ptxVersion << "\n.target " << chip
       << "\n.address_size 64\n";
  }
  std::string arch = ("-arch=" + chip).str();
  StringRef args[] = {ptxas, arch, input, "-o", "/dev/null"};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    output = (*buffer)->getBuffer().split('\n').first.trim().str();
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(log);
  if (rc == 0)
    return std::nullopt;
  return ("format=cubin: the ptxas at " + ptxas + " cannot assemble PTX ISA " +
          ptxVersion + " for " + chip + " (" + output +
          "); use a newer CUDA toolkit (cuda-path=) or format=ptx")
      .str();
}

/// Rejects options that the passes would only report late, or not at all.
static LogicalResult
verifyOptions(StringRef pipeline, const FuserPipelineOptions &opts,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
  // NVPTX only warns about an unknown processor and compiles anyway; an empty
  // chip crashes the NVVM target verifier.
  const ChipInfo *chip = lookupChip(opts.chip);
  if (!chip)
    return errorHandler(pipeline + ": unsupported chip '" + opts.chip +
                        "'; supported: " + supportedChipNames());
  // An older PTX ISA than the chip needs is a fatal error in NVPTX.
  if (std::optional<unsigned> ptx = ptxVersionOfFeatures(opts.features)) {
    if (*ptx < chip->minPtxVersion)
      return errorHandler(
          pipeline + ": " + opts.chip + " needs PTX ISA " +
          formatPtxVersion(chip->minPtxVersion) + " or newer, but features=" +
          opts.features + " asks for " + formatPtxVersion(*ptx) +
          "; use features=+ptx" + Twine(chip->minPtxVersion) +
          " or leave features out");
    if (*ptx > kNewestPtxVersion)
      return errorHandler(pipeline + ": features=" + opts.features +
                          " asks for PTX ISA " + formatPtxVersion(*ptx) +
                          ", newer than LLVM's NVPTX backend knows (" +
                          formatPtxVersion(kNewestPtxVersion) + ")");
  }
  if (opts.format != "ptx" && opts.format != "cubin")
    return errorHandler(pipeline + ": unsupported format '" + opts.format +
                        "': expected ptx or cubin");
  if (opts.format == "cubin" && pipeline == "fuser-gpu-pipeline") {
    unsigned ptx = ptxVersionOfFeatures(opts.features)
                       .value_or(defaultPtxVersion(*chip));
    if (std::optional<std::string> why = ptxasRejects(
            resolveCudaPath(opts.cudaPath), opts.chip, formatPtxVersion(ptx)))
      return errorHandler(pipeline + ": " + *why);
  }
  if (opts.optLevel < 0 || opts.optLevel > 3)
    return errorHandler(pipeline + ": opt-level must be 0 to 3, got " +
                        Twine(opts.optLevel));
  return success();
}

/// PassPipelineRegistration, plus verifyOptions once the options parse.
static void registerPipeline(StringRef arg, StringRef description,
                             void (*builder)(OpPassManager &,
                                             const FuserPipelineOptions &)) {
  registerPassPipeline(
      arg, description,
      [arg, builder](OpPassManager &pm, StringRef text,
                     function_ref<LogicalResult(const Twine &)> errorHandler) {
        FuserPipelineOptions opts;
        if (failed(opts.parseFromString(text)) ||
            failed(verifyOptions(arg, opts, errorHandler)))
          return failure();
        builder(pm, opts);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(FuserPipelineOptions());
      });
}

void mlir::fuser::registerFuserPipelines() {
  registerPipeline(
      "fuser-fusion-pipeline",
      "linalg on tensors -> fuser fusion groups with their kernel config",
      buildFusionPipeline);
  registerPipeline("fuser-kernel-pipeline",
                   "linalg on tensors -> host code launching gpu.func kernels "
                   "(GPU dialect, before NVVM)",
                   buildKernelPipeline);
  registerPipeline(
      "fuser-gpu-pipeline",
      "linalg on tensors -> fused kernels -> NVVM -> gpu.binary (PTX or "
      "cubin); feed the result to fuser-translate",
      buildGpuPipeline);
  registerPipeline(
      "fuser-cpu-reference-pipeline",
      "linalg on tensors -> (fused groups ->) loops -> LLVM for mlir-runner",
      buildCpuReferencePipeline);
}
