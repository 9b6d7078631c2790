//===- TensorMapRules.cpp - What a TMA tensor map may describe --*- C++ -*-===//

#include "fuser/Manifest/TensorMapRules.h"

namespace fuser {

bool isTensorMapDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

std::string tensorMapSizeError(int64_t size) {
  if (size >= 1 && size <= kMaxTensorMapDim)
    return "";
  return "size " + std::to_string(size) + " is outside TMA's range 1 to " +
         std::to_string(kMaxTensorMapDim);
}

std::string tensorMapPitchError(DType dtype, int64_t cols) {
  int64_t pitch = cols * dtypeSize(dtype);
  if (pitch % 16 == 0)
    return "";
  return std::to_string(cols) + " " + dtypeName(dtype) +
         " elements make a row pitch of " + std::to_string(pitch) +
         " bytes; the row pitch must be a multiple of 16 bytes for TMA";
}

std::string tensorMapBoxSizeError(int64_t size) {
  if (size >= 1 && size <= kMaxTensorMapBox)
    return "";
  return "must be 1 to " + std::to_string(kMaxTensorMapBox) + ", found " +
         std::to_string(size);
}

std::string tensorMapSwizzleError(int64_t swizzle) {
  if (swizzle == 0 || swizzle == 32 || swizzle == 64 || swizzle == 128)
    return "";
  return "unsupported swizzle " + std::to_string(swizzle) +
         " (expected 0, 32, 64 or 128 bytes)";
}

std::string tensorMapBoxRowError(DType dtype, int64_t boxCols,
                                 int64_t swizzle) {
  // One box row is what the swizzle pattern permutes: 128-byte swizzling is
  // used with rows of exactly one span, and TMA moves 16-byte units.
  int64_t rowBytes = boxCols * dtypeSize(dtype);
  std::string what = "box[1] = " + std::to_string(boxCols) + " " +
                     dtypeName(dtype) + " elements is " +
                     std::to_string(rowBytes) + " bytes";
  if (swizzle == 128 && rowBytes != 128)
    return what + ", but swizzle 128 needs box rows of exactly 128 bytes";
  if (swizzle != 0 && rowBytes > swizzle)
    return what + ", more than the swizzle span of " +
           std::to_string(swizzle) + " bytes";
  if (rowBytes % 16 != 0)
    return what + ", but TMA needs box rows of a multiple of 16 bytes";
  return "";
}

} // namespace fuser
