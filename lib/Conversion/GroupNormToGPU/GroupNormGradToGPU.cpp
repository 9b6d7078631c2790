//===- GroupNormGradToGPU.cpp - group_norm_grad to a GPU kernel -*- C++ -*-===//
//
// Lowers each configured fuser.group_norm_grad to one gpu.func and, in its
// place, host code like fuser-group-norm-to-gpu's, whose threads per
// (sample, group) (tile = [T]: several small groups per block) and whose
// statistics (GroupStats.cpp) it shares.
// Kernel signature: (x, gamma, prologue inputs..., dx, mean, rstd, n: i64).
// Kernel body, per (sample, group) of K elements:
//   1. mean and rstd as the forward computes them; one thread writes them
//      (the mean as x0 + the relative mean) to the (N, G) outputs.
//   2. dy from the prologue, dx_hat = dy * gamma[c] and x_hat = ((x - x0)
//      - mean) * rstd; the group's sums s1 of dx_hat and s2 of dx_hat *
//      x_hat: xor shuffles (addition commutes, so both partners get the
//      same sum), then the warps' sums in warp order.
//   3. dy, dx_hat and x_hat again (elementwise; the re-reads hit the
//      cache), dx = rstd * (dx_hat - s1 / K - x_hat * s2 / K); 128-bit
//      stores.
//
//===----------------------------------------------------------------------===//

#include "GroupStats.h"

#include "fuser/Conversion/Passes.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "fuser-group-norm-grad-to-gpu"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTGROUPNORMGRADTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::group_norm;

namespace {

/// dx_hat and x_hat of each lane of one vector of the group.
struct LaneTerms {
  Value first; ///< the vector's first position in the group
  SmallVector<Value> dxHat, xHat;
};

class GradKernelEmitter : public GroupKernelEmitter {
public:
  GradKernelEmitter(GroupNormGradOp op, const GroupShape &s,
                    gpu::GPUFuncOp kernel)
      : GroupKernelEmitter(s, kernel, op.getLoc()), op(op) {}

  LogicalResult emit() {
    Block &entry = beginKernel();
    unsigned argNo = 0;
    xPtr = entry.getArgument(argNo++);
    gammaPtr = entry.getArgument(argNo++);
    for (size_t j = 0; j < op.getPrologueInputs().size(); ++j)
      prologueArgs.push_back(entry.getArgument(argNo++));
    Value dxPtr = entry.getArgument(argNo++);
    Value meanPtr = entry.getArgument(argNo++);
    Value rstdPtr = entry.getArgument(argNo++);
    n = entry.getArgument(argNo++);

    emitGroupIndex();
    hoistInputStrides(op.getPrologueInputs(), op.getPrologueMaps());
    emitStatistics(xPtr, op.getEpsilon().convertToDouble());
    storeStatistics(meanPtr, rstdPtr);
    FailureOr<std::pair<Value, Value>> sums = emitGroupSums();
    if (failed(sums) || failed(emitGradient(dxPtr, sums->first, sums->second)))
      return failure();
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// The group's first thread writes its true mean and rstd; a shared
  /// block's spare threads (whose group is clamped) write nothing.
  void storeStatistics(Value meanPtr, Value rstdPtr) {
    Value writer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c64(0));
    if (valid)
      writer = arith::AndIOp::create(b, loc, writer, valid);
    auto ifOp = scf::IfOp::create(b, loc, writer, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value mean = arith::AddFOp::create(b, loc, x0, m.mean);
    store(mean, meanPtr, groupIndex);
    store(rstd, rstdPtr, groupIndex);
  }

  /// s1 and s2 over the group, the same in each of its threads.
  FailureOr<std::pair<Value, Value>> emitGroupSums() {
    FailureOr<std::pair<Value, Value>> own = emitThreadSums();
    if (failed(own))
      return failure();
    return sumAcrossGroup(own->first, own->second);
  }

  /// This thread's sums of dx_hat and dx_hat * x_hat.
  FailureOr<std::pair<Value, Value>> emitThreadSums() {
    Value zeroVec = splat(f32c(0.0));
    auto loop = scf::ForOp::create(b, loc, firstVec, endVec, c64(s.threads),
                                   ValueRange{zeroVec, zeroVec});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      FailureOr<LaneTerms> t = emitTerms(loop.getInductionVar());
      if (failed(t))
        return failure();
      SmallVector<Value> products;
      for (int64_t l = 0; l < s.width; ++l)
        products.push_back(
            arith::MulFOp::create(b, loc, t->dxHat[l], t->xHat[l]));
      Value dxHat = pack(t->dxHat);
      Value product = pack(products);
      Value s1 = arith::AddFOp::create(b, loc, loop.getRegionIterArg(0), dxHat);
      Value s2 =
          arith::AddFOp::create(b, loc, loop.getRegionIterArg(1), product);
      scf::YieldOp::create(b, loc, ValueRange{s1, s2});
    }
    Value s1 = horizontalSum(loop.getResult(0));
    Value s2 = horizontalSum(loop.getResult(1));
    return std::make_pair(s1, s2);
  }

  /// The sums of the group's threads: a butterfly within the warp (xor
  /// partners stay in the group; both get the same sum, as addition
  /// commutes), then the warps' sums in warp order.
  std::pair<Value, Value> sumAcrossGroup(Value s1, Value s2) {
    for (int64_t offset = std::min(s.threads, kWarpSize) / 2; offset >= 1;
         offset /= 2) {
      Value o1 = shuffle(s1, offset);
      Value o2 = shuffle(s2, offset);
      s1 = arith::AddFOp::create(b, loc, s1, o1);
      s2 = arith::AddFOp::create(b, loc, s2, o2);
    }
    if (s.warpsPerGroup() == 1)
      return {s1, s2};
    Value smem = kernel.getWorkgroupAttributions()[1];
    publishPerWarp({s1, s2}, smem);
    s1 = readPerWarp(smem, 0, 0, 2);
    s2 = readPerWarp(smem, 0, 1, 2);
    for (int64_t w = 1; w < s.warpsPerGroup(); ++w) {
      s1 = arith::AddFOp::create(b, loc, s1, readPerWarp(smem, w, 0, 2));
      s2 = arith::AddFOp::create(b, loc, s2, readPerWarp(smem, w, 1, 2));
    }
    return {s1, s2};
  }

  /// The dx pass, from the group sums.
  LogicalResult emitGradient(Value dxPtr, Value s1, Value s2) {
    Value count = f32c(static_cast<double>(s.groupSize));
    Value mean1 = divf(s1, count);
    Value mean2 = divf(s2, count);
    auto loop = scf::ForOp::create(b, loc, firstVec, endVec, c64(s.threads));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    FailureOr<LaneTerms> t = emitTerms(loop.getInductionVar());
    if (failed(t))
      return failure();
    SmallVector<Value> lanes;
    for (int64_t l = 0; l < s.width; ++l) {
      Value d = arith::SubFOp::create(b, loc, t->dxHat[l], mean1);
      Value xm = arith::MulFOp::create(b, loc, t->xHat[l], mean2);
      d = arith::SubFOp::create(b, loc, d, xm);
      lanes.push_back(arith::MulFOp::create(b, loc, rstd, d));
    }
    Value result = pack(lanes);
    store(result, dxPtr, add(base, t->first));
    return success();
  }

  /// dx_hat and x_hat of vector `j` of the group.
  FailureOr<LaneTerms> emitTerms(Value j) {
    LaneTerms t;
    t.first = mul(j, c64(s.width));
    Value at = add(base, t.first);
    Value x = load(xPtr, at, vecTy);
    SmallVector<Value> contiguous = loadContiguousInputs(at);
    SmallVector<Value> gamma = gammaLanes(t.first);
    for (int64_t l = 0; l < s.width; ++l) {
      FailureOr<Value> dy = emitPrologue(t.first, l, contiguous);
      if (failed(dy))
        return failure();
      t.dxHat.push_back(arith::MulFOp::create(b, loc, *dy, gamma[l]));
      t.xHat.push_back(normalized(laneOf(x, l)));
    }
    return t;
  }

  /// dy of lane `l` of the vector at position `first`, from the lanes of
  /// the `contiguous` inputs and the other inputs' elements.
  FailureOr<Value> emitPrologue(Value first, int64_t l,
                                ArrayRef<Value> contiguous) {
    SmallVector<Value> known;
    bool mapped = false; // a tensor input read through another map
    for (auto [k, v] : llvm::enumerate(contiguous)) {
      known.push_back(v ? laneOf(v, l) : Value());
      mapped |=
          !v && isa<RankedTensorType>(op.getPrologueInputs()[k].getType());
    }
    Value i, c;
    if (mapped) {
      i = add(first, c64(l));
      c = channelOf(i);
    }
    Block &body = op.getPrologue().front();
    IRMapping mapping;
    mapInputs(mapping, body, /*firstArg=*/0, op.getPrologueInputs(),
              op.getPrologueMaps(), prologueArgs, c, i, known);
    FailureOr<SmallVector<Value>> dy =
        emitBodyWidened(b, body, mapping, /*width=*/1);
    if (failed(dy))
      return failure();
    return (*dy)[0];
  }

  /// The vector at `at` of each identity-mapped tensor input, one load
  /// each; null for the other inputs.
  SmallVector<Value> loadContiguousInputs(Value at) {
    SmallVector<Value> loaded;
    for (auto [k, in] : llvm::enumerate(op.getPrologueInputs())) {
      AffineMap map = cast<AffineMapAttr>(op.getPrologueMaps()[k]).getValue();
      if (!isa<RankedTensorType>(in.getType()) || !map.isIdentity() ||
          map.getNumResults() != s.rank) {
        loaded.push_back(Value());
        continue;
      }
      Type e = elementTypeOf(in.getType());
      loaded.push_back(load(prologueArgs[k], at,
                            s.width == 1 ? e : VectorType::get({s.width}, e)));
    }
    return loaded;
  }

  /// gamma[c] of each lane of the vector at position `first`: one vector
  /// when channels are elements (no spatial dimensions), one element when
  /// the lanes share a channel.
  SmallVector<Value> gammaLanes(Value first) {
    SmallVector<Value> lanes;
    if (s.spatial == 1) {
      Value g = load(gammaPtr, channelOf(first), vecTy);
      for (int64_t l = 0; l < s.width; ++l)
        lanes.push_back(laneOf(g, l));
    } else if (s.spatial % s.width == 0) {
      lanes.assign(s.width, load(gammaPtr, channelOf(first), f32));
    } else {
      for (int64_t l = 0; l < s.width; ++l)
        lanes.push_back(load(gammaPtr, channelOf(add(first, c64(l))), f32));
    }
    return lanes;
  }

  /// ptr[idx] = v, aligned to v's size.
  void store(Value v, Value ptr, Value idx) {
    auto vt = dyn_cast<VectorType>(v.getType());
    LLVM::StoreOp::create(b, loc, v, gepElement(b, loc, ptr, f32, idx),
                          4 * (vt ? vt.getNumElements() : 1));
  }

  GroupNormGradOp op;
  Value xPtr, gammaPtr;
  SmallVector<Value> prologueArgs;
};

class ConvertGroupNormGradToGPUPass
    : public fuser::impl::ConvertGroupNormGradToGPUPassBase<
          ConvertGroupNormGradToGPUPass> {
public:
  void runOnOperation() override {
    if (failed(lowerEachGroup<GroupNormGradOp>(
            getOperation(),
            [&](GroupNormGradOp op, SymbolTable &kernelSymbols) {
              return lower(op, kernelSymbols);
            })))
      signalPassFailure();
  }

private:
  /// Checks what the kernel supports and fills `s`.
  LogicalResult check(GroupNormGradOp op, GroupShape &s) {
    KernelConfigAttr config = op.getConfigAttr();
    if (failed(checkStrategy(op, config, "group_norm_grad")))
      return failure();
    // The verifier gives the results the input's element type.
    if (!elementTypeOf(op.getInput().getType()).isF32() ||
        !elementTypeOf(op.getGamma().getType()).isF32())
      return op.emitOpError() << "the GPU kernel needs f32 input and gamma";
    for (Value in : op.getPrologueInputs())
      if (failed(checkLoadableElementType(op, in.getType())))
        return failure();
    if (failed(checkShape(op, config,
                          cast<RankedTensorType>(op.getInput().getType()),
                          op.getNumGroups(), s)))
      return failure();
    if (s.groupSize == 0)
      return op.emitOpError() << "has empty groups, whose mean and rstd the "
                                 "GPU kernel does not define";
    if (s.slices > 1)
      return op.emitOpError() << "splits each group over " << s.slices
                              << " blocks; the gradient kernel takes a "
                                 "group in one block";
    return success();
  }

  LogicalResult lower(GroupNormGradOp op, SymbolTable &kernelSymbols) {
    GroupShape s;
    if (failed(check(op, s)))
      return failure();
    gpu::GPUFuncOp kernel = createGradKernel(op, s, kernelSymbols);
    if (failed(GradKernelEmitter(op, s, kernel).emit()))
      return failure();
    emitHostCode(op, s, kernel);
    return success();
  }

  /// The empty kernel: (x, gamma, prologue inputs..., dx, mean, rstd, n).
  gpu::GPUFuncOp createGradKernel(GroupNormGradOp op, const GroupShape &s,
                                  SymbolTable &kernelSymbols) {
    MLIRContext *ctx = op.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    SmallVector<Type> params{ptrTy, ptrTy};
    for (Value in : op.getPrologueInputs())
      params.push_back(isa<RankedTensorType>(in.getType()) ? Type(ptrTy)
                                                           : in.getType());
    params.append({ptrTy, ptrTy, ptrTy, IntegerType::get(ctx, 64)});
    SmallVector<Type> smem;
    if (s.warpsPerGroup() > 1) // per warp: (count, mean, M2), then (s1, s2)
      smem.append({perWarpBuffer(ctx, s, 3), perWarpBuffer(ctx, s, 2)});
    return createKernel(kernelSymbols, op.getLoc(),
                        kernelName(op, "_group_norm_grad"), params,
                        op.getConfigAttr().getBlock(), smem);
  }

  /// Sizes, checks, the three outputs, the launch, in place of `op`.
  void emitHostCode(GroupNormGradOp op, const GroupShape &s,
                    gpu::GPUFuncOp kernel) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value x = op.getInput();
    Value n = tensorDimSize(b, loc, x, 0);
    Value channels = arith::ConstantIndexOp::create(b, loc, s.channels);
    Value gammaSize = tensorDimSize(b, loc, op.getGamma(), 0);
    assertSizesEqual(b, loc, gammaSize, channels,
                     "fuser.group_norm_grad: gamma must have C elements");
    SmallVector<Value> args{hostPointerToTensor(b, loc, x),
                            hostPointerToTensor(b, loc, op.getGamma())};
    appendInputArgs(b, loc, op.getPrologueInputs(), op.getPrologueMaps(), s, n,
                    "fuser.group_norm_grad: prologue input", "input", args);
    SmallVector<Value> outs;
    for (Value r : op->getResults())
      outs.push_back(
          allocOutput(b, loc, cast<RankedTensorType>(r.getType()), n));
    for (Value out : outs)
      args.push_back(hostPointerToMemRef(b, loc, out));
    args.push_back(arith::IndexCastUIOp::create(b, loc, b.getI64Type(), n));
    launchGroups(b, loc, kernel, s, n, args);
    SmallVector<Value> results;
    for (auto [r, out] : llvm::zip(op->getResults(), outs))
      results.push_back(bufferization::ToTensorOp::create(
          b, loc, r.getType(), out, /*restrict=*/true, /*writable=*/true));
    op->replaceAllUsesWith(results);
    op->erase();
  }
};

} // namespace
