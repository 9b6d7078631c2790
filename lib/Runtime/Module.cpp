//===- Module.cpp - A loaded fuser module and its entry functions -*- C++ -*-=//

#include "fuser/Runtime/Module.h"
#include "CallGraph.h"
#include "LaunchBinding.h"
#include "Workspace.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/LaunchPlan.h"
#include "fuser/Runtime/PreparedCall.h"
#include "fuser/Runtime/TensorMap.h"
#include "fuser/Runtime/Validate.h"

#include <cstdio>
#include <map>
#include <mutex>

namespace fuser {

namespace detail {

/// The CUDA module loaded into one context, its resolved kernels and the
/// device copies of the manifest's constant buffers.
struct LoadedImage {
  CUmodule module = nullptr;
  /// constants[f][b]: the address of buffer b of function f when it is a
  /// constant (0 otherwise, or when it has no elements).
  std::vector<std::vector<CUdeviceptr>> constants;
  std::map<std::string, CUfunction> kernels;
  /// The dynamic shared memory limit last set on each kernel.
  std::map<CUfunction, uint32_t> sharedLimits;
};

struct ModuleState {
  std::string image;
  ManifestModule manifest;
  std::mutex mutex;
  std::map<CUcontext, LoadedImage> loaded;

  ~ModuleState() {
    if (loaded.empty())
      return;
    // The driver was loaded, or nothing could have been loaded. Unloading
    // may fail at process exit when the driver is shutting down; ignore it.
    CudaDriver &driver = CudaDriver::get();
    CUcontext previous = nullptr;
    (void)driver.ctxGetCurrent(&previous);
    for (auto &entry : loaded) {
      if (driver.ctxSetCurrent(entry.first) == CUDA_SUCCESS)
        for (const auto &fn : entry.second.constants)
          for (CUdeviceptr ptr : fn)
            if (ptr)
              (void)driver.memFree(ptr);
      (void)driver.moduleUnload(entry.second.module);
    }
    (void)driver.ctxSetCurrent(previous);
  }
};

} // namespace detail

namespace {

constexpr uint32_t kDefaultSharedLimit = 48 * 1024;
constexpr size_t kJitLogSize = 16 * 1024;

bool isElf(const std::string &image) {
  return image.size() >= 4 && image.compare(0, 4,
                                            "\x7f"
                                            "ELF") == 0;
}

std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx",
                static_cast<unsigned long long>(value));
  return buf;
}

/// Loads the image into the current context, reporting the JIT error log
/// and the target/device mismatch that is its most common cause.
CUmodule loadImage(CudaDriver &driver, const detail::ModuleState &state,
                   int device) {
  std::vector<char> infoLog(kJitLogSize, '\0'), errorLog(kJitLogSize, '\0');
  CUjit_option options[] = {
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      infoLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(kJitLogSize)),
      errorLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(kJitLogSize))};
  CUmodule module = nullptr;
  // PTX must be NUL-terminated; std::string guarantees it.
  CUresult result =
      driver.moduleLoadDataEx(&module, state.image.c_str(), 4, options, values);
  if (result == CUDA_SUCCESS)
    return module;

  std::string message = "loading the module (" +
                        std::string(isElf(state.image) ? "cubin" : "PTX") +
                        ") on cuda:" + std::to_string(device) +
                        " failed: " + driver.describe(result);
  if (!state.manifest.chip.empty()) {
    int cc = driver.computeCapability(device);
    message += "; the module targets " + state.manifest.chip +
               " and the device is sm_" + std::to_string(cc);
  }
  std::string log(errorLog.data());
  if (!log.empty())
    message += "\nJIT error log:\n" + log;
  throw Error(message);
}

/// Copies the constant buffers of every function to the current context's
/// device: once per context, when the image is loaded there. On failure
/// nothing stays allocated.
std::vector<std::vector<CUdeviceptr>>
uploadConstants(CudaDriver &driver, const ManifestModule &manifest,
                int device) {
  std::vector<std::vector<CUdeviceptr>> constants;
  auto freeAll = [&] {
    for (const auto &fn : constants)
      for (CUdeviceptr ptr : fn)
        if (ptr)
          (void)driver.memFree(ptr);
  };
  try {
    for (const FunctionSpec &fn : manifest.functions) {
      constants.emplace_back(fn.buffers.size(), 0);
      for (size_t b = 0; b < fn.buffers.size(); ++b) {
        const BufferSpec &buf = fn.buffers[b];
        if (buf.kind != BufferSpec::Kind::Constant || buf.data.empty())
          continue;
        std::string what = fn.name + ": uploading constant buffer " +
                           std::to_string(buf.id) + " (" +
                           std::to_string(buf.data.size()) + " bytes) to cuda:" +
                           std::to_string(device);
        CUdeviceptr &ptr = constants.back()[b];
        driver.check(driver.memAlloc(&ptr, buf.data.size()), what);
        driver.check(driver.memcpyHtoD(ptr, buf.data.data(), buf.data.size()),
                     what);
      }
    }
  } catch (...) {
    freeAll();
    throw;
  }
  return constants;
}

/// Rejects pointers the driver does not know or that live on another
/// device: a kernel would fault on them, or silently use peer memory.
void checkPointer(CudaDriver &driver, const TensorRef &t, int device,
                  const std::string &label) {
  if (t.numel() == 0)
    return;
  int ordinal;
  try {
    ordinal = driver.pointerDevice(t.data);
  } catch (const Error &e) {
    throw Error(label + " data " + e.what());
  }
  if (ordinal != device)
    throw Error(label + " data pointer " + hex(t.data) +
                " belongs to cuda:" + std::to_string(ordinal) +
                " but the tensor claims cuda:" + std::to_string(device));
}

} // namespace

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Module::Module(std::string image, std::string_view manifestJson)
    : state(std::make_shared<detail::ModuleState>()) {
  if (image.empty())
    throw Error("the module image is empty (expected PTX text or a cubin)");
  state->manifest = parseManifest(manifestJson);
  state->image = std::move(image);
}

const ManifestModule &Module::manifest() const { return state->manifest; }

std::vector<std::string> Module::functionNames() const {
  std::vector<std::string> names;
  for (const FunctionSpec &f : state->manifest.functions)
    names.push_back(f.name);
  return names;
}

Function Module::function(std::string_view name) const {
  if (const FunctionSpec *spec = state->manifest.lookup(name))
    return Function(state, spec);
  std::string available;
  for (const std::string &n : functionNames())
    available += (available.empty() ? "'" : ", '") + n + "'";
  throw Error("no function named '" + std::string(name) +
              "' in the module (available: " +
              (available.empty() ? "none" : available) + ")");
}

//===----------------------------------------------------------------------===//
// Function
//===----------------------------------------------------------------------===//

const std::string &Function::name() const { return fnSpec->name; }

std::vector<TensorType>
Function::resultSpecs(const std::vector<TensorRef> &inputs) const {
  ShapeList shapes = validateInputs(*fnSpec, inputs);
  return resultTypes(*fnSpec, resolveBuffers(*fnSpec, shapes));
}

std::shared_ptr<const PreparedCall>
Function::prepare(const std::vector<TensorRef> &inputs) const {
  auto call = std::make_shared<PreparedCall>();
  call->function = fnSpec;
  call->shapes = validateInputs(*fnSpec, inputs);
  call->buffers = resolveBuffers(*fnSpec, call->shapes);
  call->results = resultTypes(*fnSpec, call->buffers);
  call->launches = planLaunches(*fnSpec, call->shapes, call->buffers);
  call->encoded.resize(call->launches.size());
  call->graphs = detail::makeCallGraphs();
  for (size_t i = 0; i < call->launches.size(); ++i)
    call->encoded[i].resize(call->launches[i].tensorMaps.size());
  return call;
}

void Function::launch(const std::vector<TensorRef> &inputs,
                      const std::vector<TensorRef> &outputs,
                      CUstream stream) const {
  const FunctionSpec &fn = *fnSpec;

  // 1. Validate and evaluate everything on the host, so bad calls fail
  //    before any CUDA work (and without a GPU).
  std::shared_ptr<const PreparedCall> call = prepare(inputs);
  validateOutputs(fn, call->buffers, inputs, outputs);

  // 2. The pointers belong to the device the tensors claim.
  CudaDriver &driver = CudaDriver::get();
  int device = callDevice(inputs, outputs);
  if (device < 0)
    device = 0;
  ScopedDeviceContext scope(driver, device);
  for (size_t i = 0; i < inputs.size(); ++i)
    checkPointer(driver, inputs[i], device,
                 fn.name + ": argument " + std::to_string(i) + " ('" +
                     fn.args[i].name + "')");
  for (size_t i = 0; i < outputs.size(); ++i)
    checkPointer(driver, outputs[i], device,
                 fn.name + ": output " + std::to_string(i));

  std::vector<uint64_t> in, out;
  for (const TensorRef &t : inputs)
    in.push_back(t.data);
  for (const TensorRef &t : outputs)
    out.push_back(t.data);
  execute(*call, in, out, device, scope.context(), stream);
}

void Function::launch(const PreparedCall &call,
                      const std::vector<uint64_t> &inputs,
                      const std::vector<uint64_t> &outputs, int device,
                      CUstream stream) const {
  if (call.function != fnSpec)
    throw Error(name() + ": the call was prepared for function '" +
                (call.function ? call.function->name : std::string("?")) +
                "'");
  checkAddresses(call, inputs, outputs);
  CudaDriver &driver = CudaDriver::get();
  ScopedDeviceContext scope(driver, device);
  execute(call, inputs, outputs, device, scope.context(), stream);
}

void Function::execute(const PreparedCall &call,
                       const std::vector<uint64_t> &inputs,
                       const std::vector<uint64_t> &outputs, int device,
                       CUcontext context, CUstream stream) const {
  const FunctionSpec &fn = *fnSpec;
  const std::vector<PlannedLaunch> &plan = call.launches;
  CudaDriver &driver = CudaDriver::get();

  // 1. Resolve the kernels of the image loaded in this context.
  std::vector<CUfunction> kernels(plan.size(), nullptr);
  const std::vector<CUdeviceptr> *constants = nullptr;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    detail::LoadedImage &image = state->loaded[context];
    if (!image.module) {
      CUmodule module = loadImage(driver, *state, device);
      try {
        image.constants = uploadConstants(driver, state->manifest, device);
      } catch (...) {
        (void)driver.moduleUnload(module);
        throw;
      }
      image.module = module;
    }
    constants = &image.constants[fnSpec - state->manifest.functions.data()];
    for (size_t i = 0; i < plan.size(); ++i) {
      if (plan[i].skip)
        continue;
      const LaunchSpec &spec = fn.launches[plan[i].index];
      CUfunction &kernel = image.kernels[spec.kernel];
      if (!kernel) {
        CUresult result = driver.moduleGetFunction(&kernel, image.module,
                                                   spec.kernel.c_str());
        if (result != CUDA_SUCCESS) {
          image.kernels.erase(spec.kernel);
          throw Error(
              fn.name + ": kernel '" + spec.kernel +
              "' is not in the module image: " + driver.describe(result));
        }
      }
      // Above 48 KiB of dynamic shared memory a kernel must opt in.
      uint32_t &limit = image.sharedLimits[kernel];
      if (plan[i].sharedBytes > kDefaultSharedLimit &&
          plan[i].sharedBytes > limit) {
        driver.check(
            driver.funcSetAttribute(
                kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(plan[i].sharedBytes)),
            fn.name + ": allowing " + std::to_string(plan[i].sharedBytes) +
                " bytes of dynamic shared memory for kernel '" + spec.kernel +
                "'");
        limit = plan[i].sharedBytes;
      }
      kernels[i] = kernel;
    }
  }

  // 2. As one graph where the mode and the call allow (CallGraph.cpp).
  if (detail::launchAsGraph(driver, fn, call, kernels, *constants, inputs,
                            outputs, context, stream))
    return;

  // 3. Bind buffer addresses: caller tensors, the module's constants, then
  //    per-call intermediates; then every TMA descriptor.
  Workspace workspace(driver, stream);
  std::vector<uint64_t> addresses = detail::bufferAddresses(
      fn, call, inputs, outputs, *constants, [&](size_t b, uint64_t bytes) {
        return workspace.allocate(bytes, fn.name + " intermediate buffer " +
                                             std::to_string(fn.buffers[b].id));
      });
  std::vector<std::vector<CUtensorMap>> maps =
      detail::encodeLaunchMaps(driver, call, addresses);

  // 4. Launch in order on the caller's stream.
  std::vector<uint64_t> params;
  std::vector<void *> pointers;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedLaunch &launch = plan[i];
    if (launch.skip)
      continue;
    detail::bindLaunch(launch, addresses, maps[i], params, pointers);
    CUresult result = driver.launchKernel(
        kernels[i], launch.grid[0], launch.grid[1], launch.grid[2],
        launch.block[0], launch.block[1], launch.block[2], launch.sharedBytes,
        stream, pointers.empty() ? nullptr : pointers.data(), nullptr);
    if (result != CUDA_SUCCESS)
      detail::throwLaunchError(driver, fn, launch, result);
  }
}

} // namespace fuser
