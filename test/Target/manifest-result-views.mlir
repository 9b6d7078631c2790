// A result that is a reshaped view of its allocation: torch-mlir's
// LayerNorm on (B, 8, 64) normalizes the collapsed (B * 8, 64) rows and
// returns them expanded back. The caller gets the (B, 8, 64) shape; the
// kernel still takes the rows.
// RUN: fuser-opt %S/../Pipelines/Inputs/torch_layer_norm_3d_dynamic.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-manifest | FileCheck %s
// CHECK:      "kind": "alloc",
// CHECK-NEXT: "shape": [
// CHECK-NEXT:   "dim(0,0)",
// CHECK-NEXT:   8,
// CHECK-NEXT:   64
// CHECK-NEXT: ]
// CHECK:      "results": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "buffer": 3
