//===- TestUtil.h - Shared helpers for runtime unit tests -------*- C++ -*-===//

#ifndef FUSER_UNITTESTS_RUNTIME_TESTUTIL_H
#define FUSER_UNITTESTS_RUNTIME_TESTUTIL_H

#include "../Manifest/ManifestTestUtil.h"
#include "fuser/Runtime/Tensor.h"

#include <gtest/gtest.h>


namespace fuser::test {

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

} // namespace fuser::test

#endif // FUSER_UNITTESTS_RUNTIME_TESTUTIL_H
