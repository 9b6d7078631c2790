// GPU test input (test/gpu/test_transpose.py): pointwise groups that read an
// input transposed, which fuser-configure-kernels gives the shared-memory
// tiled kernel (strategy pointwise_transpose): plain copies (exact), x.T * 2
// + y, a batched form with a broadcast bias and two results, an i1 result.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tr3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#row3 = affine_map<(d0, d1, d2) -> (d2)>

// y = x.T, any sizes.
func.func @copy(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Static odd shapes: y = x.T for x of 33 x 7, 4097 x 1000 and 1000 x 4097.
func.func @copy_7x33(%x: tensor<33x7xf32>) -> tensor<7x33xf32> {
  %e = tensor.empty() : tensor<7x33xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<33x7xf32>) outs(%e : tensor<7x33xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<7x33xf32>
  return %r : tensor<7x33xf32>
}

func.func @copy_1000x4097(%x: tensor<4097x1000xf32>) -> tensor<1000x4097xf32> {
  %e = tensor.empty() : tensor<1000x4097xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4097x1000xf32>) outs(%e : tensor<1000x4097xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1000x4097xf32>
  return %r : tensor<1000x4097xf32>
}

func.func @copy_4097x1000(%x: tensor<1000x4097xf32>) -> tensor<4097x1000xf32> {
  %e = tensor.empty() : tensor<4097x1000xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1000x4097xf32>) outs(%e : tensor<4097x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4097x1000xf32>
  return %r : tensor<4097x1000xf32>
}

// A static 1 x 1 keeps the row kernel (a size-1 side reads contiguously).
func.func @copy_1x1(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %e = tensor.empty() : tensor<1x1xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x1xf32>) outs(%e : tensor<1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// x.T * 2 + y, y read directly at the result's coordinates.
func.func @scale_add(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %y, %c0 : tensor<?x?xf32>
  %n = tensor.dim %y, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %two = arith.constant 2.0 : f32
  %r = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %two : f32
    %t = arith.addf %s, %b : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// The mask x.T > y: an i1 result, one byte per element.
func.func @greater(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xi1> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %y, %c0 : tensor<?x?xf32>
  %n = tensor.dim %y, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xi1>
  %r = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xi1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %b : f32
    linalg.yield %p : i1
  } -> tensor<?x?xi1>
  return %r : tensor<?x?xi1>
}

// Batched: (x.transpose(1, 2) * 2 + y + b, x.transpose(1, 2)), b broadcast
// along the rows.
func.func @batched(%x: tensor<3x129x65xf32>, %y: tensor<3x65x129xf32>, %b: tensor<129xf32>)
    -> (tensor<3x65x129xf32>, tensor<3x65x129xf32>) {
  %e = tensor.empty() : tensor<3x65x129xf32>
  %two = arith.constant 2.0 : f32
  %r:2 = linalg.generic {indexing_maps = [#tr3, #id3, #row3, #id3, #id3],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y, %b : tensor<3x129x65xf32>, tensor<3x65x129xf32>, tensor<129xf32>)
      outs(%e, %e : tensor<3x65x129xf32>, tensor<3x65x129xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %o: f32, %o2: f32):
    %s = arith.mulf %a, %two : f32
    %t = arith.addf %s, %c : f32
    %u = arith.addf %t, %d : f32
    linalg.yield %u, %a : f32, f32
  } -> (tensor<3x65x129xf32>, tensor<3x65x129xf32>)
  return %r#0, %r#1 : tensor<3x65x129xf32>, tensor<3x65x129xf32>
}

// The same with every size dynamic.
func.func @batched_dynamic(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>, %b: tensor<?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %y, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %y, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %y, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %two = arith.constant 2.0 : f32
  %r:2 = linalg.generic {indexing_maps = [#tr3, #id3, #row3, #id3, #id3],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?xf32>)
      outs(%e, %e : tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %o: f32, %o2: f32):
    %s = arith.mulf %a, %two : f32
    %t = arith.addf %s, %c : f32
    %u = arith.addf %t, %d : f32
    linalg.yield %u, %a : f32, f32
  } -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  return %r#0, %r#1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}

// The row kernel on a transposed copy (a config set beforehand is kept):
// bench/experiments/transpose.py's baseline.
func.func @copy_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = fuser.pointwise ins(%x : tensor<?x?xf32>) maps [affine_map<(d0, d1) -> (d1, d0)>]
         {config = #fuser.config<strategy = "pointwise", block = [1024, 1, 1], vector_width = 4, max_grid = 1048576>}
         -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    fuser.yield %a : f32
  }
  return %r : tensor<?x?xf32>
}
