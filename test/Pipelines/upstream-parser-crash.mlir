// A crash the pipeline fuzzer found in MLIR 22 itself, not in fuser: the
// linalg parser stores the null result of DenseI64ArrayAttr::parse when
// `permutation = [...]` (also broadcast/reduce `dimensions = [...]`) is
// malformed, and segfaults after printing the parse error. fuzz/
// PipelineFuzzer.cpp skips such inputs. XFAIL until the MLIR that fuser
// builds against fixes it; an unexpected pass means the fix arrived: drop
// the XFAIL and the fuzzer's skip (docs/robustness.md, F2).
// XFAIL: *
// RUN: not fuser-opt %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not="Stack dump"
// CHECK: error: custom op 'linalg.transpose' expected integer value

func.func @t(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, x
  return %t : tensor<3x2xf32>
}
