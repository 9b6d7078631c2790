// The generic fallback's all-parallel generics (gathers, copies) become one
// launch of 256-thread blocks in which consecutive threads take consecutive
// groups of 4 elements along the innermost loop: a warp's lanes read and
// write neighbouring elements of a row-major tensor, each group's loads
// and stores one 16-byte vector (rows of 256 floats keep every group
// aligned) through pointers, which the manifest asks the runtime to align.
// Sizes and constants are sunk into the kernel: its coordinates come from
// divisions by constants, not by arguments.
// RUN: fuser-opt %s --fuser-kernel-pipeline | FileCheck %s

// CHECK: gpu.launch_func @fuser_kernels::@forward_kernel blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}}) args(%{{.+}} : !llvm.ptr<1>, %{{.+}} : !llvm.ptr<1>)
// CHECK-LABEL: gpu.func @forward_kernel
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[GROUPS:.+]] = arith.constant 4096 : index
// CHECK: %[[TX:.+]] = gpu.thread_id  x
// CHECK: %[[G0:.+]] = arith.addi %{{.+}}, %[[TX]] : index
// CHECK: scf.for %[[G:.+]] = %[[G0]] to %[[GROUPS]] step
// CHECK: %[[E:.+]] = arith.muli %[[G]], %[[C4]] : index
// CHECK: %[[COL:.+]] = arith.remui %[[E]], %[[C256]] : index
// CHECK: %[[ROW:.+]] = arith.divui %[[E]], %[[C256]] : index
// CHECK: %[[ROWSTART:.+]] = arith.muli %[[ROW]], %[[C256]] : index
// CHECK: %[[AT:.+]] = arith.addi %[[ROWSTART]], %[[COL]] : index
// CHECK: %[[AT64:.+]] = arith.index_castui %[[AT]] : index to i64
// CHECK: %[[IN:.+]] = llvm.getelementptr inbounds %arg0[%[[AT64]]]
// CHECK: llvm.load %[[IN]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: %[[OUT:.+]] = llvm.getelementptr inbounds %arg1[%[[AT64]]]
// CHECK: llvm.store %{{.+}}, %[[OUT]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: gpu.return

// linalg.index keeps the group from fusing: the fallback compiles it.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %init = tensor.empty() : tensor<64x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%init : tensor<64x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %r = arith.addf %in, %jf : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// A gather with torch-mlir's index checks that reads its output (here:
// adds into it) keeps the 16 x 16 tiles; its asserts, under an scf.if
// (fuser-guard-asserts), no longer keep the loops on the host where the
// tiles divide the extents.
// CHECK-LABEL: gpu.func @gather_accumulate_kernel
// CHECK: scf.if
// CHECK: cf.assert
// CHECK: gpu.return
func.func @gather_accumulate(%tokens: tensor<32xi64>, %table: tensor<100x32xf32>,
                             %acc: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c100 = arith.constant 100 : index
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%tokens : tensor<32xi64>) outs(%acc : tensor<32x32xf32>) {
  ^bb0(%t: i64, %out: f32):
    %i = arith.index_cast %t : i64 to index
    %j = linalg.index 1 : index
    %lt = arith.cmpi slt, %i, %c100 : index
    cf.assert %lt, "index must be smaller than dim size"
    %v = tensor.extract %table[%i, %j] : tensor<100x32xf32>
    %s = arith.addf %v, %out : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
