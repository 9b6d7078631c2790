//===- LaunchBinding.h - A prepared call's launches bound to addresses -===//
//
// Private to the runtime: what launching kernel by kernel (Module.cpp) and
// as a graph (CallGraph.cpp) both do with a call's addresses.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_RUNTIME_LAUNCHBINDING_H
#define FUSER_LIB_RUNTIME_LAUNCHBINDING_H

#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/PreparedCall.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace fuser::detail {

/// Bytes of buffer `b` when the call must provide it (an intermediate with
/// elements), else 0.
uint64_t intermediateBytes(const FunctionSpec &fn, const PreparedCall &call,
                           size_t b);

/// Every buffer's address, indexed like FunctionSpec::buffers: the caller's
/// tensors, the module's constants, `intermediate(b, bytes)` for each
/// intermediate with elements, and the outputs.
std::vector<uint64_t>
bufferAddresses(const FunctionSpec &fn, const PreparedCall &call,
                const std::vector<uint64_t> &inputs,
                const std::vector<uint64_t> &outputs,
                const std::vector<CUdeviceptr> &constants,
                const std::function<uint64_t(size_t, uint64_t)> &intermediate);

/// The TMA descriptors of every launch for these addresses, each encoded
/// once per address (PreparedCall::encoded).
std::vector<std::vector<CUtensorMap>>
encodeLaunchMaps(CudaDriver &driver, const PreparedCall &call,
                 const std::vector<uint64_t> &addresses);

/// A launch's parameter values with the addresses written in (`params`)
/// and the pointers the driver takes (`pointers`, into `params` and
/// `maps`; valid while both are).
void bindLaunch(const PlannedLaunch &launch,
                const std::vector<uint64_t> &addresses,
                std::vector<CUtensorMap> &maps, std::vector<uint64_t> &params,
                std::vector<void *> &pointers);

/// "<function>: launching kernel 'k' (launches[i], grid .., block ..,
/// n bytes shared) failed: CUDA_ERROR_X (..)".
[[noreturn]] void throwLaunchError(CudaDriver &driver, const FunctionSpec &fn,
                                   const PlannedLaunch &launch,
                                   CUresult result);

} // namespace fuser::detail

#endif // FUSER_LIB_RUNTIME_LAUNCHBINDING_H
