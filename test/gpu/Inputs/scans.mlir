// Scans for test/gpu/test_scans.py: fuser.scan as torch-mlir writes torch.cumsum
// and torch.cumprod (tm_tensor.scan, renamed by the front end), configured by
// fuser-configure-kernels: rows (dynamic and static lengths), columns and a
// middle dimension (one thread per line), f64 products, a NaN-propagating
// maximum, i64 sums, and exclusive scans from a loaded init with their
// accumulators.

func.func @cumsum_rows(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty(%d0) : tensor<?xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<?xf32>) -> tensor<?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x?xf32>) outs(%e, %init : tensor<?x?xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?xf32>, tensor<?xf32>
  return %out : tensor<?x?xf32>
}

func.func @cumsum_rows_100(%x: tensor<?x100xf32>) -> (tensor<?x100xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x100xf32>
  %e = tensor.empty(%d0) : tensor<?x100xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty(%d0) : tensor<?xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<?xf32>) -> tensor<?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x100xf32>) outs(%e, %init : tensor<?x100xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x100xf32>, tensor<?xf32>
  return %out : tensor<?x100xf32>
}

func.func @cumsum_rows_4000(%x: tensor<?x4000xf32>) -> (tensor<?x4000xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x4000xf32>
  %e = tensor.empty(%d0) : tensor<?x4000xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty(%d0) : tensor<?xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<?xf32>) -> tensor<?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x4000xf32>) outs(%e, %init : tensor<?x4000xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x4000xf32>, tensor<?xf32>
  return %out : tensor<?x4000xf32>
}

func.func @cumsum_cols(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty(%d1) : tensor<?xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<?xf32>) -> tensor<?xf32>
  %out, %acc = fuser.scan dimension(0) inclusive(true)
      ins(%x : tensor<?x?xf32>) outs(%e, %init : tensor<?x?xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?xf32>, tensor<?xf32>
  return %out : tensor<?x?xf32>
}

func.func @cumsum_middle(%x: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty(%d0, %d2) : tensor<?x?xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<?x?xf32>) -> tensor<?x?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x?x?xf32>) outs(%e, %init : tensor<?x?x?xf32>, tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?x?xf32>, tensor<?x?xf32>
  return %out : tensor<?x?x?xf32>
}

func.func @cumprod_rows_f64(%x: tensor<?x?xf64>) -> (tensor<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf64>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf64>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf64>
  %c = arith.constant 1.0 : f64
  %ea = tensor.empty(%d0) : tensor<?xf64>
  %init = linalg.fill ins(%c : f64) outs(%ea : tensor<?xf64>) -> tensor<?xf64>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x?xf64>) outs(%e, %init : tensor<?x?xf64>, tensor<?xf64>) {
  ^bb0(%a: f64, %b: f64):
    %s = arith.mulf %a, %b : f64
    fuser.yield %s : f64
  } -> tensor<?x?xf64>, tensor<?xf64>
  return %out : tensor<?x?xf64>
}

func.func @cummax_rows(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty(%d0) : tensor<?xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<?xf32>) -> tensor<?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x?xf32>) outs(%e, %init : tensor<?x?xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.maximumf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?xf32>, tensor<?xf32>
  return %out : tensor<?x?xf32>
}

func.func @cumsum_rows_i64(%x: tensor<?x?xi64>) -> (tensor<?x?xi64>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xi64>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xi64>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xi64>
  %c = arith.constant 0 : i64
  %ea = tensor.empty(%d0) : tensor<?xi64>
  %init = linalg.fill ins(%c : i64) outs(%ea : tensor<?xi64>) -> tensor<?xi64>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<?x?xi64>) outs(%e, %init : tensor<?x?xi64>, tensor<?xi64>) {
  ^bb0(%a: i64, %b: i64):
    %s = arith.addi %a, %b : i64
    fuser.yield %s : i64
  } -> tensor<?x?xi64>, tensor<?xi64>
  return %out : tensor<?x?xi64>
}

func.func @exclusive_cumsum_rows(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(false)
      ins(%x : tensor<?x?xf32>) outs(%e, %init : tensor<?x?xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?xf32>, tensor<?xf32>
  return %out, %acc : tensor<?x?xf32>, tensor<?xf32>
}

func.func @exclusive_cumsum_cols(%x: tensor<?x?xf32>, %init: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %out, %acc = fuser.scan dimension(0) inclusive(false)
      ins(%x : tensor<?x?xf32>) outs(%e, %init : tensor<?x?xf32>, tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } -> tensor<?x?xf32>, tensor<?xf32>
  return %out, %acc : tensor<?x?xf32>, tensor<?xf32>
}
