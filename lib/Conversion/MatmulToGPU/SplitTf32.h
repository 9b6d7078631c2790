//===- SplitTf32.h - 3xtf32's splitter and promoted sums --------*- C++ -*-===//
//
// The fp32-accurate split precisions of the wgmma_tma pipeline: the
// splitter warps of the producer warpgroup write each stage's lo parts
// (x - tf32(x)) beside it (transposing an N-major B first, applying A's
// prologue), and the consumers run three wgmma products per k tile with
// their sums promoted into fp32 registers (3xtf32). With tf32_2xbf16 the
// splitter writes bf16 hi and lo parts there instead, and the two cross
// terms are one bf16 product. Over StageGeometry and the barriers of
// TmaPipeline.h.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_MATMULTOGPU_SPLITTF32_H
#define FUSER_LIB_CONVERSION_MATMULTOGPU_SPLITTF32_H

#include "TmaPipeline.h"

namespace mlir::fuser {

/// A's prologue on four elements: A's (vector<4xf32>) and the prologue
/// input's at the same positions (null without one) to the values wgmma
/// reads.
using PrologueFn =
    llvm::function_ref<Value(OpBuilder &, Location, Value a, Value p)>;

/// 3xtf32 (tiling.splitInShared()): the splitter's pass over one output
/// tile's k tiles. For each, wait until its copies landed, write
/// lo = x - tf32(x) beside each copied x, with tf32(x) what wgmma reads of
/// x (x with its low 13 mantissa bits cleared), so x = tf32(x) + lo
/// exactly, and arrive on split[s]. lo is stored with half a tf32 unit
/// added to its magnitude (an integer add), so that wgmma's truncation
/// rounds it to nearest: truncated, the lo parts' error is biased. An
/// N-major B (tiling.transposesB()) is first transposed in place, box by
/// box, into the K-major rows wgmma reads. tf32_2xbf16 (tiling.crossBf16()):
/// per 8 k of a row, A's bf16 hi parts then lo parts, B's lo parts then hi
/// parts, in the lo parts' bytes.
/// `sid` is the thread's index among the t.splitterThreads(). With a
/// prologue (tiling.prologue), each chunk of A becomes `prologue(A, P)`
/// first, P the prologue input's chunk in A's lo parts: the result is
/// stored over A and its lo parts over P.
void emitTmaSplitter(OpBuilder &b, Location loc, const TmaBarriers &bars,
                     Value numK, Value sid, Value kBase,
                     PrologueFn prologue = nullptr);

/// emitTmaConsumer for 3xtf32: per k tile, wait for split[s], then three
/// wgmma products (wgmma reads A and B as their tf32 truncations): the
/// small terms A·B_lo + A_lo·B into one set of tensor-core sums, the large
/// term A·B into another, so that the large sums' truncating adds are one
/// per k step, not three (tf32_2xbf16: the small terms as one bf16
/// product on the cross-term bytes). A NaN small sum is dropped at each
/// promotion (an Inf operand's inf - inf lo part). Every promoteTiles() k tiles both are added into
/// fp32 registers (round-to-nearest adds); the large sums restart (scale-d
/// 0 on the chunk's first wgmmas: no registers to zero between them) and
/// the small ones start from what that add rounded away (compensated
/// summation). Returns those sums.
Value emitTmaSplitConsumer(OpBuilder &b, Location loc, const TmaBarriers &bars,
                           Value numK, Value tid, int64_t numAcc, Value kBase);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_MATMULTOGPU_SPLITTF32_H
