//===- GuardAsserts.cpp - asserts in linalg bodies under a branch ---------===//
//
// See the pass description: upstream's parallel-loops-to-GPU conversion
// rejects a loop body that holds a cf.assert directly; the same assert
// under an scf.if converts.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERGUARDASSERTSPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

struct FuserGuardAssertsPass
    : fuser::impl::FuserGuardAssertsPassBase<FuserGuardAssertsPass> {
  void runOnOperation() override {
    SmallVector<cf::AssertOp> asserts;
    getOperation().walk([&](cf::AssertOp op) {
      if (isa<linalg::LinalgOp>(op->getParentOp()))
        asserts.push_back(op);
    });
    // The assert in the else branch: no i1 constant to negate the
    // condition with, which canonicalization would hoist out of the body
    // into a kernel argument that the manifest cannot describe.
    for (cf::AssertOp op : asserts) {
      OpBuilder b(op);
      auto ifOp = scf::IfOp::create(b, op.getLoc(), op.getArg(),
                                    /*withElse=*/true);
      op->moveBefore(ifOp.elseBlock()->getTerminator());
    }
  }
};

} // namespace
