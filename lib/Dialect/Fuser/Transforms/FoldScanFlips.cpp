//===- FoldScanFlips.cpp - flip, scan, flip as one reversed scan ----------===//
//
// See the pass description: torch-mlir's reversed cumsum (x.flip(d), a
// scan along d, a flip of the result) becomes one fuser.scan with the
// `reverse` attribute, which reads and writes the lines from their ends.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFOLDSCANFLIPSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Whether `v` is `dim(source, d) - 1`: a constant where `source` has a
/// static size along `d`, else `arith.subi(tensor.dim(source, d), 1)`.
bool isLastIndex(Value v, Value source, int64_t d) {
  auto type = cast<RankedTensorType>(source.getType());
  APInt c;
  if (!type.isDynamicDim(d))
    return matchPattern(v, m_ConstantInt(&c)) &&
           c.getSExtValue() == type.getDimSize(d) - 1;
  auto sub = v.getDefiningOp<arith::SubIOp>();
  if (!sub || !matchPattern(sub.getRhs(), m_ConstantInt(&c)) || c != 1)
    return false;
  auto dim = sub.getLhs().getDefiningOp<tensor::DimOp>();
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  return dim && dim.getSource() == source && index == d;
}

/// The tensor that `op` reverses along dimension `d` (torch-mlir's
/// `flip`: a parallel generic of identity maps whose body extracts
/// `source[i0, ..., last - id, ...]`), or null.
Value flippedSource(linalg::GenericOp op, int64_t d) {
  if (!op || op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto extract = yield.getValues()[0].getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract->getBlock() != &body ||
      extract.getTensor().getType() != op->getResult(0).getType())
    return {};
  Value source = extract.getTensor();
  if (source.getParentBlock() == &body)
    return {};
  for (auto [dim, index] : llvm::enumerate(extract.getIndices())) {
    int64_t k = dim; // C++17 lambdas cannot capture structured bindings.
    auto loop = [&](Value v) {
      auto i = v.getDefiningOp<linalg::IndexOp>();
      return i && i->getBlock() == &body && int64_t(i.getDim()) == k;
    };
    if (k != d) {
      if (!loop(index))
        return {};
      continue;
    }
    auto sub = index.getDefiningOp<arith::SubIOp>();
    if (!sub || !loop(sub.getRhs()) || !isLastIndex(sub.getLhs(), source, d))
      return {};
  }
  // Nothing else in the body: no other computation depends on the flip.
  for (Operation &inner : body.without_terminator())
    if (!isa<linalg::IndexOp, arith::SubIOp, tensor::ExtractOp>(inner))
      return {};
  return source;
}

class FuserFoldScanFlipsPass
    : public fuser::impl::FuserFoldScanFlipsPassBase<FuserFoldScanFlipsPass> {
public:
  void runOnOperation() override {
    SmallVector<ScanOp> scans;
    getOperation().walk([&](ScanOp op) { scans.push_back(op); });
    for (ScanOp scan : scans) {
      int64_t d = scan.getDimension();
      auto inFlip = scan.getInput().getDefiningOp<linalg::GenericOp>();
      Value source = flippedSource(inFlip, d);
      if (!source)
        continue;
      // The output's one reader is a flip (its operand and its body's
      // extract); its sizes (the flip's `last`) may be read too.
      linalg::GenericOp outFlip;
      bool onlyFlipped = true;
      for (Operation *user : scan.getOutput().getUsers()) {
        if (isa<tensor::DimOp>(user))
          continue;
        auto reader = dyn_cast<linalg::GenericOp>(user);
        if (!reader)
          reader = user->getParentOfType<linalg::GenericOp>();
        onlyFlipped &= reader && (!outFlip || reader == outFlip);
        outFlip = reader;
      }
      if (!onlyFlipped || flippedSource(outFlip, d) != scan.getOutput())
        continue;
      OpBuilder b(scan);
      auto reversed =
          ScanOp::create(b, scan.getLoc(), scan->getResultTypes(), source,
                         scan.getOutputInit(), scan.getAccumulatorInit(), d,
                         scan.getInclusive(), /*reverse=*/!scan.getReverse(),
                         scan.getConfigAttr());
      reversed.getBody().takeBody(scan.getBody());
      outFlip->getResult(0).replaceAllUsesWith(reversed.getOutput());
      scan.getAccumulator().replaceAllUsesWith(reversed.getAccumulator());
      outFlip->erase();
      scan.getOutput().replaceAllUsesWith(reversed.getOutput()); // sizes
      scan->erase();
      if (inFlip->use_empty())
        inFlip->erase();
    }
  }
};

} // namespace
