//===- FfmaGemmKernel.cpp - register-tiled FP32 GEMM kernel ---------------===//
//
// The kernel, for a block's BM x BN tile of C = epilogue(A * B):
//
//   load slice 0 of A and B into shared buffer 0; barrier
//   for kt in [0, ceil(K / BK)):
//     load slice kt+1 into registers          (128-bit global loads)
//     for kk in [0, BK): 4 x 128-bit shared loads, 64 FFMAs  (unrolled)
//     store the registers into the other shared buffer; barrier
//   epilogue in registers, 128-bit stores
//
// A and B^T slices are stored transposed (k-major) in shared memory, so both
// operands are read as float4 along M and N. An M-major A (transpose_a, K x
// M) and a K x N B are k-major already: their float4s are stored as loaded.
// A batched matmul's blocks run its batches' M tiles along x
// (GemmKernelArgs decodes them and offsets the pointers). Thread (r, c) owns TM rows in
// groups of 4, {4r..4r+3} + g * BM/(TM/4), and likewise TN columns: the
// float4 reads of neighbouring threads are neighbours, free of bank
// conflicts.
//
//===----------------------------------------------------------------------===//

#include "FfmaGemmKernel.h"
#include "GemmKernelPlan.h"

#include "RegisterEpilogue.h"
#include "GuardedAccess.h"
#include "GemmKernelArgs.h"

#include "fuser/Conversion/Common/KernelUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::fuser;

FailureOr<GemmTiling> mlir::fuser::getGemmTiling(MatmulOp op,
                                                 KernelConfigAttr config) {
  ArrayRef<int64_t> tile = config.getTile();
  if (tile.size() != 3 && tile.size() != 5)
    return op.emitOpError() << "needs a config tile of [BM, BN, BK] or "
                               "[BM, BN, BK, TM, TN], got "
                            << tile.size() << " sizes";
  GemmTiling t{tile[0], tile[1], tile[2], tile.size() == 5 ? tile[3] : 8,
               tile.size() == 5 ? tile[4] : 8};
  if (t.tm % 4 || t.tn % 4 || t.bm % t.tm || t.bn % t.tn || t.bk % 4 ||
      t.bm % (4 * t.rowGroups()) || t.bn % (4 * t.colGroups()))
    return op.emitOpError()
           << "tile [" << t.bm << ", " << t.bn << ", " << t.bk << ", " << t.tm
           << ", " << t.tn
           << "] unsupported: TM and TN must be multiples of 4 dividing BM "
              "and BN, and BK a multiple of 4";
  if (config.getBlock()[0] != t.threads() || config.getBlock()[1] != 1 ||
      config.getBlock()[2] != 1)
    return op.emitOpError() << "tile [" << t.bm << ", " << t.bn << ", "
                            << t.bk << "] needs a block of [" << t.threads()
                            << ", 1, 1] (one thread per " << t.tm << " x "
                            << t.tn << " outputs)";
  if ((t.bm * t.bk) % (4 * t.threads()) || (t.bn * t.bk) % (4 * t.threads()))
    return op.emitOpError() << "tile [" << t.bm << ", " << t.bn << ", "
                            << t.bk
                            << "] does not split into whole float4 loads "
                               "per thread";
  if (op.hasGroupNorm()) {
    int64_t groupSize = *op.getNormGroupSize();
    const GemmStrategyRecord &ffma = getGemmStrategyRecord(GemmStrategy::ffma);
    SmallVector<int64_t> tile{t.bm, t.bn, t.bk, t.tm, t.tn};
    int64_t span = ffma.groupSpan(tile);
    if (!ffma.holdsGroups(tile, groupSize))
      return op.emitOpError()
             << "group_norm(size = " << groupSize << ") does not fit tile ["
             << t.bm << ", " << t.bn << ", " << t.bk << ", " << t.tm << ", "
             << t.tn << "]: a group must be whole 4-wide pieces of one "
             << "thread row's " << span << " columns";
  }
  int64_t smemBytes = 2 * t.bk * (t.aPitch() + t.bPitch()) * 4;
  if (smemBytes > 48 * 1024)
    return op.emitOpError() << "tile needs " << smemBytes
                            << " bytes of shared memory; the static limit "
                               "is 49152";
  return t;
}

SmallVector<Type> mlir::fuser::getGemmWorkgroupBuffers(MLIRContext *ctx,
                                                       const GemmTiling &t) {
  auto f32 = Float32Type::get(ctx);
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  return {MemRefType::get({2, t.bk, t.aPitch()}, f32, AffineMap(), space),
          MemRefType::get({2, t.bk, t.bPitch()}, f32, AffineMap(), space)};
}

namespace {

class GemmEmitter {
public:
  GemmEmitter(MatmulOp op, const GemmTiling &t, gpu::GPUFuncOp kernel)
      : op(op), t(t), kernel(kernel), b(kernel.getContext()),
        loc(op.getLoc()) {}

  LogicalResult emit() {
    Block &entry = kernel.getBody().front();
    b.setInsertionPointToStart(&entry);
    f32 = b.getF32Type();
    v4 = VectorType::get({4}, f32);
    transA = op.getTransposeA();
    transB = op.getTransposeB();

    GemmKernelArgs args = GemmKernelArgs::of(op, kernel, b, t.bm);
    aPtr = args.a;
    bPtr = args.b;
    epiArgs = args.epilogue;
    cPtr = args.c;
    m = args.m;
    n = args.n;
    k = args.k;
    aSmem = kernel.getWorkgroupAttributions()[0];
    bSmem = kernel.getWorkgroupAttributions()[1];

    Value tidIdx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    tid = toI64(tidIdx);
    blockM = args.blockM
                 ? args.blockM
                 : mul(toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
                       c64(t.bm));
    blockN = mul(toI64(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)),
                 c64(t.bn));
    threadRow = arith::DivUIOp::create(b, loc, tidIdx, cIdx(t.threadCols()));
    threadCol = arith::RemUIOp::create(b, loc, tidIdx, cIdx(t.threadCols()));
    kVectorOk = isMultipleOf4(k);
    mVectorOk = isMultipleOf4(m);
    nVectorOk = isMultipleOf4(n);

    // Prologue: slice 0 into buffer 0. With K = 0 the operands may have no
    // memory at all, so nothing is loaded.
    {
      auto ifOp = scf::IfOp::create(b, loc, lt(c64(0), k), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      storeSlice(loadSlice(c64(0)), cIdx(0));
    }
    gpu::BarrierOp::create(b, loc);

    // Main loop over K slices, accumulators carried as vector<4xf32>s:
    // acc[i * colGroups + g] holds row i, column group g.
    Value numK = arith::CeilDivUIOp::create(b, loc, k, c64(t.bk));
    Value zero = arith::ConstantOp::create(
        b, loc, v4, SplatElementsAttr::get(v4, b.getF32FloatAttr(0.0f)));
    SmallVector<Value> init(t.tm * t.colGroups(), zero);
    auto loop = scf::ForOp::create(b, loc, c64(0), numK, c64(1), init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value kt = loop.getInductionVar();
      Value buf = toIdx(arith::RemUIOp::create(b, loc, kt, c64(2)));
      Value next = toIdx(arith::SubIOp::create(b, loc, c64(1),
                                               arith::RemUIOp::create(
                                                   b, loc, kt, c64(2))));
      // Issue the next slice's global loads before computing on this one.
      SmallVector<Value> prefetch =
          loadSlice(mul(arith::AddIOp::create(b, loc, kt, c64(1)), c64(t.bk)));
      SmallVector<Value> acc(loop.getRegionIterArgs());
      for (int64_t kk = 0; kk < t.bk; ++kk)
        computeStep(buf, kk, acc);
      storeSlice(prefetch, next);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, acc);
    }
    if (failed(emitEpilogue(loop.getResults())))
      return failure();
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  // Small arithmetic helpers, all on i64 unless named otherwise.
  Value c64(int64_t v) { return constI64(b, loc, v); }
  Value cIdx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value toI64(Value idx) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), idx);
  }
  Value toIdx(Value i) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), i);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value le(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value isMultipleOf4(Value x) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 arith::RemUIOp::create(b, loc, x, c64(4)),
                                 c64(0));
  }
  Value splat(Value s) { return vector::BroadcastOp::create(b, loc, v4, s); }

  /// Four consecutive f32 at ptr[base..base+3] with lane e valid when
  /// `rowOk` and colStart + e < colLimit: one 128-bit load when all lanes
  /// are valid and `alignedOk`, else clamped scalar loads (invalid lanes 0).
  Value loadFour(Value ptr, Value base, Value rowOk, Value colStart,
                 Value colLimit, Value alignedOk) {
    return loadVectorIf(b, loc, ptr, f32, 4, base, rowOk, colStart, colLimit,
                        alignedOk);
  }

  /// Global loads of one BK-deep slice starting at k0: A's, then B's float4s.
  SmallVector<Value> loadSlice(Value k0) {
    SmallVector<Value> regs;
    for (int64_t i = 0; i < t.aLoads(); ++i)
      regs.push_back(transA ? loadAlongK(aPtr, blockM, m, mVectorOk, k0, i,
                                         t.bm)
                            : loadKMajor(aPtr, blockM, m, k0, i));
    for (int64_t i = 0; i < t.bLoads(); ++i)
      regs.push_back(transB ? loadKMajor(bPtr, blockN, n, k0, i)
                            : loadAlongK(bPtr, blockN, n, nVectorOk, k0, i,
                                         t.bn));
    return regs;
  }

  /// Load i of a (rows x K) row-major operand's slice: row f / (BK/4),
  /// k offset 4 * (f % (BK/4)) with f = tid + i * threads.
  Value loadKMajor(Value ptr, Value rowBase, Value rows, Value k0, int64_t i) {
    auto [row, kq] = kMajorCoords(i);
    Value gr = add(rowBase, row), gk = add(k0, kq);
    return loadFour(ptr, add(mul(gr, k), gk), lt(gr, rows), gk, k, kVectorOk);
  }

  std::pair<Value, Value> kMajorCoords(int64_t i) {
    return sliceCoords(i, t.bk / 4);
  }

  /// Load i's (row, column) in a slice whose rows hold `float4sPerRow`
  /// float4s: f = tid + i * threads is the float4 index in row-major order.
  std::pair<Value, Value> sliceCoords(int64_t i, int64_t float4sPerRow) {
    Value f = add(tid, c64(i * t.threads()));
    Value row = arith::DivUIOp::create(b, loc, f, c64(float4sPerRow));
    Value col =
        mul(arith::RemUIOp::create(b, loc, f, c64(float4sPerRow)), c64(4));
    return {row, col};
  }

  /// Load i of a (K x cols) row-major operand's slice, `tile` columns wide
  /// from colBase (B, or an M-major A): k f / (tile/4), column offset
  /// 4 * (f % (tile/4)).
  Value loadAlongK(Value ptr, Value colBase, Value cols, Value vectorOk,
                   Value k0, int64_t i, int64_t tile) {
    auto [kRow, q] = sliceCoords(i, tile / 4);
    Value gk = add(k0, kRow), gc = add(colBase, q);
    return loadFour(ptr, add(mul(gk, cols), gc), lt(gk, k), gc, cols,
                    vectorOk);
  }

  /// Stores a slice's registers into shared buffer `buf`, k-major.
  void storeSlice(ArrayRef<Value> regs, Value buf) {
    for (int64_t i = 0; i < t.aLoads(); ++i) {
      if (transA) {
        auto [kRow, mq] = sliceCoords(i, t.bm / 4);
        storeAsLoaded(aSmem, buf, regs[i], kRow, mq);
        continue;
      }
      auto [row, kq] = kMajorCoords(i);
      storeTransposed(aSmem, buf, regs[i], row, kq);
    }
    for (int64_t i = 0; i < t.bLoads(); ++i) {
      Value v = regs[t.aLoads() + i];
      if (transB) {
        auto [row, kq] = kMajorCoords(i);
        storeTransposed(bSmem, buf, v, row, kq);
        continue;
      }
      auto [kRow, nq] = sliceCoords(i, t.bn / 4);
      storeAsLoaded(bSmem, buf, v, kRow, nq);
    }
  }

  void storeAsLoaded(Value smem, Value buf, Value v, Value kRow, Value col) {
    vector::StoreOp::create(b, loc, v, smem,
                            ValueRange{buf, toIdx(kRow), toIdx(col)},
                            /*nontemporal=*/false, llvm::Align(16));
  }

  void storeTransposed(Value smem, Value buf, Value v, Value row, Value kq) {
    for (int64_t e = 0; e < 4; ++e) {
      Value x = vector::ExtractOp::create(b, loc, v, e);
      memref::StoreOp::create(b, loc, x, smem,
                              ValueRange{buf, toIdx(add(kq, c64(e))),
                                         toIdx(row)});
    }
  }

  /// One k step: a column of A and a row of B from shared memory, then the
  /// tm x tn outer product as vector FMAs.
  void computeStep(Value buf, int64_t kk, SmallVector<Value> &acc) {
    Value kIdx = cIdx(kk);
    auto offset = [&](Value thread, int64_t group, int64_t spacing) {
      return arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, thread, cIdx(4)),
          cIdx(group * spacing));
    };
    SmallVector<Value> a, bv;
    for (int64_t g = 0; g < t.rowGroups(); ++g)
      a.push_back(vector::LoadOp::create(
          b, loc, v4, aSmem,
          ValueRange{buf, kIdx, offset(threadRow, g, t.bm / t.rowGroups())},
          /*nontemporal=*/false, llvm::Align(16)));
    for (int64_t g = 0; g < t.colGroups(); ++g)
      bv.push_back(vector::LoadOp::create(
          b, loc, v4, bSmem,
          ValueRange{buf, kIdx, offset(threadCol, g, t.bn / t.colGroups())},
          /*nontemporal=*/false, llvm::Align(16)));
    for (int64_t i = 0; i < t.tm; ++i) {
      Value ai = splat(vector::ExtractOp::create(b, loc, a[i / 4], i % 4));
      for (int64_t g = 0; g < t.colGroups(); ++g) {
        Value &c = acc[i * t.colGroups() + g];
        c = vector::FMAOp::create(b, loc, ai, bv[g], c);
      }
    }
  }

  /// Global row of accumulator row i and column of column group g.
  Value outRow(int64_t i) {
    Value local = add(mul(toI64(threadRow), c64(4)),
                      c64((i / 4) * (t.bm / t.rowGroups()) + i % 4));
    return add(blockM, local);
  }
  Value outCol(int64_t g) {
    return add(blockN, add(mul(toI64(threadCol), c64(4)),
                           c64(g * (t.bn / t.colGroups()))));
  }

  /// Applies the epilogue to each 4-wide accumulator piece and stores it.
  LogicalResult emitEpilogue(ValueRange acc) {
    EpilogueInputs inputs(b, loc, op, epiArgs, 4, m, n, nVectorOk);
    // Row vectors are shared by all the thread's rows: held in registers.
    SmallVector<SmallVector<Value>> rowVecs(inputs.reads().size());
    for (auto [j, read] : llvm::enumerate(inputs.reads()))
      if (read == EpilogueRead::Row)
        for (int64_t g = 0; g < t.colGroups(); ++g)
          rowVecs[j].push_back(inputs.loadRow(j, outCol(g)));
    Block &body = op.getEpilogue().front();
    for (int64_t i = 0; i < t.tm; ++i) {
      Value row = outRow(i);
      Value rowOk = lt(row, m);
      SmallVector<Value> columns = inputs.loadColumns(row, rowOk);
      for (int64_t g = 0; g < t.colGroups(); ++g) {
        Value col = outCol(g);
        SmallVector<Value> in = inputs.at(
            row, rowOk, col, columns, [&](int64_t j) { return rowVecs[j][g]; });
        FailureOr<Value> out = applyBody(body, acc[i * t.colGroups() + g], in);
        if (succeeded(out) && op.hasGroupNorm())
          out = applyBody(op.getNormEpilogue().front(), normalize(*out), in);
        if (failed(out))
          return failure();
        storeFour(*out, row, rowOk, col);
      }
    }
    return success();
  }

  /// The 4-wide result of `body` on `value` and the epilogue inputs.
  FailureOr<Value> applyBody(Block &body, Value value, ArrayRef<Value> in) {
    return applyBodyWidened(b, body, value, in, 4);
  }

  /// (v - mean) / sqrt(var + eps) over the group holding this 4-wide piece.
  /// A group's G columns are the pieces of G / 4 neighbouring lanes (one
  /// thread row), so its sums are shuffles among them. Every lane takes
  /// part, in and out of bounds: the shuffles need the whole warp, and a
  /// group never straddles N (G divides it).
  Value normalize(Value v) {
    int64_t groupSize = *op.getNormGroupSize();
    SmallVector<Value> piece{v};
    normalizeGroup(b, loc, piece, groupSize,
                   op.getNormEpsilon()->convertToDouble(), [&](Value s) {
                     return sumAcrossLanes(b, loc, s, groupSize / 4);
                   });
    return piece.front();
  }

  /// Stores 4 results at C[row, col..col+3], 128-bit when the whole vector
  /// is in bounds and aligned, else lane by lane.
  void storeFour(Value v, Value row, Value rowOk, Value col) {
    Value base = add(mul(row, n), col);
    storeVectorIf(b, loc, cPtr, f32, v, base, rowOk, col, n, nVectorOk);
  }

  MatmulOp op;
  GemmTiling t;
  gpu::GPUFuncOp kernel;
  OpBuilder b;
  Location loc;
  Type f32;
  VectorType v4;
  bool transA = false, transB = false;
  Value aPtr, bPtr, cPtr, m, n, k, aSmem, bSmem;
  SmallVector<Value> epiArgs;
  Value tid, blockM, blockN, threadRow, threadCol, kVectorOk, mVectorOk,
      nVectorOk;
};

} // namespace

LogicalResult mlir::fuser::buildFfmaGemmKernel(MatmulOp op,
                                               const GemmTiling &tiling,
                                               gpu::GPUFuncOp kernel) {
  return GemmEmitter(op, tiling, kernel).emit();
}

/// The FFMA kernel's checks beyond its tiling (getGemmTiling).
static LogicalResult checkFfmaTypes(MatmulOp op, KernelConfigAttr config) {
  const GemmStrategyRecord &ffma = getGemmStrategyRecord(GemmStrategy::ffma);
  if (!ffma.applies(op, config.getPrecision()))
    return op.emitOpError()
           << "precision '" << config.getPrecision()
           << "' needs the tensor-core strategy '"
           << stringifyGemmStrategy(GemmStrategy::mma) << "'; the '"
           << ffma.name() << "' kernel computes in fp32";
  auto isF32 = [](Type t) { return elementTypeOf(t).isF32(); };
  if (!isF32(op.getLhs().getType()) || !isF32(op.getRhs().getType()) ||
      !isF32(op.getResult().getType()) ||
      !llvm::all_of(op.getEpilogueInputs().getTypes(), isF32))
    return op.emitOpError() << "the fp32 FFMA kernel needs f32 operands, "
                               "epilogue inputs and result";
  return success();
}

FailureOr<GemmKernelPlan> mlir::fuser::planFfmaKernel(MatmulOp op,
                                                      KernelConfigAttr config,
                                     const ChipInfo &chip) {
  if (failed(checkFfmaTypes(op, config)))
    return failure();
  FailureOr<GemmTiling> t = getGemmTiling(op, config);
  if (failed(t))
    return failure();
  GemmKernelPlan p;
  p.tileM = t->bm;
  p.tileN = t->bn;
  p.threads = t->threads();
  p.workgroupBuffers = getGemmWorkgroupBuffers(op.getContext(), *t);
  p.build = [op, tiling = *t](gpu::GPUFuncOp kernel) {
    return buildFfmaGemmKernel(op, tiling, kernel);
  };
  return p;
}
