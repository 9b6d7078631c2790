# Inputs and expected outputs of fuser-reduction-epilogue-emulated.mlir's
# functions, as flat row-major lists (small integers: the sums are exact in
# any order). The third item: how often each element of the first input is
# loaded: twice where the consumer's pass reads them again, once where the
# threads hold them (more for a vector that threads past the row load
# again, and for the rows of a last block's spare thread).
{
 'rms_channels': lambda R: (lambda x: ([x], [v / math.sqrt(sum(x[((n * 64 + k) * 3 + h) * 5 + w] ** 2 for k in range(64)) / 64.0 + 1e-05)
                                             for n in range(2) for c in range(64) for h in range(3) for w in range(5)
                                             for v in [x[((n * 64 + c) * 3 + h) * 5 + w]]], [2] * len(x)))(
     [float(R.randint(-9, 9)) for _ in range(2 * 64 * 3 * 5)]),
 'softmax_rows': lambda R: (lambda x: ([sum(x, [])], [divide(math.exp(v - m) if not math.isnan(v - m) else math.nan, s) for r in x for m, s in [softmax_stats(r)] for v in r],
                                       [2] * (7 * 300)))(
     [softmax_row(R, 300, k) for k in range(7)]),
 'l2_rows': lambda R: (lambda x: ([sum(x, [])], ([v / max(math.sqrt(sum(t * t for t in r)), 1e-12) for r in x for v in r],
                                                 [float(sum(t * t for t in r)) for r in x]), ([1] * 996 + [7] * 4) * 4 + [2] * 996 + [14] * 4))(
     [[float(R.randint(-9, 9)) for _ in range(1000)] for _ in range(5)]),
 'weighted_rows': lambda R: (lambda x, w: ([sum(x, []), w], [v / math.sqrt(sum(t * t for t in r)) * w[j] for r in x for j, v in enumerate(r)],
                                           [2] * (64 * 13)))(
     [[float(R.randint(1, 9)) for _ in range(13)] for _ in range(64)], [float(R.randint(-9, 9)) for _ in range(13)]),
 'softmax_held': lambda R: (lambda x: ([sum(x, [])], [divide(math.exp(v - m) if not math.isnan(v - m) else math.nan, s)
                                                     for r in x for m, s in [softmax_stats(r)] for v in r],
                                       [1] * (6 * 256) + [2] * 256))(
     [softmax_row(R, 256, k) for k in range(7)]),
 'lse_rows': lambda R: (lambda x, b: ([sum(x, []), b], [lse(r) + v for r, v in zip(x, b)]))(
     [softmax_row(R, 300, k) for k in range(7)], [float(R.randint(-9, 9)) for _ in range(7)]),
 'lse_held': lambda R: (lambda x, b: ([sum(x, []), b], [lse(r) + v for r, v in zip(x, b)], [1] * (6 * 256) + [2] * 256))(
     [softmax_row(R, 256, k) for k in range(7)], [float(R.randint(-9, 9)) for _ in range(7)]),
 'column_norms_two_stages': lambda R: (lambda x: ([x], ([math.sqrt(sum(x[i * 9 + c] ** 2 for i in range(300))) for c in range(9)],
                                                       [float(sum(x[i * 9 + c] ** 2 for i in range(300))) for c in range(9)])))(
     [float(R.randint(-9, 9)) for _ in range(300 * 9)]),
 'rms_channels_held': lambda R: (lambda x: ([x], [v / math.sqrt(sum(x[((n * 32 + k) * 2 + h) * 4 + w] ** 2 for k in range(32)) / 32.0 + 1e-05)
                                                  for n in range(2) for c in range(32) for h in range(2) for w in range(4)
                                                  for v in [x[((n * 32 + c) * 2 + h) * 4 + w]]]))(
     [float(R.randint(-9, 9)) for _ in range(2 * 32 * 2 * 4)]),
 # Clusters of 4 blocks per row of 300 (75 vectors): slices of 32, 32, 11
 # and 0 vectors, each block's results read by all four.
 'softmax_cluster': lambda R: (lambda x: ([sum(x, [])], [divide(math.exp(v - m) if not math.isnan(v - m) else math.nan, s) for r in x for m, s in [softmax_stats(r)] for v in r],
                                          [2] * (7 * 300)))(
     [softmax_row(R, 300, k) for k in range(7)]),
 # Clusters of 2 blocks per row of 1000, no consumer: each element loaded
 # once, the first block storing each sum.
 'row_sums_cluster': lambda R: (lambda x: ([sum(x, [])], [float(sum(r)) for r in x], [1] * 5000))(
     [[float(R.randint(-9, 9)) for _ in range(1000)] for _ in range(5)]),
}
