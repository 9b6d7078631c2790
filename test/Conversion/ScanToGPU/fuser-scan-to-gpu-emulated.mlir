// RUN: fuser-opt %s --fuser-scan-to-gpu -canonicalize -cse --mlir-print-op-generic | %PYTHON %S/../ReductionToGPU/Inputs/emulate_reductions.py %S/Inputs/scan_cases.py | FileCheck %s

// The scan kernels run on the CPU (the reduction tests' emulator: the
// threads of a block in lockstep, shuffles between lanes, loops and
// branches around barriers and shuffles in lockstep too) on the inputs of
// Inputs/scan_cases.py: every input element is loaded exactly once, two runs
// agree and the outputs are exact (small integers). Rows in one chunk and in
// several (a carry between them), a row's threads in one warp and in several
// (shared memory), a whole block per row of f64, exclusive scans from a
// loaded init, products, an i64 maximum (64-bit shuffles as halves), an empty
// dimension (the accumulator is the init); one thread per line along a
// middle dimension, dimension 0 exclusive, and i32 rows; reversed scans
// (from the end of each line) of both kinds; a masked scan whose
// pointwise producer runs in the scan's loads (x and the mask read once);
// rows of 8 threads sharing warps (shuffles within segments); bodies that
// are associative but not commutative (the first value, the last one: any
// swapped combine shows), exclusive and reversed on rows of 8 threads. Vector
// accesses of 4 f32 and 2 i64, forward and reversed.

// CHECK: rows_one_chunk OK
// CHECK-NEXT: rows_chunks OK
// CHECK-NEXT: rows_warps OK
// CHECK-NEXT: rows_block OK
// CHECK-NEXT: rows_exclusive OK
// CHECK-NEXT: rows_prod OK
// CHECK-NEXT: rows_max_i64 OK
// CHECK-NEXT: rows_empty OK
// CHECK-NEXT: serial_middle OK
// CHECK-NEXT: serial_exclusive OK
// CHECK-NEXT: rows_reverse OK
// CHECK-NEXT: serial_reverse_exclusive OK
// CHECK-NEXT: masked_prologue OK
// CHECK-NEXT: serial_rows_i32 OK
// CHECK-NEXT: rows_sub_warp OK
// CHECK-NEXT: rows_first_value OK
// CHECK-NEXT: rows_last_exclusive_reverse OK
// CHECK-NOT: MISMATCH

func.func @rows_one_chunk(%x: tensor<3x100xf32>) -> (tensor<3x100xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x100xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<3xf32>) -> tensor<3xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<3x100xf32>) outs(%e, %init : tensor<3x100xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 4, tile = [32, 8, 4]>} -> tensor<3x100xf32>, tensor<3xf32>
  return %out, %acc : tensor<3x100xf32>, tensor<3xf32>
}

func.func @rows_chunks(%x: tensor<2x300xf32>) -> (tensor<2x300xf32>) {
  %e = tensor.empty() : tensor<2x300xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<2xf32>) -> tensor<2xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<2x300xf32>) outs(%e, %init : tensor<2x300xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 2, tile = [32, 8, 2]>} -> tensor<2x300xf32>, tensor<2xf32>
  return %out : tensor<2x300xf32>
}

func.func @rows_warps(%x: tensor<2x1000xf32>) -> (tensor<2x1000xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<2x1000xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<2xf32>) -> tensor<2xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<2x1000xf32>) outs(%e, %init : tensor<2x1000xf32>, tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 4, tile = [128, 2, 4]>} -> tensor<2x1000xf32>, tensor<2xf32>
  return %out, %acc : tensor<2x1000xf32>, tensor<2xf32>
}

func.func @rows_block(%x: tensor<5x2050xf64>) -> (tensor<5x2050xf64>) {
  %e = tensor.empty() : tensor<5x2050xf64>
  %c = arith.constant 0.0 : f64
  %ea = tensor.empty() : tensor<5xf64>
  %init = linalg.fill ins(%c : f64) outs(%ea : tensor<5xf64>) -> tensor<5xf64>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<5x2050xf64>) outs(%e, %init : tensor<5x2050xf64>, tensor<5xf64>) {
  ^bb0(%a: f64, %b: f64):
    %s = arith.addf %a, %b : f64
    fuser.yield %s : f64
  } {config = #fuser.config<strategy = "scan_rows", block = [1024, 1, 1], vector_width = 1, tile = [1024, 1, 1]>} -> tensor<5x2050xf64>, tensor<5xf64>
  return %out : tensor<5x2050xf64>
}

func.func @rows_exclusive(%x: tensor<3x70xf32>, %init: tensor<3xf32>) -> (tensor<3x70xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x70xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(false)
      ins(%x : tensor<3x70xf32>) outs(%e, %init : tensor<3x70xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 2, tile = [64, 4, 4]>} -> tensor<3x70xf32>, tensor<3xf32>
  return %out, %acc : tensor<3x70xf32>, tensor<3xf32>
}

func.func @rows_prod(%x: tensor<4x77xf32>) -> (tensor<4x77xf32>) {
  %e = tensor.empty() : tensor<4x77xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<4xf32>) -> tensor<4xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<4x77xf32>) outs(%e, %init : tensor<4x77xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 1, tile = [64, 4, 1]>} -> tensor<4x77xf32>, tensor<4xf32>
  return %out : tensor<4x77xf32>
}

func.func @rows_max_i64(%x: tensor<3x200xi64>) -> (tensor<3x200xi64>, tensor<3xi64>) {
  %e = tensor.empty() : tensor<3x200xi64>
  %c = arith.constant 0 : i64
  %ea = tensor.empty() : tensor<3xi64>
  %init = linalg.fill ins(%c : i64) outs(%ea : tensor<3xi64>) -> tensor<3xi64>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<3x200xi64>) outs(%e, %init : tensor<3x200xi64>, tensor<3xi64>) {
  ^bb0(%a: i64, %b: i64):
    %s = arith.maxsi %a, %b : i64
    fuser.yield %s : i64
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 2, tile = [32, 8, 4]>} -> tensor<3x200xi64>, tensor<3xi64>
  return %out, %acc : tensor<3x200xi64>, tensor<3xi64>
}

func.func @rows_empty(%x: tensor<3x0xf32>, %init: tensor<3xf32>) -> (tensor<3x0xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x0xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<3x0xf32>) outs(%e, %init : tensor<3x0xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 1, tile = [32, 8, 1]>} -> tensor<3x0xf32>, tensor<3xf32>
  return %out, %acc : tensor<3x0xf32>, tensor<3xf32>
}

func.func @serial_middle(%x: tensor<4x50x3xf32>) -> (tensor<4x50x3xf32>, tensor<4x3xf32>) {
  %e = tensor.empty() : tensor<4x50x3xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<4x3xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<4x3xf32>) -> tensor<4x3xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<4x50x3xf32>) outs(%e, %init : tensor<4x50x3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_serial", block = [64, 1, 1], tile = [16]>} -> tensor<4x50x3xf32>, tensor<4x3xf32>
  return %out, %acc : tensor<4x50x3xf32>, tensor<4x3xf32>
}

func.func @serial_exclusive(%x: tensor<7x5xf32>, %init: tensor<5xf32>) -> (tensor<7x5xf32>, tensor<5xf32>) {
  %e = tensor.empty() : tensor<7x5xf32>
  %out, %acc = fuser.scan dimension(0) inclusive(false)
      ins(%x : tensor<7x5xf32>) outs(%e, %init : tensor<7x5xf32>, tensor<5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_serial", block = [32, 1, 1], tile = [4]>} -> tensor<7x5xf32>, tensor<5xf32>
  return %out, %acc : tensor<7x5xf32>, tensor<5xf32>
}

func.func @serial_rows_i32(%x: tensor<3x2x9xi32>) -> (tensor<3x2x9xi32>) {
  %e = tensor.empty() : tensor<3x2x9xi32>
  %c = arith.constant 0 : i32
  %ea = tensor.empty() : tensor<3x2xi32>
  %init = linalg.fill ins(%c : i32) outs(%ea : tensor<3x2xi32>) -> tensor<3x2xi32>
  %out, %acc = fuser.scan dimension(2) inclusive(true)
      ins(%x : tensor<3x2x9xi32>) outs(%e, %init : tensor<3x2x9xi32>, tensor<3x2xi32>) {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    fuser.yield %s : i32
  } {config = #fuser.config<strategy = "scan_serial", block = [32, 1, 1], tile = [3]>} -> tensor<3x2x9xi32>, tensor<3x2xi32>
  return %out : tensor<3x2x9xi32>
}

func.func @rows_reverse(%x: tensor<3x300xf32>) -> (tensor<3x300xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x300xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<3xf32>) -> tensor<3xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<3x300xf32>) outs(%e, %init : tensor<3x300xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {reverse, config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 4, tile = [64, 4, 4]>} -> tensor<3x300xf32>, tensor<3xf32>
  return %out, %acc : tensor<3x300xf32>, tensor<3xf32>
}

func.func @serial_reverse_exclusive(%x: tensor<5x20x3xf32>, %init: tensor<5x3xf32>) -> (tensor<5x20x3xf32>, tensor<5x3xf32>) {
  %e = tensor.empty() : tensor<5x20x3xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(false)
      ins(%x : tensor<5x20x3xf32>) outs(%e, %init : tensor<5x20x3xf32>, tensor<5x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {reverse, config = #fuser.config<strategy = "scan_serial", block = [32, 1, 1], tile = [5]>} -> tensor<5x20x3xf32>, tensor<5x3xf32>
  return %out, %acc : tensor<5x20x3xf32>, tensor<5x3xf32>
}

func.func @masked_prologue(%x: tensor<4x130xf32>, %m: tensor<4x130xf32>) -> tensor<4x130xf32> {
  %p = fuser.pointwise ins(%x, %m : tensor<4x130xf32>, tensor<4x130xf32>)
         maps [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>] -> tensor<4x130xf32> {
  ^bb0(%a: f32, %b: f32):
    %z = arith.constant 0.0 : f32
    %keep = arith.cmpf ogt, %b, %z : f32
    %v = arith.select %keep, %a, %z : f32
    fuser.yield %v : f32
  }
  %e = tensor.empty() : tensor<4x130xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<4xf32>) -> tensor<4xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%p : tensor<4x130xf32>) outs(%e, %init : tensor<4x130xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 1, tile = [64, 4, 4]>} -> tensor<4x130xf32>, tensor<4xf32>
  return %out : tensor<4x130xf32>
}

func.func @rows_sub_warp(%x: tensor<40x20xf32>) -> (tensor<40x20xf32>, tensor<40xf32>) {
  %e = tensor.empty() : tensor<40x20xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<40xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<40xf32>) -> tensor<40xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<40x20xf32>) outs(%e, %init : tensor<40x20xf32>, tensor<40xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuser.yield %s : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 4, tile = [8, 32, 4]>} -> tensor<40x20xf32>, tensor<40xf32>
  return %out, %acc : tensor<40x20xf32>, tensor<40xf32>
}

func.func @rows_first_value(%x: tensor<3x1000xf32>) -> (tensor<3x1000xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x1000xf32>
  %c = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%c : f32) outs(%ea : tensor<3xf32>) -> tensor<3xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(true)
      ins(%x : tensor<3x1000xf32>) outs(%e, %init : tensor<3x1000xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    fuser.yield %a : f32
  } {config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 4, tile = [128, 2, 4]>} -> tensor<3x1000xf32>, tensor<3xf32>
  return %out, %acc : tensor<3x1000xf32>, tensor<3xf32>
}

func.func @rows_last_exclusive_reverse(%x: tensor<40x20xf32>, %init: tensor<40xf32>) -> (tensor<40x20xf32>, tensor<40xf32>) {
  %e = tensor.empty() : tensor<40x20xf32>
  %out, %acc = fuser.scan dimension(1) inclusive(false)
      ins(%x : tensor<40x20xf32>) outs(%e, %init : tensor<40x20xf32>, tensor<40xf32>) {
  ^bb0(%a: f32, %b: f32):
    fuser.yield %b : f32
  } {reverse, config = #fuser.config<strategy = "scan_rows", block = [256, 1, 1], vector_width = 4, tile = [8, 32, 4]>} -> tensor<40x20xf32>, tensor<40xf32>
  return %out, %acc : tensor<40x20xf32>, tensor<40xf32>
}
