//===- TensorMap.h - TMA descriptors for tensor_map parameters --*- C++ -*-===//
//
// A tensor_map kernel parameter is a CUtensorMap passed by value (PTX
// `.param .align 64 .b8 name[128]`). It holds the buffer's address, so it is
// encoded per call. The arguments of cuTensorMapEncodeTiled are computed by
// a pure function, so what the kernels rely on (dims innermost first, byte
// strides, swizzle, zero fill out of bounds) is unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_TENSORMAP_H
#define FUSER_RUNTIME_TENSORMAP_H

#include "fuser/Runtime/LaunchPlan.h"

#include <cuda.h>

#include <array>
#include <cstdint>

namespace fuser {

class CudaDriver;

/// The arguments of one cuTensorMapEncodeTiled call (rank 2).
struct TensorMapEncoding {
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  cuuint32_t rank = 2;
  uint64_t globalAddress = 0;
  /// {cols, rows}: innermost dimension first.
  std::array<cuuint64_t, 2> globalDim{};
  /// The row pitch in bytes (rank - 1 entries).
  std::array<cuuint64_t, 1> globalStrides{};
  /// {box cols, box rows}.
  std::array<cuuint32_t, 2> boxDim{};
  std::array<cuuint32_t, 2> elementStrides{1, 1};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  /// NONE fills out-of-bounds elements with zeros, which kernels rely on
  /// at the edges.
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// The encoding of `map` over the buffer at `address`. Throws fuser::Error
/// naming the argument if the address is not 16-byte aligned.
TensorMapEncoding tensorMapEncoding(const PlannedTensorMap &map,
                                    uint64_t address);

/// Encodes into `out` (which must be 64-byte aligned) with the driver;
/// throws fuser::Error with the CUresult on failure.
void encodeTensorMap(CudaDriver &driver, const PlannedTensorMap &map,
                     const TensorMapEncoding &encoding, CUtensorMap &out);

} // namespace fuser

#endif // FUSER_RUNTIME_TENSORMAP_H
