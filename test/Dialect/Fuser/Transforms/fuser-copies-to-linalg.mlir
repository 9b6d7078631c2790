// RUN: fuser-opt %s --pass-pipeline="builtin.module(func.func(fuser-copies-to-linalg))" | FileCheck %s

// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[A:.+]]: memref<?x4xf32>, %[[B:.+]]: memref<?x4xf32>)
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[A]] : memref<?x4xf32>) outs(%[[B]] : memref<?x4xf32>)
func.func @copy(%a: memref<?x4xf32>, %b: memref<?x4xf32>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  return
}
