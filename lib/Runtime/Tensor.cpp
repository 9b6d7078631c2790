//===- Tensor.cpp - DType helpers and tensor descriptors --------*- C++ -*-===//

#include "fuser/Runtime/Tensor.h"

namespace fuser {

std::string deviceDescription(DeviceKind kind, int deviceId) {
  switch (kind) {
  case DeviceKind::CPU:
    return "the CPU";
  case DeviceKind::CUDA:
    return "cuda:" + std::to_string(deviceId);
  case DeviceKind::CUDAHost:
    return "pinned host memory";
  case DeviceKind::CUDAManaged:
    return "managed memory of cuda:" + std::to_string(deviceId);
  case DeviceKind::Other:
    break;
  }
  return "an unsupported device type";
}

static int64_t product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t TensorRef::numel() const { return product(shape); }

int64_t TensorType::numel() const { return product(shape); }

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

} // namespace fuser
