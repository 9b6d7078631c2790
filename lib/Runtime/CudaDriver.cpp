//===- CudaDriver.cpp - libcuda loaded at run time --------------*- C++ -*-===//

#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Manifest/Error.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace fuser {

namespace {

/// Resolves `symbol` into `fn`; throws if `required` and it is missing.
template <typename Fn>
void resolve(void *handle, const std::string &library, const char *symbol,
             Fn &fn, bool required = true) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (!fn && required)
    throw Error(library + " has no symbol " + symbol +
                ": the NVIDIA driver is too old for fuser (it needs a "
                "driver that supports CUDA 11.2 or newer)");
}

} // namespace

std::unique_ptr<CudaDriver> CudaDriver::load(const std::string &library) {
  // 1. Open the library; RTLD_LOCAL keeps its symbols out of the global
  //    namespace so it cannot shadow another copy a framework loaded.
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    throw Error(library +
                " not found: is the NVIDIA driver installed? "
                "(dlopen: " +
                (reason ? std::string(reason) : "unknown error") + ")");
  }
  std::unique_ptr<CudaDriver> d(new CudaDriver());
  d->handle = handle;

  // 2. Resolve entry points. Versioned names are the ones <cuda.h> maps the
  //    plain API names to.
  resolve(handle, library, "cuInit", d->init);
  resolve(handle, library, "cuDeviceGet", d->deviceGet);
  resolve(handle, library, "cuDeviceGetCount", d->deviceGetCount);
  resolve(handle, library, "cuDeviceGetAttribute", d->deviceGetAttribute);
  resolve(handle, library, "cuDevicePrimaryCtxRetain",
          d->devicePrimaryCtxRetain);
  resolve(handle, library, "cuCtxGetCurrent", d->ctxGetCurrent);
  resolve(handle, library, "cuCtxSetCurrent", d->ctxSetCurrent);
  resolve(handle, library, "cuCtxGetDevice", d->ctxGetDevice);
  resolve(handle, library, "cuModuleLoadDataEx", d->moduleLoadDataEx);
  resolve(handle, library, "cuModuleUnload", d->moduleUnload);
  resolve(handle, library, "cuModuleGetFunction", d->moduleGetFunction);
  resolve(handle, library, "cuFuncSetAttribute", d->funcSetAttribute);
  resolve(handle, library, "cuLaunchKernel", d->launchKernel);
  resolve(handle, library, "cuMemAlloc_v2", d->memAlloc);
  resolve(handle, library, "cuMemFree_v2", d->memFree);
  resolve(handle, library, "cuMemAllocAsync", d->memAllocAsync, false);
  resolve(handle, library, "cuMemFreeAsync", d->memFreeAsync, false);
  resolve(handle, library, "cuDeviceGetDefaultMemPool",
          d->deviceGetDefaultMemPool, false);
  resolve(handle, library, "cuMemPoolGetAttribute", d->memPoolGetAttribute,
          false);
  resolve(handle, library, "cuMemPoolSetAttribute", d->memPoolSetAttribute,
          false);
  resolve(handle, library, "cuGetErrorName", d->getErrorName);
  resolve(handle, library, "cuGetErrorString", d->getErrorString);
  resolve(handle, library, "cuPointerGetAttribute", d->pointerGetAttribute);
  resolve(handle, library, "cuStreamSynchronize", d->streamSynchronize);
  resolve(handle, library, "cuCtxSynchronize", d->ctxSynchronize);
  // Only tensor_map launches need it; they report its absence.
  resolve(handle, library, "cuTensorMapEncodeTiled", d->tensorMapEncodeTiled,
          false);
  resolve(handle, library, "cuMemcpyHtoD_v2", d->memcpyHtoD);
  resolve(handle, library, "cuMemcpyDtoH_v2", d->memcpyDtoH);
  // Graphs of a call's launches (CallGraph.cpp); calls launch kernel by
  // kernel without them.
  resolve(handle, library, "cuGraphCreate", d->graphCreate, false);
  resolve(handle, library, "cuGraphAddKernelNode_v2", d->graphAddKernelNode,
          false);
  resolve(handle, library, "cuGraphInstantiateWithFlags",
          d->graphInstantiateWithFlags, false);
  resolve(handle, library, "cuGraphExecKernelNodeSetParams_v2",
          d->graphExecKernelNodeSetParams, false);
  resolve(handle, library, "cuGraphLaunch", d->graphLaunch, false);
  resolve(handle, library, "cuGraphExecDestroy", d->graphExecDestroy, false);
  resolve(handle, library, "cuGraphDestroy", d->graphDestroy, false);
  resolve(handle, library, "cuStreamIsCapturing", d->streamIsCapturing,
          false);

  // 3. Initialize; this is where a driver without a visible GPU fails.
  CUresult result = d->init(0);
  if (result != CUDA_SUCCESS)
    throw Error("cuInit failed: " + d->describe(result) +
                " (is a GPU visible to this process? check "
                "CUDA_VISIBLE_DEVICES and nvidia-smi)");
  return d;
}

CudaDriver &CudaDriver::get() {
  // The outcome of the first load is cached, including a failure, so every
  // later call reports the same clear error without retrying dlopen.
  struct Loaded {
    std::unique_ptr<CudaDriver> driver;
    std::string error;
  };
  static Loaded loaded = [] {
    Loaded l;
    const char *env = std::getenv("FUSER_LIBCUDA");
    try {
      l.driver = load(env && *env ? env : "libcuda.so.1");
    } catch (const Error &e) {
      l.error = e.what();
    }
    return l;
  }();
  if (!loaded.driver)
    throw Error(loaded.error);
  return *loaded.driver;
}

CudaDriver::~CudaDriver() {
  // Only drivers from load() used directly (tests) are destroyed; the global
  // one lives until exit, when unloading libcuda would race with atexit
  // handlers of frameworks that still use it.
  if (handle)
    dlclose(handle);
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (getErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  if (getErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "no description";
  return std::string(name) + " (" + text + ", code " +
         std::to_string(static_cast<int>(result)) + ")";
}

void CudaDriver::check(CUresult result, const std::string &what) const {
  if (result != CUDA_SUCCESS)
    throw Error(what + ": " + describe(result));
}

CUcontext CudaDriver::primaryContext(int device) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = primaryContexts.find(device);
  if (it != primaryContexts.end())
    return it->second;
  int count = 0;
  check(deviceGetCount(&count), "cuDeviceGetCount");
  if (device < 0 || device >= count)
    throw Error("CUDA device " + std::to_string(device) +
                " does not exist (this process sees " + std::to_string(count) +
                " devices)");
  CUdevice dev;
  check(deviceGet(&dev, device), "cuDeviceGet(" + std::to_string(device) + ")");
  CUcontext ctx;
  check(devicePrimaryCtxRetain(&ctx, dev),
        "retaining the primary context of cuda:" + std::to_string(device));
  primaryContexts[device] = ctx;
  return ctx;
}

void CudaDriver::keepPoolMemory(int device) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!poolsKept.insert(device).second || !deviceGetDefaultMemPool ||
      !memPoolGetAttribute || !memPoolSetAttribute)
    return;
  cuuint64_t cap = ~cuuint64_t(0);
  if (const char *env = std::getenv("FUSER_WORKSPACE_CACHE_BYTES")) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end == env || *end != '\0') {
      std::fprintf(stderr,
                   "fuser: ignoring FUSER_WORKSPACE_CACHE_BYTES='%s' (not a "
                   "byte count)\n",
                   env);
    } else {
      cap = v;
    }
  }
  CUmemoryPool pool = nullptr;
  cuuint64_t current = 0;
  if (cap == 0 || deviceGetDefaultMemPool(&pool, device) != CUDA_SUCCESS ||
      memPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                          &current) != CUDA_SUCCESS ||
      current >= cap)
    return;
  (void)memPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &cap);
}

int CudaDriver::computeCapability(int device) const {
  CUdevice dev;
  int major = 0, minor = 0;
  check(deviceGet(&dev, device), "cuDeviceGet");
  check(deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           dev),
        "cuDeviceGetAttribute");
  check(deviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           dev),
        "cuDeviceGetAttribute");
  return major * 10 + minor;
}

int CudaDriver::pointerDevice(uint64_t ptr) const {
  int ordinal = -1;
  CUresult result =
      pointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                          static_cast<CUdeviceptr>(ptr));
  if (result != CUDA_SUCCESS) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%llx",
                  static_cast<unsigned long long>(ptr));
    throw Error(std::string("pointer ") + buf +
                " is not CUDA memory: " + describe(result));
  }
  return ordinal;
}

ScopedDeviceContext::ScopedDeviceContext(CudaDriver &driver, int device)
    : driver(driver) {
  driver.check(driver.ctxGetCurrent(&previous), "cuCtxGetCurrent");
  if (previous) {
    CUdevice currentDevice;
    driver.check(driver.ctxGetDevice(&currentDevice), "cuCtxGetDevice");
    CUdevice wanted;
    driver.check(driver.deviceGet(&wanted, device), "cuDeviceGet");
    if (currentDevice == wanted) {
      current = previous;
      return;
    }
  }
  current = driver.primaryContext(device);
  driver.check(driver.ctxSetCurrent(current), "cuCtxSetCurrent");
  switched = true;
}

ScopedDeviceContext::~ScopedDeviceContext() {
  // Leave the caller's context as we found it; nothing useful can be done
  // with a failure here.
  if (switched)
    (void)driver.ctxSetCurrent(previous);
}

} // namespace fuser
