//===- CopiesToLinalg.cpp - memref.copy to linalg.copy --------------------===//
//
// Host code cannot copy device memory, so buffer copies that bufferization
// introduces become linalg.copy, which the generic fallback lowers to a
// kernel like any other linalg op.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERCOPIESTOLINALGPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {

class CopiesToLinalgPass
    : public fuser::impl::FuserCopiesToLinalgPassBase<CopiesToLinalgPass> {
public:
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
