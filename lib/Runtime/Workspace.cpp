//===- Workspace.cpp - Per-call intermediate buffers ------------*- C++ -*-===//

#include "Workspace.h"

namespace fuser {

uint64_t Workspace::allocate(uint64_t bytes, const std::string &what) {
  CUdeviceptr ptr = 0;
  if (driver.hasAsyncAlloc()) {
    CUdevice device = 0;
    if (driver.ctxGetDevice(&device) == CUDA_SUCCESS)
      driver.keepPoolMemory(device);
    CUresult result = driver.memAllocAsync(&ptr, bytes, stream);
    if (result == CUDA_SUCCESS) {
      asyncAllocations.push_back(ptr);
      return ptr;
    }
    // Devices without memory pool support report NOT_SUPPORTED; anything
    // else (e.g. out of memory) is a real error.
    if (result != CUDA_ERROR_NOT_SUPPORTED)
      driver.check(result, "allocating " + std::to_string(bytes) +
                               " bytes for " + what + " (cuMemAllocAsync)");
  }
  driver.check(driver.memAlloc(&ptr, bytes),
               "allocating " + std::to_string(bytes) + " bytes for " + what +
                   " (cuMemAlloc)");
  syncAllocations.push_back(ptr);
  return ptr;
}

Workspace::~Workspace() {
  // Errors cannot be reported from a destructor; a failing free here means
  // the context is already broken and the launch error has been thrown.
  for (CUdeviceptr ptr : asyncAllocations)
    (void)driver.memFreeAsync(ptr, stream);
  if (syncAllocations.empty())
    return;
  (void)driver.streamSynchronize(stream);
  for (CUdeviceptr ptr : syncAllocations)
    (void)driver.memFree(ptr);
}

} // namespace fuser
