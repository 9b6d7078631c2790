// GPU test input (test/gpu/test_bmm_tma.py): batched fuser.matmul on 3xtf32
// wgmma_tma, the fp32 default on sm_90a (issue 17's batched class). The
// operands are 2-D tensor maps of the batches' rows stacked, so tiles past
// M or N read the next batch's rows, which the epilogue must not store.
//   bmm_nt_odd: y[b] = (x[b] @ w[b]^T + bias[b, n]) * s[b] + r[m, n] + f[b, m, n]
//               3 x 200 x 129 x 1000 (K-major B: no copy; M, N no tile multiple)
//   bmm_nt_dyn: y[b] = x[b] @ w[b]^T, batch, M and N dynamic (K = 1000)
//   bmm_copy:   y[b] = x[b] @ w[b] + c[b, m], torch.bmm's B x K x N, copied to
//               B x N x K first (K = 1000 is no multiple of the k tile, so
//               the kernel cannot read it N-major; M * N / (M + N) = 532 >=
//               512), dynamic batch
func.func @bmm_nt_odd(%x: tensor<3x200x1000xf32>, %w: tensor<3x129x1000xf32>,
                      %bias: tensor<3x129xf32>, %s: tensor<3xf32>,
                      %r: tensor<200x129xf32>, %f: tensor<3x200x129xf32>) -> tensor<3x200x129xf32> {
  %y = fuser.matmul %x, %w transpose_b
         epilogue_inputs(%bias, %s, %r, %f : tensor<3x129xf32>, tensor<3xf32>, tensor<200x129xf32>, tensor<3x200x129xf32>)
         epilogue_maps [affine_map<(b, m, n) -> (b, n)>, affine_map<(b, m, n) -> (b)>,
                        affine_map<(b, m, n) -> (m, n)>, affine_map<(b, m, n) -> (b, m, n)>]
         : tensor<3x200x1000xf32>, tensor<3x129x1000xf32> -> tensor<3x200x129xf32> {
  ^bb0(%acc: f32, %bi: f32, %si: f32, %ri: f32, %fi: f32):
    %a = arith.addf %acc, %bi : f32
    %m = arith.mulf %a, %si : f32
    %o = arith.addf %m, %ri : f32
    %p = arith.addf %o, %fi : f32
    fuser.yield %p : f32
  }
  return %y : tensor<3x200x129xf32>
}

func.func @bmm_nt_dyn(%x: tensor<?x?x1000xf32>, %w: tensor<?x?x1000xf32>) -> tensor<?x?x?xf32> {
  %y = fuser.matmul %x, %w transpose_b epilogue_maps []
         : tensor<?x?x1000xf32>, tensor<?x?x1000xf32> -> tensor<?x?x?xf32> {
  ^bb0(%acc: f32):
    fuser.yield %acc : f32
  }
  return %y : tensor<?x?x?xf32>
}

func.func @bmm_copy(%x: tensor<?x1100x1000xf32>, %w: tensor<?x1000x1031xf32>,
                    %c: tensor<?x1100xf32>) -> tensor<?x1100x1031xf32> {
  %y = fuser.matmul %x, %w
         epilogue_inputs(%c : tensor<?x1100xf32>)
         epilogue_maps [affine_map<(b, m, n) -> (b, m)>]
         : tensor<?x1100x1000xf32>, tensor<?x1000x1031xf32> -> tensor<?x1100x1031xf32> {
  ^bb0(%acc: f32, %ci: f32):
    %a = arith.addf %acc, %ci : f32
    fuser.yield %a : f32
  }
  return %y : tensor<?x1100x1031xf32>
}
