//===- SplitTf32.cpp - 3xtf32's splitter and promoted sums ----------------===//

#include "SplitTf32.h"

#include "WgmmaSteps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::tma;

/// tf32_2xbf16's cross-term operands of 8 consecutive k of one row
/// (`lowK`: k 0-3, `highK`: k 4-7, vector<4xf32> each): {the bf16 hi parts
/// (tf32(x) rounded to bf16), the bf16 lo parts (x - tf32(x))}, 16 bytes
/// each (vector<4xi32> of packed pairs, k in memory order). Four
/// instructions per element (and, sub, half of two packing cvts): the
/// splitter bounds the kernel: a clamp of Inf and NaN here (two more) ran
/// W2 in 1.42 ms against 1.19 (H200); the promotion discards the NaN cross
/// terms of an Inf operand instead (emitTmaSplitConsumer).
static std::pair<Value, Value> crossTermParts(OpBuilder &b, Location loc,
                                              Value lowK, Value highK) {
  auto i32 = b.getI32Type();
  auto i32x4 = VectorType::get({4}, i32);
  auto f32x4 = VectorType::get({4}, b.getF32Type());
  auto bf16x2 = VectorType::get({2}, b.getBF16Type());
  Value mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          i32x4, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFFE000))));
  SmallVector<Value> his, los; // 8 values each, k order
  for (Value x : {lowK, highK}) {
    Value hi = arith::BitcastOp::create(
        b, loc, f32x4,
        arith::AndIOp::create(b, loc, arith::BitcastOp::create(b, loc, i32x4, x),
                              mask));
    Value lo = arith::SubFOp::create(b, loc, x, hi);
    for (int64_t e = 0; e < 4; ++e) {
      Value idx = arith::ConstantIntOp::create(b, loc, b.getI64Type(), e);
      his.push_back(LLVM::ExtractElementOp::create(b, loc, hi, idx));
      los.push_back(LLVM::ExtractElementOp::create(b, loc, lo, idx));
    }
  }
  auto pack = [&](ArrayRef<Value> v) -> Value {
    Value out = LLVM::UndefOp::create(b, loc, i32x4);
    for (int64_t e = 0; e < 4; ++e) {
      // cvt.rn.bf16x2.f32: src_hi lands in the upper (later) half.
      Value pair = NVVM::ConvertF32x2ToBF16x2Op::create(
          b, loc, bf16x2, v[2 * e + 1], v[2 * e], Value(),
          NVVM::FPRoundingModeAttr::get(b.getContext(),
                                        NVVM::FPRoundingMode::RN));
      out = LLVM::InsertElementOp::create(
          b, loc, out, LLVM::BitcastOp::create(b, loc, i32, pair),
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), e));
    }
    return out;
  };
  return {pack(his), pack(los)};
}

/// The splitter's pass over an N-major B in stage `stage`: box j (32
/// columns n by BK = 32 rows k of 128 bytes, as TMA swizzled them) becomes
/// rows 32 j .. 32 j + 31 of the K-major B that wgmma reads, in place (the
/// same 4 KiB, in the same 128-byte swizzle: the 16-byte chunk c of row r
/// sits at chunk c ^ (r % 8)), and their lo parts (`loPart` of 4 values)
/// beside, copyBytes further. The splitter's warps take the boxes in turn,
/// the last (which splits no A chunks) first; lane l
/// moves column n = l. In 16 x 16 blocks (k block, n block), (a, b) lands
/// on the bytes of (b, a), so two phases of 16 values per lane do it: in
/// phase p, lane l takes k block (l / 16) ^ p, whose mirror block the same
/// phase reads. Each lane gathers its 16 k (4-byte loads; the warp reads
/// disjoint chunks of two rows with one swizzle: no bank conflict), the
/// warp syncs once every lane has read, then it stores four 16-byte chunks
/// of row l. The whole column (32 values) spilled the splitter's 56
/// registers.
static void transposeBoxes(OpBuilder &b, Location loc, const TmaBarriers &bars,
                           Value stage, Value sid,
                           llvm::function_ref<Value(Value)> loPart) {
  const StageGeometry &t = bars.t;
  constexpr int64_t boxCols = StageGeometry::kNMajorBoxCols;
  constexpr int64_t block = 16;
  int64_t boxBytes = boxCols * t.bk * t.elemBytes();
  auto f32 = b.getF32Type();
  auto f32x4 = VectorType::get({4}, f32);
  auto i64 = b.getI64Type();
  auto c = [&](int64_t v) { return constI64(b, loc, v); };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, c(y));
  };
  auto orI = [&](Value x, Value y) -> Value {
    return arith::OrIOp::create(b, loc, x, y);
  };
  auto xorC = [&](Value x, int64_t y) -> Value {
    return arith::XOrIOp::create(b, loc, x, c(y));
  };
  // A box is 4 KiB aligned in the stages, and every offset in it is a
  // lane's bits XOR a constant of the phase and step: so each address is
  // (box | lane bits) ^ constant, one instruction, and LLVM does not hoist
  // 4 x 8 lane offsets out of the loops into registers (ptxas spilled).
  Value lane = arith::RemUIOp::create(b, loc, sid, c(32));
  Value warp = arith::DivUIOp::create(b, loc, sid, c(32));
  Value nBlock = arith::DivUIOp::create(b, loc, lane, c(block));
  // Loads: row k = block * (nBlock ^ p) + i, chunk (n / 4) ^ (k % 8),
  // n % 4 within it.
  Value loadBits = orI(orI(mul(nBlock, block * 128),
                           mul(arith::ShRUIOp::create(b, loc, lane, c(2)), 16)),
                       mul(arith::AndIOp::create(b, loc, lane, c(3)), 4));
  // Stores: row n = l, chunk (k / 4) ^ (l % 8) with k / 4 = (block / 4) *
  // (nBlock ^ p) + q.
  Value storeBits =
      orI(mul(lane, 128),
          mul(arith::XOrIOp::create(b, loc, mul(nBlock, block / 4),
                                    arith::AndIOp::create(b, loc, lane, c(7))),
              16));
  Value bBase = add(mul(stage, t.stageBytes()), c(t.aStageBytes()));
  int64_t warps = t.splitterThreads() / 32;
  // The last warp has no A chunks to split: it takes the first box.
  Value firstBox = arith::SubIOp::create(b, loc, c(warps - 1), warp);
  auto boxes =
      scf::ForOp::create(b, loc, firstBox, c(t.bn / boxCols), c(warps));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(boxes.getBody());
  Value box = add(bBase, mul(boxes.getInductionVar(), boxBytes));
  Value loadBase = orI(box, loadBits), storeBase = orI(box, storeBits);
  for (int64_t phase = 0; phase < t.bk / block; ++phase) {
    SmallVector<Value> column;
    for (int64_t i = 0; i < block; ++i) {
      Value off = xorC(loadBase, phase * block * 128 | i * 128 | (i % 8) * 16);
      column.push_back(LLVM::LoadOp::create(
          b, loc, f32, sharedByte(b, loc, bars.stages, off), 4));
    }
    NVVM::SyncWarpOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
    auto loAt = [&](Value off) {
      return sharedByte(b, loc, bars.stages, add(off, c(t.copyBytes())));
    };
    SmallVector<Value> xs, offs;
    for (int64_t q = 0; q < block / 4; ++q) {
      Value x = LLVM::UndefOp::create(b, loc, f32x4);
      for (int64_t e = 0; e < 4; ++e)
        x = LLVM::InsertElementOp::create(
            b, loc, x, column[4 * q + e],
            arith::ConstantIntOp::create(b, loc, i64, e));
      Value off = xorC(storeBase, (phase * (block / 4) + q) * 16);
      LLVM::StoreOp::create(b, loc, x, sharedByte(b, loc, bars.stages, off),
                            16);
      if (!t.crossBf16())
        LLVM::StoreOp::create(b, loc, loPart(x), loAt(off), 16);
      xs.push_back(x);
      offs.push_back(off);
    }
    for (int64_t q = 0; t.crossBf16() && q < block / 4; ++q) {
      // B's cross-term row: per 8 k, the lo parts (against A's hi
      // parts), then the hi parts (against A's lo parts).
      if (q % 2)
        continue;
      auto [hi, lo] = crossTermParts(b, loc, xs[q], xs[q + 1]);
      LLVM::StoreOp::create(b, loc, lo, loAt(offs[q]), 16);
      LLVM::StoreOp::create(b, loc, hi, loAt(offs[q + 1]), 16);
    }
  }
}

void mlir::fuser::emitTmaSplitter(OpBuilder &b, Location loc,
                                  const TmaBarriers &bars, Value numK,
                                  Value sid, Value kBase, PrologueFn prologue) {
  const StageGeometry &t = bars.t;
  // Thread sid takes 16-byte chunks sid, sid + 64, ... of the stage (a
  // warp's loads and stores are contiguous), kUnroll loads in flight.
  constexpr int64_t kUnroll = 4;
  // An N-major B is split after its transposition (transposeBoxes).
  int64_t flatBytes = t.transposesB() ? t.aStageBytes() : t.copyBytes();
  int64_t perThread = flatBytes / 16 / StageGeometry::kSplitterThreads;
  auto f32x4 = VectorType::get({4}, b.getF32Type());
  auto i32x4 = VectorType::get({4}, b.getI32Type());
  // A's chunks come first in the stage; a thread's first aChunks are A's.
  int64_t aChunks = t.aStageBytes() / 16 / StageGeometry::kSplitterThreads;
  Value mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          i32x4, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFFE000))));
  Value halfUnit = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(i32x4, b.getI32IntegerAttr(0x1000)));
  auto loPart = [&](Value x) -> Value {
    Value bits = arith::BitcastOp::create(b, loc, i32x4, x);
    Value hi = arith::BitcastOp::create(
        b, loc, f32x4, arith::AndIOp::create(b, loc, bits, mask));
    Value lo = arith::SubFOp::create(b, loc, x, hi);
    // Half a tf32 unit on lo's magnitude: wgmma's truncation then
    // rounds lo to nearest (the low 13 bits it ignores carry the rest).
    return arith::BitcastOp::create(
        b, loc, f32x4,
        arith::AddIOp::create(
            b, loc, arith::BitcastOp::create(b, loc, i32x4, lo), halfUnit));
  };
  auto loop = scf::ForOp::create(b, loc, constI64(b, loc, 0), numK,
                                 constI64(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value it = arith::AddIOp::create(b, loc, kBase, loop.getInductionVar());
  Value stage = arith::RemUIOp::create(b, loc, it, constI64(b, loc, t.stages));
  // Stage s's lo parts were last read by round r - 1's wgmmas, which every
  // consumer completed before releasing s, which the producer waited for
  // before the copies this wait sees land.
  NVVM::MBarrierTryWaitParityOp::create(b, loc, bars.full(b, loc, stage),
                                        roundParity(b, loc, it, t.stages),
                                        constI32(b, loc, kWaitTicks));
  Value first = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, stage, constI64(b, loc, t.stageBytes())),
      arith::MulIOp::create(b, loc, sid, constI64(b, loc, 16)));
  Value flatEnd = constI64(b, loc, perThread);
  if (t.splitterThreads() >
      StageGeometry::kSplitterThreads) // warp 3: boxes only
    flatEnd = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, sid,
            constI64(b, loc, StageGeometry::kSplitterThreads)),
        flatEnd, constI64(b, loc, 0));
  // Chunks [begin, end) of the thread's, kUnroll loads in flight; with
  // `applyPrologue`, A's chunks become the prologue's results first.
  auto splitChunks = [&](Value begin, Value end, bool applyPrologue) {
    auto chunks =
        scf::ForOp::create(b, loc, begin, end, constI64(b, loc, kUnroll));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(chunks.getBody());
    Value j0 = chunks.getInductionVar();
    SmallVector<Value> xs, ps, offs;
    auto lo = [&](Value off) {
      return sharedByte(
          b, loc, bars.stages,
          arith::AddIOp::create(b, loc, off, constI64(b, loc, t.copyBytes())));
    };
    for (int64_t u = 0; u < kUnroll; ++u) {
      Value j = arith::AddIOp::create(b, loc, j0, constI64(b, loc, u));
      offs.push_back(arith::AddIOp::create(
          b, loc, first,
          arith::MulIOp::create(
              b, loc, j,
              constI64(b, loc, StageGeometry::kSplitterThreads * 16))));
      xs.push_back(LLVM::LoadOp::create(
          b, loc, f32x4, sharedByte(b, loc, bars.stages, offs.back()), 16));
      if (applyPrologue)
        ps.push_back(t.prologueInput ? Value(LLVM::LoadOp::create(
                                           b, loc, f32x4, lo(offs.back()), 16))
                                     : Value());
    }
    for (int64_t u = 0; u < kUnroll; ++u) {
      if (applyPrologue) {
        xs[u] = prologue(b, loc, xs[u], ps[u]);
        LLVM::StoreOp::create(b, loc, xs[u],
                              sharedByte(b, loc, bars.stages, offs[u]), 16);
      }
      LLVM::StoreOp::create(b, loc, loPart(xs[u]), lo(offs[u]), 16);
    }
  };
  // tf32_2xbf16: thread sid takes the 32-byte pairs of chunks sid, sid +
  // 64, ... of the stage, 8 consecutive k of a row (chunks 2i and 2i + 1 of
  // its 128 bytes, which the swizzle XORs with the row's index mod 8: the
  // pair stays a pair, in odd rows flipped). It loads k 0-3 first: in odd
  // rows the second chunk, so a quarter warp's loads and stores hit eight
  // distinct 16-byte bank groups. Per 8 k, A's cross-term row holds the hi
  // parts, then the lo parts; B's the lo parts, then the hi parts.
  // The offsets of a pair's chunks from the pair's 32-byte offset `base`
  // (1024-aligned stage): {k 0-3's, k 4-7's}; odd rows (bit 7) flipped.
  auto pairOffsets = [&](Value base) -> std::pair<Value, Value> {
    Value flip = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, base, constI64(b, loc, 3)),
        constI64(b, loc, 16));
    Value lowOff = arith::AddIOp::create(b, loc, base, flip);
    return {lowOff,
            arith::XOrIOp::create(b, loc, lowOff, constI64(b, loc, 16))};
  };
  auto loadAt = [&](Value off) -> Value {
    return LLVM::LoadOp::create(b, loc, f32x4,
                                sharedByte(b, loc, bars.stages, off), 16);
  };
  auto loAt = [&](Value off) {
    return sharedByte(
        b, loc, bars.stages,
        arith::AddIOp::create(b, loc, off, constI64(b, loc, t.copyBytes())));
  };
  auto splitPairs = [&](int64_t begin, int64_t end, bool isB,
                        bool applyPrologue) {
    constexpr int64_t pairsInFlight = kUnroll / 2;
    Value firstPair = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, stage, constI64(b, loc, t.stageBytes())),
        arith::MulIOp::create(b, loc, sid, constI64(b, loc, 32)));
    auto pairs = scf::ForOp::create(b, loc, constI64(b, loc, begin),
                                    constI64(b, loc, end),
                                    constI64(b, loc, pairsInFlight));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(pairs.getBody());
    auto at = [&](Value off) { return sharedByte(b, loc, bars.stages, off); };
    auto lo = [&](Value off) {
      return at(arith::AddIOp::create(b, loc, off,
                                      constI64(b, loc, t.copyBytes())));
    };
    SmallVector<Value> lowOffs, highOffs, lows, highs, pLows, pHighs;
    for (int64_t u = 0; u < pairsInFlight; ++u) {
      Value j = arith::AddIOp::create(b, loc, pairs.getInductionVar(),
                                      constI64(b, loc, u));
      Value base = arith::AddIOp::create(
          b, loc, firstPair,
          arith::MulIOp::create(
              b, loc, j,
              constI64(b, loc, StageGeometry::kSplitterThreads * 32)));
      auto [lowOff, highOff] = pairOffsets(base);
      lowOffs.push_back(lowOff);
      highOffs.push_back(highOff);
      lows.push_back(loadAt(lowOff));
      highs.push_back(loadAt(highOff));
      if (applyPrologue && t.prologueInput) {
        pLows.push_back(LLVM::LoadOp::create(b, loc, f32x4, lo(lowOffs.back()), 16));
        pHighs.push_back(
            LLVM::LoadOp::create(b, loc, f32x4, lo(highOffs.back()), 16));
      } else {
        pLows.push_back(Value());
        pHighs.push_back(Value());
      }
    }
    for (int64_t u = 0; u < pairsInFlight; ++u) {
      if (applyPrologue) {
        lows[u] = prologue(b, loc, lows[u], pLows[u]);
        highs[u] = prologue(b, loc, highs[u], pHighs[u]);
        LLVM::StoreOp::create(b, loc, lows[u], at(lowOffs[u]), 16);
        LLVM::StoreOp::create(b, loc, highs[u], at(highOffs[u]), 16);
      }
      auto [hi, lowParts] = crossTermParts(b, loc, lows[u], highs[u]);
      LLVM::StoreOp::create(b, loc, isB ? lowParts : hi, lo(lowOffs[u]), 16);
      LLVM::StoreOp::create(b, loc, isB ? hi : lowParts, lo(highOffs[u]), 16);
    }
  };
  if (t.threeWarpFlatSplit()) {
    // Pairs sid, sid + 96, ... (A's or B's by their index), two in flight:
    // iv and iv + 96, the second clamped to the last pair (which its owner
    // also writes, the same bytes).
    int64_t threads = t.splitterThreads();
    int64_t units = flatBytes / 32, aUnits = t.aStageBytes() / 32;
    Value stageBase =
        arith::MulIOp::create(b, loc, stage, constI64(b, loc, t.stageBytes()));
    auto each = scf::ForOp::create(b, loc, sid, constI64(b, loc, units),
                                   constI64(b, loc, 2 * threads));
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(each.getBody());
    Value iv = each.getInductionVar();
    SmallVector<Value> ivs = {
        iv, arith::MinUIOp::create(
                b, loc, arith::AddIOp::create(b, loc, iv, constI64(b, loc, threads)),
                constI64(b, loc, units - 1))};
    SmallVector<std::pair<Value, Value>> offs, xs;
    for (Value p : ivs) {
      offs.push_back(pairOffsets(arith::AddIOp::create(
          b, loc, stageBase,
          arith::MulIOp::create(b, loc, p, constI64(b, loc, 32)))));
      xs.push_back({loadAt(offs.back().first), loadAt(offs.back().second)});
    }
    for (int64_t u = 0; u < 2; ++u) {
      auto [hi, lowParts] = crossTermParts(b, loc, xs[u].first, xs[u].second);
      // A's pairs: hi parts first; B's: lo parts first.
      Value isB = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        ivs[u], constI64(b, loc, aUnits));
      auto [lowOff, highOff] = offs[u];
      LLVM::StoreOp::create(
          b, loc, hi,
          loAt(arith::SelectOp::create(b, loc, isB, highOff, lowOff)), 16);
      LLVM::StoreOp::create(
          b, loc, lowParts,
          loAt(arith::SelectOp::create(b, loc, isB, lowOff, highOff)), 16);
    }
  } else if (t.crossBf16()) {
    // Warp 3 (transposesB) skips A's pairs: it starts at the pairs' end.
    int64_t aPairs = aChunks / 2, flatPairs = perThread / 2;
    auto ifFlat = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, sid,
            constI64(b, loc, StageGeometry::kSplitterThreads)),
        /*withElse=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifFlat.thenBlock());
    splitPairs(0, std::min(aPairs, flatPairs), /*isB=*/false, t.prologue);
    if (flatPairs > aPairs)
      splitPairs(aPairs, flatPairs, /*isB=*/true, /*applyPrologue=*/false);
  } else if (t.prologue) {
    Value aEnd =
        arith::MinUIOp::create(b, loc, flatEnd, constI64(b, loc, aChunks));
    splitChunks(constI64(b, loc, 0), aEnd, /*applyPrologue=*/true);
    splitChunks(aEnd, flatEnd, /*applyPrologue=*/false);
  } else {
    splitChunks(constI64(b, loc, 0), flatEnd, /*applyPrologue=*/false);
  }
  if (t.transposesB())
    transposeBoxes(b, loc, bars, stage, sid, loPart);
  // The lo parts, written through the generic proxy, for wgmma's async
  // proxy; the arrival releases them to the consumers.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  NVVM::MBarrierArriveOp::create(
      b, loc, Type(), bars.split(b, loc, stage), Value(),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CTA));
}

Value mlir::fuser::emitTmaSplitConsumer(OpBuilder &b, Location loc,
                                        const TmaBarriers &bars, Value numK,
                                        Value tid, int64_t numAcc,
                                        Value kBase) {
  const StageGeometry &t = bars.t;
  auto structTy = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(numAcc, b.getF32Type()));
  Value zero = LLVM::ZeroOp::create(b, loc, structTy);
  // What a restarting wgmma reads instead of zeros (it ignores them).
  Value unread = LLVM::UndefOp::create(b, loc, structTy);
  ConsumerThread c = consumerThread(b, loc, bars, tid);
  Value leader = c.leader;
  // One k tile; a chunk's first restarts the large tensor-core sums and
  // starts the small ones from the last promotion's rounding error. The
  // previous tile's stage is released once one commit group is left in
  // flight, but a chunk's first tile has none (the promotion released it).
  auto kTile = [&](Value kt, Value &small, Value &large, bool first) {
    Value it = arith::AddIOp::create(b, loc, kBase, kt);
    auto [aAddr, bAddr] =
        waitForStage(b, loc, bars, c, it, &TmaBarriers::split);
    auto lo = [&](Value addr) {
      return arith::AddIOp::create(b, loc, addr,
                                   constI64(b, loc, t.copyBytes()));
    };
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    if (t.crossBf16()) {
      small = emitWgmmaSteps(b, loc, t, small, lo(aAddr), lo(bAddr),
                             /*restart=*/false, /*bf16Pairs=*/true);
    } else {
      small = emitWgmmaSteps(b, loc, t, small, aAddr, lo(bAddr));
      small = emitWgmmaSteps(b, loc, t, small, lo(aAddr), bAddr);
    }
    large =
        emitWgmmaSteps(b, loc, t, first ? unread : large, aAddr, bAddr, first);
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    if (!first)
      releaseStage(b, loc, bars, leader, it, 1);
  };
  // K tiles per chunk: the promotion interval, or all of them.
  Value chunk = t.promoteTiles()
                    ? constI64(b, loc, t.promoteTiles())
                    : arith::MaxUIOp::create(b, loc, numK, constI64(b, loc, 1))
                          .getResult();
  // Carried: the fp32 sums and the rounding error of their last update.
  auto chunks = scf::ForOp::create(b, loc, constI64(b, loc, 0), numK, chunk,
                                   ValueRange{zero, zero});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value c0 = chunks.getInductionVar();
  Value small = chunks.getRegionIterArgs()[1], large;
  kTile(c0, small, large, /*first=*/true);
  Value cEnd = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, c0, chunk), numK);
  auto rest = scf::ForOp::create(
      b, loc, arith::AddIOp::create(b, loc, c0, constI64(b, loc, 1)), cEnd,
      constI64(b, loc, 1), ValueRange{small, large});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(rest.getBody());
    Value s = rest.getRegionIterArgs()[0], l = rest.getRegionIterArgs()[1];
    kTile(rest.getInductionVar(), s, l, /*first=*/false);
    scf::YieldOp::create(b, loc, ValueRange{s, l});
  }
  // Promotion: the chunk's tensor-core sums into the fp32 registers. Both
  // warpgroups promote at the same k tiles: the second's intervals shifted
  // by half ran W2 1.22x and square 4096 1.18x slower (H200, 2026-11-29,
  // bench/results/H200-2026-11-29-staggered-promotion.md).
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  releaseStage(b, loc, bars, leader, arith::AddIOp::create(b, loc, kBase, cEnd),
               1);
  // Each add of a chunk into the sums rounds; what it loses (Fast2Sum:
  // part - (new - old), exact while the sums outgrow a chunk) starts the
  // next chunk's small sums, so no promotion's rounding is lost. Against
  // plain adds: 0.4-0.8x the max error at K = 1000-8192, 7-10% slower on
  // W2/W3, since the adds sit between the two warpgroups' drained wgmmas
  // (bench/results/H100-2026-11-24-split-tf32-promotion.md).
  // A non-finite small sum is dropped: an Inf operand's lo part is
  // inf - inf, Inf times a zero lo part is NaN, and a bf16 hi part may
  // round up to Inf, where the hi product alone gives the fp32 product's
  // +-Inf (or NaN, as PyTorch does, for Inf times 0 or a NaN operand: the
  // large sum is then NaN itself); and a promotion that overflows carries
  // -Inf as its lost part. (A NaN whose payload lies in the low 13 bits
  // reads as Inf in tf32; PyTorch's NaNs set bit 22.)
  //
  // The test is |small| < Inf: two instructions (the magnitude is the
  // comparison's operand modifier), where `small - small == 0` took three on
  // the path between the warpgroups' drained wgmmas. A clamp to +-FLT_MAX
  // was not exact: after an overflow, a later chunk summing past 2^103
  // against the overflow's sign made the output NaN.
  Value sums = chunks.getRegionIterArgs()[0];
  Value error = zero;
  Value fzero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value inf = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(std::numeric_limits<float>::infinity()));
  for (int64_t e = 0; e < numAcc; ++e) {
    Value small = LLVM::ExtractValueOp::create(b, loc, rest.getResult(0), e);
    small = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                              math::AbsFOp::create(b, loc, small), inf),
        small, fzero);
    Value part = arith::AddFOp::create(
        b, loc, LLVM::ExtractValueOp::create(b, loc, rest.getResult(1), e),
        small);
    Value old = LLVM::ExtractValueOp::create(b, loc, sums, e);
    Value s = arith::AddFOp::create(b, loc, old, part);
    Value lost = arith::SubFOp::create(b, loc, part,
                                       arith::SubFOp::create(b, loc, s, old));
    sums = LLVM::InsertValueOp::create(b, loc, sums, s, e);
    error = LLVM::InsertValueOp::create(b, loc, error, lost, e);
  }
  scf::YieldOp::create(b, loc, ValueRange{sums, error});
  b.setInsertionPointAfter(chunks);
  return chunks.getResult(0);
}
