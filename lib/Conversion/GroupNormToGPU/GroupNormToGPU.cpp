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
//   1. Statistics in one pass, in fp32. Each thread sums d = x - s_t and
//      d * d over its elements (`vector_width` at a time), s_t being one of
//      its own elements: shifting by a nearby value keeps d * d from
//      cancelling against the mean. Its mean is kept relative to the
//      group's first element x0, so (x - x0) - mean is accurate even when
//      the mean is large against the spread.
//   2. The (count, mean, M2) triples merge with Chan's formula: a warp
//      butterfly of gpu.shuffle xor (lower lane first, so every lane gets
//      bit-identical results), then the warps' results through workgroup
//      memory, merged in warp order by every thread.
//   3. The apply pass re-reads the group: y = ((x - x0) - mean) * rstd,
//      then * gamma[c] + beta[c], then the epilogue; 128-bit stores.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#define DEBUG_TYPE "fuser-group-norm-to-gpu"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTGROUPNORMTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

constexpr int64_t kWarpSize = 32;

/// The static facts of one group norm.
struct GroupShape {
  int64_t rank, channels, groups, groupSize, spatial;
  SmallVector<int64_t> sizes; ///< the result's sizes (dim 0 dynamic or not)
  int64_t block, width;
  /// Threads per group: the block, or (config tile = [T]) a power of two
  /// up to a warp, block / T groups per block.
  int64_t threads;
  int64_t groupsPerBlock() const { return block / threads; }
};

/// Running statistics of a set of elements: count, mean (relative to the
/// group's first element) and sum of squared deviations.
struct Moments {
  Value count, mean, m2;
};

class KernelEmitter {
public:
  KernelEmitter(GroupNormOp op, const GroupShape &s, gpu::GPUFuncOp kernel)
      : op(op), s(s), kernel(kernel), b(kernel.getContext()),
        loc(op.getLoc()) {}

  LogicalResult emit() {
    Block &entry = kernel.getBody().front();
    b.setInsertionPointToStart(&entry);
    f32 = b.getF32Type();
    i64 = b.getI64Type();
    vecTy = s.width == 1 ? Type(f32) : VectorType::get({s.width}, f32);

    unsigned argNo = 0;
    Value xPtr = entry.getArgument(argNo++);
    gammaPtr = entry.getArgument(argNo++);
    betaPtr = entry.getArgument(argNo++);
    for (size_t j = 0; j < op.getEpilogueInputs().size(); ++j)
      epiArgs.push_back(entry.getArgument(argNo++));
    Value outPtr = entry.getArgument(argNo++);
    n = entry.getArgument(argNo++);

    Value thread = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    // This thread's group and its index among the group's threads. Several
    // groups per block: the last block's spare threads take the last group
    // for their (unused) loads and do no work.
    Value g = bid, numVec = c64(s.groupSize / s.width);
    tid = thread;
    if (s.groupsPerBlock() > 1) {
      tid = arith::RemUIOp::create(b, loc, thread, c64(s.threads));
      g = add(mul(bid, c64(s.groupsPerBlock())),
              arith::DivUIOp::create(b, loc, thread, c64(s.threads)));
      Value total = mul(n, c64(s.groups));
      Value valid =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g, total);
      g = arith::MinUIOp::create(b, loc, g, sub64(total, c64(1)));
      numVec = arith::SelectOp::create(b, loc, valid, numVec, c64(0));
    }
    sample = arith::DivUIOp::create(b, loc, g, c64(s.groups));
    group = arith::RemUIOp::create(b, loc, g, c64(s.groups));
    base = mul(g, c64(s.groupSize));
    hoistEpilogueStrides();

    // 1. Per-thread shifted sums.
    Value x0 = load(xPtr, base, f32);
    Value first = arith::MinUIOp::create(b, loc, mul(tid, c64(s.width)),
                                         c64(s.groupSize - 1));
    Value shift = load(xPtr, add(base, first), f32);
    Value shiftVec = splat(shift);
    Value zeroVec = splat(f32c(0.0));
    auto stats = scf::ForOp::create(b, loc, tid, numVec, c64(s.threads),
                                    ValueRange{zeroVec, zeroVec});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(stats.getBody());
      Value j = stats.getInductionVar();
      Value v = load(xPtr, add(base, mul(j, c64(s.width))), vecTy);
      Value d = arith::SubFOp::create(b, loc, v, shiftVec);
      Value s1 = arith::AddFOp::create(b, loc, stats.getRegionIterArg(0), d);
      Value s2 = arith::AddFOp::create(b, loc, stats.getRegionIterArg(1),
                                       arith::MulFOp::create(b, loc, d, d));
      scf::YieldOp::create(b, loc, ValueRange{s1, s2});
    }
    Value s1 = horizontalSum(stats.getResult(0));
    Value s2 = horizontalSum(stats.getResult(1));
    // This thread's count: ceil((numVec - tid) / threads) vectors if tid <
    // numVec.
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                         numVec);
    Value vecs = arith::SelectOp::create(
        b, loc, active,
        arith::CeilDivUIOp::create(b, loc, sub64(numVec, tid), c64(s.threads)),
        c64(0));
    Value count = arith::UIToFPOp::create(b, loc, f32, mul(vecs, c64(s.width)));
    Value local = divf(s1, maxf(count, f32c(1.0)));
    Moments m{count,
              arith::AddFOp::create(b, loc,
                                    arith::SubFOp::create(b, loc, shift, x0),
                                    local),
              arith::SubFOp::create(b, loc, s2,
                                    arith::MulFOp::create(b, loc, s1, local))};

    // 2. Merge across the group's lanes of the warp (xor partners stay
    // within it), then across warps.
    Value lane = arith::RemUIOp::create(b, loc, thread, c64(kWarpSize));
    for (int64_t offset = std::min(s.threads, kWarpSize) / 2; offset >= 1;
         offset /= 2) {
      Moments other{shuffle(m.count, offset), shuffle(m.mean, offset),
                    shuffle(m.m2, offset)};
      Value lower = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(b, loc, lane, c64(offset)), c64(0));
      auto pick = [&](Value x, Value y) {
        return arith::SelectOp::create(b, loc, lower, x, y).getResult();
      };
      m = merge({pick(m.count, other.count), pick(m.mean, other.mean),
                 pick(m.m2, other.m2)},
                {pick(other.count, m.count), pick(other.mean, m.mean),
                 pick(other.m2, m.m2)});
    }
    int64_t warps = s.threads / kWarpSize;
    if (warps > 1) {
      Value smem = kernel.getWorkgroupAttributions()[0];
      Value warp = arith::DivUIOp::create(b, loc, thread, c64(kWarpSize));
      Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           lane, c64(0));
      auto ifOp = scf::IfOp::create(b, loc, leader, false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value triple[] = {m.count, m.mean, m.m2};
        for (int64_t k = 0; k < 3; ++k) {
          Value at = toIndex(add(mul(warp, c64(3)), c64(k)));
          memref::StoreOp::create(b, loc, triple[k], smem, ValueRange{at});
        }
      }
      gpu::BarrierOp::create(b, loc);
      auto read = [&](int64_t w, int64_t k) -> Value {
        return memref::LoadOp::create(
            b, loc, smem,
            ValueRange{arith::ConstantIndexOp::create(b, loc, 3 * w + k)});
      };
      m = {read(0, 0), read(0, 1), read(0, 2)};
      for (int64_t w = 1; w < warps; ++w)
        m = merge(m, {read(w, 0), read(w, 1), read(w, 2)});
    }
    Value var = divf(m.m2, f32c(static_cast<double>(s.groupSize)));
    Value eps = f32c(op.getEpsilon().convertToDouble());
    Value rstd = math::RsqrtOp::create(
        b, loc, arith::AddFOp::create(b, loc, var, eps));

    // 3. Normalize, affine, epilogue, store.
    auto apply = scf::ForOp::create(b, loc, tid, numVec, c64(s.threads));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(apply.getBody());
    Value first0 = mul(apply.getInductionVar(), c64(s.width));
    Value v = load(xPtr, add(base, first0), vecTy);
    SmallVector<Value> lanes;
    for (int64_t l = 0; l < s.width; ++l) {
      Value xl = s.width == 1 ? v
                              : vector::ExtractOp::create(
                                    b, loc, v, ArrayRef<int64_t>{l})
                                    .getResult();
      Value i = add(first0, c64(l)); // position within the group
      Value centered = arith::SubFOp::create(
          b, loc, arith::SubFOp::create(b, loc, xl, x0), m.mean);
      Value y = arith::MulFOp::create(b, loc, centered, rstd);
      FailureOr<Value> r = emitElement(y, i);
      if (failed(r))
        return failure();
      lanes.push_back(*r);
    }
    Value result =
        s.width == 1
            ? lanes[0]
            : vector::FromElementsOp::create(b, loc, cast<VectorType>(vecTy),
                                             lanes)
                  .getResult();
    LLVM::StoreOp::create(b, loc, result,
                          gepElement(b, loc, outPtr, f32, add(base, first0)),
                          4 * s.width);
    b.setInsertionPointAfter(apply);
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// The affine and the epilogue for the element at position `i` of the
  /// group, whose normalized value is `y`.
  FailureOr<Value> emitElement(Value y, Value i) {
    Value c = add(mul(group, c64(s.channels / s.groups)),
                  arith::DivUIOp::create(b, loc, i, c64(s.spatial)));
    Value ga = load(gammaPtr, c, f32);
    Value be = load(betaPtr, c, f32);
    Value v = arith::AddFOp::create(b, loc,
                                    arith::MulFOp::create(b, loc, y, ga), be);
    Block &body = op.getEpilogue().front();
    IRMapping mapping;
    mapping.map(body.getArgument(0), v);
    SmallVector<Value> coords;
    for (auto [k, in] : llvm::enumerate(op.getEpilogueInputs())) {
      if (!isa<RankedTensorType>(in.getType())) {
        mapping.map(body.getArgument(k + 1), epiArgs[k]);
        continue;
      }
      AffineMap map =
          cast<AffineMapAttr>(op.getEpilogueMaps()[k]).getValue();
      Value idx;
      if (map.isIdentity() && map.getNumResults() == s.rank) {
        idx = add(base, i); // the element's own linear index
      } else {
        if (coords.empty())
          coords = coordinates(c, i);
        idx = c64(0);
        for (unsigned p = 0; p < map.getNumResults(); ++p)
          idx = add(idx, mul(coords[map.getDimPosition(p)], strides[k][p]));
      }
      mapping.map(body.getArgument(k + 1),
                  load(epiArgs[k], idx, elementTypeOf(in.getType())));
    }
    FailureOr<SmallVector<Value>> out =
        emitBodyWidened(b, body, mapping, /*width=*/1);
    if (failed(out))
      return failure();
    return (*out)[0];
  }

  /// (n, c, spatial...) of position `i` of the group, channel `c`.
  SmallVector<Value> coordinates(Value c, Value i) {
    SmallVector<Value> coords(s.rank);
    coords[0] = sample;
    coords[1] = c;
    Value rest = arith::RemUIOp::create(b, loc, i, c64(s.spatial));
    for (int64_t d = s.rank - 1; d >= 2; --d) {
      coords[d] = arith::RemUIOp::create(b, loc, rest, c64(s.sizes[d]));
      rest = arith::DivUIOp::create(b, loc, rest, c64(s.sizes[d]));
    }
    return coords;
  }

  /// Row-major strides of each tensor epilogue input, from the result's
  /// sizes (dimension 0 is `n`).
  void hoistEpilogueStrides() {
    for (auto [k, in] : llvm::enumerate(op.getEpilogueInputs())) {
      if (!isa<RankedTensorType>(in.getType()))
        continue;
      AffineMap map = cast<AffineMapAttr>(op.getEpilogueMaps()[k]).getValue();
      SmallVector<Value> st(map.getNumResults());
      Value stride = c64(1);
      for (int64_t p = map.getNumResults() - 1; p >= 0; --p) {
        st[p] = stride;
        unsigned d = map.getDimPosition(p);
        stride = mul(stride, d == 0 ? n : c64(s.sizes[d]));
      }
      strides[k] = st;
    }
  }

  /// Chan et al.'s pairwise merge; `a` first, so the order is fixed.
  Moments merge(const Moments &a, const Moments &o) {
    Value count = arith::AddFOp::create(b, loc, a.count, o.count);
    Value f = divf(o.count, maxf(count, f32c(1.0)));
    Value delta = arith::SubFOp::create(b, loc, o.mean, a.mean);
    Value mean = arith::AddFOp::create(
        b, loc, a.mean, arith::MulFOp::create(b, loc, delta, f));
    Value cross = arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, delta, delta),
        arith::MulFOp::create(b, loc, a.count, f));
    Value m2 = arith::AddFOp::create(
        b, loc, arith::AddFOp::create(b, loc, a.m2, o.m2), cross);
    return {count, mean, m2};
  }

  Value shuffle(Value v, int64_t offset) {
    return shuffleXor(b, loc, v, offset);
  }

  Value horizontalSum(Value v) {
    if (s.width == 1)
      return v;
    Value sum = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
    for (int64_t l = 1; l < s.width; ++l)
      sum = arith::AddFOp::create(
          b, loc, sum,
          vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{l}));
    return sum;
  }

  Value load(Value ptr, Value idx, Type t) {
    unsigned bytes = elementTypeOf(t).getIntOrFloatBitWidth() / 8;
    if (auto vt = dyn_cast<VectorType>(t))
      bytes *= vt.getNumElements();
    return LLVM::LoadOp::create(b, loc, t,
                                gepElement(b, loc, ptr, elementTypeOf(t), idx),
                                bytes);
  }
  Value splat(Value x) {
    return s.width == 1 ? x
                        : vector::BroadcastOp::create(b, loc, vecTy, x)
                              .getResult();
  }
  Value toI64(Value idx) {
    return arith::IndexCastUIOp::create(b, loc, i64, idx);
  }
  Value toIndex(Value v) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  Value c64(int64_t v) { return constI64(b, loc, v); }
  Value f32c(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub64(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value maxf(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }

  GroupNormOp op;
  const GroupShape &s;
  gpu::GPUFuncOp kernel;
  OpBuilder b;
  Location loc;
  Type f32, i64, vecTy;
  Value gammaPtr, betaPtr, n, tid, sample, group, base;
  SmallVector<Value> epiArgs;
  DenseMap<unsigned, SmallVector<Value>> strides;
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
    if (!config)
      return op.emitOpError()
             << "has no #fuser.config; run -fuser-configure-kernels first";
    if (config.getStrategy() != "group_norm")
      return op.emitOpError() << "has strategy '" << config.getStrategy()
                              << "'; this lowering implements 'group_norm'";
    auto isF32 = [](Type t) { return elementTypeOf(t).isF32(); };
    if (!isF32(op.getInput().getType()) || !isF32(op.getGamma().getType()) ||
        !isF32(op.getBeta().getType()) || !isF32(op.getResult().getType()))
      return op.emitOpError() << "the GPU kernel needs f32 input, gamma, "
                                 "beta and result";
    for (Value in : op.getEpilogueInputs())
      if (failed(checkLoadableElementType(op, in.getType())))
        return failure();
    auto ty = cast<RankedTensorType>(op.getInput().getType());
    if (llvm::any_of(ty.getShape().drop_front(), ShapedType::isDynamic))
      return op.emitOpError() << "has dynamic sizes past the batch "
                                 "dimension; the GPU kernel needs static C "
                                 "and spatial sizes (only N may be dynamic)";
    ArrayRef<int64_t> block = config.getBlock();
    if (block.size() != 3 || block[1] != 1 || block[2] != 1 ||
        block[0] % kWarpSize != 0 || block[0] < kWarpSize || block[0] > 1024)
      return op.emitOpError() << "block must be [B, 1, 1] with B a multiple "
                                 "of 32 up to 1024";
    s.rank = ty.getRank();
    s.sizes.assign(ty.getShape().begin(), ty.getShape().end());
    s.channels = ty.getDimSize(1);
    s.groups = op.getNumGroups();
    s.spatial = 1;
    for (int64_t d : ty.getShape().drop_front(2))
      s.spatial *= d;
    s.groupSize = s.channels / s.groups * s.spatial;
    s.block = block[0];
    s.threads = s.block;
    ArrayRef<int64_t> tile = config.getTile();
    if (!tile.empty()) {
      if (tile.size() != 1 || !llvm::isPowerOf2_64(tile[0]) ||
          tile[0] > kWarpSize || s.block % tile[0] != 0)
        return op.emitOpError()
               << "tile must be empty or [threads per group]: a power of "
                  "two up to 32 dividing the block";
      s.threads = tile[0];
    }
    s.width = config.getVectorWidth();
    if (!llvm::is_contained({1, 2, 4}, s.width) ||
        s.groupSize % s.width != 0)
      return op.emitOpError()
             << "vector_width " << s.width << " must be 1, 2 or 4 and divide "
             << "the group size " << s.groupSize;
    // Counts are f32 in the kernel: exact below 2^24.
    if (s.groupSize >= (int64_t(1) << 24))
      return op.emitOpError() << "group size " << s.groupSize
                              << " exceeds the kernel's limit of 2^24";
    return success();
  }

  LogicalResult lower(GroupNormOp op, SymbolTable &kernelSymbols) {
    GroupShape s;
    if (failed(check(op, s)))
      return failure();
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    auto i64 = IntegerType::get(ctx, 64);

    // 1. The kernel: (x, gamma, beta, epilogue inputs..., out, n).
    gpu::GPUFuncOp kernel;
    if (s.groupSize > 0) {
      SmallVector<Type> params{ptrTy, ptrTy, ptrTy};
      for (Value in : op.getEpilogueInputs())
        params.push_back(isa<RankedTensorType>(in.getType()) ? Type(ptrTy)
                                                             : in.getType());
      params.append({ptrTy, i64});
      SmallVector<Type> smem;
      if (s.threads > kWarpSize) // one (count, mean, M2) per warp
        smem.push_back(MemRefType::get(
            {3 * s.block / kWarpSize}, Float32Type::get(ctx), AffineMap(),
            gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
      auto func = op->getParentOfType<FunctionOpInterface>();
      std::string name =
          (func ? func.getName().str() : std::string("fuser")) + "_group_norm";
      kernel = createKernel(kernelSymbols, loc, name, params,
                            op.getConfigAttr().getBlock(), smem);
      if (failed(KernelEmitter(op, s, kernel).emit()))
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
    for (auto [k, in] : llvm::enumerate(op.getEpilogueInputs())) {
      if (!isa<RankedTensorType>(in.getType())) {
        args.push_back(in);
        continue;
      }
      auto map = cast<AffineMapAttr>(op.getEpilogueMaps()[k]).getValue();
      for (unsigned p = 0; p < map.getNumResults(); ++p) {
        unsigned d = map.getDimPosition(p);
        assertEqual(dim(in, p),
                    d == 0 ? n
                           : arith::ConstantIndexOp::create(b, loc, s.sizes[d])
                                 .getResult(),
                    "fuser.group_norm: epilogue input #" + Twine(k) +
                        " dimension " + Twine(p) +
                        " must equal result dimension " + Twine(d));
      }
      args.push_back(hostPointerToTensor(b, loc, in));
    }
    SmallVector<Value> dynDims;
    if (resultTy.isDynamicDim(0))
      dynDims.push_back(n);
    Value out = memref::AllocOp::create(
        b, loc, MemRefType::get(resultTy.getShape(), resultTy.getElementType()),
        dynDims, b.getI64IntegerAttr(64));
    if (kernel) {
      args.push_back(hostPointerToMemRef(b, loc, out));
      args.push_back(arith::IndexCastUIOp::create(b, loc, i64, n));
      // One block per (sample, group), or per groupsPerBlock of them.
      Value grid = arith::MulIOp::create(
          b, loc, n, arith::ConstantIndexOp::create(b, loc, s.groups));
      if (s.groupsPerBlock() > 1)
        grid = arith::CeilDivUIOp::create(
            b, loc, grid,
            arith::ConstantIndexOp::create(b, loc, s.groupsPerBlock()));
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value threads = arith::ConstantIndexOp::create(b, loc, s.block);
      gpu::LaunchFuncOp::create(b, loc, kernel, gpu::KernelDim3{grid, one, one},
                                gpu::KernelDim3{threads, one, one},
                                /*dynamicSharedMemorySize=*/Value(), args);
    }
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultTy, out, /*restrict=*/true, /*writable=*/true);
    op.replaceAllUsesWith(result);
    op->erase();
    return success();
  }
};

} // namespace
