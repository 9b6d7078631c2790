//===- TensorConversion.h - Python tensors to TensorRef ---------*- C++ -*-===//
//
// Converts the tensors Python callers pass (anything DLPack-capable: PyTorch,
// CuPy, NumPy, JAX; or an explicit fuser TensorRef) into the runtime's
// framework-neutral descriptor without copying.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_PYTHON_TENSORCONVERSION_H
#define FUSER_PYTHON_TENSORCONVERSION_H

#include "fuser/Runtime/Tensor.h"

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

namespace fuser::python {

/// Converts one tensor; `label` (e.g. "forward: argument 0") prefixes
/// errors. Throws fuser::Error for objects that are not tensors or whose
/// dtype fuser does not support.
TensorRef toTensorRef(nanobind::handle obj, const std::string &label);

/// Converts a sequence of tensors; `role` is "argument" or "output".
std::vector<TensorRef> toTensorRefs(nanobind::handle sequence,
                                    const std::string &function,
                                    const char *role);

/// Parses a device name: "cuda", "cpu", "cuda_host", "cuda_managed".
DeviceKind deviceKindFromString(const std::string &name);

/// The inverse of deviceKindFromString.
const char *deviceKindName(DeviceKind kind);

} // namespace fuser::python

#endif // FUSER_PYTHON_TENSORCONVERSION_H
