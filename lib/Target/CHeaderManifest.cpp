//===- CHeaderManifest.cpp - the manifest model, for the header -*- C++ -*-===//
//
// Translates the manifest model (fuser/Manifest/Manifest.h) into the
// HeaderModel the emitter writes from: expressions become C, buffers get
// their launcher locals. The model is already a valid manifest (the one
// reader checked it, or the compiler built it); what is checked here is
// only what the header needs beyond that, so a manifest the header cannot
// express fails before any output.
//
//===----------------------------------------------------------------------===//

#include "CHeaderInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::cheader;
using ::fuser::BufferSpec;
using ::fuser::Expr;
using ::fuser::FunctionSpec;
using ::fuser::KernelArgSpec;

/// Symbol names may hold characters C identifiers cannot.
static std::string sanitize(StringRef name) {
  std::string s;
  for (char c : name)
    s += llvm::isAlnum(c) || c == '_' ? c : '_';
  return s;
}

namespace {

/// Translates one function of the manifest.
class FunctionTranslator {
public:
  FunctionTranslator(function_ref<InFlightDiagnostic()> emitError,
                     llvm::StringMap<unsigned> &kernels,
                     std::vector<std::string> &constants)
      : emitError(emitError), kernels(kernels), constants(constants) {}

  FailureOr<Function> translate(const FunctionSpec &spec, StringRef prefix) {
    Function fn;
    fn.name = spec.name;
    fn.cName = (prefix + "_" + sanitize(spec.name)).str();
    where = "function '" + fn.name + "'";
    for (const ::fuser::ArgSpec &a : spec.args) {
      Arg arg{DType(a.dtype), a.align, {}};
      for (int64_t d : a.shape)
        arg.shape.push_back(d == ::fuser::ArgSpec::kDynamic
                                ? std::nullopt
                                : std::optional<int64_t>(d));
      argShapes.push_back(arg.shape);
      fn.args.push_back(std::move(arg));
    }
    translator.emplace(argShapes, emitError);
    if (failed(translateBuffers(spec, fn)) ||
        failed(translateChecks(spec, fn)) ||
        failed(translateLaunches(spec, fn)))
      return failure();
    return fn;
  }

private:
  LogicalResult fail(const Twine &message) {
    emitError() << "manifest: " << where << ": " << message;
    return failure();
  }

  FailureOr<Term> expr(const Expr &e, const Twine &what) {
    return translator->translate(e, where + " " + what);
  }

  LogicalResult translateBuffers(const FunctionSpec &spec, Function &fn) {
    for (auto [i, b] : llvm::enumerate(spec.buffers)) {
      std::string what = "buffer " + std::to_string(b.id);
      Buffer buf;
      buf.var = "buf" + std::to_string(i);
      buf.dtype = DType(b.dtype);
      buf.align = b.align;
      if (b.kind == BufferSpec::Kind::Arg) {
        buf.arg = b.arg;
        buf.align = spec.args[b.arg].align;
        for (size_t k = 0; k < spec.args[b.arg].shape.size(); ++k)
          buf.shape.push_back(*translator->dim(b.arg, k));
      } else {
        if (b.kind == BufferSpec::Kind::Constant) {
          buf.constant = constants.size();
          constants.push_back(b.data);
        }
        for (auto [k, e] : llvm::enumerate(b.shape)) {
          FailureOr<Term> t = expr(e, what + " shape[" + Twine(k) + "]");
          if (failed(t))
            return failure();
          buf.shape.push_back(std::move(*t));
          buf.shapeText.push_back(e.toString());
        }
      }
      // The element count guards null pointers and sizes allocations.
      buf.numel = constantTerm(1);
      for (const Term &t : buf.shape) {
        FailureOr<Term> n = translator->apply(Expr::Kind::Mul, buf.numel, t,
                                              where + " " + what);
        if (failed(n))
          return failure();
        buf.numel = std::move(*n);
      }
      fn.buffers.push_back(std::move(buf));
    }
    for (auto [r, b] : llvm::enumerate(spec.results)) {
      fn.buffers[b].result = r;
      fn.results.push_back(b);
    }
    return success();
  }

  LogicalResult translateChecks(const FunctionSpec &spec, Function &fn) {
    for (auto [i, c] : llvm::enumerate(spec.checks)) {
      std::string what = "check " + std::to_string(i);
      FailureOr<Term> lhs = expr(c.lhs, what + " lhs");
      if (failed(lhs))
        return failure();
      FailureOr<Term> rhs = expr(c.rhs, what + " rhs");
      if (failed(rhs))
        return failure();
      fn.checks.push_back({*lhs, *rhs, c.message});
    }
    return success();
  }

  LogicalResult translateLaunches(const FunctionSpec &spec, Function &fn) {
    for (auto [i, l] : llvm::enumerate(spec.launches)) {
      std::string what = "launch " + std::to_string(i);
      Launch launch;
      launch.kernel = l.kernel;
      launch.kernelIndex =
          kernels.try_emplace(l.kernel, kernels.size()).first->second;
      for (int d = 0; d < 3; ++d) {
        FailureOr<Term> g = expr(l.grid[d], what + " grid[" + Twine(d) + "]");
        FailureOr<Term> b =
            expr(l.block[d], what + " block[" + Twine(d) + "]");
        if (failed(g) || failed(b))
          return failure();
        launch.grid.push_back(std::move(*g));
        launch.block.push_back(std::move(*b));
      }
      launch.shared = constantTerm(l.sharedBytes);
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
      if (l.sharedBytes > maxU32)
        return fail(what + " shared_bytes = " + Twine(l.sharedBytes) +
                    " is out of range");
      for (auto [k, a] : llvm::enumerate(l.args)) {
        FailureOr<KernelArg> arg =
            translateKernelArg(a, what + " arg " + std::to_string(k));
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
        if ((arg.kind == KernelArgSpec::Kind::Ptr &&
             fn.buffers[arg.buffer].result) ||
            arg.kind == KernelArgSpec::Kind::TensorMap)
          fn.buffers[arg.buffer].align =
              std::max<int64_t>(fn.buffers[arg.buffer].align, 16);
    return success();
  }

  FailureOr<KernelArg> translateKernelArg(const KernelArgSpec &a,
                                          const std::string &what) {
    KernelArg arg;
    arg.kind = a.kind;
    arg.buffer = static_cast<unsigned>(a.buffer);
    arg.f32 = a.f32;
    arg.box[0] = a.box[0];
    arg.box[1] = a.box[1];
    arg.swizzle = a.swizzle;
    if (a.kind == KernelArgSpec::Kind::I64 ||
        a.kind == KernelArgSpec::Kind::I32) {
      FailureOr<Term> t = expr(a.value, what + " value");
      if (failed(t))
        return failure();
      arg.value = std::move(*t);
    }
    for (auto [d, e] : llvm::enumerate(a.shape)) {
      FailureOr<Term> t = expr(e, what + " shape[" + Twine(d) + "]");
      if (failed(t))
        return failure();
      arg.shape.push_back(std::move(*t));
    }
    return arg;
  }

  function_ref<InFlightDiagnostic()> emitError;
  llvm::StringMap<unsigned> &kernels;
  std::vector<std::string> &constants;
  std::string where;
  SmallVector<ExprTranslator::Shape> argShapes;
  std::optional<ExprTranslator> translator;
};

} // namespace

FailureOr<HeaderModel>
cheader::buildHeaderModel(const ::fuser::ManifestModule &manifest,
                          StringRef prefix,
                          function_ref<InFlightDiagnostic()> emitError) {
  // 1. Translate every function, so a failure emits nothing.
  llvm::StringMap<unsigned> kernels;
  std::vector<std::string> constants;
  std::vector<Function> fns;
  for (const FunctionSpec &spec : manifest.functions) {
    FailureOr<Function> fn = FunctionTranslator(emitError, kernels, constants)
                                 .translate(spec, prefix);
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
        "context_", "alloc_", "free_", "f32_from_bits_", "constants_",
        "constant_sizes_"})
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

  return HeaderModel{manifest.chip, std::move(fns), std::move(kernelNames),
                     std::move(constants)};
}
