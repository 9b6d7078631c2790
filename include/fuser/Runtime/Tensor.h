//===- Tensor.h - Framework-neutral tensor descriptor -----------*- C++ -*-===//
//
// The runtime never owns tensor memory: callers (PyTorch, CuPy, C++ code)
// describe their tensors with a TensorRef and the runtime only validates and
// passes the pointers to kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_TENSOR_H
#define FUSER_RUNTIME_TENSOR_H

#include "fuser/Manifest/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuser {

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
