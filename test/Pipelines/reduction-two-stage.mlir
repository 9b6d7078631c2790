// Few outputs of a long static reduction take two kernels through the
// whole pipeline (test/gpu/Inputs/reductions_two_stage.mlir, run by
// test/gpu/test_reductions.py): the configuration step says so, the host
// code passes fuser-verify-host-code with its partials buffer, and the
// manifest holds it as an intermediate between the two launches.
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/reductions_two_stage.mlir --fuser-kernel-pipeline="report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/reductions_two_stage.mlir --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest | FileCheck %s

// REPORT-COUNT-9: remark: reduction kernel: {{.*}}; two stages: {{.*}} a second kernel combines each output's {{[0-9]+}} partial results in a fixed order

// The bias read from memory (the function after rows3_sum; the manifest
// names a function after its buffers and launches): kernel 1 reads x and
// writes the 183 (3 x 61) partials, kernel 2 reads them and the bias and
// writes the output.
// CHECK-LABEL: "name": "rows3_sum"
// CHECK:      "id": 2,
// CHECK-NEXT: "kind": "alloc",
// CHECK-NEXT: "shape": [
// CHECK-NEXT:   3
// CHECK:      "id": 3,
// CHECK-NEXT: "kind": "alloc",
// CHECK-NEXT: "shape": [
// CHECK-NEXT:   183
// CHECK:      "launches": [
// CHECK:        "buffer": 0,
// CHECK:        "buffer": 3,
// CHECK:      "grid": [
// CHECK-NEXT:   183,
// CHECK:      "kernel": "rows3_sum_plus_reduction",
// CHECK:        "buffer": 3,
// CHECK:        "buffer": 1,
// CHECK:        "buffer": 2,
// CHECK:      "kernel": "rows3_sum_plus_reduction_combine",
// CHECK:      "name": "rows3_sum_plus",
// CHECK-NEXT: "results": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "buffer": 2
