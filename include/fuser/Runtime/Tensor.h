//===- Tensor.h - Framework-neutral tensor descriptor -----------*- C++ -*-===//
//
// The runtime never owns tensor memory: callers (PyTorch, CuPy, C++ code)
// describe their tensors with a TensorRef and the runtime only validates and
// passes the pointers to kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_TENSOR_H
#define FUSER_RUNTIME_TENSOR_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuser {

/// Element types named by the manifest. `I1` is stored as one byte per
/// element, like PyTorch's and NumPy's bool.
enum class DType { F32, F16, BF16, F64, I32, I64, I8, I1 };

/// Parses a manifest dtype name (`f32`, `bf16`, ...); nullopt if unknown.
std::optional<DType> dtypeFromString(std::string_view name);

/// The manifest name of `dtype` (`f32`, ...).
const char *dtypeName(DType dtype);

/// Bytes per element.
int64_t dtypeSize(DType dtype);

/// The comma-separated list of supported dtype names, for error messages.
const char *supportedDTypeNames();

/// Where a tensor's memory lives. Kernels can only read CUDA and CUDA-managed
/// memory; everything else is rejected by validation.
enum class DeviceKind { CPU, CUDA, CUDAHost, CUDAManaged, Other };

/// A readable device name for messages: `the CPU`, `cuda:1`, ...
std::string deviceDescription(DeviceKind kind, int deviceId);

/// A non-owning description of one tensor argument or output.
struct TensorRef {
  /// Device address of element [0, ..., 0] (any byte offset already applied).
  uint64_t data = 0;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Strides in elements, one per dimension.
  std::vector<int64_t> strides;
  DeviceKind device = DeviceKind::CUDA;
  int deviceId = 0;

  /// Number of elements (the product of `shape`; 1 for rank 0).
  int64_t numel() const;
};

/// Row-major strides (in elements) of a dense tensor with `shape`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape);

/// A concrete dtype and shape, e.g. of a result the caller must allocate.
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;

  int64_t numel() const;
  int64_t byteSize() const { return numel() * dtypeSize(dtype); }
};

/// Formats a shape as `[2, 3]`.
std::string shapeToString(const std::vector<int64_t> &shape);

} // namespace fuser

#endif // FUSER_RUNTIME_TENSOR_H
