// F2 (docs/robustness.md): MLIR 22's linalg parsers store the null result of
// DenseI64ArrayAttr::parse when `permutation = [...]` (linalg.transpose) or
// `dimensions = [...]` (linalg.broadcast, linalg.reduce) is malformed, and
// segfault after printing the parse error. fuser's tools check the text
// first (lib/Tools/ParserGuard.cpp) and stop with an error at the list; the
// upstream bug remains. Valid lists, generic forms and attribute
// dictionaries parse as before.
// RUN: rm -rf %t && split-file %s %t
// DEFINE: %{nocrash} = --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// The fuzzer's input: an unterminated list with a stray identifier.
// RUN: not fuser-opt %t/transpose.mlir -o /dev/null 2>&1 | FileCheck %s %{nocrash} --check-prefix=TRANSPOSE
// TRANSPOSE: transpose.mlir:2:96: error: expected integer value in 'permutation = [...]'
// TRANSPOSE-NEXT: permutation = [1, x
// TRANSPOSE-NEXT: {{^ +\^$}}

// Read from stdin, the buffer is named <stdin>, as in MLIR's own errors.
// RUN: not fuser-opt < %t/transpose.mlir 2>&1 | FileCheck %s %{nocrash} --check-prefix=STDIN
// STDIN: <stdin>:2:96: error: expected integer value in 'permutation = [...]'

// A list cut short at the end of the line.
// RUN: not fuser-opt %t/broadcast.mlir -o /dev/null 2>&1 | FileCheck %s %{nocrash} --check-prefix=BROADCAST
// BROADCAST: broadcast.mlir:3:3: error: expected integer value in 'dimensions = [...]'

// Not a list at all: the custom syntax takes `[...]`, not `array<i64: ...>`.
// RUN: not fuser-opt %t/reduce.mlir -o /dev/null 2>&1 | FileCheck %s %{nocrash} --check-prefix=REDUCE
// REDUCE: reduce.mlir:2:101: error: expected '[' after 'dimensions ='

// An element that does not fit in i64.
// RUN: not fuser-opt %t/too-large.mlir -o /dev/null 2>&1 | FileCheck %s %{nocrash} --check-prefix=LARGE
// LARGE: too-large.mlir:2:93: error: integer value too large for i64 in 'permutation = [...]'

// The whole input is checked before -split-input-file cuts it: the error
// gives the line in the file, and no case runs.
// RUN: not fuser-opt %t/split.mlir --split-input-file 2>&1 | FileCheck %s %{nocrash} --check-prefix=SPLIT
// SPLIT: split.mlir:8:95: error: expected ',' or ']' in 'permutation = [...]'
// SPLIT-NOT: func.func

// fuser-translate checks each input it parses the same way; its error goes
// through MLIR's diagnostics, so --verify-diagnostics sees it.
// RUN: not fuser-translate %t/transpose.mlir --fuser-to-manifest 2>&1 | FileCheck %s %{nocrash} --check-prefix=TRANSPOSE
// RUN: fuser-translate %t/translate-verify.mlir --fuser-to-manifest --verify-diagnostics --split-input-file

// Valid input is untouched: hexadecimal, negative and `false` elements,
// comments inside a list, lists in attribute dictionaries, the generic form,
// and the keywords inside strings and comments.
// RUN: fuser-opt %t/valid.mlir | FileCheck %s --check-prefix=VALID
// VALID-LABEL: func.func @valid
// VALID: linalg.transpose {{.*}} permutation = [1, 0] {dimensions = [1 : i32, "a"], note = "permutation = [1, x"}
// VALID: linalg.transpose {{.*}} permutation = [1, 0]
// VALID: linalg.transpose {{.*}} permutation = [1, 0]
// VALID: linalg.broadcast {{.*}} dimensions = [1]
// VALID: linalg.reduce {{.*}} dimensions = [0]

//--- transpose.mlir
func.func @t(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, x
  return %t : tensor<3x2xf32>
}

//--- broadcast.mlir
func.func @b(%x: tensor<2xf32>, %e: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = linalg.broadcast ins(%x : tensor<2xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0, 
  return %b : tensor<2x3xf32>
}

//--- reduce.mlir
func.func @r(%x: tensor<2x3xf32>, %e: tensor<2xf32>) -> tensor<2xf32> {
  %r = linalg.reduce { arith.addf } ins(%x : tensor<2x3xf32>) outs(%e : tensor<2xf32>) dimensions = array<i64: 1>
  return %r : tensor<2xf32>
}

//--- too-large.mlir
func.func @t(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [9223372036854775808, 0]
  return %t : tensor<3x2xf32>
}

//--- split.mlir
func.func @ok() {
  return
}

// -----

func.func @t(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1 0]
  return %t : tensor<3x2xf32>
}

//--- translate-verify.mlir
func.func @t(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-error @below {{expected integer value in 'permutation = [...]'}}
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0.5]
  return %t : tensor<3x2xf32>
}

// -----

func.func @b(%x: tensor<2xf32>, %e: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{expected ',' or ']' in 'dimensions = [...]'}}
  %b = linalg.broadcast ins(%x : tensor<2xf32>) outs(%e : tensor<2x3xf32>) dimensions = [1 : i64]
  return %b : tensor<2x3xf32>
}

//--- valid.mlir
func.func @valid(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>, %v: tensor<2xf32>,
                 %o: tensor<2x3xf32>, %w: tensor<3xf32>)
    -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>,
        tensor<3xf32>) {
  // permutation = [1, x in a comment
  %a = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>)
      permutation = [0x1, 0] {dimensions = [1 : i32, "a"], note = "permutation = [1, x"}
  %b = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>)
      permutation = [ 1 , // one
                      - 0 ]
  %c = "linalg.transpose"(%x, %e) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = linalg.broadcast ins(%v : tensor<2xf32>) outs(%o : tensor<2x3xf32>) dimensions = [1]
  %r = linalg.reduce { arith.addf } ins(%o : tensor<2x3xf32>) outs(%w : tensor<3xf32>) dimensions = [false]
  return %a, %b, %c, %d, %r : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<3xf32>
}
