# Inputs and expected outputs of fuser-reduction-to-gpu-emulated.mlir's
# functions, as flat row-major lists: small integers, so that the kernels'
# sums are exact in any order. Arg reductions draw from few values (ties),
# with NaN and infinities, and expect PyTorch's answer: the first index of
# the best value, a NaN beating every number.
{
 'rows': lambda R: (lambda x, b: ([sum(x, []), b], [float(sum(r) + bb) for r, bb in zip(x, b)]))(
     [[float(R.randint(-100, 100)) for _ in range(1000)] for _ in range(7)], [float(R.randint(-9, 9)) for _ in range(7)]),
 'onestage': lambda R: (lambda x, b: ([sum(x, []), b], [float(sum(r) + bb) for r, bb in zip(x, b)]))(
     [[float(R.randint(-100, 100)) for _ in range(1000)] for _ in range(7)], [float(R.randint(-9, 9)) for _ in range(7)]),
 'total_tail': lambda R: (lambda x: ([x], [sum(x) + 2.5]))([float(R.randint(-100, 100)) for _ in range(100)]),
 'total_big': lambda R: (lambda x: ([x], [float(sum(x))]))([float(R.randint(-100, 100)) for _ in range(100003)]),
 'cols': lambda R: (lambda x: ([sum(x, []), ], [max(r[c] for r in x) for c in range(3)]))(
     [[float(R.randint(-10**6, 10**6)) for _ in range(3)] for _ in range(1001)]),
 'colsum': lambda R: (lambda x: ([sum(x, []), ], [float(sum(r[c] for r in x)) for c in range(3)]))(
     [[float(R.randint(-100, 100)) for _ in range(3)] for _ in range(1001)]),
 'imax': lambda R: (lambda x, b: ([sum(x, []), b], [max(max(r), bb) for r, bb in zip(x, b)]))(
     [[R.randint(-(1 << 62), 1 << 62) for _ in range(300)] for _ in range(5)], [R.randint(-(1 << 62), 1 << 62) for _ in range(5)]),
 'weighted': lambda R: (lambda x: ([[v for a in x for b in a for v in b]],
     [float(sum(x[o][j][i] * ((i + j) % 7) for j in range(50) for i in range(40))) for o in range(3)]))(
     [[[float(R.randint(-100, 100)) for _ in range(40)] for _ in range(50)] for _ in range(3)]),
 'argmax_rows': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*[best(r, max) for r in x])))))(
     [special_row(R, 300, k) for k in range(6)]),
 'argmax_rows_one_stage': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*[best(r, max) for r in x])))))(
     [special_row(R, 300, k) for k in range(6)]),
 'argmin_cols': lambda R: (lambda x: ([sum(x, [])], (lambda bs: ([b[0] for b in bs], [b[1] for b in bs]))(
     [best([r[c] for r in x], min) for c in range(4)])))(
     [[float(R.choice([-3, -2, 5, 7])) for _ in range(4)] for _ in range(1001)]),
 'rows_vector': lambda R: (lambda x, b: ([sum(x, []), b], [float(sum(r) + bb) for r, bb in zip(x, b)]))(
     [[float(R.randint(-100, 100)) for _ in range(1000)] for _ in range(7)], [float(R.randint(-9, 9)) for _ in range(7)]),
 'argmax_rows_vector': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*[best(r, max) for r in x])))))(
     [special_row(R, 300, k) for k in range(6)]),
 'pool_sum': lambda R: (lambda x: ([x], pool(x, sum), pool_loads()))(
     [float(R.randint(-100, 100)) for _ in range(2 * 3 * 9 * 10)]),
 'pool_max': lambda R: (lambda x: ([x], pool(x, max), pool_loads()))(
     [float(R.randint(-100, 100)) for _ in range(2 * 3 * 9 * 10)]),
 'pool_sum_padded': lambda R: (lambda x: ([x], *pool_padded(x)))(
     [float(R.randint(-100, 100)) for _ in range(2 * 3 * 9 * 10)]),
 # 4 x 4 outputs a thread, the inputs loaded as vectors (pool_tile_loads).
 'pool_tile': lambda R: (lambda x: ([x], pool_tile(x), pool_tile_loads()))(
     [float(R.randint(-100, 100)) for _ in range(2 * 3 * 9 * 12)]),
 'siblings': lambda R: (lambda x, y: ([sum(x, []), sum(y, [])], ([float(sum(a * b for a, b in zip(r, q))) for r, q in zip(x, y)], [max(r) for r in x])))(
     [[float(R.randint(-100, 100)) for _ in range(300)] for _ in range(7)], [[float(R.randint(-9, 9)) for _ in range(300)] for _ in range(7)]),
 'siblings_cols': lambda R: (lambda x: ([sum(x, [])], ([float(sum(r[c] for r in x)) for c in range(5)], [min(r[c] for r in x) for c in range(5)])))(
     [[float(R.randint(-100, 100)) for _ in range(5)] for _ in range(301)]),
 'online_softmax': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*map(softmax_stats, x))))))(
     [softmax_row(R, 300, k) for k in range(7)]),
 'online_softmax_vector': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*map(softmax_stats, x))))))(
     [softmax_row(R, 300, k) for k in range(7)]),
 # The last vector of a row is loaded again by the 5 threads whose fifth
 # group lies past the row; the last block's spare thread loads the last row.
 'online_softmax_held': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*map(softmax_stats, x)))),
                                             ([1] * 296 + [6] * 4) * 6 + [2] * 296 + [12] * 4))(
     [softmax_row(R, 300, k) for k in range(7)]),
 'mask_count': lambda R: (lambda m: ([sum(m, [])], [sum(r) for r in m]))(
     [[R.randint(0, 1) for _ in range(300)] for _ in range(7)]),
 'mask_count_scalar': lambda R: (lambda m: ([sum(m, [])], [sum(r) for r in m]))(
     [[R.randint(0, 1) for _ in range(33)] for _ in range(5)]),
 'online_softmax_sum': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*map(softmax_stats, x)))) + ([sum(r) for r in x],)))(
     [whole_values(softmax_row(R, 300, k)) for k in range(7)]),
 'online_softmax_sum_held': lambda R: (lambda x: ([sum(x, [])], tuple(map(list, zip(*map(softmax_stats, x)))) + ([sum(r) for r in x],),
                                                 ([1] * 296 + [6] * 4) * 6 + [2] * 296 + [12] * 4))(
     [whole_values(softmax_row(R, 300, k)) for k in range(7)]),
}
