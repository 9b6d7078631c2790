//===- CHeaderExpr.cpp - manifest expressions as C --------------*- C++ -*-===//
//
// The manifest model's integer expressions (mul(dim(0,1),4)) become C
// expressions over the int64_t sizes the launcher receives, folded where
// constant with the runtime's own evaluator (Expr::apply), so the header does
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
using ::fuser::Expr;

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

FailureOr<Term> ExprTranslator::translate(const Expr &e, const Twine &where) {
  context = where.str();
  return translate(e);
}

FailureOr<Term> ExprTranslator::translate(const Expr &e) {
  switch (e.kind()) {
  case Expr::Kind::Constant:
    return constantTerm(e.constantValue());
  case Expr::Kind::Dim:
    return dim(e.dimArg(), e.dimIndex());
  default:
    break;
  }
  FailureOr<Term> a = translate(e.lhs());
  if (failed(a))
    return failure();
  FailureOr<Term> b = translate(e.rhs());
  if (failed(b))
    return failure();
  return apply(e.kind(), *a, *b);
}

FailureOr<Term> ExprTranslator::dim(int64_t arg, int64_t d) {
  // The reader checked the indices; the model from the compiler is built
  // from the arguments' own types.
  const Shape &shape = argShapes[arg];
  if (shape[d])
    return constantTerm(*shape[d]);
  Term t;
  t.text = dimParam(arg, d);
  t.dims.push_back({arg, d});
  return t;
}

FailureOr<Term> ExprTranslator::apply(Expr::Kind op, const Term &a,
                                      const Term &b, const Twine &where) {
  context = where.str();
  return apply(op, a, b);
}

FailureOr<Term> ExprTranslator::apply(Expr::Kind op, const Term &a,
                                      const Term &b) {
  StringRef name = Expr::operatorName(op);
  if (a.constant && b.constant) {
    // Folded with the runtime's own evaluator.
    std::string why;
    std::optional<int64_t> r = Expr::apply(op, *a.constant, *b.constant, &why);
    if (!r)
      return fail(why);
    return constantTerm(*r);
  }
  bool divides = op == Expr::Kind::FloorDiv || op == Expr::Kind::CeilDiv ||
                 op == Expr::Kind::Rem;
  // C division truncates: it is the floor only for positive divisors.
  if (divides && b.constant && *b.constant <= 0)
    return fail(name + " by " + Twine(*b.constant) +
                " (the header divides by positive constants only)");
  if (op == Expr::Kind::Mul || op == Expr::Kind::Add) {
    int64_t identity = op == Expr::Kind::Mul ? 1 : 0;
    if (a.constant == identity)
      return b;
    if (b.constant == identity)
      return a;
  }
  Term t;
  const std::string &x = a.text, &y = b.text;
  bool bothNonNegative = a.nonNegative && b.nonNegative;
  switch (op) {
  case Expr::Kind::Add:
    t.text = "(" + x + " + " + y + ")";
    break;
  case Expr::Kind::Sub:
    t.text = "(" + x + " - " + y + ")";
    bothNonNegative = false;
    break;
  case Expr::Kind::Mul:
    t.text = "(" + x + " * " + y + ")";
    break;
  case Expr::Kind::FloorDiv:
    // Sizes are non-negative, so C's truncation is the floor.
    t.text = "(" + x + " / " + y + ")";
    break;
  case Expr::Kind::CeilDiv:
    t.text = "((" + x + " + " + y + " - 1) / " + y + ")";
    break;
  case Expr::Kind::Rem:
    t.text = "(" + x + " % " + y + ")";
    break;
  case Expr::Kind::Min:
    t.text = "(" + x + " < " + y + " ? " + x + " : " + y + ")";
    break;
  case Expr::Kind::Max:
    t.text = "(" + x + " > " + y + " ? " + x + " : " + y + ")";
    break;
  default:
    return fail("not a binary operator");
  }
  t.nonNegative = bothNonNegative;
  t.dims = a.dims;
  t.dims.append(b.dims.begin(), b.dims.end());
  llvm::sort(t.dims);
  t.dims.erase(llvm::unique(t.dims), t.dims.end());
  return t;
}

FailureOr<Term> ExprTranslator::fail(const Twine &message) {
  emitError() << "manifest: " << context << ": " << message;
  return failure();
}
