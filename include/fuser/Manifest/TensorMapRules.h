//===- TensorMapRules.h - What a TMA tensor map may describe ----*- C++ -*-===//
//
// The one statement of what cuTensorMapEncodeTiled and the copies fuser's
// kernels issue accept: element types, view sizes and pitches, box sizes and
// swizzle spans. The fuser.tensor_map verifier, the manifest reader and the
// runtime's call-time checks all ask these functions; each returns an empty
// string when the value is fine, else the reason as a sentence fragment the
// caller prefixes with where it found the value.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_TENSORMAPRULES_H
#define FUSER_MANIFEST_TENSORMAPRULES_H

#include "fuser/Manifest/DType.h"

#include <cstdint>
#include <string>

namespace fuser {

/// TMA views have 1 to 2^32 - 1 elements per dimension.
constexpr int64_t kMaxTensorMapDim = 0xffffffffLL;
/// A box has 1 to 256 elements per dimension.
constexpr int64_t kMaxTensorMapBox = 256;

/// True for the element types fuser's tensor maps describe: f32, bf16, f16.
bool isTensorMapDType(DType dtype);

/// A view size (rows or columns) outside 1 to kMaxTensorMapDim.
std::string tensorMapSizeError(int64_t size);

/// Rows of `cols` elements whose pitch is not a multiple of 16 bytes.
std::string tensorMapPitchError(DType dtype, int64_t cols);

/// A box size outside 1 to kMaxTensorMapBox.
std::string tensorMapBoxSizeError(int64_t size);

/// A swizzle span other than 0 (none), 32, 64 or 128 bytes.
std::string tensorMapSwizzleError(int64_t swizzle);

/// Box rows of `boxCols` elements that do not suit `swizzle`: exactly the
/// span for 128-byte swizzling, within it for 32 and 64, and whole 16-byte
/// units always.
std::string tensorMapBoxRowError(DType dtype, int64_t boxCols,
                                 int64_t swizzle);

} // namespace fuser

#endif // FUSER_MANIFEST_TENSORMAPRULES_H
