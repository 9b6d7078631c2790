//===- DType.h - Element types of the kernel manifest -----------*- C++ -*-===//
//
// The element types a manifest names, with their spellings and sizes: one
// table for the compiler's emitter, the runtime and the C header.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_DTYPE_H
#define FUSER_MANIFEST_DTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>

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

/// How C stores one element (`float`, `uint16_t` for f16 and bf16, ...).
const char *dtypeCType(DType dtype);

/// The comma-separated list of supported dtype names, for error messages.
const char *supportedDTypeNames();

} // namespace fuser

#endif // FUSER_MANIFEST_DTYPE_H
