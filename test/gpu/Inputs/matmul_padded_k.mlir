// GPU test input: fp32 products whose K is not a multiple of 4, so rows of
// K are not 16-byte multiples apart and TMA cannot read the operands as
// they are. fuser-configure-kernels copies them with K padded with zeros
// (and B K-major where it is N-major) so that 3xtf32 on wgmma_tma applies
// (lib/Dialect/Fuser/Transforms/MatmulOperandCopies.cpp).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// torch.mm(a, b) with B stored K x N (KernelBench's 8205 x 2949 @ 2949 x 5921
// shape class at a smaller size): B copied K-major, then both padded.
func.func @mm_nn(%a: tensor<1500x1023xf32>, %b: tensor<1023x1100xf32>) -> tensor<1500x1100xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1500x1100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1500x1100xf32>) -> tensor<1500x1100xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1500x1023xf32>, tensor<1023x1100xf32>)
                      outs(%acc : tensor<1500x1100xf32>) -> tensor<1500x1100xf32>
  return %mm : tensor<1500x1100xf32>
}

// relu(x) * W^T + bias (nn.Linear(1021, 1300) after a ReLU): A's prologue
// runs in a kernel of its own before the pad; the bias stays in the epilogue.
func.func @linear_relu_prologue(%x: tensor<1100x1021xf32>, %w: tensor<1300x1021xf32>,
                                %bias: tensor<1300xf32>) -> tensor<1100x1300xf32> {
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<1100x1021xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1100x1021xf32>) outs(%ex : tensor<1100x1021xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1100x1021xf32>
  %et = tensor.empty() : tensor<1021x1300xf32>
  %wt = linalg.transpose ins(%w : tensor<1300x1021xf32>)
                         outs(%et : tensor<1021x1300xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1100x1300xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1100x1300xf32>) -> tensor<1100x1300xf32>
  %mm = linalg.matmul ins(%r, %wt : tensor<1100x1021xf32>, tensor<1021x1300xf32>)
                      outs(%acc : tensor<1100x1300xf32>) -> tensor<1100x1300xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<1100x1300xf32>, tensor<1300xf32>) outs(%e : tensor<1100x1300xf32>) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %s = arith.addf %in, %bv : f32
    linalg.yield %s : f32
  } -> tensor<1100x1300xf32>
  return %y : tensor<1100x1300xf32>
}

// x.T @ W^T with x stored K x M (an M-major A): A copied K-major, then both
// padded (K = 1025).
func.func @mm_tn(%x: tensor<1025x1200xf32>, %w: tensor<1100x1025xf32>) -> tensor<1200x1100xf32> {
  %zero = arith.constant 0.0 : f32
  %ext = tensor.empty() : tensor<1200x1025xf32>
  %xt = linalg.transpose ins(%x : tensor<1025x1200xf32>)
                         outs(%ext : tensor<1200x1025xf32>) permutation = [1, 0]
  %ewt = tensor.empty() : tensor<1025x1100xf32>
  %wt = linalg.transpose ins(%w : tensor<1100x1025xf32>)
                         outs(%ewt : tensor<1025x1100xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1200x1100xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1200x1100xf32>) -> tensor<1200x1100xf32>
  %mm = linalg.matmul ins(%xt, %wt : tensor<1200x1025xf32>, tensor<1025x1100xf32>)
                      outs(%acc : tensor<1200x1100xf32>) -> tensor<1200x1100xf32>
  return %mm : tensor<1200x1100xf32>
}

// torch.bmm with a dynamic batch and K = 1022: B copied K-major per batch,
// both padded.
func.func @bmm(%a: tensor<?x1100x1022xf32>, %b: tensor<?x1022x1200xf32>) -> tensor<?x1100x1200xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x1100x1022xf32>
  %e = tensor.empty(%n) : tensor<?x1100x1200xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1100x1200xf32>) -> tensor<?x1100x1200xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<?x1100x1022xf32>, tensor<?x1022x1200xf32>)
                            outs(%acc : tensor<?x1100x1200xf32>) -> tensor<?x1100x1200xf32>
  return %mm : tensor<?x1100x1200xf32>
}
