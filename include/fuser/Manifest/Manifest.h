//===- Manifest.h - The compiled module's launch manifest -------*- C++ -*-===//
//
// The one model of the kernel manifest (docs/manifest.md), with no MLIR or
// CUDA dependency: the compiler builds it from host IR and writes it as JSON
// (writeManifest), the runtime reads the JSON back into it (parseManifest)
// and runs it, and the C header is generated from it. Parsing validates
// everything that does not depend on call-time shapes (field types, dtype
// names, buffer and argument references, dim() indices, tensor-map rules), so
// a bad manifest fails at load time with the JSON path of the problem.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_MANIFEST_H
#define FUSER_MANIFEST_MANIFEST_H

#include "fuser/Manifest/Expr.h"
#include "fuser/Manifest/DType.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fuser {

/// The manifest version this fuser writes; it reads 1 to this. Version 2
/// added `constant` buffers.
constexpr int64_t kManifestVersion = 2;

/// One tensor argument of an entry function.
struct ArgSpec {
  /// Marks a dynamic (`"?"`) dimension in `shape`.
  static constexpr int64_t kDynamic = -1;

  std::string name;
  DType dtype = DType::F32;
  /// Static sizes, or kDynamic.
  std::vector<int64_t> shape;
  /// Byte alignment the kernels assume for the data pointer.
  int64_t align = 0;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

/// A device buffer: a caller's argument, a runtime allocation, or data the
/// module carries (uploaded once per device when the module loads).
struct BufferSpec {
  enum class Kind { Arg, Alloc, Constant };

  int64_t id = 0;
  Kind kind = Kind::Arg;
  /// For Arg buffers: the argument index.
  int64_t arg = 0;
  /// For Alloc and Constant buffers: element type, shape (constant for
  /// Constant buffers), and the byte alignment the kernels assume (optional
  /// `align`, default element size).
  DType dtype = DType::F32;
  std::vector<Expr> shape;
  int64_t align = 0;
  /// True for Alloc buffers listed in `results`.
  bool isResult = false;
  /// For Constant buffers: the elements' bytes, row-major, little-endian.
  std::string data;
};

/// An equality the runtime verifies before any launch.
struct CheckSpec {
  Expr lhs, rhs;
  std::string message;
};

/// One group of kernel parameters.
struct KernelArgSpec {
  enum class Kind { Ptr, I64, I32, F32, Memref, TensorMap };

  Kind kind = Kind::Ptr;
  /// For Ptr, Memref and TensorMap: index into FunctionSpec::buffers (not
  /// the id).
  int64_t buffer = 0;
  /// For I64 and I32.
  Expr value;
  /// For F32.
  float f32 = 0;
  /// For Memref: the dense row-major view of the buffer. For TensorMap: the
  /// 2-D view [rows, cols].
  std::vector<Expr> shape;
  /// For TensorMap: the TMA box [rows, cols] in elements and the swizzle
  /// span in bytes (0, 32, 64 or 128).
  std::array<uint32_t, 2> box{};
  int64_t swizzle = 0;
};

/// One kernel launch.
struct LaunchSpec {
  std::string kernel;
  std::array<Expr, 3> grid;
  std::array<Expr, 3> block;
  int64_t sharedBytes = 0;
  std::vector<KernelArgSpec> args;
};

/// An entry function: what the caller passes and what the runtime runs.
struct FunctionSpec {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<BufferSpec> buffers;
  /// Indices into `buffers` of the returned buffers, in order.
  std::vector<int64_t> results;
  std::vector<CheckSpec> checks;
  std::vector<LaunchSpec> launches;
};

/// The whole manifest.
struct ManifestModule {
  std::string format;
  int64_t version = 0;
  std::string chip;
  std::vector<FunctionSpec> functions;

  /// The function named `name`, or null.
  const FunctionSpec *lookup(std::string_view name) const;
};

/// Writes `module` as JSON (two-space indentation, keys sorted), the format
/// parseManifest reads.
std::string writeManifest(const ManifestModule &module);

/// Parses and validates a manifest. Throws fuser::Error, e.g.
/// "invalid manifest: functions[0].launches[1].grid[0]: unknown operator
/// 'foo' at column 1 of 'foo(1,2)'".
ManifestModule parseManifest(std::string_view json);

} // namespace fuser

#endif // FUSER_MANIFEST_MANIFEST_H
