//===- GroupNormMatcher.h - normalization statistics matching --*- C++ -*-===//
//
// Recognizes the statistics of a group normalization in linalg on tensors as
// front ends decompose GroupNorm and LayerNorm (torch-mlir's
// native_group_norm / native_layer_norm, hand-written IR): group sums with
// keepdim output maps, the mean and variance as elementwise ops on them
// (possibly in f64), rsqrt(var + eps), and (x - mean) * rstd over the
// normalized tensor, each step in its own linalg op or several in one.
//
// Scalars are followed through the elementwise linalg producers of the
// operands they read, whatever their maps (torch-mlir reads the (N, G, 1, 1)
// statistics through `(d0, d1, d2, d3) -> (d0, d1, 0, 0)`), composing the
// maps, and through arith.extf / arith.truncf: a variance computed in f64
// and truncated matches like one computed in f32 (the kernels compute it
// with a two-pass or shifted sum, as accurate as fp32 needs).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_GROUPNORMMATCHER_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_GROUPNORMMATCHER_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlir::fuser {

/// A scalar of a linalg body seen from a root iteration space: `value` is an
/// op result in a body (or a scalar from outside), `ctx` maps the root space
/// to the iteration space of the op whose body holds it. When `tensor` is
/// set, `value` is a block argument reading element `map(i)` of `tensor`
/// from root point i, and `tensor` is not produced elementwise.
struct Term {
  Value value;
  AffineMap ctx;
  Value tensor;
  AffineMap map;

  bool operator==(const Term &o) const {
    return value == o.value && ctx == o.ctx;
  }
};

/// Follows `v`, a scalar in a body whose op `ctx` maps the root space to,
/// through arith.extf / arith.truncf, block arguments, copies (linalg.fill,
/// broadcast, transpose) and elementwise linalg.generic producers. The
/// trace stops at `stopAt` (the normalized data, when it is itself computed
/// elementwise: a matmul's bias add before a LayerNorm), and with
/// `passThroughOnly` at every producer that computes more than a precision
/// change of one of its inputs.
Term traceScalar(Value v, AffineMap ctx, Value stopAt = Value(),
                 bool passThroughOnly = false);

/// True if `t` reads `data` element by element: `t.map` is the identity
/// once the dimensions of extent 1 are read as 0 ((d0, d1, d2, 0) on an
/// (N, G, K, 1) tensor).
bool isElementOf(const Term &t, Value data);

/// What GroupNormMatcher::matchNormalize says of an op that does not look
/// like a normalization at all (no (x - mean) at its root).
inline constexpr const char *kNotNormalizeMessage =
    "the elementwise op over the grouped view does not compute "
    "(x - mean) * rstd";

/// True if `op` is a linalg.generic that computes elementwise on tensors
/// (all loops parallel, identity output maps, an arith/math body) reading
/// its inputs through any maps.
bool isTraceableElementwise(linalg::GenericOp op);

/// Matches the normalization of the tensor `data` (the grouped view, or the
/// input itself for a LayerNorm): `(x - mean) * rstd` or
/// `(x - mean) / sqrt(var + eps)` with x an element of `data`, where
///   mean = sum(x) * (1 / K)  or  sum(x) / K,
///   var  = sum((x - mean)^2) / K  or  sum(x^2) / K - mean^2,
///   rstd = rsqrt(var + eps)  or  1 / sqrt(var + eps),   eps > 0,
/// every sum a reduction over `data`'s shape that keeps its leading
/// (non-unit) dimensions and reduces the trailing ones, read back per group.
class GroupNormMatcher {
public:
  explicit GroupNormMatcher(Value data);

  /// Matches the value the elementwise op `op` (over `data`'s shape)
  /// yields. Returns why it is not a normalization, or "".
  std::string matchNormalize(linalg::GenericOp op);

  /// After a match: the epsilon (shortest decimal of its f32 value) and the
  /// number of elements K of a group.
  double epsilon = 0.0;
  int64_t groupSize = 0;

  /// Match `v`, a scalar viewed from `data`'s iteration space, as the mean
  /// or as rstd of `data`'s groups. Return why not, or "".
  std::string matchMean(const Term &v);
  std::string matchRstd(const Term &v);

private:
  Value data;
  SmallVector<int64_t> shape;
  /// The statistics' output map (canonical on `shape`), once a sum matched.
  std::optional<AffineMap> statMap;

  enum class Summand { X, XSquared, CenteredSquared };

  Term trace(Value v, const Term &at) {
    return traceScalar(v, at.ctx, data);
  }
  AffineMap canonical(AffineMap m) const;
  bool isDataElement(const Term &t) const { return isElementOf(t, data); }
  std::string matchGroupSum(const Term &sum, StringRef what, Summand summand);
  std::string matchScaledSum(const Term &v, StringRef what, Summand summand);
  std::string matchVariance(const Term &v);
  std::string matchVarPlusEps(const Term &v);
};

/// The root of `v`'s chain of tensor.expand_shape / collapse_shape (or
/// `v`). Reshapes keep the row-major order of the elements.
Value reshapeRoot(Value v);

/// If `red` sums a tensor element by element over its whole shape, returns
/// that tensor (seen through elementwise producers such as an arith.extf):
/// a normalization's data, or its grouped view.
Value summedTensor(linalg::LinalgOp red);

/// The float value of a constant scalar term (a scalar constant, or an
/// element of a splat tensor constant).
std::optional<double> constantValue(const Term &t);

/// The shortest decimal that rounds to the same f32 as `v` (1e-05 for the
/// f32 constant 1e-05, not 9.99999974e-06).
double shortestRoundTrip(double v);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_GROUPNORMMATCHER_H
