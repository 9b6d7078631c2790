// An index-typed tensor between two groups (a linalg.index generic left to
// the fallback, read by a pointwise group) compiles: the pointwise kernel
// loads its elements as 64-bit integers.
// RUN: fuser-opt %S/../gpu/Inputs/index_tensor.mlir --fuser-gpu-pipeline="report=true" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: fuser-translate %t.mlir --fuser-to-ptx | FileCheck %s
// RUN: fuser-translate %t.mlir --fuser-to-manifest | FileCheck %s --check-prefix=MANIFEST

// REPORT: remark: left unfused: its body uses linalg.index; it is compiled by the generic fallback lowering
// REPORT: remark: fused 1 elementwise op(s) into one pointwise group

// CHECK: .entry forward_pointwise(
// CHECK: ld.global.v2.b64
// CHECK: cvt.rn.f32.s64

// MANIFEST: "dtype": "i64",
// MANIFEST-NEXT: "id": 1,
// MANIFEST-NEXT: "kind": "alloc",
