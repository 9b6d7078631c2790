// REQUIRES: mlir-runner
// i1 reductions widened to i32 (fuser-widen-bool-reductions, in the fusion
// pipeline) give the i1 results: per row, whether all scores are -inf
// (sdpa's check) and whether any is positive, printed as 0 or 1.
// RUN: fuser-opt %s --fuser-cpu-reference-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s
// The fusion pipeline widens both: the reduction kernel takes them.
// RUN: fuser-opt %s --fuser-fusion-pipeline | FileCheck %s --check-prefix=WIDE
// WIDE-LABEL: func.func @all_any
// WIDE-COUNT-2: tensor<3xi32>

// CHECK: sizes = [3, 2]
// CHECK-NEXT: [1,   0]
// CHECK-NEXT: [0,   1]
// CHECK-NEXT: [0,   0]

func.func @all_any(%s: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  %false = arith.constant false
  %e = tensor.empty() : tensor<3xi1>
  %t = linalg.fill ins(%true : i1) outs(%e : tensor<3xi1>) -> tensor<3xi1>
  %f = linalg.fill ins(%false : i1) outs(%e : tensor<3xi1>) -> tensor<3xi1>
  %all = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<3x4xf32>) outs(%t : tensor<3xi1>) {
  ^bb0(%in: f32, %acc: i1):
    %c = arith.cmpf oeq, %in, %ninf : f32
    %a = arith.andi %c, %acc : i1
    linalg.yield %a : i1
  } -> tensor<3xi1>
  %any = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<3x4xf32>) outs(%f : tensor<3xi1>) {
  ^bb0(%in: f32, %acc: i1):
    %c = arith.cmpf ogt, %in, %zero : f32
    %o = arith.ori %acc, %c : i1
    linalg.yield %o : i1
  } -> tensor<3xi1>
  %out = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%all, %any : tensor<3xi1>, tensor<3xi1>) outs(%out : tensor<3x2xf32>) {
  ^bb0(%a: i1, %o: i1, %x: f32):
    %j = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %j, %c0 : index
    %v = arith.select %first, %a, %o : i1
    %fv = arith.uitofp %v : i1 to f32
    linalg.yield %fv : f32
  } -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func @main() {
  %s = arith.constant dense<[[0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                             [-1.0, 0xFF800000, 2.0, -3.0],
                             [-1.0, 0xFF800000, -2.0, 0.0]]> : tensor<3x4xf32>
  %r = func.call @all_any(%s) : (tensor<3x4xf32>) -> tensor<3x2xf32>
  %m = bufferization.to_buffer %r : tensor<3x2xf32> to memref<3x2xf32>
  %u = memref.cast %m : memref<3x2xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
