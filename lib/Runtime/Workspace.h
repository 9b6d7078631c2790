//===- Workspace.h - Per-call intermediate buffers --------------*- C++ -*-===//
//
// Private to the runtime. Intermediates live only for one call: they are
// allocated in stream order (cuMemAllocAsync) when the driver supports it,
// so no host synchronization is needed, and freed in stream order after the
// call's launches, into the device's default pool, which keeps them
// reserved for the next call (CudaDriver::keepPoolMemory). Without memory
// pools they fall back to cuMemAlloc and a stream synchronization before
// cuMemFree.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_RUNTIME_WORKSPACE_H
#define FUSER_LIB_RUNTIME_WORKSPACE_H

#include "fuser/Runtime/CudaDriver.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fuser {

class Workspace {
public:
  Workspace(CudaDriver &driver, CUstream stream)
      : driver(driver), stream(stream) {}
  /// Frees every allocation after the work queued on the stream so far.
  ~Workspace();
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;

  /// Allocates `bytes` (> 0) bytes; `what` names the buffer in errors.
  uint64_t allocate(uint64_t bytes, const std::string &what);

private:
  CudaDriver &driver;
  CUstream stream;
  std::vector<CUdeviceptr> asyncAllocations;
  std::vector<CUdeviceptr> syncAllocations;
};

} // namespace fuser

#endif // FUSER_LIB_RUNTIME_WORKSPACE_H
