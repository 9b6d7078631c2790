//===- Passes.td - fuser conversion passes -----------------*- tablegen -*-===//

#ifndef FUSER_CONVERSION_PASSES_TD
#define FUSER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPointwiseToGPUPass : Pass<"fuser-pointwise-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each fuser.pointwise group to one GPU kernel and its launch";
  let description = [{
    Each configured `fuser.pointwise` becomes a `gpu.func` kernel in the
    gpu.module `@fuser_kernels` and, in its place, host code on tensors:
    output buffers allocated once (`memref.alloc`), `cf.assert`s that the
    broadcast operands agree at run time, a `gpu.launch_func` whose grid is
    computed from the runtime sizes, and `bufferization.to_tensor` of the
    outputs.

    The kernel takes bare `!llvm.ptr<1>` (global) pointers, the element count
    and, when an input broadcasts, the result sizes, all as i64 so byte
    offsets past 2^32 are safe. Threads walk a grid-stride loop of
    `vector_width`-element 128-bit loads and stores, then a scalar tail.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ConvertMatmulToGPUPass : Pass<"fuser-matmul-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each fuser.matmul group to one register-tiled GEMM kernel";
  let description = [{
    Each configured `fuser.matmul` (strategy `ffma`, precision `fp32`)
    becomes one `gpu.func` in `@fuser_kernels` and a launch in its place,
    like `fuser-pointwise-to-gpu`. The kernel:

    - gives each block a BM x BN tile of the result (`tile = [BM, BN, BK]`),
      M tiles along grid x so blocks that share a weight panel run together;
    - streams BK-deep slices of both operands through double-buffered
      shared memory (workgroup attributions), loading the next slice into
      registers (128-bit global loads) while computing on the current one;
    - keeps an 8 x 8 accumulator tile per thread as two 4 x 4 halves, so
      shared-memory reads are 128-bit and bank-conflict free, and issues
      64 FFMAs per k step (`vector.fma` on vector<4xf32>);
    - applies the epilogue in registers and stores each row as 128-bit
      stores; bounds checks handle M, N and K that are not tile multiples.

    Both operand layouts are supported: B as K x N, or N x K with
    `transpose_b` (nn.Linear's x * W^T).

    Strategy `mma` (precision `tf32`, `3xtf32`, `bf16` or `f16`) builds a
    tensor-core kernel instead (MmaGemmKernel.cpp): `mma.sync` m16n8k8 on
    tf32 or m16n8k16 on bf16/f16 with fp32 accumulators, one warp per
    WM x WN piece of the block tile, a STAGES-deep cp.async pipeline in
    dynamic shared memory (`tile = [BM, BN, BK, WM, WN, STAGES]`), and the
    same epilogue semantics, applied to pairs of accumulators in registers.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ConvertGroupNormToGPUPass : Pass<"fuser-group-norm-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each fuser.group_norm group to one GPU kernel and its launch";
  let description = [{
    Each configured `fuser.group_norm` (strategy `group_norm`, f32, static
    sizes past N) becomes one `gpu.func` in `@fuser_kernels` and host code
    in its place, with the conventions of `fuser-pointwise-to-gpu`
    (`!llvm.ptr<1>` arguments, i64 sizes, `cf.assert`s on dynamic sizes,
    a launch whose grid comes from the runtime N).

    One block of `block[0]` threads normalizes one (sample, group), whose
    elements are contiguous. Statistics are fp32, in one pass: per-thread
    sums shifted by one of the thread's own elements, combined with Chan's
    formula through `gpu.shuffle xor` and workgroup memory; the mean stays
    relative to the group's first element, so a large mean with a small
    spread loses no precision. A second pass normalizes, applies gamma and
    beta per channel and the epilogue, with `vector_width`-element loads
    and stores.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::bufferization::BufferizationDialect"];
}

def ConvertFuserToLinalgPass : Pass<"fuser-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower fusion groups to linalg.generic (the CPU reference path)";
  let description = [{
    Turns each `fuser.pointwise` back into one `linalg.generic` over
    `tensor.empty` outputs, so the standard bufferization and loop lowering
    can run a fused program on the CPU (with mlir-runner) and show that
    fusion preserved its results. A `fuser.group_norm` becomes the two-pass
    decomposition on its grouped view (sum, mean, centered sum of squares,
    rsqrt) and a `linalg.generic` for its epilogue.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FUSER_CONVERSION_PASSES_TD
