//===- Expr.h - Manifest integer expressions --------------------*- C++ -*-===//
//
// Grid sizes, buffer shapes and scalar kernel arguments in a manifest are
// integer expressions over the call's argument dimensions:
//
//   expr := INT | "dim(" ARG "," DIM ")" | OP "(" expr "," expr ")"
//   OP   := add | sub | mul | floordiv | ceildiv | rem | min | max
//
// They are parsed once when the manifest is loaded and evaluated per call
// with checked 64-bit signed arithmetic. `floordiv` rounds toward negative
// infinity, `ceildiv` toward positive infinity, and `rem` is the matching
// remainder `x - y * floordiv(x, y)` (the sign of the divisor, like MLIR's
// affine `mod`); all three agree with C for non-negative operands.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_EXPR_H
#define FUSER_MANIFEST_EXPR_H

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuser {

/// The shapes of a call's arguments, indexed by argument then dimension.
using ShapeList = std::vector<std::vector<int64_t>>;

/// An immutable, cheaply copyable expression tree.
class Expr {
public:
  enum class Kind {
    Constant,
    Dim,
    Add,
    Sub,
    Mul,
    FloorDiv,
    CeilDiv,
    Rem,
    Min,
    Max
  };

  /// The constant 0.
  Expr();
  static Expr constant(int64_t value);
  static Expr dim(int64_t arg, int64_t dim);
  /// `kind` must be one of the binary operators.
  static Expr binary(Kind kind, Expr lhs, Expr rhs);

  Kind kind() const;
  bool isConstant() const { return kind() == Kind::Constant; }
  /// The value of a Constant.
  int64_t constantValue() const;
  /// The argument and dimension index of a Dim.
  int64_t dimArg() const;
  int64_t dimIndex() const;
  /// The operands of a binary operator.
  const Expr &lhs() const;
  const Expr &rhs() const;

  /// The one evaluator of the binary operators, shared by evaluate() and the
  /// C header's constant folding: `kind(x, y)`, or nullopt with `*why` set on
  /// division by zero or 64-bit overflow.
  static std::optional<int64_t> apply(Kind kind, int64_t x, int64_t y,
                                      std::string *why = nullptr);

  /// Evaluates with `argShapes`; throws fuser::Error on division by zero,
  /// overflow, or a dim() naming a missing argument or dimension.
  int64_t evaluate(const ShapeList &argShapes) const;

  /// Calls `fn(arg, dim)` for every dim() reference, for load-time checks.
  void forEachDim(const std::function<void(int64_t, int64_t)> &fn) const;

  /// The canonical text, e.g. `mul(dim(0,0),4)`.
  std::string toString() const;

  /// Name of a binary operator kind (`add`, ...).
  static const char *operatorName(Kind kind);

  struct Node;

private:
  explicit Expr(std::shared_ptr<const Node> node) : node(std::move(node)) {}
  std::shared_ptr<const Node> node;
};

/// Parses the textual form. Throws fuser::Error naming the problem and the
/// column, e.g. "unknown operator 'foo' at column 1 of 'foo(1,2)'".
Expr parseExpr(std::string_view text);

} // namespace fuser

#endif // FUSER_MANIFEST_EXPR_H
