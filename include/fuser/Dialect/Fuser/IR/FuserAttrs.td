//===- FuserAttrs.td - fuser attributes --------------------*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERATTRS_TD
#define FUSER_DIALECT_FUSER_IR_FUSERATTRS_TD

include "fuser/Dialect/Fuser/IR/FuserBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"

/// An int64 list printed and parsed in square brackets, `[256, 1, 1]`, so
/// it stays unambiguous inside a struct of parameters.
class Fuser_I64ListParameter<string desc> : ArrayRefParameter<"int64_t", desc> {
  let parser = [{ parseBracketedI64List($_parser) }];
  let printer = [{
    $_printer << '[';
    ::llvm::interleaveComma($_self, $_printer);
    $_printer << ']';
  }];
}

class Fuser_OptionalI64ListParameter<string desc>
    : Fuser_I64ListParameter<desc> {
  let defaultValue = "::llvm::SmallVector<int64_t>()";
  let comparator =
      "::llvm::ArrayRef<int64_t>($_lhs) == ::llvm::ArrayRef<int64_t>($_rhs)";
}

def Fuser_KernelConfigAttr : Fuser_Attr<"KernelConfig", "config"> {
  let summary = "Kernel configuration chosen for a fusion group";
  let description = [{
    Written only by `fuser-configure-kernels` (or a developer override) and
    read by the lowerings, so that every heuristic lives in one place.

    - `strategy`: the kernel the lowering builds: `pointwise` or
      `pointwise_transpose` (`fuser.pointwise`), `group_norm`
      (`fuser.group_norm`), or for `fuser.matmul` `ffma` (register-tiled
      fp32 FMA), `mma` (`mma.sync` tensor cores), `wgmma`
      (`wgmma.mma_async`, sm_90a) or `wgmma_tma` (`wgmma.mma_async` fed by
      TMA, sm_90a). Each lowering rejects the
      strategies it does not implement.
    - `block`: threads per block, x/y/z.
    - `vector_width`: elements per vector access (1 disables vectorization).
    - `max_grid`: upper bound on blocks along x; threads grid-stride past it.
    - `tile`: tile sizes for tiled strategies; for `pointwise`, empty or
      [vectors per thread]: the vectors each thread loads before it stores;
      for `pointwise_transpose`, [TM, TN]: each block stages a TM x TN tile
      of the result (rows x columns of its two innermost dimensions)
      through shared memory, reading the transposed input along its rows
      and writing the result along its rows (block = [B, 1, 1], B dividing
      TM * TN; vector_width 1); for `group_norm`, empty (one block per
      group), [T]: T threads per group (a power of two up to 32), block /
      T groups per block, or [B, P] (B the block): each group split over P
      blocks, a statistics kernel then a normalizing one; for `reduction`,
      [S, D] or [S, D, P]: S threads per output, consecutive (D = 1) or a
      block-row apart (D = B / S), and P blocks per output in two stages;
      or [1, D, 1, U]: one thread per U consecutive outputs along a
      window's row loop (`windowRowLoop`), whose shared input rows it loads
      once; or [1, D, 1, U, V]: U x V outputs, V consecutive along the
      window's column loop (`windowColumnLoop`), its input rows loaded as
      V-element vectors.
    - `min_blocks_per_sm`: blocks that must fit on one SM at once (0: no
      constraint); caps the registers per thread like `__launch_bounds__`.
    - `precision`: the arithmetic of the kernel: `fp32` (FFMA), `tf32`,
      `3xtf32`, `tf32_2xbf16` (3xtf32 with its cross terms as one bf16
      product, `wgmma_tma` only), `fp64` (f32 operands on f64 tensor cores),
      `bf16`, `f16`.
    - `promote_every`: for split precisions (`3xtf32`, `tf32_2xbf16` on
      `wgmma_tma`), the
      K elements after which the tensor cores' accumulators are added into
      fp32 registers and restarted, each add's rounding error carried into
      the next chunk (0: never). The tensor cores' own fp32 sums truncate;
      promoting them every 64 K (128 from K = 4096) keeps the GEMM's error
      within cuBLAS SGEMM's (without: 77x at K = 8192).
    - `split_k`: for matmul strategies whose record allows it (`wgmma_tma`),
      the slices K is split into (1: off). Each block computes one output
      tile over one slice of about K / split_k (whole K tiles) and stores
      its raw fp32 sums into a [split_k, M, N] intermediate; a second
      kernel adds the slices in a fixed order (deterministic) and applies
      the epilogue. For products with too few output tiles to fill the
      GPU (M = N = 256, K = 131072: 4 tiles for 132 SMs).
    - `l2_prefetch`: for `pointwise`, the bytes the L2 cache fetches around
      each of the kernel's streamed input loads (PTX `.L2::<n>B`: 64, 128
      or 256; 0: the plain load). Lets DRAM serve a warp's neighbouring
      sectors in one go.
    - `cluster_m`: for `wgmma_tma`, the blocks of a thread-block cluster
      (1: no cluster, or 2). A cluster's blocks compute vertically adjacent
      output tiles (the same columns, so the same B tile); each copies half
      of that B tile by TMA multicast into every block of the cluster, and a
      stage is refilled once the consumers of every block have released it.
      Halves the L2 reads of B, the larger operand of the 128 x 256 tile.
      On request only (fuser-configure-kernels' `cluster-m=2`): measured
      neutral on an H100.
      For `reduction` and `reduction_epilogue` with tile = [B, 1], the
      blocks of a cluster sharing each output (2 to 8; sm_90 and newer):
      each folds a slice of the reduced extent, and their results combine
      through distributed shared memory, so a consumer in the kernel
      re-reads only its block's slice.
    - `group_m`: for `wgmma_tma`, the order of the output tiles its
      persistent blocks walk: bands of `group_m` M tiles, each band's tiles
      M fastest, band after band (0: one band of every M tile). The blocks
      running at once then share both a band of A and a panel of B in L2,
      so neither operand is read from DRAM once per tile of the other.

    Example: `#fuser.config<strategy = "pointwise", block = [256, 1, 1],
    vector_width = 4, max_grid = 1048576>`
  }];
  let parameters = (ins
    StringRefParameter<"code generation strategy">:$strategy,
    Fuser_I64ListParameter<"threads per block">:$block,
    DefaultValuedParameter<"int64_t", "1">:$vector_width,
    DefaultValuedParameter<"int64_t", "0">:$max_grid,
    Fuser_OptionalI64ListParameter<"tile sizes">:$tile,
    DefaultValuedParameter<"int64_t", "0">:$min_blocks_per_sm,
    StringRefParameter<"precision policy", "\"fp32\"">:$precision,
    DefaultValuedParameter<"int64_t", "0">:$promote_every,
    DefaultValuedParameter<"int64_t", "1">:$split_k,
    DefaultValuedParameter<"int64_t", "0">:$l2_prefetch,
    DefaultValuedParameter<"int64_t", "1">:$cluster_m,
    DefaultValuedParameter<"int64_t", "0">:$group_m
  );
  /// Every parameter but l2_prefetch, which stays 0, split_k and
  /// cluster_m, 1, and group_m, 0, unless given: the builders of the
  /// kernels that use none.
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$strategy,
                     "::llvm::ArrayRef<int64_t>":$block,
                     "int64_t":$vector_width, "int64_t":$max_grid,
                     "::llvm::ArrayRef<int64_t>":$tile,
                     "int64_t":$min_blocks_per_sm,
                     "::llvm::StringRef":$precision,
                     "int64_t":$promote_every,
                     CArg<"int64_t", "1">:$split_k,
                     CArg<"int64_t", "1">:$cluster_m,
                     CArg<"int64_t", "0">:$group_m), [{
      return $_get($_ctxt, strategy, block, vector_width, max_grid, tile,
                   min_blocks_per_sm, precision, promote_every, split_k,
                   /*l2_prefetch=*/int64_t(0), cluster_m, group_m);
    }]>
  ];
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

/// The kernels a `fuser.matmul` lowers to. `#fuser.config` keeps the
/// strategy as its string (printed IR is unchanged); this enum is the one
/// list of the names, and GemmStrategy.h holds one record per case: when it
/// applies, its default tiles, its threads and its grid.
def Fuser_GemmStrategy : I32EnumAttr<"GemmStrategy",
    "the kernel of a fuser.matmul", [
  I32EnumAttrCase<"ffma", 0>,      // register-tiled fp32 FMA
  I32EnumAttrCase<"mma", 1>,       // mma.sync tensor cores
  I32EnumAttrCase<"wgmma", 2>,     // wgmma.mma_async from cp.async stages
  I32EnumAttrCase<"wgmma_tma", 3>  // wgmma.mma_async fed by TMA
]> {
  let cppNamespace = "::mlir::fuser";
  let genSpecializedAttr = 0;
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERATTRS_TD
