//===- CHeaderExpr.cpp - manifest expressions as C --------------*- C++ -*-===//
//
// The manifest's integer expressions ("mul(dim(0,1),4)") become C
// expressions over the int64_t sizes the launcher receives, folded where
// constant with the runtime interpreter's semantics, so the header does
// statically what the runtime does on every call.
//
//===----------------------------------------------------------------------===//

#include "CHeaderInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::cheader;
namespace json = llvm::json;

std::string cheader::dimParam(int64_t arg, int64_t d) {
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

Term cheader::constantTerm(int64_t v) {
  Term t;
  t.constant = v;
  t.text = formatInt(v);
  t.nonNegative = v >= 0;
  return t;
}

FailureOr<Term> ExprTranslator::translate(const json::Value *value,
                                          const Twine &where) {
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

FailureOr<Term> ExprTranslator::dim(int64_t arg, int64_t d) {
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

FailureOr<Term> ExprTranslator::apply(StringRef op, const Term &a,
                                      const Term &b, const Twine &where) {
  context = where.str();
  text = "";
  return apply(op, a, b);
}

FailureOr<Term> ExprTranslator::apply(StringRef op, const Term &a,
                                      const Term &b) {
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

FailureOr<Term> ExprTranslator::fold(StringRef op, int64_t x, int64_t y) {
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

FailureOr<Term> ExprTranslator::fail(const Twine &message) {
  InFlightDiagnostic diag = emitError();
  diag << "manifest: " << context << ": " << message;
  if (!text.empty())
    diag << " in '" << text << "'";
  return failure();
}

void ExprTranslator::skipSpace() {
  while (pos < text.size() && text[pos] == ' ')
    ++pos;
}

bool ExprTranslator::consume(char c) {
  skipSpace();
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

/// A decimal 64-bit integer; the caller reports failures.
std::optional<int64_t> ExprTranslator::parseInt() {
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

FailureOr<Term> ExprTranslator::parseExpr() {
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
