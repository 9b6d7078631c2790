// The torch-mlir corpus (issue 13): the seed models and small models of the
// forms users write, exported by scripts/export-torch-inputs.py (weights as
// arguments, dynamic batch where it makes sense), each compiled to kernels
// and counted against its ideal: 1 for linear + pointwise, 1 for linear +
// GroupNorm/LayerNorm when a group fits a GEMM tile, 2 otherwise. Where a
// model misses it, a remark says why. python-bindings/tests/
// test_torch_corpus.py runs the small ones on the CPU against PyTorch eager.
//
//   model                              kernels (ideal)  what
//   leaky_relu                         1 (1)            leaky_relu(0.01) alone
//   leaky_relu_dynamic                 1 (1)            the same, dynamic batch
//   hardtanh                           1 (1)            hardtanh(-2, 3) alone
//   elu                                1 (1)            ELU(1.5) alone
//   w2                                 1 (1)            W2: leaky_relu(Linear(8192, 8192)(x) * 2, 0.1)
//   w2_dynamic                         1 (1)            W2, dynamic batch
//   w3_linear_group_norm               1 (1)            W3: Linear(8192) -> GroupNorm(512) -> LeakyReLU -> y + y
//   w3_linear_group_norm_dynamic       1 (1)            W3, dynamic batch
//   instance_norm                      1 (1)            InstanceNorm2d(6, affine=True): GroupNorm(6) on the input
//   linear_relu                        1 (1)            nn.Linear(32, 64) + ReLU
//   linear_leaky_relu                  1 (1)            + leaky_relu(0.2)
//   linear_hardtanh                    1 (1)            + hardtanh(-0.5, 0.5)
//   linear_elu                         1 (1)            + ELU(1.2)
//   linear_selu                        1 (1)            + SELU
//   linear_gelu                        1 (1)            + GELU (erf)
//   linear_gelu_tanh                   1 (1)            + GELU (tanh)
//   linear_mish                        1 (1)            + mish (softplus's i1 threshold inside the epilogue)
//   linear_silu                        1 (1)            + SiLU
//   linear_swish                       1 (1)            + y * sigmoid(y)
//   linear_sigmoid_tanh                1 (1)            + tanh(sigmoid(y) * 2)
//   linear_scale_residual              1 (1)            nn.Linear(32, 32): y * 0.5 + y + x
//   linear_float_arg                   1 (1)            F.linear * a Python float (an unused f64 argument, dropped)
//   w2_small                           1 (1)            W2 at (37, 19)
//   linear_group_norm_small            1 (1)            W3 at 64 features, GroupNorm(4)
//   linear_group_norm_no_affine        1 (1)            W3 small, GroupNorm without affine
//   linear_group_norm_gelu             1 (1)            Linear -> GroupNorm(4, 64) -> GELU
//   linear_group_norm_silu             1 (1)            Linear -> GroupNorm(8, 64) -> SiLU
//   linear_layer_norm_relu             1 (1)            Linear -> LayerNorm(64) -> ReLU (no reshape before the statistics)
//   linear_group_norm_wide             2 (2)            Linear -> GroupNorm(1, 256) -> ReLU: a group wider than a tile
//   layer_norm                         1 (1)            LayerNorm(64)
//   layer_norm_3d_dynamic              1 (1)            LayerNorm(64) on (B, 8, 64)
//   group_norm_4d_dynamic              1 (1)            GroupNorm(4, 8) on (B, 8, 5, 7)
//   transposed_left                    1 (1)            relu(x.T @ W + b): the transposed copy absorbed (transpose_a, FFMA)
//   bmm                                1 (1)            torch.bmm: a batched fuser.matmul (fp64 tensor cores: too small to copy B K-major for 3xtf32)
//   bmm_scale_relu                     1 (1)            relu(torch.bmm * 0.125)
//   matmul_triu                        1 (1)            torch.triu(a @ b): the mask evaluated at compile time, the select in the epilogue
//   matmul_tril                        1 (1)            torch.tril(a @ b, -1)
//   matmul_triu_large                  1 (1)            torch.triu(a @ b) at 320 x 320: the mask computed in the epilogue from the index vectors
//   linear_arange                      1 (1)            Linear + torch.arange * 0.01
//   softmax_rows                       1 (1)            softmax over rows of 128, dynamic batch: online statistics, the output pass in their kernel, the rows held in registers
//   log_softmax_rows                   1 (1)            log_softmax over rows of 100: the output pass reads the rows again
//   softmax_long_rows                  1 (1)            softmax over rows of 65537: 4 blocks of a cluster per row, each re-reading its slice
//   rms_norm_rows                      1 (1)            x * rsqrt(mean(x^2, -1) + eps) * weight (LLM RMSNorm)
//   l2_normalize_rows                  1 (1)            F.normalize over rows of 64, dynamic batch: the broadcast's extracts read through maps
//   rms_norm_channels                  1 (1)            x / sqrt(mean(x * x, dim=1) + eps) on NCHW
//   cumsum_rows                        1 (1)            torch.cumsum over rows of 100: tm_tensor.scan as fuser.scan
//   cumprod_batch                      1 (1)            torch.cumprod down the dynamic batch: a thread per column
//   masked_cumsum                      1 (1)            cumsum(x * (x > 0)): the mask computed in the scan's loads
//   reverse_cumsum                     1 (1)            x.flip(-1).cumsum(-1).flip(-1): one reversed scan
//   linear_row_sum                     2 (2)            nn.Linear(32, 64), / 2, sum over the row, * 1.5: the scale in the sum's terms
//   linear_max_subtract_gelu           4 (2)            + max over the row, minus its mean, GELU: the mean reads the max's result
//   linear_gelu_softmax                2 (2)            + GELU, softmax over the row: GELU in the softmax's loads
//   linear_maxpool_sum                 4 (2)            + max_pool1d(2), sum, * 0.5: a dynamic batch's pooling windows take the generic fallback
//   matmul_3d                          1 (1)            torch.matmul of a 3 x 4 x 5 tensor and a 5 x 6 matrix
//   einsum_4d                          1 (1)            einsum("bijl,lk->bijk"): the output transpose of a unit dimension is a view
//
// 52 of 54 models at their ideal count.

// RUN: fuser-opt %S/Inputs/torch_leaky_relu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_leaky_relu_dynamic.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_hardtanh.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_elu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_w2_dynamic.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm_dynamic.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_instance_norm.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_relu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_leaky_relu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_hardtanh.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_elu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_selu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_gelu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_gelu_tanh.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_mish.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_silu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_swish.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_sigmoid_tanh.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_scale_residual.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_float_arg.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_w2_small.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_small.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_no_affine.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_gelu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_silu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_layer_norm_relu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_wide.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=TWO
// RUN: fuser-opt %S/Inputs/torch_layer_norm.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_layer_norm_3d_dynamic.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_group_norm_4d_dynamic.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_transposed_left.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_bmm.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_bmm_scale_relu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_matmul_triu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_matmul_tril.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_matmul_triu_large.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_arange.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_softmax_rows.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_log_softmax_rows.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_softmax_long_rows.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_rms_norm_rows.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_l2_normalize_rows.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_rms_norm_channels.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_cumsum_rows.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_cumprod_batch.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_masked_cumsum.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_reverse_cumsum.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_linear_row_sum.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=TWO
// RUN: fuser-opt %S/Inputs/torch_linear_max_subtract_gelu.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=FOUR
// RUN: fuser-opt %S/Inputs/torch_linear_gelu_softmax.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=TWO
// RUN: fuser-opt %S/Inputs/torch_linear_maxpool_sum.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=FOUR
// RUN: fuser-opt %S/Inputs/torch_matmul_3d.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// RUN: fuser-opt %S/Inputs/torch_einsum_4d.mlir --fuser-kernel-pipeline 2>/dev/null | FileCheck %s --check-prefix=ONE
// ONE-COUNT-1: gpu.launch_func
// ONE-NOT: gpu.launch_func
// TWO-COUNT-2: gpu.launch_func
// TWO-NOT: gpu.launch_func
// FOUR-COUNT-4: gpu.launch_func
// FOUR-NOT: gpu.launch_func
// RUN: fuser-opt %S/Inputs/torch_linear_maxpool_sum.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MAXPOOL-SUM
// MAXPOOL-SUM: remark: reduction left to the generic fallback: an operand read through a map that is neither a projected permutation nor a window

// The remarks that say where a model ends up, or why it misses its ideal.
// RUN: fuser-opt %S/Inputs/torch_softmax_long_rows.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOFTMAX-LONG
// SOFTMAX-LONG: remark: reduction kernel: {{.+}} outputs of 65537 elements, 1024 consecutive threads per output, 1024 threads per block; its consumer runs in the same kernel, reading each output's elements again from L2 ({{[0-9]+}} KiB per SM), in clusters of 4 blocks per output
// RUN: fuser-opt %S/Inputs/torch_cumsum_rows.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUMSUM-ROWS
// CUMSUM-ROWS: remark: scan kernel: 4096 line(s) of 100 elements, 32 threads per row, 4 consecutive elements each in 4-element vectors
// RUN: fuser-opt %S/Inputs/torch_cumprod_batch.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CUMPROD-BATCH
// CUMPROD-BATCH: remark: scan kernel: 6 line(s) of 4096 elements, one thread per line (a warp reads 32 neighbouring lines); 6 threads, each a chain of 128 steps, leave most of sm_90a's GPU idle
// RUN: fuser-opt %S/Inputs/torch_rms_norm_rows.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RMS-ROWS
// RMS-ROWS: remark: reduction kernel: 4096 outputs of 96 elements in 4-element vectors, 32 consecutive threads per output, 256 threads per block; its consumer runs in the same kernel, each thread holding up to 4 elements in registers
// Losses and logsumexp over rows of 1000 classes: the softmax statistics in
// one reduction (logsumexp's shift of the maximum recognised), each thread
// holding its share of a row in registers.
// RUN: fuser-opt %S/Inputs/torch_cross_entropy.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CROSS-ENTROPY
// CROSS-ENTROPY: remark: softmax statistics in one pass: the maximum and the sum of exp(x - maximum) in one reduction
// CROSS-ENTROPY: remark: reduction kernel: 4096 outputs of 1000 elements in 4-element vectors, 64 consecutive threads per output, 256 threads per block; each thread holds up to 16 elements in registers and takes the softmax statistics in two passes over them
// RUN: fuser-opt %S/Inputs/torch_logsumexp_rows.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOGSUMEXP
// LOGSUMEXP: remark: softmax statistics in one pass: the maximum and the sum of exp(x - maximum) in one reduction (logsumexp's shift: 0 where the maximum is infinite)
// LOGSUMEXP-NOT: remark: reduction kernel: {{.*}} outputs of 1000 elements
// LOGSUMEXP: remark: reduction kernel: 4096 outputs of 1000 elements {{.*}}; each thread holds up to 16 elements in registers
// LOGSUMEXP-NOT: remark: reduction kernel: {{.*}} outputs of 1000 elements
// F.embedding: its index checks (cf.assert in the gather's body) no longer
// keep the fallback's loops on the host where its tiles divide the extents.
// RUN: fuser-opt %S/Inputs/torch_embedding.mlir --fuser-gpu-pipeline | FileCheck %s --check-prefix=EMBEDDING
// EMBEDDING-COUNT-1: gpu.launch_func
// EMBEDDING-NOT: gpu.launch_func
// EMBEDDING-NOT: scf.parallel
// The kernel's arguments are ones the manifest describes (no i1 constant).
// RUN: fuser-opt %S/Inputs/torch_embedding.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest -o /dev/null
// torch-mlir's assert that the dynamic batch is not negative folds away (the
// manifest checks equalities only), and the broadcast joins the norm's kernel.
// RUN: fuser-opt %S/Inputs/torch_l2_normalize_rows.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=L2-NORMALIZE-MANIFEST
// L2-NORMALIZE-MANIFEST-NOT: dynamic negative broadcast sizes
// L2-NORMALIZE-MANIFEST: "kernel":
// L2-NORMALIZE-MANIFEST-NOT: "kernel":
// RUN: fuser-opt %S/Inputs/torch_l2_normalize_rows.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=L2-NORMALIZE
// L2-NORMALIZE: remark: reduction kernel: {{.*}}; its consumer runs in the same kernel
// RUN: fuser-opt %S/Inputs/torch_instance_norm.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INSTANCE-NORM
// INSTANCE-NORM-DAG: torch_instance_norm.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: InstanceNorm: 12 groups of one channel over the (1, N * C) view are GroupNorm(6)
// RUN: fuser-opt %S/Inputs/torch_linear_float_arg.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR-FLOAT-ARG
// LINEAR-FLOAT-ARG-DAG: torch_linear_float_arg.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: entry function argument #3 ('f64') is never read and is dropped
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_small.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR-GROUP-NORM-SMALL
// LINEAR-GROUP-NORM-SMALL-DAG: torch_linear_group_norm_small.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: group norm (groups of 16 channels) fused into the GEMM epilogue: one kernel
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_gelu.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR-GROUP-NORM-GELU
// LINEAR-GROUP-NORM-GELU-DAG: torch_linear_group_norm_gelu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: group norm (groups of 16 channels) fused into the GEMM epilogue: one kernel
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_silu.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR-GROUP-NORM-SILU
// LINEAR-GROUP-NORM-SILU-DAG: torch_linear_group_norm_silu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: group norm (groups of 8 channels) fused into the GEMM epilogue: one kernel
// RUN: fuser-opt %S/Inputs/torch_linear_layer_norm_relu.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR-LAYER-NORM-RELU
// LINEAR-LAYER-NORM-RELU-DAG: torch_linear_layer_norm_relu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused group norm (1 groups of 64)
// LINEAR-LAYER-NORM-RELU-DAG: torch_linear_layer_norm_relu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: group norm (groups of 64 channels) fused into the GEMM epilogue: one kernel
// RUN: fuser-opt %S/Inputs/torch_transposed_left.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRANSPOSED-LEFT
// TRANSPOSED-LEFT-DAG: torch_transposed_left.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 2 epilogue op(s)
// TRANSPOSED-LEFT-DAG: torch_transposed_left.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: matmul kernel: ffma in fp32 (3xtf32 not applicable: A is not K-major (x.T) and not copied K-major: M * N / (M + N) = 7, below 512; the fp64 tensor-core kernel reads K-major A; FFMA)
// RUN: fuser-opt %S/Inputs/torch_bmm.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BMM
// BMM-DAG: torch_bmm.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: matmul kernel: mma in fp64 (3xtf32 not applicable: B is N-major (x * W) with N dynamic or not a multiple of 4, or batched with K not a multiple of the k tile and not copied K-major: M * N / (M + N) = 6, below 512; fp64 tensor cores)
// RUN: fuser-opt %S/Inputs/torch_bmm_scale_relu.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BMM-SCALE-RELU
// BMM-SCALE-RELU-DAG: torch_bmm_scale_relu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 2 epilogue op(s)
// RUN: fuser-opt %S/Inputs/torch_matmul_triu.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATMUL-TRIU
// MATMUL-TRIU-DAG: torch_matmul_triu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: evaluated at compile time (its value depends on constants and indices only): a constant, no kernel
// MATMUL-TRIU-DAG: torch_matmul_triu.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 1 epilogue op(s)
// RUN: fuser-opt %S/Inputs/torch_matmul_tril.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATMUL-TRIL
// MATMUL-TRIL-DAG: torch_matmul_tril.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: evaluated at compile time (its value depends on constants and indices only): a constant, no kernel
// MATMUL-TRIL-DAG: torch_matmul_tril.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 1 epilogue op(s)
// RUN: fuser-opt %S/Inputs/torch_matmul_triu_large.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATMUL-TRIU-LARGE
// MATMUL-TRIU-LARGE-DAG: torch_matmul_triu_large.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 1 epilogue op(s)
// RUN: fuser-opt %S/Inputs/torch_linear_arange.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINEAR-ARANGE
// LINEAR-ARANGE-DAG: torch_linear_arange.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: evaluated at compile time (its value depends on constants and indices only): a constant, no kernel
// LINEAR-ARANGE-DAG: torch_linear_arange.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: fused matmul with 2 epilogue op(s)

// Every export also compiles with fusion off (each op its own kernel), to
// PTX and a manifest: the generic fallback's kernels take the f64 constants
// torch-mlir leaves (slopes, epsilons, 1/N) as immediates.
// RUN: fuser-opt %S/Inputs/torch_leaky_relu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_leaky_relu_dynamic.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_hardtanh.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_elu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_w2.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_w2_dynamic.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_w3_linear_group_norm_dynamic.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_instance_norm.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_relu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_leaky_relu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_hardtanh.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_elu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_selu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_gelu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_gelu_tanh.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_mish.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_silu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_swish.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_sigmoid_tanh.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_scale_residual.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_float_arg.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_w2_small.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_small.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_no_affine.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_gelu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_silu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_layer_norm_relu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_group_norm_wide.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_layer_norm.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_layer_norm_3d_dynamic.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_group_norm_4d_dynamic.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_transposed_left.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_bmm.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_bmm_scale_relu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_matmul_triu.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_matmul_tril.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_matmul_triu_large.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fuser-opt %S/Inputs/torch_linear_arange.mlir --fuser-gpu-pipeline="fuse=false" 2>/dev/null | fuser-translate --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST
// MANIFEST: "format": "fuser-manifest"
// MANIFEST: "kernel":
