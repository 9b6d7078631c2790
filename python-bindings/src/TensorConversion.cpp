//===- TensorConversion.cpp - Python tensors to TensorRef -------*- C++ -*-===//

#include "TensorConversion.h"
#include "fuser/Manifest/Error.h"

#include <nanobind/ndarray.h>

namespace nb = nanobind;

namespace fuser::python {

namespace {

/// DLPack device types (dlpack.h's DLDeviceType).
enum : int {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
};

std::string dlpackDTypeName(nb::dlpack::dtype dt) {
  std::string base;
  switch (static_cast<nb::dlpack::dtype_code>(dt.code)) {
  case nb::dlpack::dtype_code::Int:
    base = "int";
    break;
  case nb::dlpack::dtype_code::UInt:
    base = "uint";
    break;
  case nb::dlpack::dtype_code::Float:
    base = "float";
    break;
  case nb::dlpack::dtype_code::Bfloat:
    base = "bfloat";
    break;
  case nb::dlpack::dtype_code::Complex:
    base = "complex";
    break;
  case nb::dlpack::dtype_code::Bool:
    base = "bool";
    break;
  default:
    base = "code" + std::to_string(dt.code) + "_";
  }
  std::string name = base + std::to_string(dt.bits);
  if (dt.lanes != 1)
    name += "x" + std::to_string(dt.lanes);
  return name;
}

std::optional<DType> fromDLPack(nb::dlpack::dtype dt) {
  if (dt.lanes != 1)
    return std::nullopt;
  switch (static_cast<nb::dlpack::dtype_code>(dt.code)) {
  case nb::dlpack::dtype_code::Float:
    if (dt.bits == 32)
      return DType::F32;
    if (dt.bits == 16)
      return DType::F16;
    if (dt.bits == 64)
      return DType::F64;
    break;
  case nb::dlpack::dtype_code::Bfloat:
    if (dt.bits == 16)
      return DType::BF16;
    break;
  case nb::dlpack::dtype_code::Int:
    if (dt.bits == 32)
      return DType::I32;
    if (dt.bits == 64)
      return DType::I64;
    if (dt.bits == 8)
      return DType::I8;
    break;
  case nb::dlpack::dtype_code::Bool:
    if (dt.bits == 8)
      return DType::I1;
    break;
  default:
    break;
  }
  return std::nullopt;
}

DeviceKind fromDLPackDevice(int type) {
  switch (type) {
  case kDLCPU:
    return DeviceKind::CPU;
  case kDLCUDA:
    return DeviceKind::CUDA;
  case kDLCUDAHost:
    return DeviceKind::CUDAHost;
  case kDLCUDAManaged:
    return DeviceKind::CUDAManaged;
  default:
    return DeviceKind::Other;
  }
}

} // namespace

TensorRef toTensorRef(nb::handle obj, const std::string &label) {
  if (nb::isinstance<TensorRef>(obj))
    return nb::cast<TensorRef>(obj);

  // No conversion: a converted copy would make outputs write into a
  // temporary. Read-only sources (e.g. a NumPy view) are accepted here; the
  // runtime rejects host memory anyway.
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(obj, array, /*convert=*/false))
    throw Error(label + " is a '" +
                std::string(nb::type_name(obj.type()).c_str()) +
                "', not a tensor (pass a PyTorch/CuPy/NumPy array, an object "
                "with __dlpack__ or __cuda_array_interface__, or a "
                "fuser.TensorRef)");

  std::optional<DType> dtype = fromDLPack(array.dtype());
  if (!dtype)
    throw Error(label + " has unsupported dtype " +
                dlpackDTypeName(array.dtype()) + " (fuser supports " +
                supportedDTypeNames() + ")");

  TensorRef t;
  t.data = reinterpret_cast<uint64_t>(array.data());
  t.dtype = *dtype;
  t.shape.assign(array.shape_ptr(), array.shape_ptr() + array.ndim());
  if (array.stride_ptr())
    t.strides.assign(array.stride_ptr(), array.stride_ptr() + array.ndim());
  else
    t.strides = contiguousStrides(t.shape); // DLPack: null means compact.
  t.device = fromDLPackDevice(array.device_type());
  t.deviceId = array.device_id();
  return t;
}

std::vector<TensorRef> toTensorRefs(nb::handle sequence,
                                    const std::string &function,
                                    const char *role) {
  if (!nb::isinstance<nb::sequence>(sequence) ||
      nb::isinstance<nb::str>(sequence))
    throw Error(function + ": expected a list of " + role + "s, got a '" +
                std::string(nb::type_name(sequence.type()).c_str()) + "'");
  std::vector<TensorRef> refs;
  size_t n = nb::len(sequence);
  refs.reserve(n);
  for (size_t i = 0; i < n; ++i)
    refs.push_back(toTensorRef(sequence[i], function + ": " + role + " " +
                                                std::to_string(i)));
  return refs;
}

DeviceKind deviceKindFromString(const std::string &name) {
  if (name == "cuda")
    return DeviceKind::CUDA;
  if (name == "cpu")
    return DeviceKind::CPU;
  if (name == "cuda_host")
    return DeviceKind::CUDAHost;
  if (name == "cuda_managed")
    return DeviceKind::CUDAManaged;
  throw Error("unknown device '" + name +
              "' (expected 'cuda', 'cpu', 'cuda_host' or 'cuda_managed')");
}

const char *deviceKindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::CUDA:
    return "cuda";
  case DeviceKind::CPU:
    return "cpu";
  case DeviceKind::CUDAHost:
    return "cuda_host";
  case DeviceKind::CUDAManaged:
    return "cuda_managed";
  case DeviceKind::Other:
    break;
  }
  return "other";
}

} // namespace fuser::python
