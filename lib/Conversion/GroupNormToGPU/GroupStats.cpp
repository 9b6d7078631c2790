//===- GroupStats.cpp - pieces of the group-norm kernels ------------------===//
//
// The statistics, in fp32 and in one pass: each thread sums d = x - s_t and
// d * d over its elements (`vector_width` at a time), s_t being one of its
// own elements, so that d * d does not cancel against the mean. Its mean is
// kept relative to the group's first element x0, so (x - x0) - mean is
// accurate even when the mean is large against the spread. The (count,
// mean, M2) triples merge with Chan's formula: a warp butterfly of
// gpu.shuffle xor (lower lane first, so every lane gets bit-identical
// results), then the warps' results through workgroup memory, merged in
// warp order by every thread.
//
//===----------------------------------------------------------------------===//

#include "GroupStats.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::group_norm;

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

LogicalResult group_norm::checkStrategy(Operation *op, KernelConfigAttr config,
                                        StringRef strategy) {
  if (!config)
    return op->emitOpError()
           << "has no #fuser.config; run -fuser-configure-kernels first";
  if (config.getStrategy() != strategy)
    return op->emitOpError()
           << "has strategy '" << config.getStrategy()
           << "'; this lowering implements '" << strategy << "'";
  return success();
}

LogicalResult group_norm::checkShape(Operation *op, KernelConfigAttr config,
                                     RankedTensorType ty, int64_t groups,
                                     GroupShape &s) {
  if (llvm::any_of(ty.getShape().drop_front(), ShapedType::isDynamic))
    return op->emitOpError() << "has dynamic sizes past the batch "
                                "dimension; the GPU kernel needs static C "
                                "and spatial sizes (only N may be dynamic)";
  ArrayRef<int64_t> block = config.getBlock();
  if (block.size() != 3 || block[1] != 1 || block[2] != 1 ||
      block[0] % kWarpSize != 0 || block[0] < kWarpSize || block[0] > 1024)
    return op->emitOpError() << "block must be [B, 1, 1] with B a multiple "
                                "of 32 up to 1024";
  s.rank = ty.getRank();
  s.sizes.assign(ty.getShape().begin(), ty.getShape().end());
  s.channels = ty.getDimSize(1);
  s.groups = groups;
  s.spatial = 1;
  for (int64_t d : ty.getShape().drop_front(2))
    s.spatial *= d;
  s.groupSize = s.channels / s.groups * s.spatial;
  s.block = block[0];
  s.threads = s.block;
  ArrayRef<int64_t> tile = config.getTile();
  if (tile.size() == 2) {
    if (tile[0] != s.block || tile[1] < 1)
      return op->emitOpError()
             << "a split group's tile must be [B, P]: the block's B threads "
                "per group, P >= 1 blocks per group";
    s.slices = tile[1];
  } else if (!tile.empty()) {
    if (tile.size() != 1 || !llvm::isPowerOf2_64(tile[0]) ||
        tile[0] > kWarpSize || s.block % tile[0] != 0)
      return op->emitOpError()
             << "tile must be empty, [threads per group] (a power of two up "
                "to 32 dividing the block) or [block, blocks per group]";
    s.threads = tile[0];
  }
  s.width = config.getVectorWidth();
  if (!llvm::is_contained({1, 2, 4}, s.width) || s.groupSize % s.width != 0)
    return op->emitOpError()
           << "vector_width " << s.width << " must be 1, 2 or 4 and divide "
           << "the group size " << s.groupSize;
  // Counts are f32 in the kernel: exact below 2^24.
  if (s.groupSize >= (int64_t(1) << 24))
    return op->emitOpError() << "group size " << s.groupSize
                             << " exceeds the kernel's limit of 2^24";
  if (s.slices > 1 && s.slices > s.groupSize / s.width)
    return op->emitOpError()
           << "splits groups of " << s.groupSize / s.width << " vectors into "
           << s.slices << " slices: more slices than vectors";
  return success();
}

MemRefType group_norm::perWarpBuffer(MLIRContext *ctx, const GroupShape &s,
                                     int64_t perWarp) {
  return MemRefType::get(
      {perWarp * s.block / kWarpSize}, Float32Type::get(ctx), AffineMap(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

std::string group_norm::kernelName(Operation *op, StringRef suffix) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  return (func ? func.getName().str() : std::string("fuser")) + suffix.str();
}

//===----------------------------------------------------------------------===//
// GroupKernelEmitter
//===----------------------------------------------------------------------===//

Block &GroupKernelEmitter::beginKernel() {
  Block &entry = kernel.getBody().front();
  b.setInsertionPointToStart(&entry);
  f32 = b.getF32Type();
  i64 = b.getI64Type();
  vecTy = s.width == 1 ? Type(f32) : VectorType::get({s.width}, f32);
  return entry;
}

void GroupKernelEmitter::emitGroupIndex(bool slicesAcrossSamples) {
  thread = toI64(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  Value bid = toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  // Several groups per block: the last block's spare threads take the last
  // group for their (unused) loads and do no work.
  Value g = bid;
  Value numVec = c64(s.groupSize / s.width);
  tid = thread;
  firstVec = tid;
  endVec = numVec;
  if (s.slices > 1) {
    if (slicesAcrossSamples) {
      // Block bid takes slice bid / (N * G) of group bid % (N * G).
      Value total = mul(n, c64(s.groups));
      g = arith::RemUIOp::create(b, loc, bid, total);
      slice = arith::DivUIOp::create(b, loc, bid, total);
    } else {
      // Block bid takes slice bid % P of group bid / P.
      g = arith::DivUIOp::create(b, loc, bid, c64(s.slices));
      slice = arith::RemUIOp::create(b, loc, bid, c64(s.slices));
    }
    int64_t perSlice = llvm::divideCeil(s.groupSize / s.width, s.slices);
    Value begin = mul(slice, c64(perSlice));
    firstVec = add(begin, tid);
    endVec = arith::MinUIOp::create(b, loc, add(begin, c64(perSlice)), numVec);
  }
  if (s.groupsPerBlock() > 1) {
    tid = arith::RemUIOp::create(b, loc, thread, c64(s.threads));
    g = add(mul(bid, c64(s.groupsPerBlock())),
            arith::DivUIOp::create(b, loc, thread, c64(s.threads)));
    Value total = mul(n, c64(s.groups));
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, g, total);
    g = arith::MinUIOp::create(b, loc, g, sub64(total, c64(1)));
    firstVec = tid; // (a shared block's groups are never split)
    endVec = arith::SelectOp::create(b, loc, valid, endVec, c64(0));
  }
  groupIndex = g;
  sample = arith::DivUIOp::create(b, loc, g, c64(s.groups));
  group = arith::RemUIOp::create(b, loc, g, c64(s.groups));
  base = mul(g, c64(s.groupSize));
}

void GroupKernelEmitter::emitStatistics(Value xPtr, double epsilon) {
  emitMoments(xPtr);
  emitRstd(epsilon);
}

void GroupKernelEmitter::emitMoments(Value xPtr) {
  // Per-thread shifted sums.
  x0 = load(xPtr, base, f32);
  Value first = arith::MinUIOp::create(b, loc, mul(firstVec, c64(s.width)),
                                       c64(s.groupSize - 1));
  Value shift = load(xPtr, add(base, first), f32);
  Value shiftVec = splat(shift);
  Value zeroVec = splat(f32c(0.0));
  auto stats = scf::ForOp::create(b, loc, firstVec, endVec, c64(s.threads),
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
  // This thread's count: ceil((endVec - firstVec) / threads) vectors if
  // firstVec < endVec.
  Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       firstVec, endVec);
  Value vecs = arith::SelectOp::create(
      b, loc, active,
      arith::CeilDivUIOp::create(b, loc, sub64(endVec, firstVec),
                                 c64(s.threads)),
      c64(0));
  Value count = arith::UIToFPOp::create(b, loc, f32, mul(vecs, c64(s.width)));
  Value local = divf(s1, maxf(count, f32c(1.0)));
  m = {count,
       arith::AddFOp::create(b, loc, arith::SubFOp::create(b, loc, shift, x0),
                             local),
       arith::SubFOp::create(b, loc, s2,
                             arith::MulFOp::create(b, loc, s1, local))};

  // Merge across the group's lanes of the warp (xor partners stay within
  // it), then across warps.
  lane = arith::RemUIOp::create(b, loc, thread, c64(kWarpSize));
  mergeAcrossLanes(std::min(s.threads, kWarpSize));
  if (s.warpsPerGroup() > 1) {
    Value smem = kernel.getWorkgroupAttributions()[0];
    publishPerWarp({m.count, m.mean, m.m2}, smem);
    m = {readPerWarp(smem, 0, 0, 3), readPerWarp(smem, 0, 1, 3),
         readPerWarp(smem, 0, 2, 3)};
    for (int64_t w = 1; w < s.warpsPerGroup(); ++w)
      m = merge(m, {readPerWarp(smem, w, 0, 3), readPerWarp(smem, w, 1, 3),
                    readPerWarp(smem, w, 2, 3)});
  }
}

void GroupKernelEmitter::mergeSliceMoments(Value xPtr, Value partials,
                                           double epsilon) {
  x0 = load(xPtr, base, f32);
  lane = arith::RemUIOp::create(b, loc, thread, c64(kWarpSize));
  // Lane l merges slices l, l + 32, ... in order; then the butterfly. The
  // slices are a constant: each lane loads kMergeBatch of its triples
  // before merging any, so their latencies overlap (a loop of one load
  // and merge at a time kept every normalizing block waiting for several
  // L2 round trips before its first element). A slice past the last (where
  // 32 lanes do not divide them) counts nothing.
  Value zero = f32c(0.0);
  m = {zero, zero, zero};
  int64_t perLane = llvm::divideCeil(s.slices, kWarpSize);
  for (int64_t first = 0; first < perLane; first += kMergeBatch) {
    SmallVector<Moments> batch;
    for (int64_t j = first; j < std::min(perLane, first + kMergeBatch); ++j) {
      Value slice = add(lane, c64(j * kWarpSize));
      Value inRange;
      if ((j + 1) * kWarpSize > s.slices) {
        inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        slice, c64(s.slices));
        slice = arith::MinUIOp::create(b, loc, slice, c64(s.slices - 1));
      }
      Value at = mul(add(mul(groupIndex, c64(s.slices)), slice), c64(3));
      Moments o{load(partials, at, f32), load(partials, add(at, c64(1)), f32),
                load(partials, add(at, c64(2)), f32)};
      if (inRange)
        o = {arith::SelectOp::create(b, loc, inRange, o.count, zero),
             arith::SelectOp::create(b, loc, inRange, o.mean, zero),
             arith::SelectOp::create(b, loc, inRange, o.m2, zero)};
      batch.push_back(o);
    }
    for (const Moments &o : batch)
      m = merge(m, o);
  }
  // Over the whole warp, so that every lane, not only the first `slices`,
  // ends with the group's moments.
  mergeAcrossLanes(kWarpSize);
  emitRstd(epsilon);
}

void GroupKernelEmitter::mergeAcrossLanes(int64_t lanes) {
  for (int64_t offset = llvm::PowerOf2Ceil(lanes) / 2; offset >= 1;
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
}

void GroupKernelEmitter::emitRstd(double epsilon) {
  Value var = divf(m.m2, f32c(static_cast<double>(s.groupSize)));
  Value eps = f32c(epsilon);
  rstd = math::RsqrtOp::create(b, loc, arith::AddFOp::create(b, loc, var, eps));
}

void GroupKernelEmitter::publishPerWarp(ArrayRef<Value> values, Value smem) {
  Value warp = arith::DivUIOp::create(b, loc, thread, c64(kWarpSize));
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c64(0));
  auto ifOp = scf::IfOp::create(b, loc, leader, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    int64_t size = values.size();
    for (int64_t k = 0; k < size; ++k) {
      Value at = toIndex(add(mul(warp, c64(size)), c64(k)));
      memref::StoreOp::create(b, loc, values[k], smem, ValueRange{at});
    }
  }
  gpu::BarrierOp::create(b, loc);
}

Value GroupKernelEmitter::readPerWarp(Value smem, int64_t w, int64_t k,
                                      int64_t size) {
  return memref::LoadOp::create(
      b, loc, smem,
      ValueRange{arith::ConstantIndexOp::create(b, loc, size * w + k)});
}

void GroupKernelEmitter::hoistInputStrides(ValueRange inputs, ArrayAttr maps) {
  for (auto [k, in] : llvm::enumerate(inputs)) {
    if (!isa<RankedTensorType>(in.getType()))
      continue;
    AffineMap map = cast<AffineMapAttr>(maps[k]).getValue();
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

void GroupKernelEmitter::mapInputs(IRMapping &mapping, Block &body,
                                   unsigned firstArg, ValueRange inputs,
                                   ArrayAttr maps, ArrayRef<Value> args,
                                   Value c, Value i, ArrayRef<Value> known) {
  SmallVector<Value> coords;
  for (auto [k, in] : llvm::enumerate(inputs)) {
    BlockArgument arg = body.getArgument(firstArg + k);
    if (!known.empty() && known[k]) {
      mapping.map(arg, known[k]);
      continue;
    }
    if (!isa<RankedTensorType>(in.getType())) {
      mapping.map(arg, args[k]);
      continue;
    }
    AffineMap map = cast<AffineMapAttr>(maps[k]).getValue();
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
    mapping.map(arg, load(args[k], idx, elementTypeOf(in.getType())));
  }
}

Value GroupKernelEmitter::channelOf(Value i) {
  return add(mul(group, c64(s.channels / s.groups)),
             arith::DivUIOp::create(b, loc, i, c64(s.spatial)));
}

SmallVector<Value> GroupKernelEmitter::coordinates(Value c, Value i) {
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

Value GroupKernelEmitter::normalized(Value x) {
  Value centered = arith::SubFOp::create(
      b, loc, arith::SubFOp::create(b, loc, x, x0), m.mean);
  return arith::MulFOp::create(b, loc, centered, rstd);
}

Moments GroupKernelEmitter::merge(const Moments &a, const Moments &o) {
  Value count = arith::AddFOp::create(b, loc, a.count, o.count);
  Value f = divf(o.count, maxf(count, f32c(1.0)));
  Value delta = arith::SubFOp::create(b, loc, o.mean, a.mean);
  Value mean = arith::AddFOp::create(b, loc, a.mean,
                                     arith::MulFOp::create(b, loc, delta, f));
  Value cross =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, delta, delta),
                            arith::MulFOp::create(b, loc, a.count, f));
  Value m2 = arith::AddFOp::create(
      b, loc, arith::AddFOp::create(b, loc, a.m2, o.m2), cross);
  return {count, mean, m2};
}

Value GroupKernelEmitter::shuffle(Value v, int64_t offset) {
  return shuffleXor(b, loc, v, offset);
}

Value GroupKernelEmitter::horizontalSum(Value v) {
  if (s.width == 1)
    return v;
  Value sum = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
  for (int64_t l = 1; l < s.width; ++l)
    sum = arith::AddFOp::create(
        b, loc, sum,
        vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{l}));
  return sum;
}

Value GroupKernelEmitter::laneOf(Value v, int64_t l) {
  if (s.width == 1)
    return v;
  return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{l});
}

Value GroupKernelEmitter::pack(ArrayRef<Value> lanes) {
  if (s.width == 1)
    return lanes[0];
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(vecTy), lanes);
}

Value GroupKernelEmitter::load(Value ptr, Value idx, Type t) {
  unsigned bytes = elementTypeOf(t).getIntOrFloatBitWidth() / 8;
  if (auto vt = dyn_cast<VectorType>(t))
    bytes *= vt.getNumElements();
  return LLVM::LoadOp::create(
      b, loc, t, gepElement(b, loc, ptr, elementTypeOf(t), idx), bytes);
}

Value GroupKernelEmitter::splat(Value x) {
  return s.width == 1
             ? x
             : vector::BroadcastOp::create(b, loc, vecTy, x).getResult();
}

Value GroupKernelEmitter::toI64(Value idx) {
  return arith::IndexCastUIOp::create(b, loc, i64, idx);
}

Value GroupKernelEmitter::toIndex(Value v) {
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}

Value GroupKernelEmitter::c64(int64_t v) { return constI64(b, loc, v); }

Value GroupKernelEmitter::f32c(double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value GroupKernelEmitter::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value GroupKernelEmitter::sub64(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}

Value GroupKernelEmitter::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

Value GroupKernelEmitter::divf(Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}

Value GroupKernelEmitter::maxf(Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}

//===----------------------------------------------------------------------===//
// Host code
//===----------------------------------------------------------------------===//

void group_norm::appendInputArgs(OpBuilder &b, Location loc, ValueRange inputs,
                                 ArrayAttr maps, const GroupShape &s, Value n,
                                 StringRef what, StringRef space,
                                 SmallVectorImpl<Value> &args) {
  for (auto [k, in] : llvm::enumerate(inputs)) {
    if (!isa<RankedTensorType>(in.getType())) {
      args.push_back(in);
      continue;
    }
    auto map = cast<AffineMapAttr>(maps[k]).getValue();
    for (unsigned p = 0; p < map.getNumResults(); ++p) {
      unsigned d = map.getDimPosition(p);
      assertSizesEqual(
          b, loc, tensorDimSize(b, loc, in, p),
          d == 0
              ? n
              : arith::ConstantIndexOp::create(b, loc, s.sizes[d]).getResult(),
          what + " #" + Twine(k) + " dimension " + Twine(p) + " must equal " +
              space + " dimension " + Twine(d));
    }
    args.push_back(hostPointerToTensor(b, loc, in));
  }
}

Value group_norm::allocOutput(OpBuilder &b, Location loc, RankedTensorType type,
                              Value n) {
  SmallVector<Value> dynDims;
  if (type.isDynamicDim(0))
    dynDims.push_back(n);
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), dynDims,
      b.getI64IntegerAttr(64));
}

void group_norm::launchGroups(OpBuilder &b, Location loc, gpu::GPUFuncOp kernel,
                              const GroupShape &s, Value n, ValueRange args) {
  // One block per (sample, group), or per groupsPerBlock of them, or
  // `slices` per group.
  Value grid = arith::MulIOp::create(
      b, loc, n, arith::ConstantIndexOp::create(b, loc, s.groups * s.slices));
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
