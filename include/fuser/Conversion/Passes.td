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

def ConvertReductionToGPUPass : Pass<"fuser-reduction-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each configured linalg.generic reduction to one GPU kernel and its launch";
  let description = [{
    A `linalg.generic` reduction that `fuser-configure-kernels` gave the
    discardable attribute `fuser.config` (strategy `reduction`, `tile = [S,
    D]`) becomes a `gpu.func` in `@fuser_kernels` and, in its place, host
    code on tensors like `fuser-pointwise-to-gpu`'s: the output allocated
    once, a `gpu.launch_func` over ceil(outputs / (B / S)) blocks, and
    `bufferization.to_tensor` of the output. The kernel parameters are
    (inputs the body reads..., init, out, each loop's extent as i64).

    S threads share each output element, D apart: consecutive ones (D = 1)
    when the widest input's innermost dimension is reduced, else one a
    block-row apart (D = B / S, each warp spanning 32 neighbouring
    outputs). Each folds
    every S-th element into a partial result from the combiner's identity;
    the S partials combine in a fixed order (warp shuffles when they are
    consecutive lanes of one warp, else shared memory), then
    with the init element. Anything else stays with the generic fallback.

    With `tile = [S, D, P]`, P > 1 (few outputs of a long reduction: a
    scalar loss), two kernels: `<func>_reduction` runs P blocks per block
    of outputs, each reducing one contiguous slice of the reduced extent
    into an intermediate of outputs x P partial results (a `memref.alloc`
    in the host code, like split K's slices); `<func>_reduction_combine`
    reduces each output's P partials, one thread each, in the same fixed
    order, and applies the init. No atomics: every run gives the same bits.

    With `tile = [B, 1]` and `cluster_m = C` > 1 (sm_90 and newer), C blocks
    of a thread-block cluster share each output: block c folds slice c of
    the reduced extent, and the blocks' results combine through distributed
    shared memory, in rank order, in every block of the cluster. One
    kernel: a consumer that walks the elements again (a softmax over rows
    too long for one block's share of L2) then re-reads only the block's
    slice.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::vector::VectorDialect"];
}

def ConvertScanToGPUPass : Pass<"fuser-scan-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each configured fuser.scan to one GPU kernel and its launch";
  let description = [{
    A `fuser.scan` that `fuser-configure-kernels` configured becomes a
    `gpu.func` in `@fuser_kernels` and, in its place, host code on tensors
    like `fuser-pointwise-to-gpu`'s: the output (and the accumulator, when
    something reads it) allocated once and a `gpu.launch_func`. The input is
    viewed as [O, L, I]: the dimensions before the scanned one, its extent,
    the dimensions after it. Kernel parameters: (input, accumulator_init
    (exclusive scans, unless a constant fill made it), output, accumulator
    (when read), O, L, I as i64).

    - `scan_rows` (the scanned dimension innermost, 32- or 64-bit elements):
      `tile = [T, R, V]`, T threads per row (a power of two; fewer than 32
      share a warp) and R rows per block. Each thread takes V consecutive
      elements of a chunk of T x V in accesses of `vector_width` elements
      (16-byte vectors where rows are whole vectors), scans them,
      and the row's threads combine their totals in order: warp shuffles,
      then shared memory across warps. A running carry joins the chunks.
    - `scan_serial`: `tile = [U]`, one thread per line of L elements (O x I
      threads; a warp reads 32 neighbouring lines, coalesced when I > 1), U
      elements loaded ahead.

    A pointwise producer of the input that only the scan reads, over the
    input's shape through identity maps (a masked cumsum's `x * mask`),
    runs in the scan's loads; a reversed scan reads and writes its lines
    from their ends.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

def ConvertMatmulToGPUPass : Pass<"fuser-matmul-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each fuser.matmul group to one GEMM kernel (FFMA, mma.sync, wgmma or TMA-fed wgmma) and its launch";
  let description = [{
    Each configured `fuser.matmul` becomes one `gpu.func` in `@fuser_kernels`
    and, in its place, host code on tensors like `fuser-pointwise-to-gpu`'s:
    a `cf.assert` that the reduction sizes (and the epilogue inputs' sizes)
    agree, the output allocated once, and a `gpu.launch_func`. The kernel
    is the one `#fuser.config` names (`fuser-configure-kernels` chooses);
    every kernel applies the epilogue in registers before its single store
    and handles M, N and K that are not tile multiples. A group-norm
    epilogue is normalized in registers too, by every kernel but
    `wgmma_tma` (the tensor-core ones need each group to be a power of two
    of whole 8-column pieces of a warp's columns). B is K x N or, with
    `transpose_b`, N x K (nn.Linear's x * W^T). The kernel parameters are
    (A, B, epilogue inputs..., C, M, N, K), and for `wgmma_tma` then
    ([batch,] K tiles, M tiles, tiles per batch, tiles, tensor map of A, of
    B): the host counts the tiles, so they cost the kernel no registers.
    Static sizes are constants inside the kernels.

    - strategy `ffma` (precision `fp32`, f32 operands): register-tiled fp32
      FMA on CUDA cores (FfmaGemmKernel.cpp). `tile = [BM, BN, BK, TM, TN]`:
      a BM x BN block tile, BK-deep slices of A and B streamed through
      double-buffered shared memory (the next slice loaded into registers
      with 128-bit loads while the current one is computed), TM x TN
      accumulators per thread in 4 x 4 pieces read as bank-conflict-free
      float4s, `vector.fma` on vector<4xf32>. Default 256 x 128 x 8, 16 x 8
      per thread, 256 threads.
    - strategy `mma` (MmaSyncKernel.cpp): warp-level `mma.sync` on tensor
      cores, `tile = [BM, BN, BK, WM, WN, STAGES]`: one warp per WM x WN
      piece of the block tile and a STAGES-deep cp.async pipeline in dynamic
      shared memory. By precision: `tf32` (m16n8k8, f32 operands rounded to
      tf32), `3xtf32` (three tf32 products per step from a hi/lo split),
      `fp64` (m16n8k8.f64: f32 operands widened exactly, fp64 products and
      sums, one rounding to f32), `bf16` and `f16` (m16n8k16 on operands of
      that type); fp32 accumulators except for fp64.
    - strategy `wgmma` (WgmmaKernel.cpp; sm_90a, tf32/bf16/f16, both
      operands K-major): warpgroup-level `wgmma.mma_async` from
      128-byte-swizzled shared memory fed by the same cp.async stages;
      `tile = [BM, BN, BK, 16, BN, STAGES]`: BM / 64 warpgroups of 64 x BN
      (BN at most 256), BK one 128-byte row, at least 3 stages. tf32
      operands are truncated, not rounded.
    - strategy `wgmma_tma` (WgmmaTmaKernel.cpp over TmaPipeline.cpp and,
      for 3xtf32, SplitTf32.cpp; also sm_90a, K-major, with a
      static K whose rows are a multiple of 16 bytes apart; BM = 128, the
      wgmma tile plus a producer warpgroup): one thread of the producer
      warpgroup copies the stages with TMA (`cp.async.bulk.tensor`,
      completing on mbarriers) while the consumer warpgroups (given
      registers with `setmaxnreg`) run `wgmma.mma_async` and release each
      stage on a second mbarrier. The host code adds one
      `fuser.tensor_map` per operand ([BM, BK] and [BN, BK] boxes, 128-byte
      swizzle), which the runtime encodes per call; at most `max_grid`
      blocks loop over the output tiles. In precision `3xtf32` (tf32
      operands, fp32-accurate: the fp32 default on sm_90a) two more producer
      warps write each stage's lo parts (x minus its tf32 truncation) beside
      it, the consumers run A·B_lo + A_lo·B + A·B, and every
      `promote_every` K add the tensor cores' sums into fp32 registers
      (what each add rounds away starts the next chunk's small sums);
      BN <= 128, and the epilogue may hold a group norm.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "The chip the kernels run on (Chips.cpp): its shared-memory limit "
           "bounds the tensor-core kernels' stages">,
  ];
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

def ConvertGroupNormGradToGPUPass : Pass<"fuser-group-norm-grad-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower each fuser.group_norm_grad group to one GPU kernel and its launch";
  let description = [{
    Each configured `fuser.group_norm_grad` (strategy `group_norm_grad`,
    f32, static sizes past N) becomes one `gpu.func` in `@fuser_kernels`
    and host code in its place, with the conventions of
    `fuser-group-norm-to-gpu`: the same threads per (sample, group) and the
    same statistics (shifted fp32 sums, Chan merge, mean relative to the
    group's first element). Kernel signature: (x, gamma, prologue
    inputs..., dx, mean, rstd, n: i64).

    After the statistics, one thread per group writes the mean and rstd
    to their (N, groups) outputs. A second pass computes dy with the
    prologue (identity-mapped inputs read `vector_width` at a time),
    dx_hat = dy * gamma[c] and x_hat, and sums dx_hat and dx_hat * x_hat
    over the group (`gpu.shuffle xor`, then workgroup memory in warp order,
    so every thread gets the same sums). A third pass recomputes both and
    stores dx = rstd * (dx_hat - mean(dx_hat) - x_hat * mean(dx_hat *
    x_hat)) with `vector_width`-element stores.
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

def ConvertParallelGenericsToGPUPass
    : Pass<"fuser-parallel-generics-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Lower the fallback's all-parallel generics on buffers to a GPU launch, 4 elements per thread";
  let description = [{
    The gathers that `fuser-slices-to-gathers` makes of slices,
    concatenations and pads, torch-mlir's gathers (F.embedding, a loss's
    pick of each row's target) and copies reach the generic fallback as
    `linalg.generic` ops on buffers with parallel loops only. The
    fallback's 16 x 16 tiles gave each thread one element: one load in
    flight per thread, which left an H200's memory half idle (a
    concatenation of two 16384 x 4096 tensors at 54% of a device copy,
    0.56x eager).

    Such a generic (every loop parallel, each output written through the
    identity and never read) becomes a `gpu.launch` of 256-thread blocks
    over groups of 4 consecutive elements along the innermost loop (1
    where that loop's extent is dynamic or not a multiple of 4), in a
    grid-stride loop of at most 2^20 blocks. A thread computes its group's
    4 elements (the body, with `linalg.index` the element's coordinates
    and each input loaded through its map), then stores them, so that the
    loads of all 4 are in flight together. What does not depend on the
    column (an embedding's token, its index checks) is computed for the
    first element and reused by the others. A group's accesses along the
    column of a buffer whose static layout keeps each group aligned (rows
    and offset multiples of the group) are one vector (16 bytes for f32)
    through a pointer made on the host, which the manifest asks the
    runtime to align: the inputs read through the column's loop, the
    body's loads whose last index is the column's `linalg.index` and whose
    others are the same for the group (an embedding's row of the table),
    and the outputs. Other generics (reductions, outputs read or written
    through other maps) are left to the fallback.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
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
                           "::mlir::scf::SCFDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FUSER_CONVERSION_PASSES_TD
