//===- GroupNormToGPU.cpp - fuser.group_norm to a GPU kernel ----*- C++ -*-===//
//
// Lowers each configured fuser.group_norm to one gpu.func and, in its place,
// tensor-level host code (sizes, checks, output allocation, launch), with
// the host-side conventions of fuser-pointwise-to-gpu: !llvm.ptr<1>
// arguments and i64 sizes.
//
// One block per (sample, group): in an (N, C, ...) row-major tensor the K
// elements of group g of sample n are contiguous, from (n * G + g) * K.
// Small groups (config tile = [T], T threads per group, at most a warp)
// share a block, block / T of them: GroupNorm(512) on 1024 x 8192 has
// 524288 groups of 16, which one block each left launch-bound.
// Kernel signature: (x, gamma, beta, epilogue inputs..., out, n: i64).
// Kernel body:
//   1. The group's statistics in one pass, in fp32 (GroupStats.cpp): shifted
//      per-thread sums, merged with Chan's formula across the group's
//      threads, the mean kept relative to the group's first element x0.
//   2. The apply pass re-reads the group: y = ((x - x0) - mean) * rstd,
//      then * gamma[c] + beta[c], then the epilogue; 128-bit stores.
//
// A group too large for one block (LayerNorm over a whole image: 16 groups
// of 4M elements) is split (config tile = [B, P]) into P slices, one block
// each, in two kernels: `_group_norm_stats` (x, partials, n) writes each
// slice's (count, mean, M2), then `_group_norm` (x, gamma, beta, epilogue
// inputs..., partials, out, n) merges its group's P triples and applies.
// The partials are an intermediate of N * G * P * 3 floats. The stats
// kernel's blocks, and the normalizing kernel's where gamma and beta have
// an element per channel (LayerNorm), go slice by slice across all samples'
// groups; the others group by group.
//
//===----------------------------------------------------------------------===//

#include "GroupStats.h"

#include "fuser/Conversion/Passes.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "fuser-group-norm-to-gpu"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTGROUPNORMTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::group_norm;

namespace {

/// Which kernel: the whole group norm, or a split group's two.
enum class Part { Whole, SliceStatistics, Normalize };

class KernelEmitter : public GroupKernelEmitter {
public:
  KernelEmitter(GroupNormOp op, const GroupShape &s, gpu::GPUFuncOp kernel)
      : GroupKernelEmitter(s, kernel, op.getLoc()), op(op) {}

  /// The statistics kernel of a split group: each block's slice moments.
  void emitSliceStatistics() {
    Block &entry = beginKernel();
    Value xPtr = entry.getArgument(0);
    Value partials = entry.getArgument(1);
    n = entry.getArgument(2);
    // Slice by slice across the samples (H200, 2026-11-30: GroupNorm(8, 64)
    // on 112 x 64 x 512 x 512, 1764 -> 1654 us; LayerNorm over (64, 256,
    // 256) on 16 samples, 72 -> 69 us).
    emitGroupIndex(/*slicesAcrossSamples=*/true);
    emitMoments(xPtr);
    Value leader =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread, c64(0));
    auto ifOp = scf::IfOp::create(b, loc, leader, false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value at = mul(add(mul(groupIndex, c64(s.slices)), slice), c64(3));
    Value moments[] = {m.count, m.mean, m.m2};
    for (auto [k, v] : llvm::enumerate(moments))
      LLVM::StoreOp::create(
          b, loc, v, gepElement(b, loc, partials, f32, add(at, c64(k))), 4);
    b.setInsertionPointAfter(ifOp);
    gpu::ReturnOp::create(b, loc);
  }

  /// The whole group norm, or a split group's normalizing kernel.
  LogicalResult emit(Part part) {
    Block &entry = beginKernel();
    unsigned argNo = 0;
    Value xPtr = entry.getArgument(argNo++);
    gammaPtr = entry.getArgument(argNo++);
    betaPtr = entry.getArgument(argNo++);
    for (size_t j = 0; j < op.getEpilogueInputs().size(); ++j)
      epiArgs.push_back(entry.getArgument(argNo++));
    Value partials =
        part == Part::Normalize ? entry.getArgument(argNo++) : Value();
    Value outPtr = entry.getArgument(argNo++);
    n = entry.getArgument(argNo++);

    // A per-element gamma and beta (LayerNorm over a whole image: one
    // element per channel) is read by the same slice of every sample: with
    // the blocks resident together on one slice of all samples, it leaves
    // DRAM once instead of once per sample. H200, 2026-11-30, LayerNorm over
    // (64, 256, 256) on 16 samples: 225 -> 149 us. Per-channel ones are
    // small; there group by group is faster (GroupNorm(8, 64) on
    // 112 x 64 x 512 x 512: 3661 against 3817 us).
    emitGroupIndex(/*slicesAcrossSamples=*/s.spatial == 1);
    hoistInputStrides(op.getEpilogueInputs(), op.getEpilogueMaps());
    double eps = op.getEpsilon().convertToDouble();
    if (part == Part::Normalize)
      mergeSliceMoments(xPtr, partials, eps);
    else
      emitStatistics(xPtr, eps);

    // Normalize, affine, epilogue, store.
    auto apply = scf::ForOp::create(b, loc, firstVec, endVec, c64(s.threads));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(apply.getBody());
    Value first0 = mul(apply.getInductionVar(), c64(s.width));
    Value v = load(xPtr, add(base, first0), vecTy);
    // gamma and beta of the vector's elements: one channel for all of them
    // (whole vectors per channel), consecutive channels (LayerNorm: one
    // element per channel) as one vector load each, else one per element.
    SmallVector<Value> gammas, betas;
    if (s.spatial % s.width == 0) {
      Value c = channelOf(first0);
      gammas.assign(s.width, load(gammaPtr, c, f32));
      betas.assign(s.width, load(betaPtr, c, f32));
    } else if (s.spatial == 1) {
      Value c = channelOf(first0);
      Value g = load(gammaPtr, c, vecTy), be = load(betaPtr, c, vecTy);
      for (int64_t l = 0; l < s.width; ++l) {
        gammas.push_back(laneOf(g, l));
        betas.push_back(laneOf(be, l));
      }
    } else {
      for (int64_t l = 0; l < s.width; ++l) {
        Value c = channelOf(add(first0, c64(l)));
        gammas.push_back(load(gammaPtr, c, f32));
        betas.push_back(load(betaPtr, c, f32));
      }
    }
    // Epilogue inputs read like x (a residual): one vector load each.
    ValueRange epiInputs = op.getEpilogueInputs();
    SmallVector<SmallVector<Value>> known(s.width,
                                          SmallVector<Value>(epiInputs.size()));
    for (auto [k, in] : llvm::enumerate(epiInputs)) {
      auto t = dyn_cast<RankedTensorType>(in.getType());
      AffineMap map = cast<AffineMapAttr>(op.getEpilogueMaps()[k]).getValue();
      if (s.width == 1 || !t || !map.isIdentity() ||
          map.getNumResults() != s.rank)
        continue;
      Type e = t.getElementType();
      if (!e.isIntOrFloat() || e.getIntOrFloatBitWidth() % 8 != 0)
        continue; // i1 masks: a byte each
      Value lanesOf =
          load(epiArgs[k], add(base, first0), VectorType::get({s.width}, e));
      for (int64_t l = 0; l < s.width; ++l)
        known[l][k] =
            vector::ExtractOp::create(b, loc, lanesOf, ArrayRef<int64_t>{l});
    }
    SmallVector<Value> lanes;
    for (int64_t l = 0; l < s.width; ++l) {
      Value xl = laneOf(v, l);
      Value i = add(first0, c64(l)); // position within the group
      FailureOr<Value> r =
          emitElement(normalized(xl), i, gammas[l], betas[l], known[l]);
      if (failed(r))
        return failure();
      lanes.push_back(*r);
    }
    Value result = pack(lanes);
    LLVM::StoreOp::create(b, loc, result,
                          gepElement(b, loc, outPtr, f32, add(base, first0)),
                          4 * s.width);
    b.setInsertionPointAfter(apply);
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// The affine (`ga`, `be`: its gamma and beta) and the epilogue for the
  /// element at position `i` of the group, whose normalized value is `y`.
  FailureOr<Value> emitElement(Value y, Value i, Value ga, Value be,
                               ArrayRef<Value> known) {
    Value c = channelOf(i);
    Value v =
        arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, y, ga), be);
    Block &body = op.getEpilogue().front();
    IRMapping mapping;
    mapping.map(body.getArgument(0), v);
    mapInputs(mapping, body, /*firstArg=*/1, op.getEpilogueInputs(),
              op.getEpilogueMaps(), epiArgs, c, i, known);
    FailureOr<SmallVector<Value>> out =
        emitBodyWidened(b, body, mapping, /*width=*/1);
    if (failed(out))
      return failure();
    return (*out)[0];
  }

  GroupNormOp op;
  Value gammaPtr, betaPtr;
  SmallVector<Value> epiArgs;
};

class ConvertGroupNormToGPUPass
    : public fuser::impl::ConvertGroupNormToGPUPassBase<
          ConvertGroupNormToGPUPass> {
public:
  void runOnOperation() override {
    if (failed(lowerEachGroup<GroupNormOp>(
            getOperation(), [&](GroupNormOp op, SymbolTable &kernelSymbols) {
              return lower(op, kernelSymbols);
            })))
      signalPassFailure();
  }

private:
  /// Checks what the kernel supports and fills `s`.
  LogicalResult check(GroupNormOp op, GroupShape &s) {
    KernelConfigAttr config = op.getConfigAttr();
    if (failed(checkStrategy(op, config, "group_norm")))
      return failure();
    auto isF32 = [](Type t) { return elementTypeOf(t).isF32(); };
    if (!isF32(op.getInput().getType()) || !isF32(op.getGamma().getType()) ||
        !isF32(op.getBeta().getType()) || !isF32(op.getResult().getType()))
      return op.emitOpError() << "the GPU kernel needs f32 input, gamma, "
                                 "beta and result";
    for (Value in : op.getEpilogueInputs())
      if (failed(checkLoadableElementType(op, in.getType())))
        return failure();
    return checkShape(op, config,
                      cast<RankedTensorType>(op.getInput().getType()),
                      op.getNumGroups(), s);
  }

  LogicalResult lower(GroupNormOp op, SymbolTable &kernelSymbols) {
    GroupShape s;
    if (failed(check(op, s)))
      return failure();
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    auto i64 = IntegerType::get(ctx, 64);

    // 1. The kernels: (x, gamma, beta, epilogue inputs..., [partials,] out,
    //    n), after (x, partials, n) when split.
    gpu::GPUFuncOp kernel, statsKernel;
    bool split = s.slices > 1;
    ArrayRef<int64_t> block = op.getConfigAttr().getBlock();
    SmallVector<Type> smem;
    if (s.warpsPerGroup() > 1) // one (count, mean, M2) per warp
      smem.push_back(perWarpBuffer(ctx, s, 3));
    if (s.groupSize > 0) {
      SmallVector<Type> params{ptrTy, ptrTy, ptrTy};
      for (Value in : op.getEpilogueInputs())
        params.push_back(isa<RankedTensorType>(in.getType()) ? Type(ptrTy)
                                                             : in.getType());
      if (split)
        params.push_back(ptrTy);
      params.append({ptrTy, i64});
      if (split) {
        statsKernel = createKernel(kernelSymbols, loc,
                                   kernelName(op, "_group_norm_stats"),
                                   {ptrTy, ptrTy, i64}, block, smem);
        KernelEmitter(op, s, statsKernel).emitSliceStatistics();
      }
      kernel = createKernel(kernelSymbols, loc, kernelName(op, "_group_norm"),
                            params, block, split ? SmallVector<Type>() : smem);
      if (failed(KernelEmitter(op, s, kernel)
                     .emit(split ? Part::Normalize : Part::Whole)))
        return failure();
    }

    // 2. Host code on tensors: sizes, checks, output, launch.
    OpBuilder b(op);
    auto resultTy = cast<RankedTensorType>(op.getResult().getType());
    auto dim = [&](Value t, int64_t d) { return tensorDimSize(b, loc, t, d); };
    auto assertEqual = [&](Value x, Value y, const Twine &msg) {
      assertSizesEqual(b, loc, x, y, msg);
    };
    Value x = op.getInput();
    Value n = dim(x, 0);
    Value channels = arith::ConstantIndexOp::create(b, loc, s.channels);
    assertEqual(dim(op.getGamma(), 0), channels,
                "fuser.group_norm: gamma must have C elements");
    assertEqual(dim(op.getBeta(), 0), channels,
                "fuser.group_norm: beta must have C elements");
    SmallVector<Value> args{hostPointerToTensor(b, loc, x),
                            hostPointerToTensor(b, loc, op.getGamma()),
                            hostPointerToTensor(b, loc, op.getBeta())};
    appendInputArgs(b, loc, op.getEpilogueInputs(), op.getEpilogueMaps(), s, n,
                    "fuser.group_norm: epilogue input", "result", args);
    Value out = allocOutput(b, loc, resultTy, n);
    if (kernel) {
      Value nArg = arith::IndexCastUIOp::create(b, loc, i64, n);
      if (split) {
        // The partials: N * G * P * 3 floats, an intermediate.
        int64_t perSample = s.groups * s.slices * 3;
        auto inputTy = cast<RankedTensorType>(x.getType());
        SmallVector<Value> count;
        if (inputTy.isDynamicDim(0))
          count.push_back(arith::MulIOp::create(
              b, loc, n, arith::ConstantIndexOp::create(b, loc, perSample)));
        int64_t staticCount = inputTy.isDynamicDim(0)
                                  ? ShapedType::kDynamic
                                  : inputTy.getDimSize(0) * perSample;
        Value partials = memref::AllocOp::create(
            b, loc, MemRefType::get({staticCount}, b.getF32Type()), count,
            b.getI64IntegerAttr(64));
        Value partialsPtr = hostPointerToMemRef(b, loc, partials);
        launchGroups(b, loc, statsKernel, s, n, {args[0], partialsPtr, nArg});
        args.push_back(partialsPtr);
      }
      args.push_back(hostPointerToMemRef(b, loc, out));
      args.push_back(nArg);
      launchGroups(b, loc, kernel, s, n, args);
    }
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultTy, out, /*restrict=*/true, /*writable=*/true);
    op.replaceAllUsesWith(result);
    op->erase();
    return success();
  }
};

} // namespace
