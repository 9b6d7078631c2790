// GPU test input: W2 in bf16 as torch-mlir lowers a bf16 nn.Linear (all
// tensors bf16, dynamic batch): leaky_relu((x * W^T + b) * 2.0, 0.1).
// fuser-fuse-matmul makes it one fuser.matmul and fuser-configure-kernels
// gives it the bf16 tensor-core kernel (fp32 accumulation, bf16 result).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<?x8192xbf16>, %w: tensor<8192x8192xbf16>,
                   %b: tensor<8192xbf16>) -> tensor<?x8192xbf16> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : bf16
  %two = arith.constant 2.0 : bf16
  %slope = arith.constant 0.1 : bf16
  %batch = tensor.dim %x, %c0 : tensor<?x8192xbf16>
  %et = tensor.empty() : tensor<8192x8192xbf16>
  %wt = linalg.transpose ins(%w : tensor<8192x8192xbf16>)
                         outs(%et : tensor<8192x8192xbf16>) permutation = [1, 0]
  %e = tensor.empty(%batch) : tensor<?x8192xbf16>
  %acc = linalg.fill ins(%zero : bf16) outs(%e : tensor<?x8192xbf16>) -> tensor<?x8192xbf16>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x8192xbf16>, tensor<8192x8192xbf16>)
                      outs(%acc : tensor<?x8192xbf16>) -> tensor<?x8192xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x8192xbf16>, tensor<8192xbf16>) outs(%e : tensor<?x8192xbf16>) {
  ^bb0(%in: bf16, %bias: bf16, %out: bf16):
    %s = arith.addf %in, %bias : bf16
    %d = arith.mulf %s, %two : bf16
    %pos = arith.cmpf ugt, %d, %zero : bf16
    %neg = arith.mulf %d, %slope : bf16
    %r = arith.select %pos, %d, %neg : bf16
    linalg.yield %r : bf16
  } -> tensor<?x8192xbf16>
  return %y : tensor<?x8192xbf16>
}
