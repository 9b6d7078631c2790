//===- Passes.td - fuser dialect transformation passes -----*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
#define FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuserFusePointwisePass : Pass<"fuser-fuse-pointwise", "mlir::func::FuncOp"> {
  let summary = "Outline maximal DAGs of elementwise linalg ops into fuser.pointwise groups";
  let description = [{
    Finds elementwise linalg ops on tensors (linalg.generic with parallel
    iterators, identity output maps, projected-permutation input maps and an
    arith/math body, plus the named elementwise ops, linalg.fill,
    linalg.broadcast and linalg.transpose) and outlines maximal producer to
    consumer DAGs of them into `fuser.pointwise` ops.

    A producer whose value is also used outside its group becomes an extra
    result of the group when it has the group's shape; otherwise it stays in
    a group of its own. Ops that cannot be fused are left as they were; with
    `report` set, a remark on each says why.

    Before:
    ```mlir
    %0 = linalg.mul ins(%x, %x : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %1 = linalg.exp ins(%0 : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    ```
    After:
    ```mlir
    %1 = fuser.pointwise ins(%x : tensor<?xf32>) maps [affine_map<(d0) -> (d0)>] -> tensor<?xf32> {
    ^bb0(%a: f32):
      %m = arith.mulf %a, %a : f32
      %e = math.exp %m : f32
      fuser.yield %e : f32
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every op left unfused, with the reason">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FuserConfigureKernelsPass : Pass<"fuser-configure-kernels", "mlir::ModuleOp"> {
  let summary = "Choose the kernel configuration of every fusion group";
  let description = [{
    The single place where code generation heuristics live: block sizes,
    vector widths, grid limits, tile sizes and precision. Attaches a
    `#fuser.config` attribute to each fusion group that has none; the
    lowerings only carry it out. The options override the heuristics, for
    developers exploring configurations.

    ```mlir
    %r = fuser.pointwise ins(%x : tensor<?xf32>) maps [...]
           {config = #fuser.config<strategy = "pointwise", block = [256, 1, 1],
                                   vector_width = 4, max_grid = 1048576>} ...
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target chip the heuristics tune for">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Override: threads per block for pointwise groups (0: heuristic)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Override: elements per vector access, 1, 2 or 4 (0: heuristic)">,
    Option<"maxGrid", "max-grid", "int64_t", /*default=*/"-1",
           "Override: maximum blocks per launch; 0 means unlimited (-1: heuristic)">,
    Option<"precision", "precision", "std::string", /*default=*/"\"fp32\"",
           "Arithmetic precision policy: fp32, tf32, 3xtf32, bf16, f16">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def FuserMergeGpuModulesPass : Pass<"fuser-merge-gpu-modules", "mlir::ModuleOp"> {
  let summary = "Move every kernel into one gpu.module so a module yields one PTX";
  let description = [{
    Kernels come from fuser's own lowerings and from upstream outlining, each
    in its own gpu.module. The runtime loads one PTX image per compiled
    module, so this pass moves every gpu.func into the gpu.module named by
    `module-name` (created if needed), renames clashing kernels and updates
    the gpu.launch_func references.
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string",
           /*default=*/"\"fuser_kernels\"", "Name of the merged gpu.module">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
