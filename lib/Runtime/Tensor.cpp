//===- Tensor.cpp - DType helpers and tensor descriptors --------*- C++ -*-===//

#include "fuser/Runtime/Tensor.h"

namespace fuser {

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  int64_t size;
};
} // namespace

static constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 4}, {DType::F16, "f16", 2}, {DType::BF16, "bf16", 2},
    {DType::F64, "f64", 8}, {DType::I32, "i32", 4}, {DType::I64, "i64", 8},
    {DType::I8, "i8", 1},   {DType::I1, "i1", 1},
};

static const DTypeInfo &info(DType dtype) {
  return kDTypes[static_cast<int>(dtype)];
}

std::optional<DType> dtypeFromString(std::string_view name) {
  for (const DTypeInfo &i : kDTypes)
    if (name == i.name)
      return i.dtype;
  return std::nullopt;
}

const char *dtypeName(DType dtype) { return info(dtype).name; }

int64_t dtypeSize(DType dtype) { return info(dtype).size; }

const char *supportedDTypeNames() {
  return "f32, f16, bf16, f64, i32, i64, i8, i1";
}

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
