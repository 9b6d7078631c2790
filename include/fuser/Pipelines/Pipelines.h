//===- Pipelines.h - fuser's registered pass pipelines ----------*- C++ -*-===//
//
// The pipelines that fuser-opt, fuser-translate and the Python API run.
// Each is registered with PassPipelineRegistration so `fuser-opt --help`
// lists it and `fuser-opt --<name>` runs exactly what the API runs.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_PIPELINES_PIPELINES_H
#define FUSER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::fuser {

struct FuserPipelineOptions
    : public PassPipelineOptions<FuserPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc(
          "Target GPU: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, "
          "sm_100a, sm_100f, sm_103[a|f], sm_110[a|f], sm_120[a|f], "
          "sm_121[a|f] (README: which kernels each gets). 'a' enables the "
          "chip-specific features fuser uses on sm_90a (wgmma, TMA)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx88. Default: the oldest PTX ISA "
                     "the chip accepts, at least 8.0 (8.6 for sm_100, 8.7 "
                     "for sm_120); an older one than the chip needs is an "
                     "error"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel image: ptx (no CUDA needed) or cubin (runs ptxas)"),
      llvm::cl::init("ptx")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level, 0 to 3"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Arithmetic precision of f32 matmuls: fp32 (default; at "
                     "least fp32-accurate, fp32-kernel picks the kernel), "
                     "tf32, 3xtf32, or tf32_2xbf16 (fp32-accurate through "
                     "that kernel where it applies). bf16 and f16 matmuls "
                     "always compute in their own type"),
      llvm::cl::init("fp32")};
  PassOptions::Option<std::string> tensorCoreKernel{
      *this, "tensor-core-kernel",
      llvm::cl::desc("Kernel of tf32/bf16/f16 matmuls: auto (default: on "
                     "sm_90a with K-major operands, wgmma-tma when K is "
                     "static, else wgmma for bf16/f16), mma, wgmma or "
                     "wgmma-tma"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> fp32Kernel{
      *this, "fp32-kernel",
      llvm::cl::desc("Kernel of fp32 matmuls: auto (default: on sm_90a "
                     "with K-major operands 3xtf32, split tf32 with "
                     "promoted fp32 sums; else fp64 tensor cores on sm_90; "
                     "else FFMA), 3xtf32, tf32_2xbf16 (bf16 cross terms: "
                     "fp32-class accuracy, opt-in), fp64 or ffma"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> clusterM{
      *this, "cluster-m",
      llvm::cl::desc("Blocks per thread-block cluster of wgmma_tma "
                     "matmuls, sharing B by TMA multicast: 2, or 0 "
                     "(default) and 1 for none"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> splitK{
      *this, "split-k",
      llvm::cl::desc("Slices of K per wgmma_tma matmul, partial sums added "
                     "by a second kernel: 0 (default) chooses by the output "
                     "tiles and K, 1 never splits"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> report{
      *this, "report",
      llvm::cl::desc("Emit remarks on fusion decisions and unfused ops"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root, for libdevice (math functions) and "
                     "ptxas; default: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda"),
      llvm::cl::init("")};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Form fusion groups (off: every op compiles alone)"),
      llvm::cl::init(true)};
};

/// linalg on tensors -> fusion groups with their #fuser.config.
void buildFusionPipeline(OpPassManager &pm, const FuserPipelineOptions &opts);

/// linalg on tensors -> host code launching gpu.func kernels (GPU dialect).
void buildKernelPipeline(OpPassManager &pm, const FuserPipelineOptions &opts);

/// linalg on tensors -> host code plus a gpu.binary holding PTX or cubin.
void buildGpuPipeline(OpPassManager &pm, const FuserPipelineOptions &opts);

/// linalg on tensors -> LLVM dialect for the CPU, through the fused groups
/// (or not, with fuse=false): the reference that mlir-runner executes.
void buildCpuReferencePipeline(OpPassManager &pm,
                               const FuserPipelineOptions &opts);

/// Registers the pipelines above with the pass registry.
void registerFuserPipelines();

} // namespace mlir::fuser

#endif // FUSER_PIPELINES_PIPELINES_H
