//===- FuseMatmul.cpp - matmul + epilogue into fuser.matmul -----*- C++ -*-===//
//
// Forms fuser.matmul groups from 2-D matrix products on tensors and the
// chains of elementwise ops that consume them.
//
// 1. A contraction qualifies when it is a plain product (A[m, k] or A[k, m]
//    times B[k, n] or B[n, k]), 2-D or batched over a leading dimension
//    (torch.bmm), of one float element type with a mulf + addf body,
//    accumulating into a +0.0 fill; or of f16/bf16 operands summed into f32
//    (linalg.matmul's extf in the body, or both operands extf'd from one
//    16-bit type: an autocast addmm), which the tensor cores compute
//    exactly as written.
// 2. An operand that is a transposing copy (torch-mlir's nn.Linear:
//    transpose(W) then matmul; x.T @ W) is replaced by its source with
//    transpose_b or transpose_a toggled. A transposed A is f32 only: the
//    FFMA kernel reads it, the tensor-core kernels read K-major A.
// 3. The elementwise consumers are absorbed as a DAG (absorbElementwise-
//    Consumers): values with several users inside the epilogue, such as
//    the y of torch-mlir's leaky_relu max(0, y) + a * min(0, y), do not end
//    it; only a value also needed outside the group does, as its result.
//    The other operands become epilogue inputs, looked through broadcasts,
//    transposes and fills; size-1 dimensions read at 0 (keepdim shapes)
//    are collapsed away.
// 4. The DAG is replaced by one fuser.matmul; copies left dead are erased.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "llvm/Support/ScopedPrinter.h"

#include "ElementwiseUtils.h"
#include "EpilogueUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "fuser-fuse-matmul"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEMATMULPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// True if `init` holds +0.0 everywhere: a +0.0 fill (named or generic) or a
/// +0.0 splat constant. -0.0 does not qualify: -0.0 + -0.0 is -0.0, so an
/// all-(-0.0) sum would keep its sign where fuser.matmul's does not.
static bool isPosZeroInit(Value init) {
  if (matchPattern(init, m_PosZeroFloat()))
    return true;
  std::optional<MappedValue> copy = matchCopy(init);
  return copy && !isa<ShapedType>(copy->source.getType()) &&
         matchPattern(copy->source, m_PosZeroFloat());
}

/// `v` itself, or the block argument it extends (arith.extf of a 16-bit
/// operand to the f32 accumulator: linalg.matmul's bf16 x bf16 -> f32).
static Value throughExtension(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return v;
}

/// True if `body` computes `out + a * b` from its block arguments (a, b,
/// out) with one mulf and one addf, in either operand order; a and b may
/// each be extended (arith.extf) to the accumulator's type first.
static bool isMulAddBody(Block &body) {
  if (body.getNumArguments() != 3)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1),
        out = body.getArgument(2);
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  auto mul = add.getLhs().getDefiningOp<arith::MulFOp>();
  if (!mul)
    mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  // The multiply, the add, the yield and at most one extension per operand.
  size_t extensions = llvm::count_if(
      body, [](Operation &op) { return isa<arith::ExtFOp>(op); });
  if (!mul || extensions > 2 ||
      body.getOperations().size() != 3 + extensions)
    return false;
  auto isPair = [](Value x, Value y, Value p, Value q) {
    return (x == p && y == q) || (x == q && y == p);
  };
  return isPair(throughExtension(mul.getLhs()),
                throughExtension(mul.getRhs()), a, b) &&
         isPair(add.getLhs(), add.getRhs(), out, mul.getResult());
}

/// The 16-bit tensor `v` is an exact f32 copy of: `v` made by an
/// elementwise arith.extf from f16 or bf16 (autocast's casts as torch-mlir
/// lowers a bf16 addmm: both operands extended, an f32 product).
static std::optional<Value> matchExtendedHalf(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  Block *body = op.getBlock();
  if (!body || body->getOperations().size() != 2)
    return std::nullopt;
  auto ext = dyn_cast<arith::ExtFOp>(body->front());
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!ext || !yield || yield.getOperand(0) != ext.getResult() ||
      ext.getIn() != body->getArgument(0))
    return std::nullopt;
  Value source = op.getDpsInputOperand(0)->get();
  if (!isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(source.getType())))
    return std::nullopt;
  return source;
}

/// Why a matrix-vector product is left to the reduction kernel (the pass
/// rewrites it as a sum over K for that kernel: rewriteAsReduction).
constexpr const char kVectorProductReason[] =
    "it is a matrix-vector product (M or N of 1): a sum over K per output, "
    "memory-bound on the matrix; the reduction kernel streams the matrix "
    "with every SM busy, where a GEMM's tiles of 8 or more columns leave "
    "most of them idle";

/// A 2-D product with a static M or N of 1 (A @ x with x of K x 1, x^T @ A).
static bool isVectorProduct(linalg::LinalgOp op,
                            const linalg::ContractionDimensions &dims) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  return op.getNumLoops() == 3 && (ranges[dims.m[0]] == 1 ||
                                   ranges[dims.n[0]] == 1);
}

/// A contraction fuser.matmul can take, or a matrix-vector product
/// (`vectorProduct`) the reduction kernel takes instead.
struct MatmulMatch {
  Value lhs, rhs;
  bool transposeA = false, transposeB = false;
  bool vectorProduct = false;
};

/// Replaces `operand` by the source of the transposing copies it is made
/// by (the last two dimensions swapped, a batch dimension kept), toggling
/// `transposed` for each.
static void lookThroughTransposes(Value &operand, bool &transposed,
                                  unsigned rank) {
  SmallVector<unsigned> swapLast =
      rank == 3 ? SmallVector<unsigned>{0, 2, 1} : SmallVector<unsigned>{1, 0};
  while (std::optional<MappedValue> copy = matchCopy(operand)) {
    auto srcTy = dyn_cast<RankedTensorType>(copy->source.getType());
    if (!srcTy || srcTy.getRank() != rank ||
        copy->map !=
            AffineMap::getPermutationMap(swapLast, operand.getContext()))
      return;
    operand = copy->source;
    transposed = !transposed;
  }
}

/// Matches a 2-D matmul accumulating into +0.0 and fills `match`. Returns why
/// `op` is not one, or "" if it is (`match.vectorProduct` set for a
/// matrix-vector product).
static std::string matchMatmul(linalg::LinalgOp op, MatmulMatch &match) {
  if (!op.hasPureTensorSemantics())
    return "it operates on buffers, not tensors";
  // isaContractionOpInterface(op) holds: two inputs, one init, and m, n, k
  // dimensions exist. This only guards against that changing upstream.
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return "it is not a two-operand contraction";
  if (dims->batch.size() > 1)
    return "it has more than one batch dimension";
  unsigned batch = dims->batch.size();
  if (dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1 ||
      op.getNumLoops() != 3 + batch)
    return "it contracts more than one M, N or K dimension";

  OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
  OpOperand *c = op.getDpsInitOperand(0);
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(dims->m[0], ctx),
             n = getAffineDimExpr(dims->n[0], ctx),
             k = getAffineDimExpr(dims->k[0], ctx);
  auto map = [&](AffineExpr r0, AffineExpr r1) {
    SmallVector<AffineExpr> results;
    if (batch)
      results.push_back(getAffineDimExpr(dims->batch[0], ctx));
    results.append({r0, r1});
    return AffineMap::get(3 + batch, 0, results, ctx);
  };
  // fuser.matmul takes A (m, k) or (k, m), B (k, n) or (n, k) and C (m, n),
  // a batch dimension first in each. In 2-D those are all the maps there
  // are but C (n, m); with a batch, the batch may sit anywhere.
  AffineMap aMap = op.getMatchingIndexingMap(a);
  AffineMap bMap = op.getMatchingIndexingMap(b);
  if ((aMap != map(m, k) && aMap != map(k, m)) ||
      (bMap != map(k, n) && bMap != map(n, k)))
    return "it reads its operands through maps other than (batch, row, "
           "column) with the batch first";
  if (op.getMatchingIndexingMap(c) != map(m, n))
    return batch ? "it writes its result as other than (batch, M, N)"
                 : "it writes its result transposed (N x M)";

  Type elem = getElementTypeOrSelf(c->get().getType());
  Value lhs = a->get(), rhs = b->get();
  // Products of f16/bf16 values extended to f32: the 16-bit operands
  // themselves, multiplied exactly and summed in f32 by the tensor cores.
  if (elem.isF32()) {
    std::optional<Value> halfA = matchExtendedHalf(lhs);
    std::optional<Value> halfB = matchExtendedHalf(rhs);
    if (halfA && halfB && getElementTypeOrSelf(halfA->getType()) ==
                              getElementTypeOrSelf(halfB->getType())) {
      lhs = *halfA;
      rhs = *halfB;
    }
  }
  Type operandElem = getElementTypeOrSelf(lhs.getType());
  bool sameType = operandElem == elem;
  bool halfIntoF32 = isa<Float16Type, BFloat16Type>(operandElem) &&
                     elem.isF32();
  if (getElementTypeOrSelf(rhs.getType()) != operandElem ||
      !(sameType || halfIntoF32) ||
      !isa<Float32Type, Float16Type, BFloat16Type>(elem)) {
    std::string why;
    llvm::raw_string_ostream os(why);
    os << "element types " << getElementTypeOrSelf(a->get().getType()) << " x "
       << getElementTypeOrSelf(b->get().getType()) << " -> " << elem
       << " are not supported: fuser.matmul takes f32, f16 or bf16 "
          "operands of one type, into a result of that type or (16-bit "
          "operands) f32";
    return why;
  }
  // f16/bf16 groups get the tensor-core kernel (fuser-configure-kernels
  // picks precision bf16/f16 for them; fp32 accumulation).
  if (!isMulAddBody(*op.getBlock()))
    return "its body is not a single multiply-add";
  if (!isPosZeroInit(c->get()))
    return "its accumulator does not start from a +0.0 fill (accumulating "
           "into a tensor is not supported)";

  match.lhs = lhs;
  match.rhs = rhs;
  match.transposeA = aMap == map(k, m);
  match.transposeB = bMap == map(n, k);
  // nn.Linear: B = transpose(W), so B[k, n] = W[n, k]; read W directly.
  lookThroughTransposes(match.rhs, match.transposeB, 2 + batch);
  if (!batch && isVectorProduct(op, *dims)) {
    lookThroughTransposes(match.lhs, match.transposeA, 2);
    match.vectorProduct = true;
    return "";
  }
  // x.T @ W likewise, but only the f32 FFMA kernel reads an M-major A: so
  // only where B is not K-major either (then no tensor-core kernel reads
  // both operands as they are: fp64 mma after the copy measured 52 TFLOP/s,
  // FFMA 45). With K-major B (x.T @ W.T) the copy stays, and 3xtf32 on
  // wgmma_tma (105 TFLOP/s) reads the K-major A it makes.
  if (operandElem.isF32() && !match.transposeB)
    lookThroughTransposes(match.lhs, match.transposeA, 2 + batch);
  else if (match.transposeA && !operandElem.isF32())
    return "it reads A transposed (K x M), which only the f32 kernel does";
  return "";
}

/// A batched matmul's kernels offset each epilogue input to its batch, so
/// an input read with the batch after another dimension ((b, m, n) ->
/// (m, b, n)) is first copied batch-first by a linalg.transpose (a kernel
/// of its own, with a remark) placed at `b`.
static void copyEpilogueInputsBatchFirst(
    Epilogue &epi, OpBuilder &b, Location loc,
    function_ref<void(Operation *, const Twine &)> remark) {
  MLIRContext *ctx = b.getContext();
  for (auto [j, attr] : llvm::enumerate(epi.maps)) {
    AffineMap map = cast<AffineMapAttr>(attr).getValue();
    std::optional<unsigned> pos =
        map.getResultPosition(getAffineDimExpr(0, ctx));
    if (!pos || *pos == 0)
      continue;
    SmallVector<int64_t> perm{*pos};
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (r != *pos)
        perm.push_back(r);
    Value input = epi.inputs[j];
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    SmallVector<OpFoldResult> permuted;
    SmallVector<AffineExpr> results;
    for (int64_t r : perm) {
      permuted.push_back(sizes[r]);
      results.push_back(map.getResult(r));
    }
    Value init = tensor::EmptyOp::create(
        b, loc, permuted, getElementTypeOrSelf(input.getType()));
    auto copy = linalg::TransposeOp::create(b, loc, input, init, perm);
    remark(copy, "epilogue input #" + Twine(j) +
                     " copied batch-first for the batched matmul (its "
                     "kernels offset each input to its batch)");
    epi.inputs[j] = copy->getResult(0);
    epi.maps[j] = AffineMapAttr::get(
        AffineMap::get(map.getNumDims(), 0, results, ctx));
  }
}

class FuseMatmulPass
    : public fuser::impl::FuserFuseMatmulPassBase<FuseMatmulPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    // Candidates all exist before the first rewrite, so an address in
    // `erased` can only be a candidate that was really erased.
    erased.clear();
    // Tensors computed from constants and indices alone (torch.arange, the
    // masks of triu/tril) become constants first, so that epilogues take
    // their readers instead of leaving them a kernel each.
    foldConstantGenerics(getOperation(), kMaxFoldedElements,
                         [&](Operation *at, const Twine &msg) {
                           remark(at, msg);
                         });
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions) {
      if (erased.contains(op))
        continue; // a dead producer of an earlier group
      MatmulMatch match;
      std::string why = matchMatmul(op, match);
      if (match.vectorProduct) {
        remark(rewriteAsReduction(op, match),
               Twine("not fused into fuser.matmul: ") + kVectorProductReason);
        continue;
      }
      if (!why.empty()) {
        remark(op, "not fused into fuser.matmul: " + why);
        continue;
      }
      fuse(op, match);
    }
  }

private:
  /// Ops erased so far, so that pending contractions are not revisited.
  DenseSet<Operation *> erased;

  void remark(Operation *op, const Twine &msg) {
    if (report)
      op->emitRemark() << msg;
  }

  /// Replaces the matrix-vector product `op` by the sum over K it is, for
  /// the reduction kernel: a linalg.generic over (output, k) reading the
  /// matrix as it is stored and the vector through a 1-D collapse_shape view
  /// (so the kernel loads it 16 bytes at a time), into a +0.0 fill of the
  /// outputs, expanded back to the product's shape. Returns the generic.
  Operation *rewriteAsReduction(linalg::LinalgOp op,
                                const MatmulMatch &match) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value result = op->getResult(0);
    auto resTy = cast<RankedTensorType>(result.getType());
    Type elem = resTy.getElementType();
    // N of 1: y[m] = sum_k A[m, k] x[k]; else (M of 1) y[n] = sum_k x[k]
    // B[k, n]. The matrix's map over (o, k): as stored.
    bool columnVector = resTy.getDimSize(1) == 1;
    Value matrix = columnVector ? match.lhs : match.rhs;
    Value vector = columnVector ? match.rhs : match.lhs;
    bool outputMajor = columnVector ? !match.transposeA : match.transposeB;
    AffineExpr o = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx);
    AffineMap matrixMap = AffineMap::get(2, 0, outputMajor
                                                   ? ArrayRef<AffineExpr>{o, k}
                                                   : ArrayRef<AffineExpr>{k, o},
                                         ctx);
    SmallVector<ReassociationIndices> both{{0, 1}};
    Value flat = tensor::CollapseShapeOp::create(b, loc, vector, both);
    // The outputs' extent, from the matrix (the product's own dims are not
    // available before it).
    OpFoldResult outputs =
        tensor::getMixedSize(b, loc, matrix, outputMajor ? 0 : 1);
    SmallVector<OpFoldResult> sizes{outputs, b.getIndexAttr(1)};
    if (!columnVector)
      std::swap(sizes[0], sizes[1]);
    Value empty =
        tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{outputs}, elem);
    Value zero = arith::ConstantOp::create(b, loc, elem, b.getZeroAttr(elem));
    Value fill = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    auto vectorMap = AffineMap::get(2, 0, {k}, ctx);
    auto outMap = AffineMap::get(2, 0, {o}, ctx);
    auto sum = linalg::GenericOp::create(
        b, loc, TypeRange{fill.getType()}, ValueRange{matrix, flat},
        ValueRange{fill}, ArrayRef<AffineMap>{matrixMap, vectorMap, outMap},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                      utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location at, ValueRange args) {
          auto widen = [&](Value v) {
            return v.getType() == elem
                       ? v
                       : arith::ExtFOp::create(nb, at, elem, v).getResult();
          };
          // Separate statements: argument order is unspecified in C++.
          Value m = widen(args[0]);
          Value v = widen(args[1]);
          Value p = arith::MulFOp::create(nb, at, m, v);
          Value acc = arith::AddFOp::create(nb, at, args[2], p);
          linalg::YieldOp::create(nb, at, acc);
        });
    Value expanded = tensor::ExpandShapeOp::create(
        b, loc, resTy, sum.getResult(0), both, sizes);
    result.replaceAllUsesWith(expanded);
    SmallVector<Operation *> chain{op};
    eraseChainAndDeadProducers(chain, erased);
    return sum;
  }

  /// Replaces `op` and the elementwise DAG after it with one fuser.matmul.
  void fuse(linalg::LinalgOp op, const MatmulMatch &match) {
    MLIRContext *ctx = op.getContext();
    Value cur = op->getResult(0);
    auto curTy = cast<RankedTensorType>(cur.getType());
    Epilogue epi(ctx, curTy.getElementType(), op.getLoc());
    Value running = epi.block->getArgument(0);
    SmallVector<Operation *> chain{op};
    cur = absorbElementwiseConsumers(
        cur, running, epi, op->getBlock(), "matmul", chain,
        [&](Operation *at, const Twine &msg) { remark(at, msg); });

    // Build the group where the chain ends: every input dominates it.
    YieldOp::create(epi.builder, op.getLoc(), running);
    OpBuilder builder(chain.back());
    if (curTy.getRank() == 3)
      copyEpilogueInputsBatchFirst(
          epi, builder, op.getLoc(),
          [&](Operation *at, const Twine &msg) { remark(at, msg); });
    auto group = fuser::MatmulOp::create(
        builder, op.getLoc(), cur.getType(), match.lhs, match.rhs,
        match.transposeA, match.transposeB, epi.inputs,
        /*prologue_inputs=*/ValueRange{}, builder.getArrayAttr(epi.maps),
        /*norm_group_size=*/nullptr, /*norm_epsilon=*/nullptr,
        /*config=*/nullptr);
    group.getEpilogue().push_back(epi.block);
    remark(op,
           "fused matmul with " + Twine(chain.size() - 1) + " epilogue op(s)");
    // An x.T left as a copy (matchMatmul): the tensor-core kernels read
    // K-major A only.
    bool aTransposable = false;
    Value lhs = match.lhs;
    lookThroughTransposes(lhs, aTransposable, curTy.getRank());
    if (lhs != match.lhs)
      remark(match.lhs.getDefiningOp(),
             "not absorbed into fuser.matmul: the left operand is a "
             "transposed copy (x.T) and the tensor-core kernels read K-major "
             "A only (" +
                 Twine(getElementTypeOrSelf(lhs.getType()).isF32()
                           ? "B is K-major, so the f32 split-precision "
                             "kernel applies after the copy"
                           : "16-bit types have no FFMA kernel") +
                 "); the copy is a kernel of its own");
    LLVM_DEBUG(llvm::dbgs() << "fused: " << group << "\n");
    cur.replaceAllUsesWith(group.getResult());

    // Erase the chain, then the producers (fills, transposes, broadcasts,
    // tensor.empty, constants its bodies captured) that only it used.
    eraseChainAndDeadProducers(chain, erased);
  }
};

} // namespace
