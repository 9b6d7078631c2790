//===- CHeader.cpp - embeddable C header emission ---------------*- C++ -*-===//
//
// Turns a kernel manifest and its PTX into one header that C and C++
// programs include to run the entry functions with nothing but the CUDA
// driver API. The manifest's integer expressions become C expressions over
// the int64_t sizes the launcher receives, so the header does statically
// what the runtime's interpreter does on every call.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/CHeader.h"

#include "fuser/Target/KernelImage.h"
#include "fuser/Target/Manifest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::fuser;
namespace json = llvm::json;

namespace {

/// How a manifest dtype is stored in C.
struct DType {
  StringRef name;  ///< the manifest spelling, e.g. "f32"
  StringRef cType; ///< e.g. "float"
  int64_t size;    ///< bytes per element
};

/// An integer expression translated to C: folded to a constant where
/// possible, else C text of type int64_t that is fully parenthesized.
struct Term {
  std::optional<int64_t> constant;
  std::string text;
  /// Provably >= 0 given non-negative sizes; other sizes get a runtime check.
  bool nonNegative = true;
  /// The (argument, dimension) pairs the text reads, sorted and unique.
  SmallVector<std::pair<int64_t, int64_t>, 2> dims;
};

} // namespace

/// The launcher parameter holding the dynamic size `d` of argument `arg`.
static std::string dimParam(int64_t arg, int64_t d) {
  return "arg" + std::to_string(arg) + "_dim" + std::to_string(d);
}

static std::string formatInt(int64_t v) {
  // -9223372036854775808 is unary minus applied to a literal too large for
  // any signed type.
  if (v == std::numeric_limits<int64_t>::min())
    return "(-9223372036854775807 - 1)";
  if (v < 0)
    return "(" + std::to_string(v) + ")";
  return std::to_string(v);
}

static Term constantTerm(int64_t v) {
  Term t;
  t.constant = v;
  t.text = formatInt(v);
  t.nonNegative = v >= 0;
  return t;
}

/// A float literal that reads back as the same float, or a bit pattern for
/// infinities and NaNs, which C has no portable literal for.
static std::string formatFloat(double value, StringRef prefix) {
  float f = static_cast<float>(value);
  if (!std::isfinite(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%08xu", bits);
    return (prefix + "_f32_from_bits_(" + buf + ")").str();
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", f);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

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

static bool isIdentifier(StringRef s) {
  if (s.empty() || llvm::isDigit(s.front()))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Symbol names may hold characters C identifiers cannot.
static std::string sanitize(StringRef name) {
  std::string s;
  for (char c : name)
    s += llvm::isAlnum(c) || c == '_' ? c : '_';
  return s;
}

/// Text safe inside a /* */ comment.
static std::string commentSafe(StringRef text) {
  std::string s;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n' || c == '\r')
      c = ' ';
    s += c;
    if ((c == '*' && i + 1 < text.size() && text[i + 1] == '/') ||
        (c == '/' && i + 1 < text.size() && text[i + 1] == '*'))
      s += ' ';
  }
  return s;
}

/// One character of a C string literal. '?' is escaped because C99 reads
/// "??x" as a trigraph; other bytes outside printable ASCII use three-digit
/// octal escapes, which never absorb the following character.
static void appendEscaped(std::string &out, unsigned char c) {
  switch (c) {
  case '\\':
    out += "\\\\";
    return;
  case '"':
    out += "\\\"";
    return;
  case '?':
    out += "\\?";
    return;
  case '\n':
    out += "\\n";
    return;
  case '\t':
    out += "\\t";
    return;
  default:
    break;
  }
  if (c >= 0x20 && c < 0x7f) {
    out += static_cast<char>(c);
    return;
  }
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\%03o", c);
  out += buf;
}

/// An expression as the manifest spells it, for the header's comments.
static std::string describe(const json::Value &v) {
  if (std::optional<int64_t> i = v.getAsInteger())
    return std::to_string(*i);
  if (std::optional<StringRef> s = v.getAsString())
    return s->str();
  return "?";
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {

/// Translates manifest expressions into C over the launcher's parameters.
class ExprTranslator {
public:
  using Shape = SmallVector<std::optional<int64_t>>;

  ExprTranslator(ArrayRef<Shape> argShapes,
                 function_ref<InFlightDiagnostic()> emitError)
      : argShapes(argShapes), emitError(emitError) {}

  /// Translates a JSON integer or expression string; `where` names it in
  /// diagnostics.
  FailureOr<Term> translate(const json::Value *value, const Twine &where) {
    if (!value) {
      emitError() << "manifest: " << where << " is missing";
      return failure();
    }
    if (std::optional<int64_t> i = value->getAsInteger())
      return constantTerm(*i);
    std::optional<StringRef> s = value->getAsString();
    if (!s) {
      emitError() << "manifest: " << where
                  << " must be an integer or an expression string";
      return failure();
    }
    text = *s;
    pos = 0;
    context = where.str();
    FailureOr<Term> t = parseExpr();
    if (failed(t))
      return failure();
    skipSpace();
    if (pos != text.size())
      return fail("unexpected trailing characters");
    return t;
  }

  /// The size `d` of argument `arg`: a literal when static.
  FailureOr<Term> dim(int64_t arg, int64_t d) {
    if (arg < 0 || arg >= static_cast<int64_t>(argShapes.size()))
      return fail("dim(" + Twine(arg) + "," + Twine(d) +
                  ") refers to a missing argument");
    const Shape &shape = argShapes[arg];
    if (d < 0 || d >= static_cast<int64_t>(shape.size()))
      return fail("dim(" + Twine(arg) + "," + Twine(d) +
                  ") is out of the argument's rank " + Twine(shape.size()));
    if (shape[d])
      return constantTerm(*shape[d]);
    Term t;
    t.text = dimParam(arg, d);
    t.dims.push_back({arg, d});
    return t;
  }

  /// `op(a, b)` for the manifest operators, folding constants with the
  /// runtime's semantics and simplifying identities.
  FailureOr<Term> apply(StringRef op, const Term &a, const Term &b,
                        const Twine &where) {
    context = where.str();
    text = "";
    return apply(op, a, b);
  }

private:
  FailureOr<Term> apply(StringRef op, const Term &a, const Term &b) {
    if (a.constant && b.constant)
      return fold(op, *a.constant, *b.constant);
    // C division truncates: it is the floor only for positive divisors.
    if ((op == "floordiv" || op == "ceildiv" || op == "rem") && b.constant &&
        *b.constant <= 0)
      return fail(op + " by " + Twine(*b.constant) +
                  " (the header divides by positive constants only)");
    if (op == "mul" || op == "add") {
      int64_t identity = op == "mul" ? 1 : 0;
      if (a.constant == identity)
        return b;
      if (b.constant == identity)
        return a;
    }
    Term t;
    const std::string &x = a.text, &y = b.text;
    bool bothNonNegative = a.nonNegative && b.nonNegative;
    if (op == "add") {
      t.text = "(" + x + " + " + y + ")";
    } else if (op == "sub") {
      t.text = "(" + x + " - " + y + ")";
      bothNonNegative = false;
    } else if (op == "mul") {
      t.text = "(" + x + " * " + y + ")";
    } else if (op == "floordiv") {
      // Sizes are non-negative, so C's truncation is the floor.
      t.text = "(" + x + " / " + y + ")";
    } else if (op == "ceildiv") {
      t.text = "((" + x + " + " + y + " - 1) / " + y + ")";
    } else if (op == "rem") {
      t.text = "(" + x + " % " + y + ")";
    } else if (op == "min") {
      t.text = "(" + x + " < " + y + " ? " + x + " : " + y + ")";
    } else if (op == "max") {
      t.text = "(" + x + " > " + y + " ? " + x + " : " + y + ")";
    } else {
      return fail("unknown expression operator '" + op + "'");
    }
    t.nonNegative = bothNonNegative;
    t.dims = a.dims;
    t.dims.append(b.dims.begin(), b.dims.end());
    llvm::sort(t.dims);
    t.dims.erase(llvm::unique(t.dims), t.dims.end());
    return t;
  }

  FailureOr<Term> fold(StringRef op, int64_t x, int64_t y) {
    int64_t r = 0;
    bool overflow = false;
    if (op == "add") {
      overflow = llvm::AddOverflow(x, y, r);
    } else if (op == "sub") {
      overflow = llvm::SubOverflow(x, y, r);
    } else if (op == "mul") {
      overflow = llvm::MulOverflow(x, y, r);
    } else if (op == "floordiv" || op == "ceildiv" || op == "rem") {
      if (y == 0)
        return fail(op + "(" + Twine(x) + ",0) divides by zero");
      if (llvm::divideSignedWouldOverflow(x, y))
        overflow = op != "rem";
      else if (op == "floordiv")
        r = llvm::divideFloorSigned(x, y);
      else if (op == "ceildiv")
        r = llvm::divideCeilSigned(x, y);
      else
        r = x - llvm::divideFloorSigned(x, y) * y;
    } else if (op == "min") {
      r = std::min(x, y);
    } else if (op == "max") {
      r = std::max(x, y);
    } else {
      return fail("unknown expression operator '" + op + "'");
    }
    if (overflow)
      return fail(op + "(" + Twine(x) + "," + Twine(y) + ") overflows 64 bits");
    return constantTerm(r);
  }

  FailureOr<Term> fail(const Twine &message) {
    InFlightDiagnostic diag = emitError();
    diag << "manifest: " << context << ": " << message;
    if (!text.empty())
      diag << " in '" << text << "'";
    return failure();
  }

  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  /// A decimal 64-bit integer; the caller reports failures.
  std::optional<int64_t> parseInt() {
    skipSpace();
    size_t start = pos;
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    while (pos < text.size() && llvm::isDigit(text[pos]))
      ++pos;
    int64_t v;
    if (text.slice(start, pos).getAsInteger(10, v))
      return std::nullopt;
    return v;
  }

  FailureOr<Term> parseExpr() {
    skipSpace();
    if (pos < text.size() && (text[pos] == '-' || llvm::isDigit(text[pos]))) {
      size_t start = pos;
      std::optional<int64_t> v = parseInt();
      if (!v)
        return fail("expected a 64-bit integer at offset " + Twine(start));
      return constantTerm(*v);
    }
    size_t start = pos;
    while (pos < text.size() && llvm::isAlpha(text[pos]))
      ++pos;
    StringRef name = text.slice(start, pos);
    if (name.empty())
      return fail("expected an expression at offset " + Twine(start));
    if (!consume('('))
      return fail("expected '(' after '" + name + "'");
    if (name == "dim") {
      std::optional<int64_t> arg = parseInt();
      if (!arg || !consume(','))
        return fail("expected dim(ARG,DIM)");
      std::optional<int64_t> d = parseInt();
      if (!d || !consume(')'))
        return fail("expected dim(ARG,DIM)");
      return dim(*arg, *d);
    }
    static const char *const ops[] = {"add",     "sub", "mul", "floordiv",
                                      "ceildiv", "rem", "min", "max"};
    if (!llvm::is_contained(ops, name))
      return fail("unknown expression operator '" + name + "'");
    FailureOr<Term> a = parseExpr();
    if (failed(a))
      return failure();
    if (!consume(','))
      return fail("expected ',' in '" + name + "'");
    FailureOr<Term> b = parseExpr();
    if (failed(b))
      return failure();
    if (!consume(')'))
      return fail("expected ')' closing '" + name + "'");
    return apply(name, *a, *b);
  }

  ArrayRef<Shape> argShapes;
  function_ref<InFlightDiagnostic()> emitError;
  StringRef text;
  size_t pos = 0;
  std::string context;
};

//===----------------------------------------------------------------------===//
// The manifest, read into what the emitter needs
//===----------------------------------------------------------------------===//

struct Arg {
  DType dtype;
  int64_t align; ///< bytes the kernels assume for the data pointer
  ExprTranslator::Shape shape;
};

struct Buffer {
  std::optional<int64_t> arg;     ///< for `arg` buffers
  std::optional<unsigned> result; ///< for `alloc` buffers that are results
  DType dtype;
  int64_t align;
  SmallVector<Term, 4> shape;
  Term numel;
  SmallVector<std::string> shapeJson; ///< the manifest's spelling, for docs
  std::string var;                    ///< the launcher's CUdeviceptr local
};

struct KernelArg {
  StringRef kind; ///< ptr, i64, i32, f32 or memref
  unsigned buffer = 0;
  Term value;
  double f32 = 0;
  SmallVector<Term, 4> shape;
};

struct Launch {
  std::string kernel;
  unsigned kernelIndex = 0;
  SmallVector<Term, 3> grid, block;
  Term shared;
  std::vector<KernelArg> args;
};

struct Check {
  Term lhs, rhs;
  std::string message;
};

struct Function {
  std::string name;  ///< the manifest name
  std::string cName; ///< `<prefix>_<name>`
  std::vector<Arg> args;
  std::vector<Buffer> buffers;
  SmallVector<unsigned> results; ///< indices into `buffers`
  std::vector<Check> checks;
  std::vector<Launch> launches;
};

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
    // 16-byte vector accesses, as the arguments' "align" says.
    for (const Launch &launch : fn.launches)
      for (const KernelArg &arg : launch.args)
        if (arg.kind == "ptr" && fn.buffers[arg.buffer].result)
          fn.buffers[arg.buffer].align =
              std::max<int64_t>(fn.buffers[arg.buffer].align, 16);
    return success();
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

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// Writes the header. All functions of the manifest are read first, so a
/// manifest the header cannot express produces no output.
class HeaderEmitter {
public:
  HeaderEmitter(StringRef ptx, StringRef prefix, raw_ostream &os)
      : ptx(ptx), prefix(prefix), os(os) {}

  void emit(StringRef chip, ArrayRef<Function> functions,
            ArrayRef<std::string> kernelNames) {
    emitDocumentation(chip, functions);
    std::string guard = "FUSER_GENERATED_" + StringRef(prefix).upper() + "_H";
    os << "#ifndef " << guard << "\n#define " << guard << "\n\n"
       << "#include <cuda.h>\n#include <stdint.h>\n#include <string.h>\n\n"
       << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    emitPtx();
    emitModuleCache(kernelNames);
    for (const Function &fn : functions) {
      emitResultShapes(fn);
      emitLauncher(fn);
    }
    os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
       << guard << " */\n";
  }

private:
  /// The launcher's parameters after `stream`, as "type name" strings.
  SmallVector<std::string> launcherParams(const Function &fn) {
    SmallVector<std::string> params;
    for (auto [i, arg] : llvm::enumerate(fn.args))
      params.push_back("const " + arg.dtype.cType.str() + " *arg" +
                       std::to_string(i));
    for (std::string &dim : dimParams(fn))
      params.push_back("int64_t " + dim);
    for (unsigned r = 0; r < fn.results.size(); ++r)
      params.push_back(fn.buffers[fn.results[r]].dtype.cType.str() +
                       " *result" + std::to_string(r));
    return params;
  }

  SmallVector<std::string> dimParams(const Function &fn) {
    SmallVector<std::string> dims;
    for (auto [i, arg] : llvm::enumerate(fn.args))
      for (auto [d, size] : llvm::enumerate(arg.shape))
        if (!size)
          dims.push_back(dimParam(i, d));
    return dims;
  }

  static std::string join(ArrayRef<std::string> items, StringRef sep) {
    std::string s;
    for (auto [i, item] : llvm::enumerate(items))
      s += (i ? sep.str() : "") + item;
    return s;
  }

  static std::string shapeDoc(const Arg &arg) {
    SmallVector<std::string> dims;
    for (const std::optional<int64_t> &d : arg.shape)
      dims.push_back(d ? std::to_string(*d) : "?");
    return arg.dtype.name.str() + "[" + join(dims, ", ") + "]";
  }

  void emitDocumentation(StringRef chip, ArrayRef<Function> functions) {
    os << "/*===- " << prefix
       << ".h - fused GPU kernels, generated by fuser-translate -===*\n"
          " *\n"
          " * Generated by `fuser-translate --fuser-to-c-header` from a module "
          "compiled\n"
          " * by fuser for "
       << (chip.empty() ? StringRef("an NVIDIA GPU") : chip)
       << ". Do not edit; regenerate instead.\n"
          " *\n"
          " * Embeds the kernels' PTX and gives each entry function a typed "
          "launcher that\n"
          " * checks sizes, allocates intermediates and enqueues the kernels "
          "on a stream.\n"
          " * Valid C99 and C++; needs only <cuda.h>, <stdint.h>, <string.h> "
          "and libcuda\n"
          " * (link with -lcuda).\n"
          " *\n"
          " * Usage:\n"
          " *   cuInit(0), then make a context current (e.g. the primary "
          "context);\n"
          " *   size and allocate each result with the *_result_shape_<k> "
          "function;\n"
          " *   CUresult r = "
       << prefix
       << "_<function>(stream, inputs..., dynamic sizes..., results...);\n"
          " *\n"
          " * - Pointers are device pointers to dense row-major tensors; "
          "half-precision\n"
          " *   elements (f16, bf16) are passed as uint16_t. Each dynamic "
          "size (\"?\") of\n"
          " *   an input is an int64_t parameter argN_dimD, in argument "
          "order.\n"
          " * - Launches are asynchronous on `stream`; results are ready when "
          "it is.\n"
          " *   Intermediate buffers are allocated and freed in stream order.\n"
          " * - Returns CUDA_ERROR_INVALID_VALUE before enqueuing anything "
          "when sizes are\n"
          " *   negative or inconsistent, or a pointer of a non-empty tensor "
          "is null or\n"
          " *   misaligned; otherwise the first failing CUresult.\n"
          " * - The module is loaded on first use in each CUDA context "
          "(at most\n"
          " *   "
       << macroPrefix() << "_MAX_CONTEXTS). The cache is not locked: call "
       << prefix
       << "_load() once per\n"
          " *   context before launching from several threads, and "
       << prefix
       << "_unload()\n"
          " *   before destroying a context. Every translation unit has its "
          "own cache.\n"
          " *\n"
          " * Functions:\n";
    for (const Function &fn : functions) {
      os << " *   " << fn.cName << "(CUstream stream";
      for (std::string &p : launcherParams(fn))
        os << ", " << p;
      os << ")\n";
      for (auto [i, arg] : llvm::enumerate(fn.args))
        os << " *     arg" << i << ": " << shapeDoc(arg) << "\n";
      for (auto [r, b] : llvm::enumerate(fn.results)) {
        const Buffer &buf = fn.buffers[b];
        os << " *     result" << r << ": "
           << commentSafe(buf.dtype.name.str() + "[" +
                          join(buf.shapeJson, ", ") + "]")
           << "\n";
      }
    }
    if (functions.empty())
      os << " *   (none)\n";
    os << " *\n"
          " *===--------------------------------------------------------------"
          "--------===*/\n\n";
  }

  std::string macroPrefix() const { return StringRef(prefix).upper(); }

  /// The PTX as concatenated literals, one per line and never longer than
  /// 4000 characters, since some compilers (MSVC) limit a literal's length.
  void emitPtx() {
    constexpr size_t maxChunk = 3000;
    // -pedantic warns on literals longer than C99's 4095 characters.
    os << "/* The kernels, for cuModuleLoadDataEx. */\n"
       << "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
       << "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n"
       << "static const char " << prefix << "_ptx[] =";
    if (ptx.empty())
      os << " \"\"";
    std::string chunk;
    auto flush = [&] {
      os << "\n    \"" << chunk << "\"";
      chunk.clear();
    };
    for (unsigned char c : ptx) {
      std::string escaped;
      appendEscaped(escaped, c);
      if (chunk.size() + escaped.size() > maxChunk)
        flush();
      chunk += escaped;
      if (c == '\n')
        flush();
    }
    if (!chunk.empty())
      flush();
    os << ";\n#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n\n";
  }

  void emitModuleCache(ArrayRef<std::string> kernelNames) {
    std::string p = prefix.str(), m = macroPrefix();
    // C has no zero-length arrays.
    size_t n = std::max<size_t>(kernelNames.size(), 1);
    os << "#ifndef " << m << "_MAX_CONTEXTS\n#define " << m
       << "_MAX_CONTEXTS 8\n#endif\n\n";
    os << "/* The kernels' .entry names; index k is " << p
       << "_contexts_[i].functions[k]. */\n"
       << "static const char *const " << p << "_kernel_names_[" << n << "] = {";
    for (auto [i, k] : llvm::enumerate(kernelNames))
      os << (i ? "," : "") << "\n    \"" << k << "\"";
    if (kernelNames.empty())
      os << "NULL";
    os << "};\n\n";
    os << "/* The module and kernels loaded in one CUDA context. */\n"
       << "typedef struct " << p << "_context_entry_ {\n"
       << "  CUcontext context;\n  CUmodule module;\n"
       << "  CUfunction functions[" << n << "];\n} " << p
       << "_context_entry_;\n\n"
       << "static " << p << "_context_entry_ " << p << "_contexts_[" << m
       << "_MAX_CONTEXTS];\n\n";

    os << "/* The entry of the current context, loading the module and "
          "resolving every\n"
          " * kernel on first use so that later calls only read the table. "
          "*/\n"
       << "static inline CUresult " << p << "_context_(" << p
       << "_context_entry_ **out) {\n"
       << "  CUcontext ctx = NULL;\n"
       << "  " << p << "_context_entry_ *entry = NULL;\n"
       << "  CUresult err = cuCtxGetCurrent(&ctx);\n"
       << "  int i;\n"
       << "  if (err != CUDA_SUCCESS)\n    return err;\n"
       << "  if (ctx == NULL)\n    return CUDA_ERROR_INVALID_CONTEXT;\n"
       << "  for (i = 0; i < " << m << "_MAX_CONTEXTS; ++i) {\n"
       << "    if (" << p << "_contexts_[i].context == ctx) {\n"
       << "      *out = &" << p << "_contexts_[i];\n"
       << "      return CUDA_SUCCESS;\n    }\n"
       << "    if (entry == NULL && " << p << "_contexts_[i].context == NULL)\n"
       << "      entry = &" << p << "_contexts_[i];\n  }\n"
       << "  if (entry == NULL)\n    return CUDA_ERROR_OUT_OF_MEMORY;\n"
       << "  err = cuModuleLoadDataEx(&entry->module, " << p
       << "_ptx, 0, NULL, NULL);\n"
       << "  if (err != CUDA_SUCCESS)\n    return err;\n";
    if (!kernelNames.empty())
      os << "  for (i = 0; i < " << kernelNames.size() << "; ++i) {\n"
         << "    err = cuModuleGetFunction(&entry->functions[i], "
            "entry->module,\n"
         << "                              " << p << "_kernel_names_[i]);\n"
         << "    if (err != CUDA_SUCCESS) {\n"
         << "      cuModuleUnload(entry->module);\n"
         << "      entry->module = NULL;\n      return err;\n    }\n  }\n";
    os << "  /* Claimed last, so a failed load leaves the slot free. */\n"
       << "  entry->context = ctx;\n  *out = entry;\n"
       << "  return CUDA_SUCCESS;\n}\n\n";

    os << "/* Loads the module into the current context once; later calls "
          "return the\n * cached module. */\n"
       << "static inline CUresult " << p << "_load(CUmodule *out) {\n"
       << "  " << p << "_context_entry_ *entry = NULL;\n"
       << "  CUresult err = " << p << "_context_(&entry);\n"
       << "  if (err == CUDA_SUCCESS && out != NULL)\n"
       << "    *out = entry->module;\n  return err;\n}\n\n";

    os << "/* Unloads the module from the current context, if loaded. */\n"
       << "static inline CUresult " << p << "_unload(void) {\n"
       << "  CUcontext ctx = NULL;\n"
       << "  CUresult err = cuCtxGetCurrent(&ctx);\n  int i;\n"
       << "  if (err != CUDA_SUCCESS || ctx == NULL)\n    return err;\n"
       << "  for (i = 0; i < " << m << "_MAX_CONTEXTS; ++i) {\n"
       << "    if (" << p << "_contexts_[i].context == ctx) {\n"
       << "      err = cuModuleUnload(" << p << "_contexts_[i].module);\n"
       << "      memset(&" << p << "_contexts_[i], 0, sizeof(" << p
       << "_contexts_[i]));\n"
       << "      return err;\n    }\n  }\n  return CUDA_SUCCESS;\n}\n\n";

    // Stream-ordered allocation appeared in CUDA 11.2; older drivers must
    // wait for the stream before freeing.
    os << "/* Intermediate buffers, in stream order where the driver "
          "allows. */\n"
       << "static inline CUresult " << p
       << "_alloc_(CUdeviceptr *ptr, size_t bytes, CUstream stream) {\n"
       << "#if CUDA_VERSION >= 11020\n"
       << "  return cuMemAllocAsync(ptr, bytes, stream);\n#else\n"
       << "  (void)stream;\n  return cuMemAlloc(ptr, bytes);\n#endif\n}\n\n"
       << "static inline CUresult " << p
       << "_free_(CUdeviceptr ptr, CUstream stream) {\n"
       << "#if CUDA_VERSION >= 11020\n"
       << "  return cuMemFreeAsync(ptr, stream);\n#else\n"
       << "  CUresult err = cuStreamSynchronize(stream);\n"
       << "  CUresult freed = cuMemFree(ptr);\n"
       << "  return err != CUDA_SUCCESS ? err : freed;\n#endif\n}\n\n"
       << "static inline float " << p << "_f32_from_bits_(uint32_t bits) {\n"
       << "  float f;\n  memcpy(&f, &bits, sizeof(f));\n  return f;\n}\n\n";
  }

  void emitResultShapes(const Function &fn) {
    SmallVector<std::string> dims = dimParams(fn);
    for (auto [r, b] : llvm::enumerate(fn.results)) {
      const Buffer &buf = fn.buffers[b];
      os << "/* The shape of result " << r << " of " << fn.cName << " ("
         << buf.dtype.name << ", rank " << buf.shape.size()
         << "), from the dynamic input sizes. */\n"
         << "static inline void " << fn.cName << "_result_shape_" << r << "(";
      for (std::string &d : dims)
        os << "int64_t " << d << ", ";
      os << "int64_t *shape_out) {\n";
      // Silence unused-parameter warnings for sizes this shape ignores.
      llvm::StringSet<> used;
      for (const Term &t : buf.shape)
        for (auto [a, d] : t.dims)
          used.insert(dimParam(a, d));
      for (std::string &d : dims)
        if (!used.contains(d))
          os << "  (void)" << d << ";\n";
      if (buf.shape.empty())
        os << "  (void)shape_out;\n";
      for (auto [d, t] : llvm::enumerate(buf.shape))
        os << "  shape_out[" << d << "] = " << t.text << ";\n";
      os << "}\n\n";
    }
  }

  void emitLauncher(const Function &fn) {
    os << "/* Runs " << commentSafe(fn.name) << ": " << fn.launches.size()
       << " kernel launch" << (fn.launches.size() == 1 ? "" : "es")
       << " on `stream`. */\n"
       << "static inline CUresult " << fn.cName << "(CUstream stream";
    for (std::string &p : launcherParams(fn))
      os << ",\n    " << p;
    os << ") {\n  CUresult err = CUDA_SUCCESS;\n";
    bool needsEntry = !fn.launches.empty();
    if (needsEntry)
      os << "  " << prefix << "_context_entry_ *entry = NULL;\n";
    SmallVector<unsigned> intermediates;
    for (auto [i, buf] : llvm::enumerate(fn.buffers)) {
      os << "  CUdeviceptr " << buf.var << " = ";
      if (buf.arg)
        os << "(CUdeviceptr)(uintptr_t)arg" << *buf.arg << ";\n";
      else if (buf.result)
        os << "(CUdeviceptr)(uintptr_t)result" << *buf.result << ";\n";
      else {
        os << "0; /* intermediate */\n";
        intermediates.push_back(i);
      }
    }
    if (!needsEntry && intermediates.empty())
      os << "  (void)stream;\n";

    // 1. Validate sizes and pointers before touching the driver.
    SmallVector<std::string> dims = dimParams(fn);
    if (!dims.empty()) {
      os << "  /* Sizes are non-negative. */\n  if (";
      for (auto [i, d] : llvm::enumerate(dims))
        os << (i ? " || " : "") << d << " < 0";
      os << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (const Check &c : fn.checks) {
      if (c.lhs.constant && c.rhs.constant &&
          *c.lhs.constant == *c.rhs.constant)
        continue;
      os << "  /* " << commentSafe(c.message.empty() ? "size check" : c.message)
         << " */\n  if (" << c.lhs.text << " != " << c.rhs.text
         << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (const Buffer &buf : fn.buffers) {
      if (buf.arg || buf.result)
        continue;
      for (auto [d, t] : llvm::enumerate(buf.shape))
        if (!t.nonNegative)
          os << "  if (" << t.text
             << " < 0) /* a negative intermediate size */\n"
                "    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (const Buffer &buf : fn.buffers) {
      if (!buf.arg && !buf.result)
        continue;
      if (buf.result)
        for (auto [d, t] : llvm::enumerate(buf.shape))
          if (!t.nonNegative)
            os << "  if (" << t.text << " < 0) /* result" << *buf.result
               << " dim " << d
               << " */\n"
                  "    return CUDA_ERROR_INVALID_VALUE;\n";
      const Term &n = buf.numel;
      if (n.constant == 0)
        continue;
      std::string bad = buf.var + " == 0";
      if (buf.align > 1)
        bad += " || " + buf.var + " % " + std::to_string(buf.align) + " != 0";
      std::string name = buf.arg ? "arg" + std::to_string(*buf.arg)
                                 : "result" + std::to_string(*buf.result);
      os << "  /* " << name << ": non-null";
      if (buf.align > 1)
        os << ", " << buf.align << "-byte aligned";
      os << " when non-empty. */\n  if (";
      if (n.constant)
        os << bad;
      else
        os << n.text << " > 0 && (" << bad << ")";
      os << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    if (!needsEntry && intermediates.empty()) {
      os << "  return err;\n}\n\n";
      return;
    }

    // 2. Allocate, launch, and free whatever was allocated, even on failure.
    os << "  do {\n";
    if (needsEntry)
      os << "    err = " << prefix << "_context_(&entry);\n"
         << "    if (err != CUDA_SUCCESS)\n      break;\n";
    for (unsigned i : intermediates) {
      const Buffer &buf = fn.buffers[i];
      const Term &n = buf.numel;
      if (n.constant == 0)
        continue;
      std::string bytes =
          "(size_t)" + n.text + " * " + std::to_string(buf.dtype.size);
      if (!n.constant)
        os << "    if (" << n.text << " > 0) {\n  ";
      os << "    err = " << prefix << "_alloc_(&" << buf.var << ", " << bytes
         << ", stream);\n";
      if (!n.constant)
        os << "      if (err != CUDA_SUCCESS)\n        break;\n    }\n";
      else
        os << "    if (err != CUDA_SUCCESS)\n      break;\n";
    }
    for (auto [i, launch] : llvm::enumerate(fn.launches))
      emitLaunch(fn, launch, i);
    os << "  } while (0);\n";
    for (unsigned i : llvm::reverse(intermediates)) {
      const std::string &var = fn.buffers[i].var;
      os << "  if (" << var << " != 0) {\n"
         << "    CUresult freed = " << prefix << "_free_(" << var
         << ", stream);\n"
         << "    if (err == CUDA_SUCCESS)\n      err = freed;\n  }\n";
    }
    os << "  return err;\n}\n\n";
  }

  void emitLaunch(const Function &fn, const Launch &launch, size_t index) {
    os << "    { /* launch " << index << ": " << launch.kernel << " */\n";
    if (llvm::any_of(launch.grid,
                     [](const Term &g) { return g.constant == 0; })) {
      os << "      /* an empty grid: nothing to launch */\n    }\n";
      return;
    }
    // Constants go straight into cuLaunchKernel (the reader checked their
    // range); expressions get a local and a runtime range check.
    static const char *const names[] = {"grid_x",  "grid_y",  "grid_z",
                                        "block_x", "block_y", "block_z",
                                        "shared"};
    SmallVector<const Term *, 7> values;
    for (const Term &t : launch.grid)
      values.push_back(&t);
    for (const Term &t : launch.block)
      values.push_back(&t);
    values.push_back(&launch.shared);
    SmallVector<std::string, 7> launchArgs;
    SmallVector<std::string> nonEmpty, outOfRange;
    std::string ind = "      ";
    for (auto [i, t] : llvm::enumerate(values)) {
      if (t->constant) {
        launchArgs.push_back(std::to_string(*t->constant));
        continue;
      }
      os << ind << "int64_t " << names[i] << " = " << t->text << ";\n";
      launchArgs.push_back("(unsigned)" + std::string(names[i]));
      // CUDA takes unsigned 32-bit dimensions; an empty tensor gives an
      // empty grid, which CUDA rejects, so that launch is skipped.
      std::string v = names[i];
      if (i < 3)
        nonEmpty.push_back(v + " > 0");
      else if (i < 6)
        outOfRange.push_back(v + " <= 0");
      else
        outOfRange.push_back(v + " < 0");
      outOfRange.push_back(v + " > 0xffffffff");
    }
    if (!nonEmpty.empty()) {
      os << ind << "if (" << join(nonEmpty, " && ") << ") {\n";
      ind += "  ";
    }
    os << ind << "CUfunction fn = entry->functions[" << launch.kernelIndex
       << "];\n";
    // Each kernel parameter points at a local of its exact width.
    SmallVector<std::string> params;
    for (auto [k, arg] : llvm::enumerate(launch.args)) {
      std::string name = "p" + std::to_string(k);
      const Buffer &buf = fn.buffers[arg.buffer];
      if (arg.kind == "ptr") {
        params.push_back("&" + buf.var);
      } else if (arg.kind == "i64") {
        os << ind << "int64_t " << name << " = " << arg.value.text << ";\n";
        params.push_back("&" + name);
      } else if (arg.kind == "i32") {
        os << ind << "int32_t " << name << " = (int32_t)" << arg.value.text
           << ";\n";
        params.push_back("&" + name);
      } else if (arg.kind == "f32") {
        os << ind << "float " << name << " = " << formatFloat(arg.f32, prefix)
           << ";\n";
        params.push_back("&" + name);
      } else {
        // MLIR's memref descriptor: allocated and aligned pointer, offset 0,
        // sizes, then dense row-major strides.
        size_t rank = arg.shape.size();
        os << ind << "int64_t " << name << "[" << 3 + 2 * rank << "];\n"
           << ind << name << "[0] = (int64_t)" << buf.var << ";\n"
           << ind << name << "[1] = (int64_t)" << buf.var << ";\n"
           << ind << name << "[2] = 0;\n";
        for (auto [d, t] : llvm::enumerate(arg.shape))
          os << ind << name << "[" << 3 + d << "] = " << t.text << ";\n";
        for (size_t d = rank; d-- > 0;) {
          os << ind << name << "[" << 3 + rank + d << "] = ";
          if (d + 1 == rank)
            os << "1;\n";
          else
            os << name << "[" << 4 + rank + d << "] * " << name << "[" << 4 + d
               << "];\n";
        }
        for (size_t j = 0; j < 3 + 2 * rank; ++j)
          params.push_back("&" + name + "[" + std::to_string(j) + "]");
      }
    }
    if (params.empty())
      os << ind << "void **params = NULL;\n";
    else
      os << ind << "void *params[] = {" << join(params, ", ") << "};\n";
    if (!outOfRange.empty())
      os << ind << "if (" << join(outOfRange, " || ") << ") {\n"
         << ind << "  err = CUDA_ERROR_INVALID_VALUE;\n"
         << ind << "  break;\n"
         << ind << "}\n";
    // Above 48 KiB a kernel must opt in to dynamic shared memory.
    const std::optional<int64_t> &shared = launch.shared.constant;
    if (!shared || *shared > 48 * 1024) {
      std::string attrInd = ind;
      if (!shared) {
        os << ind << "if (shared > 49152) {\n";
        attrInd += "  ";
      }
      os << attrInd << "err = cuFuncSetAttribute(\n"
         << attrInd
         << "    fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "
         << (shared ? std::to_string(*shared) : "(int)shared") << ");\n"
         << attrInd << "if (err != CUDA_SUCCESS)\n"
         << attrInd << "  break;\n";
      if (!shared)
        os << ind << "}\n";
    }
    os << ind << "err = cuLaunchKernel(fn, "
       << join(ArrayRef(launchArgs).take_front(3), ", ") << ",\n"
       << ind << "                     "
       << join(ArrayRef(launchArgs).slice(3, 3), ", ") << ",\n"
       << ind << "                     " << launchArgs[6]
       << ", stream, params, NULL);\n"
       << ind << "if (err != CUDA_SUCCESS)\n"
       << ind << "  break;\n";
    if (!nonEmpty.empty())
      os << "      }\n";
    os << "    }\n";
  }

  StringRef ptx;
  StringRef prefix;
  raw_ostream &os;
};

} // namespace

LogicalResult
mlir::fuser::emitCHeader(const json::Object &manifest, StringRef ptx,
                         StringRef prefix, raw_ostream &os,
                         function_ref<InFlightDiagnostic()> emitError) {
  if (!isIdentifier(prefix))
    return emitError() << "the header prefix '" << prefix
                       << "' is not a C identifier";
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

  // 3. Write.
  HeaderEmitter(ptx, prefix, os)
      .emit(manifest.getString("chip").value_or(""), fns, kernelNames);
  return success();
}

LogicalResult mlir::fuser::translateToCHeader(ModuleOp module, StringRef prefix,
                                              raw_ostream &os) {
  FailureOr<KernelImage> image = getKernelImage(module);
  if (failed(image))
    return failure();
  if (!image->isPtx)
    return module.emitError()
           << "the C header embeds PTX, but the module holds a cubin; compile "
              "with --fuser-gpu-pipeline=\"format=ptx\"";
  FailureOr<json::Value> manifest = buildManifest(module);
  if (failed(manifest))
    return failure();
  const json::Object *obj = manifest->getAsObject();
  if (!obj)
    return module.emitError() << "the manifest is not a JSON object";
  return emitCHeader(*obj, image->bytes, prefix, os,
                     [&] { return module.emitError(); });
}
