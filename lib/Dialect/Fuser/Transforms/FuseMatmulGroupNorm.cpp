//===- FuseMatmulGroupNorm.cpp - group norm into the GEMM epilogue --------===//
//
// Folds a 2-D fuser.group_norm into the fuser.matmul producing its input,
// when each group fits the columns one thread row of the GEMM kernel holds,
// so that Linear -> GroupNorm -> pointwise is one kernel.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "fuser/Dialect/Fuser/IR/GemmStrategy.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERFUSEMATMULGROUPNORMPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

class FuseMatmulGroupNormPass
    : public fuser::impl::FuserFuseMatmulGroupNormPassBase<
          FuseMatmulGroupNormPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GroupNormOp> norms;
    getOperation().walk([&](GroupNormOp op) { norms.push_back(op); });
    for (GroupNormOp norm : norms) {
      auto mm = norm.getInput().getDefiningOp<MatmulOp>();
      if (!mm)
        continue;
      std::string why = whyNotFusable(mm, norm);
      if (!why.empty()) {
        remark(norm, "group norm planned as its own kernel after the GEMM: " +
                         why);
        continue;
      }
      fuse(mm, norm);
    }
  }

private:
  void remark(Operation *op, const Twine &msg) {
    if (report)
      op->emitRemark() << msg;
  }

  static std::string whyNotFusable(MatmulOp mm, GroupNormOp norm) {
    if (mm.hasGroupNorm())
      return "the matmul already ends in a group norm";
    if (mm.isBatched())
      return "the matmul is batched (B x M x N), not (N, C) rows";
    if (!mm->hasOneUse())
      return "the matmul result has other users, so it must be stored";
    auto ty = cast<RankedTensorType>(norm.getInput().getType());
    if (!ty.getElementType().isF32())
      return "only the f32 GEMM kernel normalizes in its epilogue";
    if (ty.isDynamicDim(1))
      return "the channel count is dynamic, so the group size is unknown";
    // Every matmul with a group norm can fall back to the FFMA kernel's
    // default tile, so the group must fit its epilogue.
    int64_t groupSize = ty.getDimSize(1) / norm.getNumGroups();
    const GemmStrategyRecord &ffma = getGemmStrategyRecord(GemmStrategy::ffma);
    ArrayRef<int64_t> tile = ffma.defaultTile("fp32");
    if (!ffma.holdsGroups(tile, groupSize)) {
      std::string span = std::to_string(ffma.groupSpan(tile));
      return "a group of " + std::to_string(groupSize) +
             " channels does not fit the GEMM epilogue, which holds " + span +
             " columns per thread row in 4-wide pieces (the group size must "
             "be a multiple of 4 dividing " +
             span + ")";
    }
    return "";
  }

  void fuse(MatmulOp mm, GroupNormOp norm) {
    MLIRContext *ctx = mm.getContext();
    auto ty = cast<RankedTensorType>(norm.getInput().getType());
    int64_t groupSize = ty.getDimSize(1) / norm.getNumGroups();

    // Inputs: the matmul's, then gamma and beta (per column), then the group
    // norm epilogue's, all over (m, n).
    SmallVector<Value> inputs(mm.getEpilogueInputs());
    SmallVector<Attribute> maps(mm.getEpilogueMaps().getValue());
    auto column = AffineMapAttr::get(
        AffineMap::get(2, 0, getAffineDimExpr(1, ctx), ctx));
    inputs.append({norm.getGamma(), norm.getBeta()});
    maps.append({column, column});
    unsigned normInputsStart = inputs.size();
    llvm::append_range(inputs, norm.getEpilogueInputs());
    llvm::append_range(maps, norm.getEpilogueMaps().getValue());

    OpBuilder b(norm);
    auto group = MatmulOp::create(
        b, mm.getLoc(), norm.getResult().getType(), mm.getLhs(), mm.getRhs(),
        mm.getTransposeA(), mm.getTransposeB(), inputs,
        mm.getPrologueInputs(), b.getArrayAttr(maps),
        b.getI64IntegerAttr(groupSize), norm.getEpsilonAttr(),
        /*config=*/nullptr);
    group.getPrologue().takeBody(mm.getPrologue());

    // Both regions take (value, one element per input).
    SmallVector<Type> argTypes{ty.getElementType()};
    for (Value in : inputs)
      argTypes.push_back(isa<RankedTensorType>(in.getType())
                             ? cast<RankedTensorType>(in.getType())
                                   .getElementType()
                             : in.getType());
    SmallVector<Location> argLocs(argTypes.size(), mm.getLoc());

    // The epilogue: the matmul's body, ignoring the new inputs.
    Block *epilogue = b.createBlock(&group.getEpilogue(), {}, argTypes, argLocs);
    IRMapping epiMap;
    Block &mmBody = mm.getEpilogue().front();
    for (auto [i, arg] : llvm::enumerate(mmBody.getArguments()))
      epiMap.map(arg, epilogue->getArgument(i));
    b.setInsertionPointToEnd(epilogue);
    for (Operation &op : mmBody)
      b.clone(op, epiMap);

    // The `then` region: the affine, then the group norm's body.
    Block *then =
        b.createBlock(&group.getNormEpilogue(), {}, argTypes, argLocs);
    b.setInsertionPointToEnd(then);
    Location loc = norm.getLoc();
    unsigned gammaArg = 1 + normInputsStart - 2;
    Value scaled = arith::MulFOp::create(b, loc, then->getArgument(0),
                                         then->getArgument(gammaArg));
    Value affine =
        arith::AddFOp::create(b, loc, scaled, then->getArgument(gammaArg + 1));
    IRMapping thenMap;
    Block &normBody = norm.getEpilogue().front();
    thenMap.map(normBody.getArgument(0), affine);
    for (unsigned j = 1; j < normBody.getNumArguments(); ++j)
      thenMap.map(normBody.getArgument(j),
                  then->getArgument(1 + normInputsStart + j - 1));
    for (Operation &op : normBody)
      b.clone(op, thenMap);

    remark(norm, "group norm (groups of " + Twine(groupSize) +
                     " channels) fused into the GEMM epilogue: one kernel");
    norm.getResult().replaceAllUsesWith(group.getResult());
    norm->erase();
    mm->erase();
  }
};

} // namespace
