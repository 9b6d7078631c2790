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

def ConvertFuserToLinalgPass : Pass<"fuser-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower fusion groups to linalg.generic (the CPU reference path)";
  let description = [{
    Turns each `fuser.pointwise` back into one `linalg.generic` over
    `tensor.empty` outputs, so the standard bufferization and loop lowering
    can run a fused program on the CPU (with mlir-runner) and show that
    fusion preserved its results.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FUSER_CONVERSION_PASSES_TD
