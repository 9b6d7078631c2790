//===- ScanPrologue.cpp - a scan's fused elementwise producer -------------===//

#include "fuser/Dialect/Fuser/Transforms/ScanPrologue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fuser;

std::optional<ScanPrologue> mlir::fuser::scanPrologue(ScanOp op) {
  auto producer = op.getInput().getDefiningOp<PointwiseOp>();
  if (!producer || !op.getInput().hasOneUse() ||
      producer->getNumResults() != 1 || producer.getInputs().empty())
    return std::nullopt;
  ArrayRef<int64_t> shape = op.getInputType().getShape();
  for (auto [i, input] : llvm::enumerate(producer.getInputs()))
    if (!producer.isIdentityInput(i) ||
        cast<ShapedType>(input.getType()).getShape() != shape)
      return std::nullopt;
  if (!llvm::all_of(producer.getBodyBlock().without_terminator(),
                    [](Operation &inner) {
                      return isa<arith::ConstantOp>(inner) ||
                             OpTrait::hasElementwiseMappableTraits(&inner);
                    }))
    return std::nullopt;
  ScanPrologue prologue{producer, {}};
  for (unsigned i = 0; i < producer.getInputs().size(); ++i)
    if (!producer.getBodyBlock().getArgument(i).use_empty())
      prologue.readInputs.push_back(i);
  return prologue;
}
