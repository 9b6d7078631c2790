// torch.cumsum(x, dim=1) on 4096 x 32768 as the front end imports it
// (tm_tensor.scan renamed fuser.scan), for scripts/build-scan-sweep.sh
// (threads per row and elements per thread swept).
module {
  func.func @main(%arg0: tensor<4096x32768xf32>) -> tensor<4096x32768xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4096x32768xf32>
    %1 = tensor.empty() : tensor<4096xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<4096xf32>) -> tensor<4096xf32>
    %3:2 = fuser.scan dimension(1) inclusive(true) ins(%arg0 : tensor<4096x32768xf32>) outs(%0, %2 : tensor<4096x32768xf32>, tensor<4096xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %4 = arith.addf %arg1, %arg2 : f32
      fuser.yield %4 : f32
    } -> tensor<4096x32768xf32>, tensor<4096xf32>
    return %3#0 : tensor<4096x32768xf32>
  }
}
