//===- LaunchPlan.h - Concrete kernel launches for one call -----*- C++ -*-===//
//
// Turns a function's LaunchSpecs into concrete launch configurations and
// packed kernel parameters for one call's shapes. This is pure (no CUDA), so
// the parameter layout the kernels depend on is unit-tested on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_LAUNCHPLAN_H
#define FUSER_RUNTIME_LAUNCHPLAN_H

#include "fuser/Manifest/Manifest.h"
#include "fuser/Runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fuser {

/// A tensor_map parameter of one call: the 2-D view, evaluated and checked.
/// The CUtensorMap itself bakes in the buffer's address, so it is encoded
/// at launch time (see TensorMap.h).
struct PlannedTensorMap {
  /// The parameter's index in PlannedLaunch::params.
  size_t slot = 0;
  /// Index into FunctionSpec::buffers, and that buffer's id for messages.
  int64_t buffer = 0;
  int64_t bufferId = 0;
  DType dtype = DType::F32;
  /// The view [rows, cols] and the box [rows, cols], in elements.
  uint64_t rows = 0, cols = 0;
  std::array<uint32_t, 2> box{};
  /// Swizzle span in bytes: 0, 32, 64 or 128.
  int64_t swizzle = 0;
  /// Names the function, launch and argument in errors, e.g.
  /// "forward: launches[0] (kernel 'k') args[2]".
  std::string label;
};

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
  /// The tensor_map parameters; their `params` slots are placeholders, as
  /// the kernel receives the 128-byte CUtensorMap itself. Empty when `skip`.
  std::vector<PlannedTensorMap> tensorMaps;
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
