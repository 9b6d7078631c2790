// x + (7 i - j) through an index-typed tensor: the linalg.index generic
// stays with the fallback lowering, the pointwise kernel reads its index
// elements as i64 (test/gpu/test_pointwise.py).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xindex>
  %i = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xindex>) {
  ^bb0(%o: index):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %r7 = arith.muli %r, %c7 : index
    %v = arith.subi %r7, %c : index
    linalg.yield %v : index
  } -> tensor<?x?xindex>
  %e2 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %i : tensor<?x?xf32>, tensor<?x?xindex>) outs(%e2 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: index, %o: f32):
    %c = arith.index_cast %b : index to i64
    %f = arith.sitofp %c : i64 to f32
    %s = arith.addf %a, %f : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
