//===- CHeaderManifest.cpp - the manifest, for the header -------*- C++ -*-===//
//-*-===//
//
// Reads a kernel manifest (docs/manifest.md) into the HeaderModel the
// emitter writes from, checking everything the header relies on: a manifest
// the header cannot express fails here, before any output.
//
//===----------------------------------------------------------------------===//

#include "CHeaderInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::cheader;
namespace json = llvm::json;

static std::optional<DType> lookupDType(StringRef name) {
  // i1 memrefs hold one byte per element.
  static const DType dtypes[] = {
      {"f32", "float", 4},     {"f64", "double", 8},  {"f16", "uint16_t", 2},
      {"bf16", "uint16_t", 2}, {"i64", "int64_t", 8}, {"i32", "int32_t", 4},
      {"i8", "int8_t", 1},     {"i1", "uint8_t", 1}};
  for (const DType &d : dtypes)
    if (d.name == name)
      return d;
  return std::nullopt;
}

/// Symbol names may hold characters C identifiers cannot.
static std::string sanitize(StringRef name) {
  std::string s;
  for (char c : name)
    s += llvm::isAlnum(c) || c == '_' ? c : '_';
  return s;
}

/// An expression as the manifest spells it, for the header's comments.
static std::string describe(const json::Value &v) {
  if (std::optional<int64_t> i = v.getAsInteger())
    return std::to_string(*i);
  if (std::optional<StringRef> s = v.getAsString())
    return s->str();
  return "?";
}

namespace {

/// Reads and validates one function of the manifest.
class FunctionReader {
public:
  FunctionReader(function_ref<InFlightDiagnostic()> emitError,
                 llvm::StringMap<unsigned> &kernels)
      : emitError(emitError), kernels(kernels) {}

  FailureOr<Function> read(const json::Object &obj, StringRef prefix) {
    Function fn;
    std::optional<StringRef> name = obj.getString("name");
    if (!name)
      return fail("a function has no name");
    fn.name = name->str();
    fn.cName = (prefix + "_" + sanitize(*name)).str();
    where = "function '" + fn.name + "'";
    if (failed(readArgs(obj, fn)) || failed(readBuffers(obj, fn)) ||
        failed(readResults(obj, fn)) || failed(readChecks(obj, fn)) ||
        failed(readLaunches(obj, fn)))
      return failure();
    return fn;
  }

private:
  LogicalResult fail(const Twine &message) {
    emitError() << "manifest: " << where << ": " << message;
    return failure();
  }

  const json::Array *array(const json::Object &obj, StringRef key) {
    const json::Array *a = obj.getArray(key);
    if (!a)
      (void)fail("'" + key + "' must be an array");
    return a;
  }

  FailureOr<DType> dtype(const json::Object &obj, const Twine &what) {
    std::optional<StringRef> name = obj.getString("dtype");
    if (!name)
      return fail(what + " has no dtype");
    std::optional<DType> d = lookupDType(*name);
    if (!d)
      return fail(what + " has unknown dtype '" + *name + "'");
    return *d;
  }

  FailureOr<Term> expr(const json::Value *v, const Twine &what) {
    return translator->translate(v, where + " " + what);
  }

  LogicalResult readArgs(const json::Object &obj, Function &fn) {
    const json::Array *args = array(obj, "args");
    if (!args)
      return failure();
    SmallVector<ExprTranslator::Shape> shapes;
    for (auto [i, v] : llvm::enumerate(*args)) {
      std::string what = "argument " + std::to_string(i);
      const json::Object *a = v.getAsObject();
      const json::Array *shape = a ? a->getArray("shape") : nullptr;
      if (!shape)
        return fail(what + " needs an object with a 'shape' array");
      FailureOr<DType> d = dtype(*a, what);
      if (failed(d))
        return failure();
      Arg arg{*d, a->getInteger("align").value_or(d->size), {}};
      if (arg.align <= 0 || !llvm::isPowerOf2_64(arg.align))
        return fail(what + " alignment must be a power of two");
      for (const json::Value &s : *shape) {
        if (std::optional<int64_t> size = s.getAsInteger(); size && *size >= 0)
          arg.shape.push_back(*size);
        else if (s.getAsString() == "?")
          arg.shape.push_back(std::nullopt);
        else
          return fail(what + " shape entries must be sizes or \"?\"");
      }
      shapes.push_back(arg.shape);
      fn.args.push_back(std::move(arg));
    }
    argShapes = std::move(shapes);
    translator.emplace(argShapes, emitError);
    return success();
  }

  LogicalResult readBuffers(const json::Object &obj, Function &fn) {
    const json::Array *buffers = array(obj, "buffers");
    if (!buffers)
      return failure();
    for (auto [i, v] : llvm::enumerate(*buffers)) {
      std::string what = "buffer " + std::to_string(i);
      const json::Object *b = v.getAsObject();
      std::optional<int64_t> id = b ? b->getInteger("id") : std::nullopt;
      std::optional<StringRef> kind = b ? b->getString("kind") : std::nullopt;
      if (!id || !kind)
        return fail(what + " needs an integer 'id' and a 'kind'");
      if (!bufferIndex.try_emplace(*id, fn.buffers.size()).second)
        return fail("duplicate buffer id " + Twine(*id));
      Buffer buf;
      buf.var = "buf" + std::to_string(i);
      if (*kind == "arg") {
        std::optional<int64_t> arg = b->getInteger("arg");
        if (!arg || *arg < 0 || *arg >= static_cast<int64_t>(fn.args.size()))
          return fail(what + " refers to a missing argument");
        buf.arg = *arg;
        buf.dtype = fn.args[*arg].dtype;
        buf.align = fn.args[*arg].align;
        for (size_t k = 0; k < fn.args[*arg].shape.size(); ++k)
          buf.shape.push_back(*translator->dim(*arg, k));
      } else if (*kind == "alloc") {
        FailureOr<DType> d = dtype(*b, what);
        const json::Array *shape = b->getArray("shape");
        if (failed(d))
          return failure();
        if (!shape)
          return fail(what + " has no 'shape' array");
        buf.dtype = *d;
        buf.align = b->getInteger("align").value_or(d->size);
        if (buf.align <= 0 || !llvm::isPowerOf2_64(buf.align))
          return fail(what + " alignment must be a power of two");
        for (auto [k, s] : llvm::enumerate(*shape)) {
          FailureOr<Term> t = expr(&s, what + " shape[" + Twine(k) + "]");
          if (failed(t))
            return failure();
          buf.shape.push_back(std::move(*t));
          buf.shapeJson.push_back(describe(s));
        }
      } else {
        return fail(what + " has unknown kind '" + *kind + "'");
      }
      // The element count guards null pointers and sizes allocations.
      buf.numel = constantTerm(1);
      for (const Term &t : buf.shape) {
        FailureOr<Term> n =
            translator->apply("mul", buf.numel, t, where + " " + what);
        if (failed(n))
          return failure();
        buf.numel = std::move(*n);
      }
      fn.buffers.push_back(std::move(buf));
    }
    return success();
  }

  FailureOr<unsigned> bufferRef(const json::Object &obj, const Twine &what) {
    std::optional<int64_t> id = obj.getInteger("buffer");
    auto it = id ? bufferIndex.find(*id) : bufferIndex.end();
    if (it == bufferIndex.end())
      return fail(what + " refers to a missing buffer");
    return it->second;
  }

  LogicalResult readResults(const json::Object &obj, Function &fn) {
    const json::Array *results = array(obj, "results");
    if (!results)
      return failure();
    for (auto [i, v] : llvm::enumerate(*results)) {
      std::string what = "result " + std::to_string(i);
      const json::Object *r = v.getAsObject();
      if (!r)
        return fail(what + " must be an object");
      FailureOr<unsigned> b = bufferRef(*r, what);
      if (failed(b))
        return failure();
      Buffer &buf = fn.buffers[*b];
      // The caller allocates results, so they must be fresh buffers.
      if (buf.arg || buf.result)
        return fail(what + " must be an 'alloc' buffer returned once");
      buf.result = i;
      fn.results.push_back(*b);
    }
    return success();
  }

  LogicalResult readChecks(const json::Object &obj, Function &fn) {
    const json::Array *checks = array(obj, "checks");
    if (!checks)
      return failure();
    for (auto [i, v] : llvm::enumerate(*checks)) {
      std::string what = "check " + std::to_string(i);
      const json::Object *c = v.getAsObject();
      if (!c)
        return fail(what + " must be an object");
      FailureOr<Term> lhs = expr(c->get("lhs"), what + " lhs");
      if (failed(lhs))
        return failure();
      FailureOr<Term> rhs = expr(c->get("rhs"), what + " rhs");
      if (failed(rhs))
        return failure();
      fn.checks.push_back(
          {*lhs, *rhs, c->getString("message").value_or("").str()});
    }
    return success();
  }

  LogicalResult readTriple(const json::Object &l, StringRef key,
                           const Twine &what, SmallVectorImpl<Term> &out) {
    const json::Array *a = l.getArray(key);
    if (!a || a->size() != 3)
      return fail(what + " '" + key + "' must hold three entries");
    for (auto [d, v] : llvm::enumerate(*a)) {
      FailureOr<Term> t = expr(&v, what + " " + key + "[" + Twine(d) + "]");
      if (failed(t))
        return failure();
      out.push_back(std::move(*t));
    }
    return success();
  }

  LogicalResult readLaunches(const json::Object &obj, Function &fn) {
    const json::Array *launches = array(obj, "launches");
    if (!launches)
      return failure();
    for (auto [i, v] : llvm::enumerate(*launches)) {
      std::string what = "launch " + std::to_string(i);
      const json::Object *l = v.getAsObject();
      std::optional<StringRef> kernel =
          l ? l->getString("kernel") : std::nullopt;
      if (!kernel)
        return fail(what + " names no kernel");
      Launch launch;
      launch.kernel = kernel->str();
      launch.kernelIndex =
          kernels.try_emplace(*kernel, kernels.size()).first->second;
      if (failed(readTriple(*l, "grid", what, launch.grid)) ||
          failed(readTriple(*l, "block", what, launch.block)))
        return failure();
      const json::Value *shared = l->get("shared_bytes");
      json::Value zero(0);
      FailureOr<Term> s = expr(shared ? shared : &zero, what + " shared_bytes");
      if (failed(s))
        return failure();
      launch.shared = *s;
      // Constants are passed to cuLaunchKernel as they are.
      constexpr int64_t maxU32 = std::numeric_limits<uint32_t>::max();
      for (auto [d, t] : llvm::enumerate(launch.grid))
        if (t.constant && (*t.constant < 0 || *t.constant > maxU32))
          return fail(what + " grid[" + Twine(d) + "] = " + Twine(*t.constant) +
                      " is out of range");
      for (auto [d, t] : llvm::enumerate(launch.block))
        if (t.constant && (*t.constant <= 0 || *t.constant > maxU32))
          return fail(what + " block[" + Twine(d) +
                      "] = " + Twine(*t.constant) + " is out of range");
      if (s->constant && (*s->constant < 0 || *s->constant > maxU32))
        return fail(what + " shared_bytes = " + Twine(*s->constant) +
                    " is out of range");
      const json::Array *args = array(*l, "args");
      if (!args)
        return failure();
      for (auto [k, a] : llvm::enumerate(*args)) {
        FailureOr<KernelArg> arg =
            readKernelArg(a, fn, what + " arg " + std::to_string(k));
        if (failed(arg))
          return failure();
        launch.args.push_back(std::move(*arg));
      }
      fn.launches.push_back(std::move(launch));
    }
    // The manifest gives results no alignment since the runtime allocates
    // them; here the caller does, and kernels taking raw pointers may use
    // 16-byte vector accesses, as the arguments' "align" says. TMA needs
    // 16-byte aligned global addresses whatever the manifest says.
    for (const Launch &launch : fn.launches)
      for (const KernelArg &arg : launch.args)
        if ((arg.kind == "ptr" && fn.buffers[arg.buffer].result) ||
            arg.kind == "tensor_map")
          fn.buffers[arg.buffer].align =
              std::max<int64_t>(fn.buffers[arg.buffer].align, 16);
    return success();
  }

  /// A TMA descriptor of a 2-D view, checked as the runtime's manifest
  /// reader does; sizes known only at call time are checked by the header.
  FailureOr<KernelArg> readTensorMap(const json::Object &a, Function &fn,
                                     const std::string &what) {
    KernelArg arg;
    arg.kind = "tensor_map";
    FailureOr<unsigned> b = bufferRef(a, what);
    if (failed(b))
      return failure();
    arg.buffer = *b;
    const DType &dtype = fn.buffers[*b].dtype;
    if (dtype.name != "f32" && dtype.name != "bf16" && dtype.name != "f16")
      return fail(what + " tensor_map needs an f32, bf16 or f16 buffer, not " +
                  dtype.name);
    const json::Array *shape = a.getArray("shape");
    if (!shape || shape->size() != 2)
      return fail(what + " tensor_map needs a 'shape' of 2 entries");
    for (auto [d, s] : llvm::enumerate(*shape)) {
      FailureOr<Term> t = expr(&s, what + " shape[" + Twine(d) + "]");
      if (failed(t))
        return failure();
      if (t->constant && (*t->constant < 1 || *t->constant > 0xffffffffLL))
        return fail(what + " shape[" + Twine(d) + "] = " + Twine(*t->constant) +
                    " is outside TMA's range 1 to 4294967295");
      arg.shape.push_back(std::move(*t));
    }
    if (arg.shape[1].constant && *arg.shape[1].constant * dtype.size % 16)
      return fail(what + " row pitch of " +
                  Twine(*arg.shape[1].constant * dtype.size) +
                  " bytes is not a multiple of 16, which TMA needs");
    const json::Array *box = a.getArray("box");
    if (!box || box->size() != 2)
      return fail(what + " tensor_map needs a 'box' of 2 integers");
    for (auto [d, v] : llvm::enumerate(*box)) {
      std::optional<int64_t> size = v.getAsInteger();
      if (!size || *size < 1 || *size > 256)
        return fail(what + " box[" + Twine(d) + "] must be 1 to 256");
      arg.box[d] = *size;
    }
    std::optional<int64_t> swizzle = a.getInteger("swizzle");
    if (!swizzle || !llvm::is_contained({0, 32, 64, 128}, *swizzle))
      return fail(what + " swizzle must be 0, 32, 64 or 128");
    arg.swizzle = *swizzle;
    // Box rows: exactly the span for 128-byte swizzling, within it for the
    // others, and whole 16-byte units always.
    int64_t rowBytes = arg.box[1] * dtype.size;
    if ((arg.swizzle == 128 && rowBytes != 128) ||
        (arg.swizzle != 0 && rowBytes > arg.swizzle) || rowBytes % 16 != 0)
      return fail(what + " box rows of " + Twine(rowBytes) +
                  " bytes do not suit swizzle " + Twine(arg.swizzle));
    return arg;
  }

  FailureOr<KernelArg> readKernelArg(const json::Value &v, Function &fn,
                                     const std::string &what) {
    const json::Object *a = v.getAsObject();
    std::optional<StringRef> kind = a ? a->getString("kind") : std::nullopt;
    if (!kind)
      return fail(what + " has no kind");
    KernelArg arg;
    if (*kind == "ptr" || *kind == "memref") {
      arg.kind = *kind == "ptr" ? "ptr" : "memref";
      FailureOr<unsigned> b = bufferRef(*a, what);
      if (failed(b))
        return failure();
      arg.buffer = *b;
      if (arg.kind == "memref") {
        const json::Array *shape = a->getArray("shape");
        if (!shape)
          return fail(what + " has no 'shape' array");
        for (auto [d, s] : llvm::enumerate(*shape)) {
          FailureOr<Term> t = expr(&s, what + " shape[" + Twine(d) + "]");
          if (failed(t))
            return failure();
          arg.shape.push_back(std::move(*t));
        }
      }
    } else if (*kind == "i64" || *kind == "i32") {
      arg.kind = *kind == "i64" ? "i64" : "i32";
      FailureOr<Term> t = expr(a->get("value"), what + " value");
      if (failed(t))
        return failure();
      arg.value = std::move(*t);
    } else if (*kind == "f32") {
      arg.kind = "f32";
      const json::Value *value = a->get("value");
      std::optional<double> f = value ? value->getAsNumber() : std::nullopt;
      if (!f)
        return fail(what + " needs a number 'value'");
      arg.f32 = *f;
    } else if (*kind == "tensor_map") {
      return readTensorMap(*a, fn, what);
    } else {
      return fail(what + " has unknown kind '" + *kind + "'");
    }
    return arg;
  }

  function_ref<InFlightDiagnostic()> emitError;
  llvm::StringMap<unsigned> &kernels;
  std::string where;
  SmallVector<ExprTranslator::Shape> argShapes;
  std::optional<ExprTranslator> translator;
  DenseMap<int64_t, unsigned> bufferIndex;
};

} // namespace

FailureOr<HeaderModel>
cheader::readManifest(const json::Object &manifest, StringRef prefix,
                      function_ref<InFlightDiagnostic()> emitError) {
  if (manifest.getString("format") != "fuser-manifest" ||
      manifest.getInteger("version") != 1)
    return emitError() << "expected a version 1 fuser manifest";
  const json::Array *functions = manifest.getArray("functions");
  if (!functions)
    return emitError() << "manifest: 'functions' must be an array";

  // 1. Read every function, so a failure emits nothing.
  llvm::StringMap<unsigned> kernels;
  std::vector<Function> fns;
  for (const json::Value &v : *functions) {
    const json::Object *obj = v.getAsObject();
    if (!obj)
      return emitError() << "manifest: a function must be an object";
    FailureOr<Function> fn =
        FunctionReader(emitError, kernels).read(*obj, prefix);
    if (failed(fn))
      return failure();
    fns.push_back(std::move(*fn));
  }
  SmallVector<std::string> kernelNames(kernels.size());
  for (auto &k : kernels) {
    // PTX identifiers may also hold '$' and '.'; nothing needs escaping.
    if (k.getKey().empty() || !llvm::all_of(k.getKey(), [](char c) {
          return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
        }))
      return emitError() << "manifest: kernel name '" << k.getKey()
                         << "' is not a PTX identifier";
    kernelNames[k.getValue()] = k.getKey().str();
  }

  // 2. Exported names must be unique after sanitizing.
  llvm::StringSet<> names;
  for (StringRef helper :
       {"ptx", "load", "unload", "kernel_names_", "context_entry_", "contexts_",
        "context_", "alloc_", "free_", "f32_from_bits_"})
    names.insert((prefix + "_" + helper).str());
  for (const Function &fn : fns) {
    SmallVector<std::string> symbols = {fn.cName};
    for (unsigned r = 0; r < fn.results.size(); ++r)
      symbols.push_back(fn.cName + "_result_shape_" + std::to_string(r));
    for (const std::string &s : symbols)
      if (!names.insert(s).second)
        return emitError() << "function '" << fn.name << "' gives the C name '"
                           << s << "', which is already used";
  }

  return HeaderModel{manifest.getString("chip").value_or("").str(),
                     std::move(fns), std::move(kernelNames)};
}
