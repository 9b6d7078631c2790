//===- CudaDriver.h - libcuda loaded at run time ----------------*- C++ -*-===//
//
// The runtime does not link libcuda: it dlopens libcuda.so.1 on first use,
// so the library (and the Python extension) loads and validates on machines
// without a GPU, and a launch there fails with a clear message instead of an
// import-time linker error. <cuda.h> is used for types only.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_CUDADRIVER_H
#define FUSER_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace fuser {

/// The driver entry points the runtime uses, resolved with dlsym.
class CudaDriver {
public:
  /// The process-wide driver, loaded and initialized (cuInit) on first use.
  /// The library is libcuda.so.1 unless the FUSER_LIBCUDA environment
  /// variable names another path. Throws fuser::Error (every time it is
  /// called) if the library is missing or cuInit fails.
  static CudaDriver &get();

  /// Loads and initializes the driver from `library`; throws fuser::Error,
  /// e.g. "libcuda.so.1 not found: is the NVIDIA driver installed? (...)".
  static std::unique_ptr<CudaDriver> load(const std::string &library);

  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// Throws fuser::Error "<what>: CUDA_ERROR_X (description)" on failure.
  void check(CUresult result, const std::string &what) const;

  /// "CUDA_ERROR_X (description)".
  std::string describe(CUresult result) const;

  /// The primary context of `device` (what PyTorch and CuPy use), retained
  /// on first request and kept for the life of the process.
  CUcontext primaryContext(int device);

  /// The device's compute capability as e.g. 90 for sm_90.
  int computeCapability(int device) const;

  /// The device ordinal owning `ptr`; throws fuser::Error if the driver
  /// does not know the pointer (host memory, freed memory, garbage).
  int pointerDevice(uint64_t ptr) const;

  /// Whether stream-ordered allocation (cuMemAllocAsync) is available.
  bool hasAsyncAlloc() const { return memAllocAsync && memFreeAsync; }

  /// Raises the release threshold of `device`'s default memory pool (once
  /// per device, never lowering it) so that memory freed by one call's
  /// workspace stays reserved for the next, as PyTorch's caching allocator
  /// keeps freed blocks: with the driver's default of 0 the pool gives
  /// freed memory back at every synchronization and each call maps its
  /// intermediates again. The cap is FUSER_WORKSPACE_CACHE_BYTES (bytes;
  /// 0 leaves the pool alone), unlimited by default, so the pool keeps at
  /// most the largest workspace a call needed. Best effort: a driver
  /// without memory pools is left as it is.
  void keepPoolMemory(int device);

  // Entry points (null only for the optional async allocator and, before
  // CUDA 12.0, cuTensorMapEncodeTiled).
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDeviceGet) deviceGet = nullptr;
  decltype(&::cuDeviceGetCount) deviceGetCount = nullptr;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) devicePrimaryCtxRetain = nullptr;
  decltype(&::cuCtxGetCurrent) ctxGetCurrent = nullptr;
  decltype(&::cuCtxSetCurrent) ctxSetCurrent = nullptr;
  decltype(&::cuCtxGetDevice) ctxGetDevice = nullptr;
  decltype(&::cuModuleLoadDataEx) moduleLoadDataEx = nullptr;
  decltype(&::cuModuleUnload) moduleUnload = nullptr;
  decltype(&::cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&::cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&::cuLaunchKernel) launchKernel = nullptr;
  decltype(&::cuMemAlloc) memAlloc = nullptr;
  decltype(&::cuMemFree) memFree = nullptr;
  decltype(&::cuMemAllocAsync) memAllocAsync = nullptr;
  decltype(&::cuMemFreeAsync) memFreeAsync = nullptr;
  decltype(&::cuDeviceGetDefaultMemPool) deviceGetDefaultMemPool = nullptr;
  decltype(&::cuMemPoolGetAttribute) memPoolGetAttribute = nullptr;
  decltype(&::cuMemPoolSetAttribute) memPoolSetAttribute = nullptr;
  decltype(&::cuGetErrorName) getErrorName = nullptr;
  decltype(&::cuGetErrorString) getErrorString = nullptr;
  decltype(&::cuPointerGetAttribute) pointerGetAttribute = nullptr;
  decltype(&::cuStreamSynchronize) streamSynchronize = nullptr;
  decltype(&::cuCtxSynchronize) ctxSynchronize = nullptr;
  decltype(&::cuTensorMapEncodeTiled) tensorMapEncodeTiled = nullptr;
  // Host <-> device copies: not needed to launch, but they let C++ callers
  // and the GPU tests move data without linking cudart.
  decltype(&::cuMemcpyHtoD) memcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) memcpyDtoH = nullptr;
  // CUDA graphs (optional: null where the driver lacks them).
  decltype(&::cuGraphCreate) graphCreate = nullptr;
  decltype(&::cuGraphAddKernelNode) graphAddKernelNode = nullptr;
  decltype(&::cuGraphInstantiateWithFlags) graphInstantiateWithFlags = nullptr;
  decltype(&::cuGraphExecKernelNodeSetParams) graphExecKernelNodeSetParams =
      nullptr;
  decltype(&::cuGraphLaunch) graphLaunch = nullptr;
  decltype(&::cuGraphExecDestroy) graphExecDestroy = nullptr;
  decltype(&::cuGraphDestroy) graphDestroy = nullptr;
  decltype(&::cuStreamIsCapturing) streamIsCapturing = nullptr;

  /// Whether every graph entry point above resolved.
  bool hasGraphs() const {
    return graphCreate && graphAddKernelNode && graphInstantiateWithFlags &&
           graphExecKernelNodeSetParams && graphLaunch && graphExecDestroy &&
           graphDestroy && streamIsCapturing;
  }

private:
  CudaDriver() = default;

  void *handle = nullptr;
  std::mutex mutex;
  std::map<int, CUcontext> primaryContexts;
  std::set<int> poolsKept;
};

/// Makes the primary context of `device` current unless the current context
/// already belongs to it, and restores the previous context on destruction.
class ScopedDeviceContext {
public:
  ScopedDeviceContext(CudaDriver &driver, int device);
  ~ScopedDeviceContext();
  ScopedDeviceContext(const ScopedDeviceContext &) = delete;
  ScopedDeviceContext &operator=(const ScopedDeviceContext &) = delete;

  CUcontext context() const { return current; }

private:
  CudaDriver &driver;
  CUcontext previous = nullptr;
  CUcontext current = nullptr;
  bool switched = false;
};

} // namespace fuser

#endif // FUSER_RUNTIME_CUDADRIVER_H
