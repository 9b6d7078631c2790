// The generated header compiles as strict C99 and as C++17 with only cuda.h
// and libcuda (nothing runs: there is no GPU here). cuda.h itself is not
// pedantic C99, hence -isystem.
// REQUIRES: cuda-headers
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: fuser-opt %s --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-c-header -o %t.dir/kernels.h
// Two translation units may include the header: everything is static.
// RUN: echo '#include "kernels.h"' > %t.dir/second.c
// RUN: echo 'int second(void) { return fuser_unload() == CUDA_SUCCESS; }' \
// RUN:   >> %t.dir/second.c
// RUN: cc -std=c99 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -I%t.dir -c %t.dir/second.c -o %t.dir/second.o
// RUN: cc -std=c99 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -I%t.dir %S/Inputs/use_header.c %t.dir/second.o -L%cuda_stubs -lcuda \
// RUN:   -o %t.dir/use_header_c
// RUN: c++ -std=c++17 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -I%t.dir -x c++ %S/Inputs/use_header.c -L%cuda_stubs -lcuda \
// RUN:   -o %t.dir/use_header_cxx
// A header embedding constant buffers (manifest-constants.mlir's input) is
// strict C99 and C++17 too.
// RUN: fuser-opt %S/manifest-constants.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-c-header -o %t.dir/constants.h
// RUN: cc -std=c99 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -fsyntax-only -x c %t.dir/constants.h
// RUN: c++ -std=c++17 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -fsyntax-only -x c++ %t.dir/constants.h

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.01 : f32
  %init = tensor.empty(%n, %c) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    %pos = arith.cmpf ugt, %m, %zero : f32
    %neg = arith.mulf %m, %slope : f32
    %r = arith.select %pos, %m, %neg : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// A static function with no dynamic sizes also compiles.
func.func @negate(%x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %init = tensor.empty() : tensor<4x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x256xf32>) outs(%init : tensor<4x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4x256xf32>
  return %y : tensor<4x256xf32>
}
