//===- VerifyHostCode.cpp - ops left without kernels ------------*- C++ -*-===//
//
// The generic fallback (linalg to parallel loops) silently skips what it
// cannot lower. Without this check such an op stays in the host code and
// only fuser-translate notices, in terms of buffers rather than of the op
// the user wrote.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSERVERIFYHOSTCODEPASS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// Computation that must have become a kernel by now: linalg ops, and the
/// buffer copies bufferization makes (for tensor.pad, tensor.insert_slice,
/// tensor.concat, ...), which the runtime cannot perform on the host.
static bool isLeftoverComputation(Operation *op) {
  return isa_and_nonnull<linalg::LinalgDialect>(op->getDialect()) ||
         isa<memref::CopyOp>(op);
}

/// Loops and element accesses of buffers: the host computes sizes,
/// allocates and launches; it never touches a buffer's elements.
static bool isHostLoopOrElementAccess(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, memref::LoadOp,
             memref::StoreOp>(op);
}

/// Views with offsets or strides: the runtime passes only dense buffers to
/// kernels (docs/manifest.md), so a kernel cannot write into one yet.
static bool isStridedView(Operation *op) {
  return isa<memref::SubViewOp, memref::ReinterpretCastOp>(op);
}

namespace {

class VerifyHostCodePass
    : public fuser::impl::FuserVerifyHostCodePassBase<VerifyHostCodePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    bool failedAny = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      func.walk<WalkOrder::PreOrder>([&](Operation *op) {
        // MLIR verifies a constant out-of-range dim index (its value is
        // undefined at run time); the runtime has no size to give it.
        if (auto dim = dyn_cast<memref::DimOp>(op)) {
          std::optional<int64_t> index = dim.getConstantIndex();
          auto type = dyn_cast<MemRefType>(dim.getSource().getType());
          if (index && type && (*index < 0 || *index >= type.getRank())) {
            op->emitError() << "dimension index " << *index
                            << " is out of range for a rank-"
                            << type.getRank() << " value";
            failedAny = true;
          }
          return WalkResult::advance();
        }
        if (isStridedView(op)) {
          op->emitError() << "this op bufferizes to a strided view of a "
                             "buffer ('"
                          << op->getName()
                          << "'), which the runtime cannot pass to kernels "
                             "yet";
          failedAny = true;
          return WalkResult::advance();
        }
        if (isHostLoopOrElementAccess(op)) {
          op->emitError() << "'" << op->getName()
                          << "' would run on the host: no fuser lowering "
                             "turned this computation into a GPU kernel";
          failedAny = true;
          return WalkResult::skip();
        }
        if (!isLeftoverComputation(op))
          return WalkResult::advance();
        // A copy carries the location of the tensor op that needed it.
        if (isa<memref::CopyOp>(op))
          op->emitError() << "this op bufferizes to a buffer copy "
                             "('memref.copy'), which no fuser lowering turns "
                             "into a GPU kernel";
        else
          op->emitError() << "'" << op->getName()
                          << "' is not supported: no fuser lowering turns it "
                             "into a GPU kernel";
        failedAny = true;
        // Its body, if any, holds no further ops of interest.
        return WalkResult::skip();
      });
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
