//===- CHeaderInternal.h - pieces of the C header emitter -------*- C++ -*-===//
//
// Shared by the files of the C header emitter, in the order the work flows:
//   CHeaderExpr.cpp      manifest integer expressions -> C expressions
//   CHeaderManifest.cpp  the manifest model (fuser/Manifest) -> HeaderModel
//   CHeader.cpp          HeaderModel + PTX -> the header text
//   CHeaderTensorMap.cpp the header text of tensor_map parameters
// Not installed: the public interface is fuser/Target/CHeader.h.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_TARGET_CHEADERINTERNAL_H
#define FUSER_LIB_TARGET_CHEADERINTERNAL_H

#include "fuser/Manifest/Manifest.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::fuser::cheader {

/// How a manifest dtype is stored in C.
struct DType {
  StringRef name;  ///< the manifest spelling, e.g. "f32"
  StringRef cType; ///< e.g. "float"
  int64_t size;    ///< bytes per element

  explicit DType(::fuser::DType d = ::fuser::DType::F32)
      : name(::fuser::dtypeName(d)), cType(::fuser::dtypeCType(d)),
        size(::fuser::dtypeSize(d)) {}
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

/// The launcher parameter holding the dynamic size `d` of argument `arg`.
std::string dimParam(int64_t arg, int64_t d);

/// The constant `v` as a Term.
Term constantTerm(int64_t v);

//===----------------------------------------------------------------------===//
// Expressions (CHeaderExpr.cpp)
//===----------------------------------------------------------------------===//

/// Translates manifest expressions into C over the launcher's parameters.
class ExprTranslator {
public:
  /// An argument's sizes: a value when static, nullopt when dynamic.
  using Shape = SmallVector<std::optional<int64_t>>;

  ExprTranslator(ArrayRef<Shape> argShapes,
                 function_ref<InFlightDiagnostic()> emitError)
      : argShapes(argShapes), emitError(emitError) {}

  /// Translates `e`, whose dim() references name existing dimensions;
  /// `where` names it in diagnostics.
  FailureOr<Term> translate(const ::fuser::Expr &e, const Twine &where);

  /// The size `d` of argument `arg`: a literal when static.
  FailureOr<Term> dim(int64_t arg, int64_t d);

  /// `op(a, b)`, folding constants with the runtime's semantics and
  /// simplifying identities.
  FailureOr<Term> apply(::fuser::Expr::Kind op, const Term &a, const Term &b,
                        const Twine &where);

private:
  FailureOr<Term> translate(const ::fuser::Expr &e);
  FailureOr<Term> apply(::fuser::Expr::Kind op, const Term &a, const Term &b);
  FailureOr<Term> fail(const Twine &message);

  ArrayRef<Shape> argShapes;
  function_ref<InFlightDiagnostic()> emitError;
  std::string context;
};

//===----------------------------------------------------------------------===//
// The manifest, read into what the emitter needs (CHeaderManifest.cpp)
//===----------------------------------------------------------------------===//

struct Arg {
  DType dtype;
  int64_t align; ///< bytes the kernels assume for the data pointer
  ExprTranslator::Shape shape;
};

struct Buffer {
  std::optional<int64_t> arg;       ///< for `arg` buffers
  std::optional<unsigned> result;   ///< for `alloc` buffers that are results
  std::optional<unsigned> constant; ///< HeaderModel::constants index
  DType dtype;
  int64_t align;
  SmallVector<Term, 4> shape;
  Term numel;
  SmallVector<std::string> shapeText; ///< the manifest's spelling, for docs
  std::string var;                    ///< the launcher's CUdeviceptr local
};

struct KernelArg {
  ::fuser::KernelArgSpec::Kind kind = ::fuser::KernelArgSpec::Kind::Ptr;
  unsigned buffer = 0;
  Term value;
  double f32 = 0;
  SmallVector<Term, 4> shape; ///< memref sizes; tensor_map [rows, cols]
  /// tensor_map: the TMA box [rows, cols] and the swizzle span in bytes.
  int64_t box[2] = {0, 0};
  int64_t swizzle = 0;
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

/// A whole manifest, checked to be expressible as a header.
struct HeaderModel {
  std::string chip; ///< empty when the manifest names none
  std::vector<Function> functions;
  /// The kernels' .entry names; a Launch's kernelIndex indexes them.
  SmallVector<std::string> kernelNames;
  /// The bytes of each constant buffer, uploaded when the module loads.
  std::vector<std::string> constants;
};

/// Translates every function of `manifest` (read by the one manifest reader
/// or built by the compiler, so already valid as a manifest) and checks what
/// only the header needs, so that a manifest the header cannot express fails
/// before any output. `prefix` starts the exported C names, which must come
/// out unique.
FailureOr<HeaderModel>
buildHeaderModel(const ::fuser::ManifestModule &manifest, StringRef prefix,
                 function_ref<InFlightDiagnostic()> emitError);

//===----------------------------------------------------------------------===//
// tensor_map parameters (CHeaderTensorMap.cpp)
//===----------------------------------------------------------------------===//

/// The launcher's checks, before anything is enqueued, that the call's
/// sizes suit the TMA views of launch `index`.
void emitTensorMapChecks(raw_ostream &os, const Function &fn,
                         const Launch &launch, size_t index);

/// Declares `name`, a pointer to the encoded CUtensorMap of `arg`, at
/// indentation `ind`, breaking out of the launch loop with `err` set if
/// encoding fails.
void emitTensorMapEncode(raw_ostream &os, const Function &fn,
                         const KernelArg &arg, StringRef name, StringRef ind);

} // namespace mlir::fuser::cheader

#endif // FUSER_LIB_TARGET_CHEADERINTERNAL_H
