//===- ManifestReader.cpp - JSON manifest -> ManifestModule -----*- C++ -*-===//
//
// The one reader of manifests: the runtime loads with it, the C header tests
// and the fuzzers feed it, and everything it accepts the runtime can run.
//
//===----------------------------------------------------------------------===//

#include "fuser/Manifest/Base64.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Manifest/Json.h"
#include "fuser/Manifest/Manifest.h"
#include "fuser/Manifest/TensorMapRules.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace fuser {

const FunctionSpec *ManifestModule::lookup(std::string_view name) const {
  for (const FunctionSpec &f : functions)
    if (f.name == name)
      return &f;
  return nullptr;
}

namespace {

using Kind = JsonValue::Kind;

[[noreturn]] void fail(const std::string &path, const std::string &message) {
  throw Error("invalid manifest: " + (path.empty() ? "" : path + ": ") +
              message);
}

/// Fails with `message` unless it is empty (the rules' "fine").
void failIf(const std::string &path, const std::string &message) {
  if (!message.empty())
    fail(path, message);
}

std::string join(const std::string &path, const char *key) {
  return path.empty() ? std::string(key) : path + "." + key;
}

std::string index(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

void expectKind(const JsonValue &v, Kind kind, const std::string &path) {
  bool ok = v.kind() == kind || (kind == Kind::Double && v.isNumber());
  if (!ok)
    fail(path, std::string("expected ") + JsonValue::kindName(kind) +
                   ", found " + JsonValue::kindName(v.kind()));
}

/// The required member `key` of `obj` (already known to be an object).
const JsonValue &field(const JsonValue &obj, const std::string &path,
                       const char *key) {
  const JsonValue *v = obj.find(key);
  if (!v)
    fail(path, std::string("missing required field '") + key + "'");
  return *v;
}

const JsonValue &fieldOf(const JsonValue &obj, const std::string &path,
                         const char *key, Kind kind) {
  const JsonValue &v = field(obj, path, key);
  expectKind(v, kind, join(path, key));
  return v;
}

std::string stringField(const JsonValue &obj, const std::string &path,
                        const char *key) {
  return fieldOf(obj, path, key, Kind::String).getString();
}

int64_t intField(const JsonValue &obj, const std::string &path, const char *key,
                 int64_t min) {
  int64_t v = fieldOf(obj, path, key, Kind::Int).getInt();
  if (v < min)
    fail(join(path, key), "must be at least " + std::to_string(min) +
                              ", found " + std::to_string(v));
  return v;
}

const std::vector<JsonValue> &
arrayField(const JsonValue &obj, const std::string &path, const char *key) {
  return fieldOf(obj, path, key, Kind::Array).getArray();
}

DType dtypeField(const JsonValue &obj, const std::string &path) {
  std::string name = stringField(obj, path, "dtype");
  std::optional<DType> dtype = dtypeFromString(name);
  if (!dtype)
    fail(join(path, "dtype"), "unknown dtype '" + name + "' (expected one of " +
                                  supportedDTypeNames() + ")");
  return *dtype;
}

/// Optional power-of-two byte alignment; `fallback` when absent.
int64_t alignField(const JsonValue &obj, const std::string &path,
                   int64_t fallback) {
  if (!obj.find("align"))
    return fallback;
  int64_t align = intField(obj, path, "align", 1);
  if ((align & (align - 1)) != 0)
    fail(join(path, "align"),
         "must be a power of two, found " + std::to_string(align));
  return align;
}

/// An expression given as a JSON integer or string.
Expr exprValue(const JsonValue &v, const std::string &path) {
  if (v.isInt())
    return Expr::constant(v.getInt());
  if (!v.isString())
    fail(path, std::string("expected an integer or an expression string, "
                           "found ") +
                   JsonValue::kindName(v.kind()));
  try {
    return parseExpr(v.getString());
  } catch (const Error &e) {
    fail(path, e.what());
  }
}

std::vector<Expr> exprArray(const JsonValue &obj, const std::string &path,
                            const char *key) {
  std::vector<Expr> exprs;
  const auto &elements = arrayField(obj, path, key);
  std::string p = join(path, key);
  for (size_t i = 0; i < elements.size(); ++i)
    exprs.push_back(exprValue(elements[i], index(p, i)));
  return exprs;
}

std::array<Expr, 3> expr3(const JsonValue &obj, const std::string &path,
                          const char *key) {
  std::vector<Expr> exprs = exprArray(obj, path, key);
  if (exprs.size() != 3)
    fail(join(path, key),
         "expected 3 entries (x, y, z), found " + std::to_string(exprs.size()));
  return {exprs[0], exprs[1], exprs[2]};
}

std::string formatDouble(double d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", d);
  return buf;
}

/// Parses one function; cross references are checked as they are read.
class FunctionReader {
public:
  FunctionReader(const JsonValue &json, std::string path)
      : json(json), path(std::move(path)) {}

  FunctionSpec read() {
    expectKind(json, Kind::Object, path);
    fn.name = stringField(json, path, "name");
    if (fn.name.empty())
      fail(join(path, "name"), "must not be empty");
    readArgs();
    readBuffers();
    readResults();
    readChecks();
    readLaunches();
    return std::move(fn);
  }

private:
  const JsonValue &json;
  std::string path;
  FunctionSpec fn;
  std::map<int64_t, int64_t> bufferIndexById;

  /// Rejects dim() references to missing arguments or dimensions.
  void checkDims(const Expr &e, const std::string &p) {
    e.forEachDim([&](int64_t arg, int64_t d) {
      if (arg >= static_cast<int64_t>(fn.args.size()))
        fail(p, "dim(" + std::to_string(arg) + "," + std::to_string(d) +
                    ") refers to argument " + std::to_string(arg) + ", but '" +
                    fn.name + "' has " + std::to_string(fn.args.size()) +
                    " arguments");
      if (d >= fn.args[arg].rank())
        fail(p, "dim(" + std::to_string(arg) + "," + std::to_string(d) +
                    ") refers to dimension " + std::to_string(d) +
                    " of argument " + std::to_string(arg) +
                    ", which has rank " + std::to_string(fn.args[arg].rank()));
    });
  }

  Expr checkedExpr(const JsonValue &v, const std::string &p) {
    Expr e = exprValue(v, p);
    checkDims(e, p);
    return e;
  }

  std::vector<Expr> checkedExprArray(const JsonValue &obj, const std::string &p,
                                     const char *key) {
    std::vector<Expr> exprs = exprArray(obj, p, key);
    for (size_t i = 0; i < exprs.size(); ++i)
      checkDims(exprs[i], index(join(p, key), i));
    return exprs;
  }

  /// Resolves a buffer id to its index in fn.buffers.
  int64_t bufferRef(const JsonValue &obj, const std::string &p) {
    int64_t id = intField(obj, p, "buffer", 0);
    auto it = bufferIndexById.find(id);
    if (it == bufferIndexById.end())
      fail(join(p, "buffer"), "unknown buffer id " + std::to_string(id));
    return it->second;
  }

  void readArgs() {
    const auto &args = arrayField(json, path, "args");
    for (size_t i = 0; i < args.size(); ++i) {
      std::string p = index(join(path, "args"), i);
      expectKind(args[i], Kind::Object, p);
      ArgSpec arg;
      arg.name = args[i].find("name") ? stringField(args[i], p, "name")
                                      : "arg" + std::to_string(i);
      arg.dtype = dtypeField(args[i], p);
      const auto &shape = arrayField(args[i], p, "shape");
      for (size_t d = 0; d < shape.size(); ++d) {
        std::string dp = index(join(p, "shape"), d);
        if (shape[d].isString() && shape[d].getString() == "?") {
          arg.shape.push_back(ArgSpec::kDynamic);
        } else if (shape[d].isInt() && shape[d].getInt() >= 0) {
          arg.shape.push_back(shape[d].getInt());
        } else {
          fail(dp, "expected a non-negative integer or \"?\"");
        }
      }
      arg.align = alignField(args[i], p, dtypeSize(arg.dtype));
      fn.args.push_back(std::move(arg));
    }
  }

  void readBuffers() {
    const auto &buffers = arrayField(json, path, "buffers");
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::string p = index(join(path, "buffers"), i);
      expectKind(buffers[i], Kind::Object, p);
      BufferSpec buf;
      buf.id = intField(buffers[i], p, "id", 0);
      if (!bufferIndexById.emplace(buf.id, i).second)
        fail(join(p, "id"), "duplicate buffer id " + std::to_string(buf.id));
      std::string kind = stringField(buffers[i], p, "kind");
      if (kind == "arg") {
        buf.kind = BufferSpec::Kind::Arg;
        buf.arg = intField(buffers[i], p, "arg", 0);
        if (buf.arg >= static_cast<int64_t>(fn.args.size()))
          fail(join(p, "arg"), "argument index " + std::to_string(buf.arg) +
                                   " is out of range ('" + fn.name + "' has " +
                                   std::to_string(fn.args.size()) +
                                   " arguments)");
        buf.dtype = fn.args[buf.arg].dtype;
        buf.align = fn.args[buf.arg].align;
      } else if (kind == "alloc") {
        buf.kind = BufferSpec::Kind::Alloc;
        buf.dtype = dtypeField(buffers[i], p);
        buf.shape = checkedExprArray(buffers[i], p, "shape");
        for (size_t d = 0; d < buf.shape.size(); ++d)
          if (buf.shape[d].isConstant() && buf.shape[d].constantValue() < 0)
            fail(index(join(p, "shape"), d), "size must not be negative");
        buf.align = alignField(buffers[i], p, dtypeSize(buf.dtype));
      } else if (kind == "constant") {
        readConstant(buffers[i], p, buf);
      } else {
        fail(join(p, "kind"), "unknown buffer kind '" + kind +
                                  "' (expected 'arg', 'alloc' or 'constant')");
      }
      fn.buffers.push_back(std::move(buf));
    }
  }

  /// Data the module carries: a static shape and its bytes, row-major.
  void readConstant(const JsonValue &obj, const std::string &p,
                    BufferSpec &buf) {
    buf.kind = BufferSpec::Kind::Constant;
    buf.dtype = dtypeField(obj, p);
    const auto &shape = arrayField(obj, p, "shape");
    int64_t numel = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      std::string dp = index(join(p, "shape"), d);
      expectKind(shape[d], Kind::Int, dp);
      int64_t size = shape[d].getInt();
      if (size < 0 || __builtin_mul_overflow(numel, size, &numel))
        fail(dp, "constant sizes must be non-negative and their product "
                 "must fit in 64 bits");
      buf.shape.push_back(Expr::constant(size));
    }
    std::optional<std::string> bytes =
        decodeBase64(stringField(obj, p, "data"));
    if (!bytes)
      fail(join(p, "data"), "is not valid base64");
    int64_t expected = 0;
    if (__builtin_mul_overflow(numel, dtypeSize(buf.dtype), &expected) ||
        static_cast<int64_t>(bytes->size()) != expected)
      fail(join(p, "data"), "holds " + std::to_string(bytes->size()) +
                                " bytes, but " + std::to_string(numel) + " " +
                                dtypeName(buf.dtype) + " elements need " +
                                std::to_string(expected));
    buf.data = std::move(*bytes);
    buf.align = alignField(obj, p, dtypeSize(buf.dtype));
  }

  void readResults() {
    const auto &results = arrayField(json, path, "results");
    for (size_t i = 0; i < results.size(); ++i) {
      std::string p = index(join(path, "results"), i);
      expectKind(results[i], Kind::Object, p);
      int64_t b = bufferRef(results[i], p);
      BufferSpec &buf = fn.buffers[b];
      if (buf.kind != BufferSpec::Kind::Alloc)
        fail(join(p, "buffer"),
             "buffer " + std::to_string(buf.id) + " is " +
                 (buf.kind == BufferSpec::Kind::Arg ? "an argument"
                                                    : "a constant") +
                 "; results must be 'alloc' buffers");
      if (buf.isResult)
        fail(join(p, "buffer"),
             "buffer " + std::to_string(buf.id) + " is returned twice");
      buf.isResult = true;
      fn.results.push_back(b);
    }
  }

  void readChecks() {
    const JsonValue *checks = json.find("checks");
    if (!checks)
      return;
    std::string cp = join(path, "checks");
    expectKind(*checks, Kind::Array, cp);
    for (size_t i = 0; i < checks->getArray().size(); ++i) {
      const JsonValue &c = checks->getArray()[i];
      std::string p = index(cp, i);
      expectKind(c, Kind::Object, p);
      CheckSpec check;
      check.lhs = checkedExpr(field(c, p, "lhs"), join(p, "lhs"));
      check.rhs = checkedExpr(field(c, p, "rhs"), join(p, "rhs"));
      if (c.find("message"))
        check.message = stringField(c, p, "message");
      fn.checks.push_back(std::move(check));
    }
  }

  static float f32Value(const JsonValue &v, const std::string &p) {
    if (v.isNumber()) {
      double d = v.getNumber();
      if (std::fabs(d) > std::numeric_limits<float>::max())
        fail(p, "value " + formatDouble(d) + " does not fit in f32");
      return static_cast<float>(d);
    }
    // JSON has no literals for these, so they come as strings.
    if (v.isString()) {
      const std::string &s = v.getString();
      if (s == "inf")
        return std::numeric_limits<float>::infinity();
      if (s == "-inf")
        return -std::numeric_limits<float>::infinity();
      if (s == "nan")
        return std::numeric_limits<float>::quiet_NaN();
    }
    fail(p, "expected a number or one of \"inf\", \"-inf\", \"nan\"");
  }

  KernelArgSpec readKernelArg(const JsonValue &a, const std::string &p) {
    expectKind(a, Kind::Object, p);
    KernelArgSpec arg;
    std::string kind = stringField(a, p, "kind");
    if (kind == "ptr") {
      arg.kind = KernelArgSpec::Kind::Ptr;
      arg.buffer = bufferRef(a, p);
    } else if (kind == "i64" || kind == "i32") {
      arg.kind =
          kind == "i64" ? KernelArgSpec::Kind::I64 : KernelArgSpec::Kind::I32;
      arg.value = checkedExpr(field(a, p, "value"), join(p, "value"));
    } else if (kind == "f32") {
      arg.kind = KernelArgSpec::Kind::F32;
      arg.f32 = f32Value(field(a, p, "value"), join(p, "value"));
    } else if (kind == "memref") {
      arg.kind = KernelArgSpec::Kind::Memref;
      arg.buffer = bufferRef(a, p);
      arg.shape = checkedExprArray(a, p, "shape");
    } else if (kind == "tensor_map") {
      arg.kind = KernelArgSpec::Kind::TensorMap;
      arg.buffer = bufferRef(a, p);
      readTensorMap(a, p, arg);
    } else {
      fail(join(p, "kind"),
           "unknown kernel argument kind '" + kind +
               "' (expected ptr, i64, i32, f32, memref or tensor_map)");
    }
    return arg;
  }

  /// A TMA descriptor of a 2-D view. What cuTensorMapEncodeTiled would
  /// reject regardless of the call's sizes is rejected here.
  void readTensorMap(const JsonValue &a, const std::string &p,
                     KernelArgSpec &arg) {
    DType dtype = fn.buffers[arg.buffer].dtype;
    if (!isTensorMapDType(dtype))
      fail(join(p, "buffer"),
           "tensor_map needs an f32, bf16 or f16 buffer, but buffer " +
               std::to_string(fn.buffers[arg.buffer].id) + " has dtype " +
               dtypeName(dtype));

    arg.shape = checkedExprArray(a, p, "shape");
    std::string sp = join(p, "shape");
    if (arg.shape.size() != 2)
      fail(sp, "expected 2 entries (rows, cols), found " +
                   std::to_string(arg.shape.size()));
    for (size_t d = 0; d < 2; ++d)
      if (arg.shape[d].isConstant())
        failIf(index(sp, d), tensorMapSizeError(arg.shape[d].constantValue()));
    if (arg.shape[1].isConstant())
      failIf(index(sp, 1),
             tensorMapPitchError(dtype, arg.shape[1].constantValue()));

    const auto &box = arrayField(a, p, "box");
    std::string bp = join(p, "box");
    if (box.size() != 2)
      fail(bp, "expected 2 entries (rows, cols), found " +
                   std::to_string(box.size()));
    for (size_t d = 0; d < 2; ++d) {
      expectKind(box[d], Kind::Int, index(bp, d));
      failIf(index(bp, d), tensorMapBoxSizeError(box[d].getInt()));
      arg.box[d] = static_cast<uint32_t>(box[d].getInt());
    }

    arg.swizzle = intField(a, p, "swizzle", 0);
    failIf(join(p, "swizzle"), tensorMapSwizzleError(arg.swizzle));
    failIf(bp, tensorMapBoxRowError(dtype, arg.box[1], arg.swizzle));
  }

  void readLaunches() {
    const auto &launches = arrayField(json, path, "launches");
    for (size_t i = 0; i < launches.size(); ++i) {
      std::string p = index(join(path, "launches"), i);
      const JsonValue &l = launches[i];
      expectKind(l, Kind::Object, p);
      LaunchSpec launch;
      launch.kernel = stringField(l, p, "kernel");
      if (launch.kernel.empty())
        fail(join(p, "kernel"), "must not be empty");
      launch.grid = expr3(l, p, "grid");
      launch.block = expr3(l, p, "block");
      for (int d = 0; d < 3; ++d) {
        checkDims(launch.grid[d], index(join(p, "grid"), d));
        checkDims(launch.block[d], index(join(p, "block"), d));
      }
      if (l.find("shared_bytes"))
        launch.sharedBytes = intField(l, p, "shared_bytes", 0);
      const auto &args = arrayField(l, p, "args");
      for (size_t a = 0; a < args.size(); ++a)
        launch.args.push_back(
            readKernelArg(args[a], index(join(p, "args"), a)));
      fn.launches.push_back(std::move(launch));
    }
  }
};

} // namespace

ManifestModule parseManifest(std::string_view json) {
  JsonValue root;
  try {
    root = parseJson(json);
  } catch (const Error &e) {
    fail("", e.what());
  }
  expectKind(root, Kind::Object, "(top level)");

  ManifestModule module;
  module.format = stringField(root, "", "format");
  if (module.format != "fuser-manifest")
    fail("format",
         "expected \"fuser-manifest\", found \"" + module.format + "\"");
  module.version = intField(root, "", "version", 0);
  if (module.version < 1 || module.version > kManifestVersion)
    fail("version", "unsupported manifest version " +
                        std::to_string(module.version) +
                        " (this fuser reads versions 1 to " +
                        std::to_string(kManifestVersion) +
                        "; a newer fuser wrote it)");
  if (root.find("chip"))
    module.chip = stringField(root, "", "chip");

  std::set<std::string> names;
  const auto &functions = arrayField(root, "", "functions");
  for (size_t i = 0; i < functions.size(); ++i) {
    FunctionSpec fn =
        FunctionReader(functions[i], index("functions", i)).read();
    if (!names.insert(fn.name).second)
      fail(index("functions", i) + ".name",
           "duplicate function name '" + fn.name + "'");
    module.functions.push_back(std::move(fn));
  }
  return module;
}

} // namespace fuser
