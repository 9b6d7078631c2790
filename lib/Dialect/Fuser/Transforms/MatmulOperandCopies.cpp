//===- MatmulOperandCopies.cpp - K-major copies of matmul operands --------===//
//
// Part of the configuration step (fuser-configure-kernels): where a matmul
// reads an operand in a layout the fast kernel does not, and the product is
// large enough, the operand is copied into that layout first; where f32 rows
// of K are not 16-byte multiples apart, both operands are copied with K
// padded so that TMA reads them.
//
//===----------------------------------------------------------------------===//

#include "MatmulOperandCopies.h"
#include "MatmulWaveTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

using namespace mlir;
using namespace mlir::fuser;

/// An f32 matmul whose A is M-major (transpose_a), or whose B is N-major
/// (K x N) where the kernel's in-shared-memory transposition does not
/// apply (N dynamic or not a multiple of 4; batched, K not a multiple of
/// its k tile) or costs more (kNMajorCopyMinM), misses 3xtf32 on
/// wgmma_tma, which reads them K-major: FFMA (45 TFLOP/s on an H100) or
/// fp64 tensor cores (52) instead of ~105. Copying
/// the operands K-major (a transposing pointwise kernel each, (M + N) * K
/// elements read and written) pays when M * N / (M + N) is large: about 128
/// at those rates and 3 TB/s; this takes 512 (static M and N), so that the
/// copies cost at most a quarter of what they save. Those rates need a
/// wave of FFMA tiles: with fewer, FFMA runs at the share of the SMs its
/// tiles take, and the bar drops with it (BERT-base's dW = g^T * x, 768 x
/// 768 from K = 1024: 18 FFMA tiles took 184 us on an H200, 4 of them per
/// layer; 3xtf32's 36 tiles of 128 x 128, copy included, 50 us). The backward GEMMs of
/// nn.Linear (dX = g * W, dW = g^T * x) are such products, and torch.bmm's
/// B x K x N right operand: a batched product's copies and savings both
/// scale with the batch, so the rule is per batch and the batch may be
/// dynamic. An f16/bf16 matmul with an N-major B (dW = g^T * x under
/// autocast) likewise misses wgmma_tma, for mma.sync.
static constexpr int64_t kKMajorCopyMinHarmonic = 512;

/// `v` with its two innermost dimensions swapped, by a pointwise copy built
/// at `b` (the tiled pointwise_transpose kernel; batches stay outermost).
static Value transposedCopy(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 2], shape[rank - 1]);
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  auto perm = llvm::to_vector(llvm::seq<unsigned>(0, rank));
  std::swap(perm[rank - 2], perm[rank - 1]);
  MLIRContext *ctx = b.getContext();
  AffineMap swap = AffineMap::getPermutationMap(perm, ctx);
  auto copy = PointwiseOp::create(
      b, loc, TypeRange{resultType}, ValueRange{v},
      b.getArrayAttr({AffineMapAttr::get(swap)}), /*config=*/nullptr);
  Block *body = new Block();
  copy.getBody().push_back(body);
  Value arg = body->addArgument(type.getElementType(), loc);
  OpBuilder end = OpBuilder::atBlockEnd(body);
  YieldOp::create(end, loc, ValueRange{arg});
  return copy.getResult(0);
}

/// TMA copies rows whose starts are a multiple of this many bytes apart.
static constexpr int64_t kTmaRowAlignBytes = 16;

/// The shortest K padded for TMA: wgmma_tma's k tile (3xtf32's BK).
static constexpr int64_t kMinPaddedK = 32;

/// `k` rounded up to whole TMA rows of `elemBits`-bit elements.
static int64_t tmaPaddedK(int64_t k, unsigned elemBits) {
  int64_t align = kTmaRowAlignBytes * 8 / elemBits;
  return llvm::divideCeil(k, align) * align;
}

/// `v` with its innermost dimension (K) padded with zeros up to `to`, as a
/// tensor.pad that fuser-slices-to-gathers makes a gather kernel. The zeros
/// of both operands meet only each other: the product's extra K terms are
/// exact zeros.
static Value zeroPaddedK(OpBuilder &b, Location loc, Value v, int64_t to) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)), high = low;
  high[rank - 1] = b.getIndexAttr(to - shape[rank - 1]);
  shape[rank - 1] = to;
  Type elem = type.getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
  return tensor::PadOp::create(b, loc, RankedTensorType::get(shape, elem), v,
                               low, high, zero);
}

/// True for a linalg.generic with reduction loops (a reduction the
/// configuration step gives a kernel of its own).
static bool isReduction(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumReductionLoops() > 0;
}

/// `use`'s reduction, reading result `res` of `producer`, rebuilt to
/// compute that value from `producer`'s inputs itself (their maps composed
/// with the one it read `res` through).
static void recomputeInReduction(PointwiseOp producer, OpResult res,
                                 OpOperand &use) {
  auto reduction = cast<linalg::GenericOp>(use.getOwner());
  MLIRContext *ctx = producer.getContext();
  AffineMap through = reduction.getMatchingIndexingMap(&use);
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : reduction.getDpsInputOperands())
    if (in != &use) {
      ins.push_back(in->get());
      maps.push_back(reduction.getMatchingIndexingMap(in));
    }
  unsigned firstProducerIn = ins.size();
  for (auto [i, in] : llvm::enumerate(producer.getInputs())) {
    ins.push_back(in);
    maps.push_back(isa<RankedTensorType>(in.getType())
                       ? producer.getIndexingMap(i).compose(through)
                       : AffineMap::get(through.getNumDims(), 0, {}, ctx));
  }
  SmallVector<Value> inits(reduction.getDpsInits());
  for (OpOperand &init : reduction.getDpsInitsMutable())
    maps.push_back(reduction.getMatchingIndexingMap(&init));
  OpBuilder b(reduction);
  auto rebuilt = linalg::GenericOp::create(
      b, reduction.getLoc(), reduction.getResultTypes(), ins, inits, maps,
      reduction.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        IRMapping map;
        Block &pbody = producer.getBodyBlock();
        for (auto [i, arg] : llvm::enumerate(pbody.getArguments()))
          map.map(arg, args[firstProducerIn + i]);
        for (Operation &op : pbody.without_terminator())
          nb.clone(op, map);
        Value value = map.lookupOrDefault(
            pbody.getTerminator()->getOperand(res.getResultNumber()));
        Block &rbody = *reduction.getBlock();
        unsigned next = 0, initArg = firstProducerIn + pbody.getNumArguments();
        for (OpOperand *in : reduction.getDpsInputOperands())
          map.map(reduction.getMatchingBlockArgument(in),
                  in == &use ? value : args[next++]);
        for (OpOperand &init : reduction.getDpsInitsMutable())
          map.map(reduction.getMatchingBlockArgument(&init), args[initArg++]);
        for (Operation &op : rbody.without_terminator())
          nb.clone(op, map);
        SmallVector<Value> yielded;
        for (Value v : rbody.getTerminator()->getOperands())
          yielded.push_back(map.lookupOrDefault(v));
        linalg::YieldOp::create(nb, loc, yielded);
      });
  reduction->replaceAllUsesWith(rebuilt->getResults());
  reduction->erase();
}

/// Where a transposed copy `copy` of `v` is made for a matmul and `v` comes
/// from a fuser.pointwise group whose other results only reductions read
/// (nn.Linear's backward: g feeds dW's copy, and its column sums are the
/// bias gradient), the group goes: the copy computes `v` itself, reading
/// the group's inputs through their maps composed with the swap (the
/// pointwise_transpose kernel stages each transposed input), and each
/// reduction computes what it read (through its map composed likewise).
/// The group's pass over memory is saved: g and its transpose become one
/// kernel.
static void computeIntoTransposedCopy(Value v, PointwiseOp copy) {
  auto producer = v.getDefiningOp<PointwiseOp>();
  if (!producer || producer.getConfigAttr() || !v.hasOneUse())
    return;
  // Each reduction reads the group once (it is rebuilt per read).
  SmallPtrSet<Operation *, 4> readers;
  for (OpResult res : producer->getResults())
    if (res != v)
      for (Operation *user : res.getUsers())
        if (!isReduction(user) || !readers.insert(user).second)
          return;
  for (OpResult res : producer->getResults())
    if (res != v)
      for (OpOperand &use : llvm::make_early_inc_range(res.getUses()))
        recomputeInReduction(producer, res, use);
  AffineMap swap = copy.getIndexingMap(0);
  SmallVector<Attribute> maps;
  for (auto [i, in] : llvm::enumerate(producer.getInputs()))
    maps.push_back(AffineMapAttr::get(
        isa<RankedTensorType>(in.getType())
            ? producer.getIndexingMap(i).compose(swap)
            : producer.getIndexingMap(i)));
  OpBuilder b(copy);
  auto merged = PointwiseOp::create(b, copy.getLoc(), copy.getResultTypes(),
                                    producer.getInputs(), b.getArrayAttr(maps),
                                    /*config=*/nullptr);
  merged.getBody().takeBody(producer.getBody());
  // Yield v's value alone; what only the other results needed goes.
  Operation *yield = merged.getBodyBlock().getTerminator();
  Value kept = yield->getOperand(cast<OpResult>(v).getResultNumber());
  yield->setOperands(kept);
  for (Operation &op : llvm::make_early_inc_range(
           llvm::reverse(merged.getBodyBlock().without_terminator())))
    if (op.use_empty())
      op.erase();
  copy.getResult(0).replaceAllUsesWith(merged.getResult(0));
  copy->erase();
  producer->erase();
}

/// Multiply-adds per FFMA tile from which a part of a wave is slow: about
/// 25 us on one SM (an H100's or H200's FFMA peak over 132 SMs), against
/// a few for the copy's kernel and launch. Below, small products keep the
/// whole bar.
static constexpr int64_t kFfmaTileWorkForCopy = int64_t(1) << 22;

/// kKMajorCopyMinHarmonic; for an M-major A, whose alternative is the
/// FFMA kernel, scaled by the share of a wave that its tiles fill where
/// each tile is long (static shapes). A wave: the persistent wgmma_tma
/// grid, one block per SM, as the FFMA kernel's (min_blocks_per_sm = 1).
/// (An N-major B alone falls back on fp64 tensor cores, whose 128 x 128
/// tiles fill more of the wave.)
static int64_t copyBar(MatmulOp op) {
  if (!op.getTransposeA())
    return kKMajorCopyMinHarmonic;
  const GemmStrategyRecord &ffma = getGemmStrategyRecord(GemmStrategy::ffma);
  int64_t wave = getGemmStrategyRecord(GemmStrategy::wgmma_tma).maxGrid;
  ArrayRef<int64_t> tile = ffma.defaultTile("fp32");
  std::optional<int64_t> tiles = staticOutputTiles(op, tile);
  auto resTy = cast<RankedTensorType>(op.getResult().getType());
  int64_t rank = resTy.getRank();
  int64_t m = resTy.getDimSize(rank - 2), n = resTy.getDimSize(rank - 1);
  int64_t k =
      cast<RankedTensorType>(op.getLhs().getType()).getDimSize(op.getLhsKDim());
  if (!tiles || wave <= 0 || *tiles >= wave || ShapedType::isDynamic(k) ||
      std::min(m, tile[0]) * std::min(n, tile[1]) * k < kFfmaTileWorkForCopy)
    return kKMajorCopyMinHarmonic;
  return std::max<int64_t>(1, kKMajorCopyMinHarmonic * *tiles / wave);
}

std::string mlir::fuser::kMajorCopyRefusal(MatmulOp op) {
  auto resTy = cast<RankedTensorType>(op.getResult().getType());
  auto lhsTy = cast<RankedTensorType>(op.getLhs().getType());
  if (op.hasGroupNorm())
    return "a group norm";
  int64_t rank = resTy.getRank();
  int64_t m = resTy.getDimSize(rank - 2), n = resTy.getDimSize(rank - 1);
  int64_t k = lhsTy.getDimSize(op.getLhsKDim());
  auto rhsTy = cast<RankedTensorType>(op.getRhs().getType());
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(k) ||
      ShapedType::isDynamic(rhsTy.getDimSize(op.getRhsKDim())))
    return "M, N or K is dynamic";
  if (k % 4) {
    // f16/bf16 rows are read through cp.async there, which any pitch suits;
    // padding f32 rows pays from a whole k tile up (below, writing C bounds
    // the product).
    if (!lhsTy.getElementType().isF32())
      return "K is not a multiple of 4 (TMA rows)";
    if (k < kMinPaddedK)
      return "K = " + std::to_string(k) +
             " is not a multiple of 4 and below a k tile (" +
             std::to_string(kMinPaddedK) + "): padding it would not pay";
    if (!isa_and_nonnull<func::FuncOp>(op->getParentOp()))
      return "K is not a multiple of 4 and the product is not in a "
             "function's body, where its padded copies would be gathers";
  }
  int64_t bar = copyBar(op);
  if (m * n < bar * (m + n))
    return "M * N / (M + N) = " + std::to_string(m * n / (m + n)) + ", below " +
           std::to_string(bar) +
           (bar < kKMajorCopyMinHarmonic
                ? " (" + std::to_string(kKMajorCopyMinHarmonic) +
                      " scaled by the FFMA tiles' share of a wave)"
                : std::string());
  return "";
}

/// An N-major B that 3xtf32 on wgmma_tma could read as it is is still
/// copied (where the rule above allows) from this many static rows M up:
/// the kernel's transposition in shared memory slows its splitter by about
/// 10% of the GEMM, the copy costs 8 N K bytes of traffic per batch, so the
/// copy is cheaper from M = 4 R / (0.1 BW) ~ 1300 (R = 100 TFLOP/s, BW = 3
/// TB/s). Measured (H100, 2026-11-24,
/// bench/results/H100-2026-11-24-n-major-b.md): 32 x 1024^3 torch.bmm
/// 0.747 ms transposed in the kernel against 0.788 copied; 4096^3 x @ W
/// 1.494 against 1.411.
static constexpr int64_t kNMajorCopyMinM = 1536;

bool mlir::fuser::copyOperandsKMajor(MatmulOp op, const ChipInfo &chip, bool tmaAllowed,
                        bool report) {
  auto resTy = cast<RankedTensorType>(op.getResult().getType());
  auto lhsTy = cast<RankedTensorType>(op.getLhs().getType());
  int64_t rank = resTy.getRank();
  int64_t m = resTy.getDimSize(rank - 2), n = resTy.getDimSize(rank - 1);
  // A dynamic M (kDynamic < 0) never reaches the rule; kMajorCopyRefusal
  // refuses it below anyway.
  // f16/bf16 operands: wgmma_tma reads them K-major only (and A is never
  // M-major: fuser-fuse-matmul leaves an x.T of them a copy).
  Type operandTy = lhsTy.getElementType();
  bool half = isa<Float16Type, BFloat16Type>(operandTy);
  if (!chip.wgmma || !tmaAllowed ||
      !(half || (operandTy.isF32() && resTy.getElementType().isF32())) ||
      !kMajorCopyRefusal(op).empty())
    return false;
  // f32 rows of K that are not 16-byte multiples apart: TMA reads neither
  // operand, so both are copied with K padded (kMajorCopyRefusal refused
  // a dynamic K, and f16/bf16 such rows).
  int64_t k = lhsTy.getDimSize(op.getLhsKDim());
  int64_t paddedK = tmaPaddedK(k, operandTy.getIntOrFloatBitWidth());
  bool padK = !half && paddedK != k;
  bool kernelReadsB = !half && !padK && wgmmaTmaReadsNMajorB(op);
  bool copyB = !op.getTransposeB() && (!kernelReadsB || m >= kNMajorCopyMinM);
  if (!op.getTransposeA() && !copyB && !padK)
    return false;
  int64_t bar = copyBar(op); // Before the copies change the layouts.
  OpBuilder b(op);
  Location loc = op.getLoc();
  StringRef which = op.getTransposeA() && copyB ? "A and B"
                    : op.getTransposeA()        ? "A"
                    : copyB                     ? "B"
                                                : "";
  // The prologue computes A in a kernel of its own, which the pad reads.
  bool ownPrologue = padK && op.hasPrologue();
  if (ownPrologue)
    op.materializePrologue();
  if (op.getTransposeA()) {
    Value lhs = op.getLhs();
    Value copy = transposedCopy(b, loc, lhs);
    op.getLhsMutable().assign(copy);
    op.setTransposeA(false);
    computeIntoTransposedCopy(lhs, copy.getDefiningOp<PointwiseOp>());
  }
  if (copyB) {
    op.getRhsMutable().assign(transposedCopy(b, loc, op.getRhs()));
    op.setTransposeB(true);
  }
  if (padK) {
    op.getLhsMutable().assign(zeroPaddedK(b, loc, op.getLhs(), paddedK));
    op.getRhsMutable().assign(zeroPaddedK(b, loc, op.getRhs(), paddedK));
  }
  if (report) {
    InFlightDiagnostic remark = op.emitRemark();
    if (!which.empty())
      remark << which << " copied K-major by a transposing kernel"
             << (padK ? ", then " : " ");
    if (padK)
      remark << (which.empty() ? "A and B" : "both")
             << " copied with K padded with zeros from " << k << " to "
             << paddedK << " (rows of 16-byte multiples for TMA"
             << (ownPrologue ? "; A's prologue in a pointwise kernel of its "
                               "own first"
                             : "")
             << ") ";
    remark << "so that "
           << (!half                ? "3xtf32"
               : operandTy.isBF16() ? "bf16"
                                    : "f16")
           // 16-bit rows that are not 16-byte multiples apart: cp.async.
           << (op.hasTmaCopyableK() ? " on wgmma_tma" : " on wgmma")
           << " applies (M * N / (M + N) = " << m * n / (m + n)
           << ", at least " << bar;
    if (copyB && kernelReadsB)
      remark << "; with M = " << m << ", at least " << kNMajorCopyMinM
             << ", B's copy costs less than its transposition in the kernel";
    remark << ")";
  }
  return true;
}
