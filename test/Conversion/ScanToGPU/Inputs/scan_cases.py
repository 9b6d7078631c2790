# Inputs and expected outputs of fuser-scan-to-gpu-emulated.mlir's
# functions, as flat row-major lists of small integers (exact in any order
# of combining). `scan` is the op's definition (FuserOps.td) on a shape
# viewed as [O, L, I]: (output, accumulator); a reversed scan is the scan of
# the reversed lines, reversed (`flip`), with the same accumulator.
(lambda scan, ints, flip: {
 'rows_one_chunk': lambda R: (lambda x: ([x], scan(x, 3, 100, 1, lambda a, b: a + b, True, [0.0] * 3)))(ints(R, 300)),
 'rows_chunks': lambda R: (lambda x: ([x], scan(x, 2, 300, 1, lambda a, b: a + b, True, [0.0] * 2)[0]))(ints(R, 600)),
 'rows_warps': lambda R: (lambda x: ([x], scan(x, 2, 1000, 1, lambda a, b: a + b, True, [0.0] * 2)))(ints(R, 2000)),
 'rows_block': lambda R: (lambda x: ([x], scan(x, 5, 2050, 1, lambda a, b: a + b, True, [0.0] * 5)[0]))(ints(R, 5 * 2050)),
 'rows_exclusive': lambda R: (lambda x, i: ([x, i], scan(x, 3, 70, 1, lambda a, b: a + b, False, i)))(ints(R, 210), ints(R, 3)),
 'rows_prod': lambda R: (lambda x: ([x], scan(x, 4, 77, 1, lambda a, b: a * b, True, [0.0] * 4)[0]))(
     [R.choice([-1.0, 1.0, 2.0, 0.5, -2.0, 1.0, 1.0]) for _ in range(4 * 77)]),
 'rows_max_i64': lambda R: (lambda x: ([x], scan(x, 3, 200, 1, max, True, [0] * 3)))(
     [R.randint(-(1 << 62), 1 << 62) for _ in range(600)]),
 'rows_empty': lambda R: (lambda i: ([[], i], ([], i)))(ints(R, 3)),
 'serial_middle': lambda R: (lambda x: ([x], scan(x, 4, 50, 3, lambda a, b: a + b, True, [0.0] * 12)))(ints(R, 600)),
 'serial_exclusive': lambda R: (lambda x, i: ([x, i], scan(x, 1, 7, 5, lambda a, b: a + b, False, i)))(ints(R, 35), ints(R, 5)),
 'rows_reverse': lambda R: (lambda x: ([x], flip(scan(flip(x, 3, 300, 1), 3, 300, 1, lambda a, b: a + b, True, [0.0] * 3), 3, 300, 1)))(
     ints(R, 900)),
 'serial_reverse_exclusive': lambda R: (lambda x, i: ([x, i], flip(scan(flip(x, 5, 20, 3), 5, 20, 3, lambda a, b: a + b, False, i), 5, 20, 3)))(
     ints(R, 300), ints(R, 15)),
 'masked_prologue': lambda R: (lambda x, m: ([x, m], scan([a if b > 0 else 0.0 for a, b in zip(x, m)], 4, 130, 1, lambda a, b: a + b, True, [0.0] * 4)[0]))(
     ints(R, 520), ints(R, 520)),
 'serial_rows_i32': lambda R: (lambda x: ([x], scan(x, 6, 9, 1, lambda a, b: a + b, True, [0] * 6)[0]))(
     [R.randint(-1000, 1000) for _ in range(54)]),
 'rows_sub_warp': lambda R: (lambda x: ([x], scan(x, 40, 20, 1, lambda a, b: a + b, True, [0.0] * 40)))(ints(R, 800)),
 'rows_first_value': lambda R: (lambda x: ([x], scan(x, 3, 1000, 1, lambda a, b: a, True, [0.0] * 3)))(ints(R, 3000)),
 'rows_last_exclusive_reverse': lambda R: (lambda x, i: ([x, i], flip(scan(flip(x, 40, 20, 1), 40, 20, 1, lambda a, b: b, False, i), 40, 20, 1)))(
     ints(R, 800), ints(R, 40)),
})(
 lambda x, O, L, I, f, inclusive, init: (lambda out, acc: (
     [v for v in out], acc))(*(lambda res: (
         [res[(o * I + i)][0][l] for o in range(O) for l in range(L) for i in range(I)],
         [res[o * I + i][1] for o in range(O) for i in range(I)]))(
     [(lambda line, start: (lambda outs: (outs, outs[-1] if outs else start))(
         [None] * 0 + (lambda acc_list: acc_list)(
             [v for v in __import__('itertools').accumulate(line, f)] if inclusive else
             [v for v in __import__('itertools').accumulate([start] + line[:-1], f)] if line else [])))(
         [x[(o * L + l) * I + i] for l in range(L)], init[o * I + i])
      for o in range(O) for i in range(I)])),
 lambda R, n: [float(R.randint(-100, 100)) for _ in range(n)],
 # x (or scan's (output, accumulator)) with each line reversed.
 lambda x, O, L, I: (lambda f: (f(x[0]), x[1]) if isinstance(x, tuple) else f(x))(
     lambda v: [v[(o * L + (L - 1 - l)) * I + i] for o in range(O) for l in range(L) for i in range(I)]))
