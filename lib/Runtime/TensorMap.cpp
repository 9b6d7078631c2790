//===- TensorMap.cpp - TMA descriptors for tensor_map parameters -*- C++ -*-=//

#include "fuser/Runtime/TensorMap.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/CudaDriver.h"

#include <cstdio>

namespace fuser {

namespace {

std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx",
                static_cast<unsigned long long>(value));
  return buf;
}

CUtensorMapDataType dataType(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  default: // The manifest admits only f32, bf16 and f16.
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
}

CUtensorMapSwizzle swizzleMode(int64_t bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

} // namespace

TensorMapEncoding tensorMapEncoding(const PlannedTensorMap &map,
                                    uint64_t address) {
  // Checked here, not only by validation, since intermediates and results
  // get their addresses after planning.
  if (address % 16 != 0)
    throw Error(map.label + ": the address " + hex(address) + " of buffer " +
                std::to_string(map.bufferId) +
                " is not 16-byte aligned, which TMA requires");
  TensorMapEncoding e;
  e.dataType = dataType(map.dtype);
  e.globalAddress = address;
  e.globalDim = {map.cols, map.rows};
  e.globalStrides = {map.cols * static_cast<uint64_t>(dtypeSize(map.dtype))};
  e.boxDim = {map.box[1], map.box[0]};
  e.swizzle = swizzleMode(map.swizzle);
  return e;
}

void encodeTensorMap(CudaDriver &driver, const PlannedTensorMap &map,
                     const TensorMapEncoding &e, CUtensorMap &out) {
  if (!driver.tensorMapEncodeTiled)
    throw Error(map.label +
                ": the CUDA driver has no cuTensorMapEncodeTiled; tensor_map "
                "arguments need a driver that supports CUDA 12.0 or newer");
  CUresult result = driver.tensorMapEncodeTiled(
      &out, e.dataType, e.rank, reinterpret_cast<void *>(static_cast<uintptr_t>(e.globalAddress)),
      e.globalDim.data(), e.globalStrides.data(), e.boxDim.data(),
      e.elementStrides.data(), e.interleave, e.swizzle, e.l2Promotion,
      e.oobFill);
  driver.check(result, map.label + ": cuTensorMapEncodeTiled for the " +
                           std::string(dtypeName(map.dtype)) + " view " +
                           shapeToString({static_cast<int64_t>(map.rows),
                                          static_cast<int64_t>(map.cols)}) +
                           " of buffer " + std::to_string(map.bufferId) +
                           " with box " +
                           shapeToString({map.box[0], map.box[1]}) +
                           " and swizzle " + std::to_string(map.swizzle));
}

} // namespace fuser
