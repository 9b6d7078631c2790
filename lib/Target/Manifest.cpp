//===- Manifest.cpp - kernel manifest emission ----------------------------===//
//
// Walks the bufferized host code of each entry function and records, in the
// manifest model (fuser/Manifest/Manifest.h), what the runtime must do: the
// host may only compute sizes, assert equalities, allocate buffers, take
// views of them, read constant globals and launch kernels. Anything else is
// reported, since the runtime could not reproduce it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/Manifest.h"

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Manifest/Manifest.h"
#include "fuser/Manifest/TensorMapRules.h"
#include "fuser/Target/KernelImage.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

using ::fuser::Expr;
using ExprKind = ::fuser::Expr::Kind;
using ::fuser::ArgSpec;
using ::fuser::BufferSpec;
using ::fuser::CheckSpec;
using ::fuser::FunctionSpec;
using ::fuser::KernelArgSpec;
using ::fuser::LaunchSpec;

Expr call(ExprKind kind, const Expr &a, const Expr &b) {
  return Expr::binary(kind, a, b);
}

FailureOr<::fuser::DType> dtypeOf(Operation *where, Type t) {
  if (t.isF32())
    return ::fuser::DType::F32;
  if (t.isF16())
    return ::fuser::DType::F16;
  if (t.isBF16())
    return ::fuser::DType::BF16;
  if (t.isF64())
    return ::fuser::DType::F64;
  if (t.isInteger(64) || t.isIndex())
    return ::fuser::DType::I64;
  if (t.isInteger(32))
    return ::fuser::DType::I32;
  if (t.isInteger(8))
    return ::fuser::DType::I8;
  if (t.isInteger(1))
    return ::fuser::DType::I1;
  return where->emitError() << "element type " << t
                            << " has no manifest dtype";
}

/// The bytes of a constant global's value, row-major and little-endian as
/// the device holds them (i1 as one byte per element).
FailureOr<std::string> constantBytes(memref::GlobalOp global,
                                     ::fuser::DType dtype, int64_t numel) {
  int64_t elemBytes = ::fuser::dtypeSize(dtype);
  std::string bytes;
  auto append = [&](const APInt &v) {
    for (int64_t i = 0; i < elemBytes; ++i)
      bytes += static_cast<char>(
          v.getBitWidth() > 8 * i ? v.extractBitsAsZExtValue(
                                        std::min<unsigned>(8, v.getBitWidth() - 8 * i), 8 * i)
                                  : 0);
  };
  Attribute init = global.getInitialValueAttr();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(init)) {
    if (isa<FloatType>(dense.getElementType()))
      for (const APFloat &f : dense.getValues<APFloat>())
        append(f.bitcastToAPInt());
    else
      for (const APInt &i : dense.getValues<APInt>())
        append(i);
  } else if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return global.emitError()
             << "the data of constant '" << global.getSymName()
             << "' is not loaded (dense_resource without its blob)";
    ArrayRef<char> data = blob->getData();
    bytes.assign(data.begin(), data.end());
  } else {
    return global.emitError() << "constant '" << global.getSymName()
                              << "' has no dense initial value the kernel "
                                 "manifest can carry";
  }
  if (static_cast<int64_t>(bytes.size()) != numel * elemBytes)
    return global.emitError()
           << "constant '" << global.getSymName() << "' holds " << bytes.size()
           << " bytes, but its type needs " << numel * elemBytes;
  return bytes;
}

/// A memref value at run time: a buffer (its index) seen with a shape.
struct View {
  int64_t buffer;
  SmallVector<Expr> shape;
};

class FunctionEmitter {
public:
  FunctionEmitter(func::FuncOp func, SymbolTable &symbols)
      : func(func), symbols(symbols) {}

  FailureOr<FunctionSpec> emit() {
    if (!func.getBody().hasOneBlock())
      return func.emitError() << "host code with control flow cannot be "
                                 "described by the kernel manifest";
    fn.name = func.getSymName().str();
    for (auto [i, arg] : llvm::enumerate(func.getArguments()))
      if (failed(addArgument(i, arg)))
        return failure();
    for (Operation &op : func.getBody().front())
      if (failed(visit(&op)))
        return failure();
    return std::move(fn);
  }

private:
  int64_t addBuffer(BufferSpec buffer) {
    buffer.id = static_cast<int64_t>(fn.buffers.size());
    fn.buffers.push_back(std::move(buffer));
    return fn.buffers.back().id;
  }

  LogicalResult addArgument(unsigned i, BlockArgument arg) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.getLayout().isIdentity())
      return func.emitError()
             << "argument #" << i << " has type " << arg.getType()
             << "; entry functions take dense tensors only";
    auto dtype = dtypeOf(func, type.getElementType());
    if (failed(dtype))
      return failure();
    ArgSpec spec;
    spec.name = ("arg" + Twine(i)).str();
    spec.dtype = *dtype;
    spec.align = ::fuser::dtypeSize(*dtype);
    View view{0, {}};
    for (int64_t d = 0; d < type.getRank(); ++d) {
      bool dynamic = type.isDynamicDim(d);
      spec.shape.push_back(dynamic ? ArgSpec::kDynamic : type.getDimSize(d));
      view.shape.push_back(dynamic ? Expr::dim(i, d)
                                   : Expr::constant(type.getDimSize(d)));
    }
    fn.args.push_back(std::move(spec));
    BufferSpec buffer;
    buffer.kind = BufferSpec::Kind::Arg;
    buffer.arg = i;
    buffer.dtype = *dtype;
    view.buffer = addBuffer(std::move(buffer));
    views[arg] = view;
    return success();
  }

  FailureOr<Expr> exprOf(Operation *user, Value v) {
    auto it = exprs.find(v);
    if (it != exprs.end())
      return it->second;
    return user->emitError() << "operand is not an integer the kernel "
                                "manifest can express";
  }

  LogicalResult binary(Operation *op, ExprKind kind) {
    auto a = exprOf(op, op->getOperand(0));
    auto b = exprOf(op, op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    exprs[op->getResult(0)] = call(kind, *a, *b);
    return success();
  }

  FailureOr<Expr> affineExpr(Operation *op, AffineExpr e, ValueRange dims,
                             ValueRange syms) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return Expr::constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return exprOf(op, dims[d.getPosition()]);
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return exprOf(op, syms[s.getPosition()]);
    auto bin = cast<AffineBinaryOpExpr>(e);
    auto l = affineExpr(op, bin.getLHS(), dims, syms);
    auto r = affineExpr(op, bin.getRHS(), dims, syms);
    if (failed(l) || failed(r))
      return failure();
    switch (bin.getKind()) {
    case AffineExprKind::Add:
      return call(ExprKind::Add, *l, *r);
    case AffineExprKind::Mul:
      return call(ExprKind::Mul, *l, *r);
    case AffineExprKind::FloorDiv:
      return call(ExprKind::FloorDiv, *l, *r);
    case AffineExprKind::CeilDiv:
      return call(ExprKind::CeilDiv, *l, *r);
    case AffineExprKind::Mod:
      return call(ExprKind::Rem, *l, *r);
    default:
      return op->emitError() << "unsupported affine expression kind";
    }
  }

  FailureOr<View> viewOf(Operation *user, Value v) {
    auto it = views.find(v);
    if (it != views.end())
      return it->second;
    return user->emitError()
           << "uses a buffer the kernel manifest does not know";
  }

  LogicalResult visit(Operation *op) {
    return TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](arith::ConstantOp c) -> LogicalResult {
          if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
            exprs[c] = Expr::constant(i.getValue().getSExtValue());
          else if (auto f = dyn_cast<FloatAttr>(c.getValue()))
            floats[c] = f.getValueAsDouble();
          return success();
        })
        .Case([&](arith::AddIOp o) { return binary(o, ExprKind::Add); })
        .Case([&](arith::SubIOp o) { return binary(o, ExprKind::Sub); })
        .Case([&](arith::MulIOp o) { return binary(o, ExprKind::Mul); })
        .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
            [&](Operation *o) { return binary(o, ExprKind::FloorDiv); })
        .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
            [&](Operation *o) { return binary(o, ExprKind::CeilDiv); })
        .Case<arith::RemUIOp, arith::RemSIOp>(
            [&](Operation *o) { return binary(o, ExprKind::Rem); })
        .Case<arith::MinUIOp, arith::MinSIOp>(
            [&](Operation *o) { return binary(o, ExprKind::Min); })
        .Case<arith::MaxUIOp, arith::MaxSIOp>(
            [&](Operation *o) { return binary(o, ExprKind::Max); })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
              arith::ExtUIOp, arith::TruncIOp>([&](Operation *o) -> LogicalResult {
          Value in = o->getOperand(0);
          if (auto it = pointers.find(in); it != pointers.end()) {
            pointers[o->getResult(0)] = it->second;
            return success();
          }
          auto e = exprOf(o, in);
          if (failed(e))
            return failure();
          exprs[o->getResult(0)] = *e;
          return success();
        })
        .Case([&](affine::AffineApplyOp a) -> LogicalResult {
          AffineMap map = a.getAffineMap();
          auto e = affineExpr(a, map.getResult(0),
                              a.getOperands().take_front(map.getNumDims()),
                              a.getOperands().drop_front(map.getNumDims()));
          if (failed(e))
            return failure();
          exprs[a] = *e;
          return success();
        })
        .Case([&](arith::CmpIOp c) -> LogicalResult {
          if (c.getPredicate() != arith::CmpIPredicate::eq)
            return c.emitError() << "host comparisons other than 'eq' cannot "
                                    "be described by the kernel manifest";
          auto l = exprOf(c, c.getLhs());
          auto r = exprOf(c, c.getRhs());
          if (failed(l) || failed(r))
            return failure();
          equalities[c] = {*l, *r};
          return success();
        })
        .Case([&](cf::AssertOp a) -> LogicalResult {
          auto it = equalities.find(a.getArg());
          if (it == equalities.end())
            return a.emitError() << "only assertions of an integer equality "
                                    "can be checked by the runtime";
          fn.checks.push_back(
              CheckSpec{it->second.first, it->second.second, a.getMsg().str()});
          return success();
        })
        .Case([&](memref::DimOp d) -> LogicalResult {
          auto view = viewOf(d, d.getSource());
          auto index = d.getConstantIndex();
          if (failed(view))
            return failure();
          if (!index)
            return d.emitError() << "memref.dim needs a constant index";
          // Out-of-range indices verify (MLIR leaves them undefined at run
          // time); the manifest has no value for them.
          int64_t rank = static_cast<int64_t>(view->shape.size());
          if (*index < 0 || *index >= rank)
            return d.emitError() << "memref.dim index " << *index
                                 << " is out of range for a rank-" << rank
                                 << " buffer";
          exprs[d] = view->shape[*index];
          return success();
        })
        .Case([&](memref::AllocOp a) { return visitAlloc(a); })
        .Case([&](memref::GetGlobalOp g) { return visitGetGlobal(g); })
        .Case([&](memref::DeallocOp) { return success(); })
        .Case([&](memref::CastOp c) -> LogicalResult {
          auto view = viewOf(c, c.getSource());
          if (failed(view))
            return failure();
          views[c] = *view;
          return success();
        })
        .Case([&](memref::ExpandShapeOp e) { return visitExpand(e); })
        .Case([&](memref::CollapseShapeOp c) { return visitCollapse(c); })
        .Case([&](memref::ExtractAlignedPointerAsIndexOp p) -> LogicalResult {
          auto view = viewOf(p, p.getSource());
          if (failed(view))
            return failure();
          pointers[p] = view->buffer;
          return success();
        })
        .Case([&](LLVM::IntToPtrOp p) -> LogicalResult {
          auto it = pointers.find(p.getArg());
          if (it == pointers.end())
            return p.emitError() << "pointer does not come from a buffer";
          pointers[p] = it->second;
          return success();
        })
        .Case([&](TensorMapOp t) -> LogicalResult {
          auto view = viewOf(t, t.getSource());
          if (failed(view))
            return failure();
          // Views TMA cannot describe whatever the call's sizes are refused
          // here, at the op, by the rules the runtime's reader applies.
          auto dtype = dtypeOf(t, t.getSource().getType().getElementType());
          if (failed(dtype))
            return failure();
          for (int d = 0; d < 2; ++d) {
            if (!view->shape[d].isConstant())
              continue;
            int64_t size = view->shape[d].constantValue();
            std::string why = ::fuser::tensorMapSizeError(size);
            if (why.empty() && d == 1)
              why = ::fuser::tensorMapPitchError(*dtype, size);
            if (!why.empty())
              return t.emitError() << "the TMA view's " << (d ? "columns" : "rows")
                                   << ": " << why;
          }
          KernelArgSpec arg;
          arg.kind = KernelArgSpec::Kind::TensorMap;
          arg.buffer = view->buffer;
          arg.shape.assign(view->shape.begin(), view->shape.end());
          arg.box = {static_cast<uint32_t>(t.getBox()[0]),
                     static_cast<uint32_t>(t.getBox()[1])};
          arg.swizzle = t.getSwizzle();
          tensorMaps[t] = arg;
          return success();
        })
        .Case([&](gpu::LaunchFuncOp l) { return visitLaunch(l); })
        .Case([&](func::ReturnOp r) { return visitReturn(r); })
        .Default([&](Operation *o) -> LogicalResult {
          return o->emitError()
                 << "'" << o->getName()
                 << "' cannot be described by the kernel manifest: host code "
                    "may only compute sizes, allocate buffers and launch "
                    "kernels";
        });
  }

  LogicalResult visitAlloc(memref::AllocOp a) {
    MemRefType type = a.getType();
    auto dtype = dtypeOf(a, type.getElementType());
    if (failed(dtype))
      return failure();
    BufferSpec buffer;
    buffer.kind = BufferSpec::Kind::Alloc;
    buffer.dtype = *dtype;
    buffer.align = ::fuser::dtypeSize(*dtype);
    unsigned dyn = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Expr e = Expr::constant(type.getDimSize(d));
      if (type.isDynamicDim(d)) {
        auto de = exprOf(a, a.getDynamicSizes()[dyn++]);
        if (failed(de))
          return failure();
        e = *de;
      }
      buffer.shape.push_back(e);
    }
    View view{0, SmallVector<Expr>(buffer.shape.begin(), buffer.shape.end())};
    view.buffer = addBuffer(std::move(buffer));
    views[a] = view;
    return success();
  }

  /// A constant global (a weight torch-mlir froze, say) becomes data the
  /// module carries; the runtime uploads it once per device.
  LogicalResult visitGetGlobal(memref::GetGlobalOp g) {
    auto global = symbols.lookup<memref::GlobalOp>(g.getName());
    if (!global || !global.getConstant())
      return g.emitError() << "only constant globals can be described by the "
                              "kernel manifest; '"
                           << g.getName() << "' is not one";
    MemRefType type = g.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return g.emitError() << "constant '" << g.getName()
                           << "' must have a static, dense row-major type";
    auto dtype = dtypeOf(g, type.getElementType());
    if (failed(dtype))
      return failure();
    auto it = constantBuffers.find(global);
    if (it == constantBuffers.end()) {
      auto data = constantBytes(global, *dtype, type.getNumElements());
      if (failed(data))
        return failure();
      BufferSpec buffer;
      buffer.kind = BufferSpec::Kind::Constant;
      buffer.dtype = *dtype;
      buffer.align = ::fuser::dtypeSize(*dtype);
      for (int64_t size : type.getShape())
        buffer.shape.push_back(Expr::constant(size));
      buffer.data = std::move(*data);
      it = constantBuffers.try_emplace(global, addBuffer(std::move(buffer)))
               .first;
    }
    View view{it->second, {}};
    for (int64_t size : type.getShape())
      view.shape.push_back(Expr::constant(size));
    views[g] = view;
    return success();
  }

  LogicalResult visitExpand(memref::ExpandShapeOp e) {
    auto src = viewOf(e, e.getSrc());
    if (failed(src))
      return failure();
    View view{src->buffer, {}};
    unsigned dyn = 0;
    for (int64_t d = 0; d < e.getResultType().getRank(); ++d) {
      if (!e.getResultType().isDynamicDim(d)) {
        view.shape.push_back(
            Expr::constant(e.getResultType().getDimSize(d)));
        continue;
      }
      auto de = exprOf(e, e.getOutputShape()[dyn++]);
      if (failed(de))
        return failure();
      view.shape.push_back(*de);
    }
    views[e] = view;
    return success();
  }

  LogicalResult visitCollapse(memref::CollapseShapeOp c) {
    auto src = viewOf(c, c.getSrc());
    if (failed(src))
      return failure();
    View view{src->buffer, {}};
    for (ReassociationIndices group : c.getReassociationIndices()) {
      std::optional<Expr> e;
      for (int64_t d : group)
        e = e ? call(ExprKind::Mul, *e, src->shape[d]) : src->shape[d];
      view.shape.push_back(e ? *e : Expr::constant(1));
    }
    views[c] = view;
    return success();
  }

  LogicalResult visitLaunch(gpu::LaunchFuncOp l) {
    if (l.getAsyncToken() || !l.getAsyncDependencies().empty())
      return l.emitError() << "async launches are not supported";
    LaunchSpec launch;
    launch.kernel = l.getKernelName().getValue().str();
    Value grid[] = {l.getGridSizeX(), l.getGridSizeY(), l.getGridSizeZ()};
    Value block[] = {l.getBlockSizeX(), l.getBlockSizeY(), l.getBlockSizeZ()};
    for (int d = 0; d < 3; ++d) {
      auto g = exprOf(l, grid[d]);
      auto b = exprOf(l, block[d]);
      if (failed(g) || failed(b))
        return failure();
      launch.grid[d] = *g;
      launch.block[d] = *b;
    }
    if (Value smem = l.getDynamicSharedMemorySize()) {
      auto e = exprOf(l, smem);
      if (failed(e))
        return failure();
      if (!e->isConstant())
        return l.emitError() << "the dynamic shared memory size must be a "
                                "constant for the kernel manifest";
      launch.sharedBytes = e->constantValue();
    }
    for (Value v : l.getKernelOperands()) {
      Type t = v.getType();
      KernelArgSpec arg;
      if (auto it = tensorMaps.find(v); it != tensorMaps.end()) {
        // The copy engine needs 16-byte aligned rows (the runtime checks).
        arg = it->second;
        alignedBuffers.insert(arg.buffer);
      } else if (isa<MemRefType>(t)) {
        auto view = viewOf(l, v);
        if (failed(view))
          return failure();
        arg.kind = KernelArgSpec::Kind::Memref;
        arg.buffer = view->buffer;
        arg.shape.assign(view->shape.begin(), view->shape.end());
      } else if (isa<LLVM::LLVMPointerType>(t)) {
        auto it = pointers.find(v);
        if (it == pointers.end())
          return l.emitError() << "kernel pointer argument does not come "
                                  "from a buffer";
        alignedBuffers.insert(it->second);
        arg.kind = KernelArgSpec::Kind::Ptr;
        arg.buffer = it->second;
      } else if (t.isIndex() || t.isInteger(64) || t.isInteger(32)) {
        auto e = exprOf(l, v);
        if (failed(e))
          return failure();
        arg.kind = t.isInteger(32) ? KernelArgSpec::Kind::I32
                                   : KernelArgSpec::Kind::I64;
        arg.value = *e;
      } else if (t.isF32() && floats.count(v)) {
        arg.kind = KernelArgSpec::Kind::F32;
        arg.f32 = static_cast<float>(floats[v]);
      } else {
        return l.emitError() << "kernel argument of type " << t
                             << " cannot be described by the kernel manifest";
      }
      launch.args.push_back(std::move(arg));
    }
    fn.launches.push_back(std::move(launch));
    return success();
  }

  LogicalResult visitReturn(func::ReturnOp r) {
    for (auto [i, v] : llvm::enumerate(r.getOperands())) {
      auto view = viewOf(r, v);
      if (failed(view))
        return failure();
      BufferSpec &buffer = fn.buffers[view->buffer];
      if (buffer.kind == BufferSpec::Kind::Arg)
        return r.emitError() << "result #" << i
                             << " is an argument returned unchanged; fuser "
                                "entry functions must compute their results";
      if (buffer.kind == BufferSpec::Kind::Constant)
        return r.emitError() << "result #" << i
                             << " is a constant returned unchanged; fuser "
                                "entry functions must compute their results";
      if (buffer.isResult)
        return r.emitError() << "result #" << i
                             << " returns the same buffer as an earlier one";
      buffer.isResult = true;
      // A result may be a reshaped view (expand/collapse_shape) of its
      // allocation, with the same elements: the caller gets the result's
      // shape (kernel arguments carry their own views' shapes).
      buffer.shape.assign(view->shape.begin(), view->shape.end());
      fn.results.push_back(view->buffer);
    }
    // Vector kernels need 16-byte aligned pointers, inputs and outputs
    // alike: tell the runtime.
    for (int64_t b : alignedBuffers) {
      BufferSpec &buffer = fn.buffers[b];
      if (buffer.kind == BufferSpec::Kind::Arg)
        fn.args[buffer.arg].align = 16;
      buffer.align = 16;
    }
    return success();
  }

  func::FuncOp func;
  SymbolTable &symbols;
  FunctionSpec fn;
  DenseMap<Value, Expr> exprs;
  DenseMap<Value, double> floats;
  DenseMap<Value, View> views;
  DenseMap<Value, int64_t> pointers;
  DenseMap<Value, KernelArgSpec> tensorMaps;
  DenseMap<Value, std::pair<Expr, Expr>> equalities;
  DenseMap<Operation *, int64_t> constantBuffers;
  llvm::SetVector<int64_t> alignedBuffers;
};

} // namespace

FailureOr<::fuser::ManifestModule> mlir::fuser::buildManifest(ModuleOp module) {
  auto image = getKernelImage(module);
  if (failed(image))
    return failure();
  ::fuser::ManifestModule manifest;
  manifest.format = "fuser-manifest";
  manifest.version = ::fuser::kManifestVersion;
  manifest.chip = image->chip;
  SymbolTable symbols(module);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration() || func.isPrivate())
      continue;
    auto f = FunctionEmitter(func, symbols).emit();
    if (failed(f))
      return failure();
    manifest.functions.push_back(std::move(*f));
  }
  return manifest;
}

LogicalResult mlir::fuser::translateToManifest(ModuleOp module,
                                               llvm::raw_ostream &os) {
  auto manifest = buildManifest(module);
  if (failed(manifest))
    return failure();
  os << ::fuser::writeManifest(*manifest) << "\n";
  return success();
}
