//===- LaunchPlan.h - Concrete kernel launches for one call -----*- C++ -*-===//
//
// Turns a function's LaunchSpecs into concrete launch configurations and
// packed kernel parameters for one call's shapes. This is pure (no CUDA), so
// the parameter layout the kernels depend on is unit-tested on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_LAUNCHPLAN_H
#define FUSER_RUNTIME_LAUNCHPLAN_H

#include "fuser/Runtime/Manifest.h"
#include "fuser/Runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace fuser {

/// One launch with every expression evaluated.
struct PlannedLaunch {
  /// Index into FunctionSpec::launches.
  size_t index = 0;
  std::array<uint32_t, 3> grid{};
  std::array<uint32_t, 3> block{};
  uint32_t sharedBytes = 0;
  /// True when a grid dimension is 0 (zero-size tensors): nothing to run.
  bool skip = false;
  /// One 8-byte slot per kernel parameter, in order. i32 and f32 values
  /// occupy the low 4 bytes; cuLaunchKernel reads each parameter's own size.
  std::vector<uint64_t> params;
  /// (slot, buffer index) pairs whose slot receives the buffer's address.
  std::vector<std::pair<size_t, int64_t>> addressSlots;
};

/// Evaluates every launch of `fn` for a validated call. `buffers` comes from
/// resolveBuffers. Throws fuser::Error naming the launch and field, e.g.
/// "forward: launches[0] (kernel 'k') grid[0] is -1, which is negative".
std::vector<PlannedLaunch> planLaunches(const FunctionSpec &fn,
                                        const ShapeList &argShapes,
                                        const std::vector<TensorType> &buffers);

/// Writes buffer addresses (indexed like FunctionSpec::buffers) into the
/// address slots of `launch`.
void bindAddresses(PlannedLaunch &launch,
                   const std::vector<uint64_t> &bufferAddresses);

} // namespace fuser

#endif // FUSER_RUNTIME_LAUNCHPLAN_H
