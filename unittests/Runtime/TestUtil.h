//===- TestUtil.h - Shared helpers for runtime unit tests -------*- C++ -*-===//

#ifndef FUSER_UNITTESTS_RUNTIME_TESTUTIL_H
#define FUSER_UNITTESTS_RUNTIME_TESTUTIL_H

#include "fuser/Runtime/Error.h"
#include "fuser/Runtime/Tensor.h"

#include <gtest/gtest.h>

#include <string>

namespace fuser::test {

/// Asserts that `body` throws fuser::Error whose message contains `expected`
/// and returns the full message for further checks.
template <typename Fn>
std::string expectError(Fn &&body, const std::string &expected) {
  try {
    body();
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_NE(message.find(expected), std::string::npos)
        << "message: " << message << "\nexpected to contain: " << expected;
    return message;
  }
  ADD_FAILURE() << "expected a fuser::Error containing: " << expected;
  return "";
}

/// A dense CUDA tensor descriptor at a fake, well-aligned address.
inline TensorRef cudaTensor(DType dtype, std::vector<int64_t> shape,
                            uint64_t data = 0x7f0000010000, int device = 0) {
  TensorRef t;
  t.data = data;
  t.dtype = dtype;
  t.strides = contiguousStrides(shape);
  t.shape = std::move(shape);
  t.device = DeviceKind::CUDA;
  t.deviceId = device;
  return t;
}

/// A manifest with one function `forward(x: f32[?, ?] align 16,
/// w: f32[?, 4])` computing a [dim(x,0), 4] f32 result through an f16
/// intermediate, with a check that w's rows match x's columns. `launches`
/// replaces the launch list when given.
std::string matmulManifest(const std::string &launches = "");

/// `json` with the first occurrence of `from` replaced by `to`; fails the
/// test if `from` is absent (so a stale replacement cannot pass silently).
std::string replaceInManifest(std::string json, const std::string &from,
                              const std::string &to);

} // namespace fuser::test

#endif // FUSER_UNITTESTS_RUNTIME_TESTUTIL_H
