//===- LaunchBinding.cpp - A prepared call's launches bound to addresses ===//

#include "LaunchBinding.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/TensorMap.h"

#include <mutex>

namespace fuser::detail {

uint64_t intermediateBytes(const FunctionSpec &fn, const PreparedCall &call,
                           size_t b) {
  const BufferSpec &buf = fn.buffers[b];
  if (buf.kind == BufferSpec::Kind::Arg ||
      buf.kind == BufferSpec::Kind::Constant || buf.isResult)
    return 0;
  return static_cast<uint64_t>(call.buffers[b].byteSize());
}

std::vector<uint64_t>
bufferAddresses(const FunctionSpec &fn, const PreparedCall &call,
                const std::vector<uint64_t> &inputs,
                const std::vector<uint64_t> &outputs,
                const std::vector<CUdeviceptr> &constants,
                const std::function<uint64_t(size_t, uint64_t)> &intermediate) {
  std::vector<uint64_t> addresses(fn.buffers.size(), 0);
  for (size_t b = 0; b < fn.buffers.size(); ++b) {
    const BufferSpec &buf = fn.buffers[b];
    if (buf.kind == BufferSpec::Kind::Arg)
      addresses[b] = inputs[buf.arg];
    else if (buf.kind == BufferSpec::Kind::Constant)
      addresses[b] = constants[b];
    else if (uint64_t bytes = intermediateBytes(fn, call, b))
      addresses[b] = intermediate(b, bytes);
  }
  for (size_t r = 0; r < fn.results.size(); ++r)
    addresses[fn.results[r]] = outputs[r];
  return addresses;
}

std::vector<std::vector<CUtensorMap>>
encodeLaunchMaps(CudaDriver &driver, const PreparedCall &call,
                 const std::vector<uint64_t> &addresses) {
  // Every descriptor before the first launch, so a bad one enqueues
  // nothing. They only need to outlive the launch, which copies them.
  static_assert(alignof(CUtensorMap) >= 64, "TMA descriptors need 64 bytes");
  const std::vector<PlannedLaunch> &plan = call.launches;
  std::vector<std::vector<CUtensorMap>> maps(plan.size());
  std::lock_guard<std::mutex> lock(call.encodedMutex);
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedLaunch &launch = plan[i];
    maps[i].resize(launch.tensorMaps.size());
    for (size_t k = 0; k < launch.tensorMaps.size(); ++k) {
      const PlannedTensorMap &map = launch.tensorMaps[k];
      uint64_t address = addresses[map.buffer];
      PreparedCall::EncodedMap &cached = call.encoded[i][k];
      if (!cached.valid || cached.address != address) {
        cached.valid = false;
        encodeTensorMap(driver, map, tensorMapEncoding(map, address),
                        cached.map);
        cached.address = address;
        cached.valid = true;
      }
      maps[i][k] = cached.map;
    }
  }
  return maps;
}

void bindLaunch(const PlannedLaunch &launch,
                const std::vector<uint64_t> &addresses,
                std::vector<CUtensorMap> &maps, std::vector<uint64_t> &params,
                std::vector<void *> &pointers) {
  params = launch.params;
  for (const auto &[slot, buffer] : launch.addressSlots)
    params[slot] = addresses[buffer];
  pointers.clear();
  for (uint64_t &slot : params)
    pointers.push_back(&slot);
  for (size_t k = 0; k < launch.tensorMaps.size(); ++k)
    pointers[launch.tensorMaps[k].slot] = &maps[k];
}

void throwLaunchError(CudaDriver &driver, const FunctionSpec &fn,
                      const PlannedLaunch &launch, CUresult result) {
  const LaunchSpec &spec = fn.launches[launch.index];
  throw Error(
      fn.name + ": launching kernel '" + spec.kernel + "' (launches[" +
      std::to_string(launch.index) + "], grid " +
      shapeToString({launch.grid[0], launch.grid[1], launch.grid[2]}) +
      ", block " +
      shapeToString({launch.block[0], launch.block[1], launch.block[2]}) +
      ", " + std::to_string(launch.sharedBytes) +
      " bytes shared) failed: " + driver.describe(result));
}

} // namespace fuser::detail
