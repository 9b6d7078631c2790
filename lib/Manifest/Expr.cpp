//===- Expr.cpp - Manifest integer expressions ------------------*- C++ -*-===//

#include "fuser/Manifest/Expr.h"
#include "fuser/Manifest/Error.h"

#include <charconv>
#include <limits>

namespace fuser {

struct Expr::Node {
  Kind kind = Kind::Constant;
  int64_t a = 0; // Constant value, or Dim argument.
  int64_t b = 0; // Dim dimension.
  Expr lhs, rhs; // Only for binary operators (default constant otherwise).
};

namespace {
struct OperatorInfo {
  Expr::Kind kind;
  const char *name;
};
} // namespace

static constexpr OperatorInfo kOperators[] = {
    {Expr::Kind::Add, "add"},         {Expr::Kind::Sub, "sub"},
    {Expr::Kind::Mul, "mul"},         {Expr::Kind::FloorDiv, "floordiv"},
    {Expr::Kind::CeilDiv, "ceildiv"}, {Expr::Kind::Rem, "rem"},
    {Expr::Kind::Min, "min"},         {Expr::Kind::Max, "max"},
};

// A null node is the constant 0, so default construction never allocates
// (and Node's own Expr members do not recurse).
Expr::Expr() = default;

Expr Expr::constant(int64_t value) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Constant;
  n->a = value;
  return Expr(std::move(n));
}

Expr Expr::dim(int64_t arg, int64_t dim) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Dim;
  n->a = arg;
  n->b = dim;
  return Expr(std::move(n));
}

Expr Expr::binary(Kind kind, Expr lhs, Expr rhs) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->lhs = std::move(lhs);
  n->rhs = std::move(rhs);
  return Expr(std::move(n));
}

Expr::Kind Expr::kind() const { return node ? node->kind : Kind::Constant; }
int64_t Expr::constantValue() const { return node ? node->a : 0; }
int64_t Expr::dimArg() const { return node ? node->a : 0; }
int64_t Expr::dimIndex() const { return node ? node->b : 0; }
const Expr &Expr::lhs() const { return node->lhs; }
const Expr &Expr::rhs() const { return node->rhs; }

const char *Expr::operatorName(Kind kind) {
  for (const OperatorInfo &op : kOperators)
    if (op.kind == kind)
      return op.name;
  return "?";
}

std::string Expr::toString() const {
  switch (kind()) {
  case Kind::Constant:
    return std::to_string(constantValue());
  case Kind::Dim:
    return "dim(" + std::to_string(dimArg()) + "," +
           std::to_string(dimIndex()) + ")";
  default:
    return std::string(operatorName(kind())) + "(" + lhs().toString() + "," +
           rhs().toString() + ")";
  }
}

void Expr::forEachDim(const std::function<void(int64_t, int64_t)> &fn) const {
  switch (kind()) {
  case Kind::Constant:
    return;
  case Kind::Dim:
    fn(dimArg(), dimIndex());
    return;
  default:
    lhs().forEachDim(fn);
    rhs().forEachDim(fn);
  }
}

/// Floor division for y != 0 and not (x == INT64_MIN && y == -1).
static int64_t floorDiv(int64_t x, int64_t y) {
  int64_t q = x / y;
  if ((x % y != 0) && ((x < 0) != (y < 0)))
    --q;
  return q;
}

static int64_t ceilDiv(int64_t x, int64_t y) {
  int64_t q = x / y;
  if ((x % y != 0) && ((x < 0) == (y < 0)))
    ++q;
  return q;
}

std::optional<int64_t> Expr::apply(Kind kind, int64_t x, int64_t y,
                                   std::string *why) {
  auto fail = [&](const std::string &message) -> std::optional<int64_t> {
    if (why)
      *why = message;
    return std::nullopt;
  };
  auto overflows = [&]() {
    return fail("64-bit integer overflow in " + std::string(operatorName(kind)) +
                "(" + std::to_string(x) + "," + std::to_string(y) + ")");
  };
  int64_t r = 0;
  switch (kind) {
  case Kind::Add:
    if (__builtin_add_overflow(x, y, &r))
      return overflows();
    return r;
  case Kind::Sub:
    if (__builtin_sub_overflow(x, y, &r))
      return overflows();
    return r;
  case Kind::Mul:
    if (__builtin_mul_overflow(x, y, &r))
      return overflows();
    return r;
  case Kind::FloorDiv:
  case Kind::CeilDiv:
  case Kind::Rem:
    if (y == 0)
      return fail("division by zero in " + std::string(operatorName(kind)) +
                  "(" + std::to_string(x) + ",0)");
    if (x == std::numeric_limits<int64_t>::min() && y == -1) {
      // The quotient overflows; the remainder is simply 0.
      if (kind == Kind::Rem)
        return 0;
      return overflows();
    }
    if (kind == Kind::FloorDiv)
      return floorDiv(x, y);
    if (kind == Kind::CeilDiv)
      return ceilDiv(x, y);
    return x - floorDiv(x, y) * y;
  case Kind::Min:
    return x < y ? x : y;
  case Kind::Max:
    return x > y ? x : y;
  case Kind::Constant:
  case Kind::Dim:
    break;
  }
  return fail("not a binary operator");
}

int64_t Expr::evaluate(const ShapeList &argShapes) const {
  switch (kind()) {
  case Kind::Constant:
    return constantValue();
  case Kind::Dim: {
    int64_t arg = dimArg(), d = dimIndex();
    if (arg < 0 || arg >= static_cast<int64_t>(argShapes.size()))
      throw Error(toString() + " refers to argument " + std::to_string(arg) +
                  ", but there are " + std::to_string(argShapes.size()) +
                  " arguments");
    const std::vector<int64_t> &shape = argShapes[arg];
    if (d < 0 || d >= static_cast<int64_t>(shape.size()))
      throw Error(toString() + " refers to dimension " + std::to_string(d) +
                  " of argument " + std::to_string(arg) + ", which has rank " +
                  std::to_string(shape.size()));
    return shape[d];
  }
  default:
    break;
  }
  std::string why;
  std::optional<int64_t> r =
      apply(kind(), lhs().evaluate(argShapes), rhs().evaluate(argShapes), &why);
  if (!r)
    throw Error(why + ", evaluating " + toString());
  return *r;
}

namespace {

/// Recursive-descent parser for the expression grammar; spaces are allowed
/// between tokens.
class ExprParser {
public:
  explicit ExprParser(std::string_view text) : text(text) {}

  Expr parse() {
    skipSpace();
    if (atEnd())
      fail("empty expression");
    Expr e = parseExpr(0);
    skipSpace();
    if (!atEnd())
      fail("unexpected trailing characters");
    return e;
  }

private:
  static constexpr int kMaxDepth = 128;
  std::string_view text;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string &message) const {
    throw Error(message + " at column " + std::to_string(pos + 1) + " of '" +
                std::string(text) + "'");
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t'))
      ++pos;
  }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
  static bool isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  void expect(char c) {
    skipSpace();
    if (peek() != c) {
      if (atEnd())
        fail(std::string("expected '") + c + "' but the expression ended");
      fail(std::string("expected '") + c + "' but found '" + peek() + "'");
    }
    ++pos;
  }

  int64_t parseInteger() {
    skipSpace();
    size_t start = pos;
    if (peek() == '-')
      ++pos;
    if (!isDigit(peek())) {
      pos = start;
      fail("expected an integer");
    }
    while (isDigit(peek()))
      ++pos;
    int64_t value = 0;
    auto [ptr, ec] =
        std::from_chars(text.data() + start, text.data() + pos, value);
    if (ec != std::errc()) {
      pos = start;
      fail("integer does not fit in 64 bits");
    }
    (void)ptr;
    return value;
  }

  Expr parseExpr(int depth) {
    if (depth > kMaxDepth)
      fail("expression nested deeper than " + std::to_string(kMaxDepth));
    skipSpace();
    if (atEnd())
      fail("expected an expression but the text ended");
    if (isDigit(peek()) || peek() == '-')
      return Expr::constant(parseInteger());
    if (!isLetter(peek()))
      fail(std::string("unexpected character '") + peek() + "'");

    size_t start = pos;
    while (isLetter(peek()) || isDigit(peek()))
      ++pos;
    std::string name(text.substr(start, pos - start));
    if (name == "dim") {
      expect('(');
      int64_t arg = parseInteger();
      expect(',');
      int64_t d = parseInteger();
      expect(')');
      if (arg < 0 || d < 0) {
        pos = start;
        fail("dim() indices must be non-negative");
      }
      return Expr::dim(arg, d);
    }
    const OperatorInfo *op = nullptr;
    for (const OperatorInfo &candidate : kOperators)
      if (name == candidate.name)
        op = &candidate;
    if (!op) {
      pos = start;
      fail("unknown operator '" + name +
           "' (expected dim, add, sub, mul, floordiv, ceildiv, rem, min or "
           "max)");
    }
    expect('(');
    Expr lhs = parseExpr(depth + 1);
    expect(',');
    Expr rhs = parseExpr(depth + 1);
    expect(')');
    return Expr::binary(op->kind, std::move(lhs), std::move(rhs));
  }
};

} // namespace

Expr parseExpr(std::string_view text) { return ExprParser(text).parse(); }

} // namespace fuser
