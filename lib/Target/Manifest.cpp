//===- Manifest.cpp - kernel manifest emission ----------------------------===//
//
// Walks the bufferized host code of each entry function and records what
// the runtime must do: the host may only compute sizes, assert equalities,
// allocate buffers, take views and launch kernels. Anything else is
// reported, since the runtime could not reproduce it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/Manifest.h"

#include "fuser/Target/KernelImage.h"
#include "fuser/Dialect/Fuser/IR/FuserOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;
namespace json = llvm::json;

namespace {

/// An integer expression in the manifest grammar ("123", "dim(0,1)", ...).
using Expr = std::string;

json::Value exprToJson(const Expr &e) {
  int64_t v;
  if (!StringRef(e).getAsInteger(10, v))
    return v;
  return e;
}

Expr call(StringRef fn, const Expr &a, const Expr &b) {
  return (fn + "(" + a + "," + b + ")").str();
}

FailureOr<std::string> dtypeName(Operation *where, Type t) {
  if (t.isF32())
    return std::string("f32");
  if (t.isF16())
    return std::string("f16");
  if (t.isBF16())
    return std::string("bf16");
  if (t.isF64())
    return std::string("f64");
  if (t.isInteger(64) || t.isIndex())
    return std::string("i64");
  if (t.isInteger(32))
    return std::string("i32");
  if (t.isInteger(8))
    return std::string("i8");
  if (t.isInteger(1))
    return std::string("i1");
  return where->emitError() << "element type " << t
                            << " has no manifest dtype";
}

/// A memref value at run time: a buffer seen with a shape.
struct View {
  int64_t buffer;
  SmallVector<Expr> shape;
};

class FunctionEmitter {
public:
  explicit FunctionEmitter(func::FuncOp func) : func(func) {}

  FailureOr<json::Value> emit() {
    if (!func.getBody().hasOneBlock())
      return func.emitError() << "host code with control flow cannot be "
                                 "described by the kernel manifest";
    for (auto [i, arg] : llvm::enumerate(func.getArguments()))
      if (failed(addArgument(i, arg)))
        return failure();
    for (Operation &op : func.getBody().front())
      if (failed(visit(&op)))
        return failure();
    return json::Value(json::Object{{"name", func.getSymName()},
                        {"args", std::move(args)},
                        {"buffers", std::move(buffers)},
                        {"results", std::move(results)},
                        {"checks", std::move(checks)},
                        {"launches", std::move(launches)}});
  }

private:
  LogicalResult addArgument(unsigned i, BlockArgument arg) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.getLayout().isIdentity())
      return func.emitError()
             << "argument #" << i << " has type " << arg.getType()
             << "; entry functions take dense tensors only";
    auto dtype = dtypeName(func, type.getElementType());
    if (failed(dtype))
      return failure();
    json::Array shape;
    View view{static_cast<int64_t>(buffers.size()), {}};
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d)) {
        shape.push_back("?");
        view.shape.push_back("dim(" + std::to_string(i) + "," +
                             std::to_string(d) + ")");
      } else {
        shape.push_back(type.getDimSize(d));
        view.shape.push_back(std::to_string(type.getDimSize(d)));
      }
    }
    args.push_back(json::Object{{"name", ("arg" + Twine(i)).str()},
                                {"dtype", *dtype},
                                {"shape", std::move(shape)}});
    buffers.push_back(
        json::Object{{"id", view.buffer}, {"kind", "arg"}, {"arg", i}});
    argBuffers.insert(view.buffer);
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

  LogicalResult binary(Operation *op, StringRef fn) {
    auto a = exprOf(op, op->getOperand(0));
    auto b = exprOf(op, op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    exprs[op->getResult(0)] = call(fn, *a, *b);
    return success();
  }

  FailureOr<Expr> affineExpr(Operation *op, AffineExpr e, ValueRange dims,
                             ValueRange syms) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return std::to_string(c.getValue());
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
      return call("add", *l, *r);
    case AffineExprKind::Mul:
      return call("mul", *l, *r);
    case AffineExprKind::FloorDiv:
      return call("floordiv", *l, *r);
    case AffineExprKind::CeilDiv:
      return call("ceildiv", *l, *r);
    case AffineExprKind::Mod:
      return call("rem", *l, *r);
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
            exprs[c] = std::to_string(i.getValue().getSExtValue());
          else if (auto f = dyn_cast<FloatAttr>(c.getValue()))
            floats[c] = f.getValueAsDouble();
          return success();
        })
        .Case([&](arith::AddIOp o) -> LogicalResult { return binary(o, "add"); })
        .Case([&](arith::SubIOp o) -> LogicalResult { return binary(o, "sub"); })
        .Case([&](arith::MulIOp o) -> LogicalResult { return binary(o, "mul"); })
        .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
            [&](Operation *o) -> LogicalResult { return binary(o, "floordiv"); })
        .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
            [&](Operation *o) -> LogicalResult { return binary(o, "ceildiv"); })
        .Case<arith::RemUIOp, arith::RemSIOp>(
            [&](Operation *o) -> LogicalResult { return binary(o, "rem"); })
        .Case<arith::MinUIOp, arith::MinSIOp>(
            [&](Operation *o) -> LogicalResult { return binary(o, "min"); })
        .Case<arith::MaxUIOp, arith::MaxSIOp>(
            [&](Operation *o) -> LogicalResult { return binary(o, "max"); })
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
          checks.push_back(json::Object{{"lhs", exprToJson(it->second.first)},
                                        {"rhs", exprToJson(it->second.second)},
                                        {"message", a.getMsg()}});
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
        .Case([&](memref::AllocOp a) -> LogicalResult { return visitAlloc(a); })
        .Case([&](memref::DeallocOp) -> LogicalResult { return success(); })
        .Case([&](memref::CastOp c) -> LogicalResult {
          auto view = viewOf(c, c.getSource());
          if (failed(view))
            return failure();
          views[c] = *view;
          return success();
        })
        .Case([&](memref::ExpandShapeOp e) -> LogicalResult { return visitExpand(e); })
        .Case([&](memref::CollapseShapeOp c) -> LogicalResult { return visitCollapse(c); })
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
          json::Array shape;
          for (const Expr &e : view->shape)
            shape.push_back(exprToJson(e));
          tensorMaps[t] = json::Object{
              {"kind", "tensor_map"},
              {"buffer", view->buffer},
              {"shape", std::move(shape)},
              {"box", json::Array{t.getBox()[0], t.getBox()[1]}},
              {"swizzle", t.getSwizzle()}};
          return success();
        })
        .Case([&](gpu::LaunchFuncOp l) -> LogicalResult { return visitLaunch(l); })
        .Case([&](func::ReturnOp r) -> LogicalResult { return visitReturn(r); })
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
    auto dtype = dtypeName(a, type.getElementType());
    if (failed(dtype))
      return failure();
    View view{static_cast<int64_t>(buffers.size()), {}};
    json::Array shape;
    unsigned dyn = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Expr e = std::to_string(type.getDimSize(d));
      if (type.isDynamicDim(d)) {
        auto de = exprOf(a, a.getDynamicSizes()[dyn++]);
        if (failed(de))
          return failure();
        e = *de;
      }
      view.shape.push_back(e);
      shape.push_back(exprToJson(e));
    }
    buffers.push_back(json::Object{{"id", view.buffer},
                                   {"kind", "alloc"},
                                   {"dtype", *dtype},
                                   {"shape", std::move(shape)}});
    views[a] = view;
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
        view.shape.push_back(std::to_string(e.getResultType().getDimSize(d)));
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
      Expr e = "1";
      for (int64_t d : group)
        e = e == "1" ? src->shape[d] : call("mul", e, src->shape[d]);
      view.shape.push_back(e);
    }
    views[c] = view;
    return success();
  }

  LogicalResult visitLaunch(gpu::LaunchFuncOp l) {
    if (l.getAsyncToken() || !l.getAsyncDependencies().empty())
      return l.emitError() << "async launches are not supported";
    json::Array grid, block;
    for (Value v : {l.getGridSizeX(), l.getGridSizeY(), l.getGridSizeZ()}) {
      auto e = exprOf(l, v);
      if (failed(e))
        return failure();
      grid.push_back(exprToJson(*e));
    }
    for (Value v : {l.getBlockSizeX(), l.getBlockSizeY(), l.getBlockSizeZ()}) {
      auto e = exprOf(l, v);
      if (failed(e))
        return failure();
      block.push_back(exprToJson(*e));
    }
    json::Value shared = 0;
    if (Value smem = l.getDynamicSharedMemorySize()) {
      auto e = exprOf(l, smem);
      if (failed(e))
        return failure();
      shared = exprToJson(*e);
    }
    json::Array kargs;
    for (Value v : l.getKernelOperands()) {
      Type t = v.getType();
      if (auto it = tensorMaps.find(v); it != tensorMaps.end()) {
        // The copy engine needs 16-byte aligned rows (the runtime checks).
        alignedBuffers.insert(*it->second.getInteger("buffer"));
        kargs.push_back(json::Object(it->second));
      } else if (isa<MemRefType>(t)) {
        auto view = viewOf(l, v);
        if (failed(view))
          return failure();
        json::Array shape;
        for (const Expr &e : view->shape)
          shape.push_back(exprToJson(e));
        kargs.push_back(json::Object{{"kind", "memref"},
                                     {"buffer", view->buffer},
                                     {"shape", std::move(shape)}});
      } else if (isa<LLVM::LLVMPointerType>(t)) {
        auto it = pointers.find(v);
        if (it == pointers.end())
          return l.emitError() << "kernel pointer argument does not come "
                                  "from a buffer";
        alignedBuffers.insert(it->second);
        kargs.push_back(json::Object{{"kind", "ptr"}, {"buffer", it->second}});
      } else if (t.isIndex() || t.isInteger(64) || t.isInteger(32)) {
        auto e = exprOf(l, v);
        if (failed(e))
          return failure();
        kargs.push_back(json::Object{{"kind", t.isInteger(32) ? "i32" : "i64"},
                                     {"value", exprToJson(*e)}});
      } else if (t.isF32() && floats.count(v)) {
        kargs.push_back(json::Object{{"kind", "f32"}, {"value", floats[v]}});
      } else {
        return l.emitError() << "kernel argument of type " << t
                             << " cannot be described by the kernel manifest";
      }
    }
    launches.push_back(json::Object{{"kernel", l.getKernelName().getValue()},
                                    {"grid", std::move(grid)},
                                    {"block", std::move(block)},
                                    {"shared_bytes", std::move(shared)},
                                    {"args", std::move(kargs)}});
    return success();
  }

  LogicalResult visitReturn(func::ReturnOp r) {
    DenseSet<int64_t> seen;
    for (auto [i, v] : llvm::enumerate(r.getOperands())) {
      auto view = viewOf(r, v);
      if (failed(view))
        return failure();
      if (argBuffers.contains(view->buffer))
        return r.emitError() << "result #" << i
                             << " is an argument returned unchanged; fuser "
                                "entry functions must compute their results";
      if (!seen.insert(view->buffer).second)
        return r.emitError() << "result #" << i
                             << " returns the same buffer as an earlier one";
      results.push_back(json::Object{{"buffer", view->buffer}});
    }
    // Vector kernels need 16-byte aligned pointers, inputs and outputs
    // alike: tell the runtime.
    for (auto [i, arg] : llvm::enumerate(args))
      if (alignedBuffers.contains(static_cast<int64_t>(i)))
        (*arg.getAsObject())["align"] = 16;
    for (json::Value &buffer : buffers) {
      json::Object *b = buffer.getAsObject();
      if (b->getString("kind") == "alloc" &&
          alignedBuffers.contains(*b->getInteger("id")))
        (*b)["align"] = 16;
    }
    return success();
  }

  func::FuncOp func;
  json::Array args, buffers, results, checks, launches;
  DenseMap<Value, Expr> exprs;
  DenseMap<Value, double> floats;
  DenseMap<Value, View> views;
  DenseMap<Value, int64_t> pointers;
  DenseMap<Value, json::Object> tensorMaps;
  DenseMap<Value, std::pair<Expr, Expr>> equalities;
  DenseSet<int64_t> argBuffers, alignedBuffers;
};

} // namespace

FailureOr<json::Value> mlir::fuser::buildManifest(ModuleOp module) {
  auto image = getKernelImage(module);
  if (failed(image))
    return failure();
  json::Array functions;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration() || func.isPrivate())
      continue;
    auto f = FunctionEmitter(func).emit();
    if (failed(f))
      return failure();
    functions.push_back(std::move(*f));
  }
  return json::Value(json::Object{{"format", "fuser-manifest"},
                                  {"version", 1},
                                  {"chip", image->chip},
                                  {"functions", std::move(functions)}});
}

LogicalResult mlir::fuser::translateToManifest(ModuleOp module,
                                               llvm::raw_ostream &os) {
  auto manifest = buildManifest(module);
  if (failed(manifest))
    return failure();
  os << llvm::formatv("{0:2}", *manifest) << "\n";
  return success();
}
