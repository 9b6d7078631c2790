//===- ScanToGPU.cpp - configured fuser.scan ops to GPU kernels ----------===//
//
// Lowers each configured fuser.scan to one gpu.func and, in its place,
// tensor-level host code with the conventions of fuser-pointwise-to-gpu:
// !llvm.ptr<1> arguments, i64 sizes, the outputs allocated by the host code.
// The input is viewed as [O, L, I] (dimensions before the scanned one, its
// extent, dimensions after it); element (o, l, i) is at (o * L + l) * I + i
// and the accumulator's (o, i) at o * I + i.
//
// Kernel signature: (input, accumulator_init?, output, accumulator?, O, L,
// I: i64). A pointwise producer of the input that only the scan reads, over
// the input's shape through identity maps (a masked cumsum's x * mask),
// runs where the input is loaded: its inputs' pointers replace the input's. The
// accumulator_init pointer is there when the kernel reads it (an exclusive
// scan's start, or the accumulator of an empty dimension) and no constant fill
// made it; the accumulator when something reads it.
//
// scan_rows, tile = [T, R, V], block = T * R (I is 1), the V elements
// moved in accesses of A = vector_width (vectors when A > 1):
//   row = block * R + tid / T, t = tid % T, carry = (exclusive ? init : none)
//   for c = 0; c < L; c += T * V:      (chunk c + T * V loaded first)
//     s[k] = x[c + t*V + 0] (+) ... (+) x[c + t*V + k]       (k < V)
//     the row's T totals s[V-1] scanned in order: shuffles up within each
//     warp (within segments of T lanes when T < 32), then (T > 32) warp 0
//     scans the warps' totals in shared memory
//     prefix = carry (+) earlier warps (+) earlier lanes  (each if any)
//     out[c + t*V + k] = prefix (+) s[k]     (exclusive: prefix (+) s[k-1])
//     carry = carry (+) the chunk's total
// scan_serial, block = [B], tile = [U]: thread g = block * B + tid walks
// line (o, i) = (g / I, g % I) in order, U elements loaded ahead.
// `(+)` is the body, applied as f(earlier, later): never swapped. A reversed
// scan's i-th element in fold order is the line's (L - 1 - i)-th.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

#include "fuser/Conversion/Common/KernelUtils.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/Transforms/ScanPrologue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTSCANTOGPUPASS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// A value that may be absent: `has` says whether `value` holds one.
struct Maybe {
  Value value;
  Value has; // i1
};

/// Emits one scan kernel's body.
class ScanKernelEmitter {
public:
  ScanKernelEmitter(ScanOp op, KernelConfigAttr config, TypedAttr initConstant,
                    bool readsInit, bool writesAccumulator,
                    PointwiseOp prologue, ArrayRef<unsigned> prologueInputs)
      : op(op), config(config), initConstant(initConstant),
        readsInit(readsInit), writesAccumulator(writesAccumulator),
        prologue(prologue), prologueInputs(prologueInputs), loc(op.getLoc()),
        element(op.getInputType().getElementType()) {}

  void emit(gpu::GPUFuncOp kernel) {
    Block &entry = kernel.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    unsigned argNo = 0;
    if (prologue)
      for (size_t k = 0; k < prologueInputs.size(); ++k)
        prologuePtrs.push_back(entry.getArgument(argNo++));
    else
      inPtr = entry.getArgument(argNo++);
    if (readsInit && !initConstant)
      initPtr = entry.getArgument(argNo++);
    outPtr = entry.getArgument(argNo++);
    if (writesAccumulator)
      accPtr = entry.getArgument(argNo++);
    outer = entry.getArgument(argNo++);
    length = entry.getArgument(argNo++);
    inner = entry.getArgument(argNo++);
    zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    if (config.getStrategy() == "scan_rows")
      emitRows(b, kernel);
    else
      emitSerial(b);
    gpu::ReturnOp::create(b, loc);
  }

private:
  Value i64(OpBuilder &b, int64_t v) { return constI64(b, loc, v); }
  Value toI64(OpBuilder &b, Value idx) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), idx);
  }
  Value cmp(OpBuilder &b, arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(OpBuilder &b, Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value mul(OpBuilder &b, Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y);
  }
  Value add(OpBuilder &b, Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y);
  }
  unsigned bytes() const { return storageBytes(element); }
  /// Where the fold's `i`-th element of a line lies along it: from the end
  /// when the scan is reversed.
  Value along(OpBuilder &b, Value i) {
    if (!op.getReverse())
      return i;
    return arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, length, i64(b, 1)), i);
  }

  /// f(earlier, later): the body.
  Value combine(OpBuilder &b, Value earlier, Value later) {
    return *applyBodyWidened(b, op.getBodyBlock(), earlier, {later}, 1);
  }
  /// earlier (+) later where both are there, else whichever is.
  Maybe combine(OpBuilder &b, Maybe earlier, Maybe later) {
    Value both = combine(b, earlier.value, later.value);
    Value value = select(
        b, earlier.has, select(b, later.has, both, earlier.value), later.value);
    return {value, arith::OrIOp::create(b, loc, earlier.has, later.has)};
  }

  Value load(OpBuilder &b, Value ptr, Value at) {
    return LLVM::LoadOp::create(b, loc, element,
                                gepElement(b, loc, ptr, element, at), bytes());
  }
  /// ptr[at] where `valid`, else zero (nothing read).
  Value loadIf(OpBuilder &b, Value valid, Value ptr, Value at) {
    auto ifOp = scf::IfOp::create(b, loc, element, valid, /*withElse=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    scf::YieldOp::create(tb, loc, load(tb, ptr, at));
    OpBuilder eb = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, zero);
    return ifOp.getResult(0);
  }
  void storeIf(OpBuilder &b, Value valid, Value v, Value ptr, Value at) {
    auto ifOp = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    LLVM::StoreOp::create(tb, loc, v, gepElement(tb, loc, ptr, element, at),
                          bytes());
  }
  /// The scanned input's `width` consecutive elements from `at` where
  /// `valid`, else zeros: loaded (one vector access when `width` > 1), or
  /// computed by the prologue from its inputs' elements there.
  SmallVector<Value> loadInputs(OpBuilder &b, Value valid, Value at,
                                int64_t width) {
    auto ifOp = scf::IfOp::create(b, loc, SmallVector<Type>(width, element),
                                  valid, /*withElse=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    auto loadAt = [&](Value ptr, Type t) -> Value {
      return loadElements(tb, loc, t, width > 1 ? width : 0,
                          gepElement(tb, loc, ptr, storageType(t), at),
                          storageBytes(t) * width);
    };
    Value loaded;
    if (!prologue) {
      loaded = loadAt(inPtr, element);
    } else {
      Block &body = prologue.getBodyBlock();
      IRMapping mapping;
      for (auto [k, i] : llvm::enumerate(prologueInputs))
        mapping.map(body.getArgument(i),
                    loadAt(prologuePtrs[k], body.getArgument(i).getType()));
      loaded = (*emitBodyWidened(tb, body, mapping, width))[0];
    }
    SmallVector<Value> values;
    for (int64_t j = 0; j < width; ++j)
      values.push_back(width > 1 ? Value(vector::ExtractOp::create(
                                       tb, loc, loaded, j))
                                 : loaded);
    scf::YieldOp::create(tb, loc, values);
    OpBuilder eb = ifOp.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, SmallVector<Value>(width, zero));
    return SmallVector<Value>(ifOp.getResults());
  }
  Value loadInput(OpBuilder &b, Value valid, Value at) {
    return loadInputs(b, valid, at, 1)[0];
  }
  /// Stores `values` consecutively from `at` (one vector access when there
  /// are several) where `valid`.
  void storeAll(OpBuilder &b, Value valid, ArrayRef<Value> values, Value ptr,
                Value at) {
    auto ifOp = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value v = values.size() > 1
                  ? Value(vector::FromElementsOp::create(
                        tb, loc,
                        VectorType::get({int64_t(values.size())}, element),
                        values))
                  : values[0];
    LLVM::StoreOp::create(tb, loc, v, gepElement(tb, loc, ptr, element, at),
                          bytes() * values.size());
  }

  /// The accumulator's start for line `line` (read only where `valid`).
  Value initValue(OpBuilder &b, Value valid, Value line) {
    if (initConstant)
      return arith::ConstantOp::create(b, loc, initConstant);
    return loadIf(b, valid, initPtr, line);
  }

  /// In-order inclusive scan of `v` over the lanes of each segment of
  /// `width` lanes (a warp, or a row's threads when fewer), `lane` the
  /// lane's index in its segment. Whole-warp shuffles (gpu.shuffle's width
  /// is the lanes taking part, not segments): a lane reads its segment's
  /// lanes only.
  Value warpScan(OpBuilder &b, Value v, Value lane, int64_t width) {
    for (int64_t off = 1; off < width; off *= 2) {
      Value from = shuffle(b, loc, v, off, gpu::ShuffleMode::UP);
      v = select(b, cmp(b, arith::CmpIPredicate::uge, lane, i64(b, off)),
                 combine(b, from, v), v);
    }
    return v;
  }

  void emitRows(OpBuilder &b, gpu::GPUFuncOp kernel) {
    int64_t threads = config.getTile()[0], rows = config.getTile()[1];
    int64_t vec = config.getTile()[2], access = config.getVectorWidth();
    int64_t warps = threads / 32;
    // A row of fewer than 32 threads scans within its segment of the warp.
    int64_t segment = std::min<int64_t>(threads, 32);
    bool inclusive = op.getInclusive();
    Value tid = toI64(b, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value bid = toI64(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value rowInBlock = arith::DivUIOp::create(b, loc, tid, i64(b, threads));
    Value t = arith::RemUIOp::create(b, loc, tid, i64(b, threads));
    Value lane = arith::RemUIOp::create(b, loc, tid, i64(b, segment));
    Value warp = arith::DivUIOp::create(b, loc, t, i64(b, 32));
    Value row = add(b, mul(b, bid, i64(b, rows)), rowInBlock);
    Value active = cmp(b, arith::CmpIPredicate::ult, row, outer);
    Value rowBase = mul(b, row, length);
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value no = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    Maybe carry{zero, no};
    if (!inclusive)
      carry = {initValue(b, active, row), yes};
    Value chunk = i64(b, threads * vec);
    // Groups of `access` elements, each one access (all or none valid:
    // `access` divides the line's length); a reversed line's group is read
    // from its far end, its elements in reverse.
    struct Group {
      Value first, valid, at;
    };
    auto groupsOf = [&](OpBuilder &gb, Value c) {
      Value start = add(gb, c, mul(gb, t, i64(gb, vec)));
      SmallVector<Group> groups;
      for (int64_t g = 0; g < vec / access; ++g) {
        Value first = add(gb, start, i64(gb, g * access));
        Value ok = arith::AndIOp::create(
            gb, loc, active, cmp(gb, arith::CmpIPredicate::ult, first, length));
        Value at = add(gb, rowBase,
                       along(gb, op.getReverse()
                                     ? add(gb, first, i64(gb, access - 1))
                                     : first));
        groups.push_back({first, ok, at});
      }
      return groups;
    };
    auto loadChunk = [&](OpBuilder &gb, Value c) {
      SmallVector<Value> xs;
      for (Group g : groupsOf(gb, c)) {
        SmallVector<Value> values = loadInputs(gb, g.valid, g.at, access);
        if (op.getReverse())
          std::reverse(values.begin(), values.end());
        llvm::append_range(xs, values);
      }
      return xs;
    };
    // Each chunk's loads are issued before the previous chunk's threads
    // combine (its barriers and shuffles): they are in flight meanwhile.
    SmallVector<Value> inits{carry.value, carry.has};
    llvm::append_range(inits, loadChunk(b, i64(b, 0)));
    // Every row of the block runs every chunk: the barriers are uniform.
    auto loop = scf::ForOp::create(b, loc, i64(b, 0), length, chunk, inits);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value c = loop.getInductionVar();
      Maybe running{loop.getRegionIterArg(0), loop.getRegionIterArg(1)};
      SmallVector<Value> xs(loop.getRegionIterArgs().drop_front(2));
      SmallVector<Value> next = loadChunk(lb, add(lb, c, chunk));
      SmallVector<Value> idx, valid, s, groupAt, groupValid;
      for (auto [g, group] : llvm::enumerate(groupsOf(lb, c))) {
        groupAt.push_back(group.at);
        groupValid.push_back(group.valid);
        for (int64_t j = 0; j < access; ++j) {
          Value x = xs[g * access + j];
          idx.push_back(add(lb, group.first, i64(lb, j)));
          valid.push_back(group.valid);
          s.push_back(s.empty() ? x : combine(lb, s.back(), x));
        }
      }
      Value scanned = warpScan(lb, s.back(), lane, segment);
      Maybe earlierLanes{shuffle(lb, loc, scanned, 1, gpu::ShuffleMode::UP),
                         cmp(lb, arith::CmpIPredicate::ugt, lane, i64(lb, 0))};
      Maybe prefix = running;
      Value chunkTotal;
      if (warps <= 1) {
        // The segment's last lane: its first's (the warp lane minus the
        // segment lane) plus segment - 1.
        Value warpLane = arith::RemUIOp::create(lb, loc, tid, i64(lb, 32));
        Value source = add(lb, arith::SubIOp::create(lb, loc, warpLane, lane),
                           i64(lb, segment - 1));
        chunkTotal = shuffle(
            lb, loc, scanned,
            arith::TruncIOp::create(lb, loc, lb.getI32Type(), source),
            gpu::ShuffleMode::IDX);
      } else {
        // Warp totals, then their in-order scan by warp 0, in shared memory.
        ArrayRef<BlockArgument> smem = kernel.getWorkgroupAttributions();
        auto index = [&](OpBuilder &ib, Value v) -> Value {
          return arith::IndexCastUIOp::create(ib, loc, ib.getIndexType(), v);
        };
        Value rowSlots = mul(lb, rowInBlock, i64(lb, warps));
        Value isLast = cmp(lb, arith::CmpIPredicate::eq, lane, i64(lb, 31));
        {
          auto ifOp = scf::IfOp::create(lb, loc, isLast, /*withElse=*/false);
          OpBuilder tb = ifOp.getThenBodyBuilder();
          memref::StoreOp::create(tb, loc, scanned, smem[0],
                                  index(tb, add(tb, rowSlots, warp)));
        }
        gpu::BarrierOp::create(lb, loc);
        {
          Value first = cmp(lb, arith::CmpIPredicate::eq, warp, i64(lb, 0));
          auto ifOp = scf::IfOp::create(lb, loc, first, /*withElse=*/false);
          OpBuilder tb = ifOp.getThenBodyBuilder();
          Value has = cmp(tb, arith::CmpIPredicate::ult, lane, i64(tb, warps));
          Value slot = index(tb, add(tb, rowSlots, lane));
          auto read = scf::IfOp::create(tb, loc, element, has, true);
          OpBuilder rb = read.getThenBodyBuilder();
          scf::YieldOp::create(
              rb, loc,
              memref::LoadOp::create(rb, loc, smem[0], slot).getResult());
          OpBuilder eb = read.getElseBodyBuilder();
          scf::YieldOp::create(eb, loc, zero);
          Value warpsScanned = warpScan(tb, read.getResult(0), lane, 32);
          auto write = scf::IfOp::create(tb, loc, has, false);
          OpBuilder wb = write.getThenBodyBuilder();
          memref::StoreOp::create(wb, loc, warpsScanned, smem[1], slot);
        }
        gpu::BarrierOp::create(lb, loc);
        Value hasEarlierWarps =
            cmp(lb, arith::CmpIPredicate::ugt, warp, i64(lb, 0));
        Value earlierSlot = select(
            lb, hasEarlierWarps,
            add(lb, rowSlots, arith::SubIOp::create(lb, loc, warp, i64(lb, 1))),
            rowSlots);
        Maybe earlierWarps{
            memref::LoadOp::create(lb, loc, smem[1], index(lb, earlierSlot)),
            hasEarlierWarps};
        chunkTotal = memref::LoadOp::create(
            lb, loc, smem[1], index(lb, add(lb, rowSlots, i64(lb, warps - 1))));
        prefix = combine(lb, prefix, earlierWarps);
      }
      prefix = combine(lb, prefix, earlierLanes);
      SmallVector<Value> outs;
      for (int64_t k = 0; k < vec; ++k) {
        Value out;
        if (inclusive)
          out = combine(lb, prefix, Maybe{s[k], yes}).value;
        else
          out = k ? combine(lb, prefix.value, s[k - 1]) : prefix.value;
        outs.push_back(out);
        if (k % access == access - 1) {
          SmallVector<Value> group(outs.end() - access, outs.end());
          if (op.getReverse())
            std::reverse(group.begin(), group.end());
          storeAll(lb, groupValid[k / access], group, outPtr,
                   groupAt[k / access]);
        }
        if (writesAccumulator) {
          Value last = cmp(lb, arith::CmpIPredicate::eq, idx[k],
                           arith::SubIOp::create(lb, loc, length, i64(lb, 1)));
          storeIf(lb, arith::AndIOp::create(lb, loc, valid[k], last), out,
                  accPtr, row);
        }
      }
      Maybe carried = combine(lb, running, Maybe{chunkTotal, yes});
      SmallVector<Value> yielded{carried.value, carried.has};
      llvm::append_range(yielded, next);
      scf::YieldOp::create(lb, loc, yielded);
    }
    if (writesAccumulator) // An empty row's accumulator is its init.
      storeEmptyAccumulator(b, active, row,
                            cmp(b, arith::CmpIPredicate::eq, t, i64(b, 0)));
  }

  void storeEmptyAccumulator(OpBuilder &b, Value active, Value line,
                             Value writer) {
    Value empty = cmp(b, arith::CmpIPredicate::eq, length, i64(b, 0));
    Value valid = arith::AndIOp::create(
        b, loc, arith::AndIOp::create(b, loc, active, empty), writer);
    storeIf(b, valid, initValue(b, valid, line), accPtr, line);
  }

  void emitSerial(OpBuilder &b) {
    int64_t kAhead = config.getTile()[0];
    bool inclusive = op.getInclusive();
    int64_t block = config.getBlock()[0];
    Value tid = toI64(b, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value bid = toI64(b, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    Value line = add(b, mul(b, bid, i64(b, block)), tid);
    Value active =
        cmp(b, arith::CmpIPredicate::ult, line, mul(b, outer, inner));
    auto ifActive = scf::IfOp::create(b, loc, active, /*withElse=*/false);
    OpBuilder ab = ifActive.getThenBodyBuilder();
    Value o = arith::DivUIOp::create(ab, loc, line, inner);
    Value i = arith::RemUIOp::create(ab, loc, line, inner);
    Value base = add(ab, mul(ab, mul(ab, o, length), inner), i);
    Value yes = arith::ConstantIntOp::create(ab, loc, ab.getI1Type(), 1);
    Value no = arith::ConstantIntOp::create(ab, loc, ab.getI1Type(), 0);
    Maybe carry{zero, no};
    if (!inclusive)
      carry = {initValue(ab, yes, line), yes};
    auto loop = scf::ForOp::create(ab, loc, i64(ab, 0), length, i64(ab, kAhead),
                                   ValueRange{carry.value, carry.has, zero});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value l0 = loop.getInductionVar();
      Maybe running{loop.getRegionIterArg(0), loop.getRegionIterArg(1)};
      Value last = loop.getRegionIterArg(2);
      SmallVector<Value> valid, at, x;
      for (int64_t u = 0; u < kAhead; ++u) {
        Value l = add(lb, l0, i64(lb, u));
        valid.push_back(cmp(lb, arith::CmpIPredicate::ult, l, length));
        at.push_back(add(lb, base, mul(lb, along(lb, l), inner)));
        x.push_back(loadInput(lb, valid.back(), at.back()));
      }
      for (int64_t u = 0; u < kAhead; ++u) {
        Value out;
        Maybe next;
        if (inclusive) {
          next = combine(lb, running, Maybe{x[u], yes});
          out = next.value;
        } else {
          out = running.value;
          next = {combine(lb, running.value, x[u]), yes};
        }
        storeIf(lb, valid[u], out, outPtr, at[u]);
        running = {select(lb, valid[u], next.value, running.value),
                   select(lb, valid[u], next.has, running.has)};
        last = select(lb, valid[u], out, last);
      }
      scf::YieldOp::create(lb, loc,
                           ValueRange{running.value, running.has, last});
    }
    if (writesAccumulator) {
      Value empty = cmp(ab, arith::CmpIPredicate::eq, length, i64(ab, 0));
      Value value =
          select(ab, empty, initValue(ab, empty, line), loop.getResult(2));
      storeIf(ab, yes, value, accPtr, line);
    }
  }

  ScanOp op;
  KernelConfigAttr config;
  TypedAttr initConstant;
  bool readsInit, writesAccumulator;
  PointwiseOp prologue;
  ArrayRef<unsigned> prologueInputs;
  Location loc;
  Type element;
  Value inPtr, initPtr, outPtr, accPtr, outer, length, inner, zero;
  SmallVector<Value> prologuePtrs;
};

class ConvertScanToGPUPass
    : public fuser::impl::ConvertScanToGPUPassBase<ConvertScanToGPUPass> {
public:
  void runOnOperation() override {
    if (failed(lowerEachGroup<ScanOp>(
            getOperation(), [&](ScanOp op, SymbolTable &kernelSymbols) {
              return lower(op, kernelSymbols);
            })))
      signalPassFailure();
  }

private:
  LogicalResult lower(ScanOp op, SymbolTable &kernelSymbols) {
    KernelConfigAttr config = op.getConfigAttr();
    if (!config)
      return op.emitOpError() << "has no #fuser.config; run "
                                 "fuser-configure-kernels first";
    StringRef strategy = config.getStrategy();
    RankedTensorType inputTy = op.getInputType();
    Type element = inputTy.getElementType();
    if (failed(checkLoadableElementType(op, element)))
      return failure();
    int64_t dim = op.getDimension();
    int64_t block = config.getBlock()[0];
    if (config.getBlock()[1] != 1 || config.getBlock()[2] != 1)
      return op.emitOpError() << "needs a scan config with block = [B, 1, 1]";
    ArrayRef<int64_t> tile = config.getTile();
    if (strategy == "scan_rows") {
      unsigned bits = element.getIntOrFloatBitWidth();
      int64_t access = config.getVectorWidth();
      // Whole warps: the shuffles take every lane.
      bool ok = dim == inputTy.getRank() - 1 && (bits == 32 || bits == 64) &&
                tile.size() == 3 && llvm::isPowerOf2_64(tile[0]) &&
                tile[0] <= 1024 && tile[0] * tile[1] == block &&
                block % 32 == 0 && tile[2] >= 1 && tile[2] % access == 0;
      // Vector accesses need lines of whole vectors.
      if (ok && access > 1)
        ok = !inputTy.isDynamicDim(dim) &&
             inputTy.getDimSize(dim) % access == 0;
      if (!ok)
        return op.emitOpError()
               << "needs a scan_rows config over its innermost dimension, of "
                  "32- or 64-bit elements, with tile = [T, R, V]: T threads "
                  "per row (a power of two up to 1024), R rows per block "
                  "(block = T * R, whole warps), V elements per thread, in "
                  "accesses of "
                  "vector_width elements dividing V and the static row "
                  "length";
    } else if (strategy == "scan_serial") {
      if (tile.size() != 1 || tile[0] < 1)
        return op.emitOpError() << "needs a scan_serial config with tile = "
                                   "[elements loaded ahead]";
    } else {
      return op.emitOpError() << "has a #fuser.config of strategy '"
                              << strategy
                              << "'; fuser.scan takes scan_rows or "
                                 "scan_serial";
    }
    bool writesAccumulator = !op.getAccumulator().use_empty();
    // A pointwise producer only the scan reads (a masked cumsum's x * mask)
    // runs in the scan's loads (ScanPrologue.h).
    std::optional<ScanPrologue> fused = scanPrologue(op);
    PointwiseOp prologue = fused ? fused->producer : PointwiseOp();
    SmallVector<unsigned> prologueInputs =
        fused ? fused->readInputs : SmallVector<unsigned>();
    bool readsInit = !op.getInclusive() || writesAccumulator;
    TypedAttr initConstant = constantFillValue(op.getAccumulatorInit());

    // The kernel.
    MLIRContext *ctx = op.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    auto i64 = IntegerType::get(ctx, 64);
    SmallVector<Type> params(prologue ? prologueInputs.size() : 1, ptrTy);
    if (readsInit && !initConstant)
      params.push_back(ptrTy);
    params.push_back(ptrTy);
    if (writesAccumulator)
      params.push_back(ptrTy);
    params.append(3, i64);
    SmallVector<Type> smem;
    if (strategy == "scan_rows" && tile[0] > 32)
      smem.append(2, MemRefType::get({block / 32}, element,
                                     MemRefLayoutAttrInterface{},
                                     gpu::AddressSpaceAttr::get(
                                         ctx, gpu::AddressSpace::Workgroup)));
    auto func = op->getParentOfType<FunctionOpInterface>();
    std::string name =
        (func ? func.getName().str() : std::string("fuser")) + "_scan";
    auto kernel = createKernel(kernelSymbols, op.getLoc(), name, params,
                               config.getBlock(), smem);
    ScanKernelEmitter(op, config, initConstant, readsInit, writesAccumulator,
                      prologue, prologueInputs)
        .emit(kernel);

    // Host code: [O, L, I], the outputs, the launch.
    OpBuilder b(op);
    Location loc = op.getLoc();
    // Sizes from the input, or from the prologue's first input (the
    // prologue goes), whose other inputs must agree with it.
    Value input = prologue ? prologue.getInputs()[0] : op.getInput();
    if (prologue)
      for (Value other : prologue.getInputs().drop_front())
        for (int64_t d = 0; d < inputTy.getRank(); ++d)
          assertSizesEqual(b, loc, tensorDimSize(b, loc, input, d),
                           tensorDimSize(b, loc, other, d),
                           "fuser.scan: the inputs of its prologue differ in "
                           "size along dimension " +
                               std::to_string(d));
    auto product = [&](int64_t from, int64_t to) {
      Value p = arith::ConstantIndexOp::create(b, loc, 1);
      for (int64_t d = from; d < to; ++d)
        p = arith::MulIOp::create(b, loc, p, tensorDimSize(b, loc, input, d));
      return p;
    };
    Value outer = product(0, dim), length = product(dim, dim + 1),
          inner = product(dim + 1, inputTy.getRank());
    auto allocate = [&](Value result, ArrayRef<int64_t> dims) -> Value {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<Value> dynDims;
      for (auto [p, d] : llvm::enumerate(dims))
        if (type.isDynamicDim(p))
          dynDims.push_back(tensorDimSize(b, loc, input, d));
      return memref::AllocOp::create(b, loc,
                                     MemRefType::get(type.getShape(), element),
                                     dynDims, b.getI64IntegerAttr(64));
    };
    SmallVector<int64_t> allDims, accDims;
    for (int64_t d = 0; d < inputTy.getRank(); ++d) {
      allDims.push_back(d);
      if (d != dim)
        accDims.push_back(d);
    }
    Value out = allocate(op.getOutput(), allDims);
    Value acc =
        writesAccumulator ? allocate(op.getAccumulator(), accDims) : Value();
    SmallVector<Value> args;
    if (prologue)
      for (unsigned i : prologueInputs)
        args.push_back(hostPointerToTensor(b, loc, prologue.getInputs()[i]));
    else
      args.push_back(hostPointerToTensor(b, loc, op.getInput()));
    if (readsInit && !initConstant)
      args.push_back(hostPointerToTensor(b, loc, op.getAccumulatorInit()));
    args.push_back(hostPointerToMemRef(b, loc, out));
    if (acc)
      args.push_back(hostPointerToMemRef(b, loc, acc));
    for (Value v : {outer, length, inner})
      args.push_back(arith::IndexCastUIOp::create(b, loc, i64, v));
    Value perBlock = arith::ConstantIndexOp::create(
        b, loc, strategy == "scan_rows" ? config.getTile()[1] : block);
    Value lines = strategy == "scan_rows"
                      ? outer
                      : Value(arith::MulIOp::create(b, loc, outer, inner));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    // At least one block: an empty tensor launches a kernel that does
    // nothing rather than an invalid grid.
    Value grid = arith::MaxUIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, lines, perBlock), one);
    gpu::LaunchFuncOp::create(
        b, loc, kernel, gpu::KernelDim3{grid, one, one},
        gpu::KernelDim3{arith::ConstantIndexOp::create(b, loc, block), one,
                        one},
        /*dynamicSharedMemorySize=*/Value(), args);
    auto replace = [&](Value r, Value alloc) {
      r.replaceAllUsesWith(bufferization::ToTensorOp::create(
          b, loc, cast<RankedTensorType>(r.getType()), alloc,
          /*restrict=*/true, /*writable=*/true));
    };
    replace(op.getOutput(), out);
    if (acc)
      replace(op.getAccumulator(), acc);
    SmallVector<Operation *> inits{op.getOutputInit().getDefiningOp(),
                                   op.getAccumulatorInit().getDefiningOp()};
    op->erase();
    if (prologue)
      prologue->erase();
    // The inits give only shapes (or a constant now in the kernel): an
    // unread fill must not become a kernel of its own.
    if (inits[0] == inits[1])
      inits.pop_back();
    for (Operation *init : inits)
      if (init && isOpTriviallyDead(init))
        init->erase();
    return success();
  }
};

} // namespace
