//===- LaunchPlan.cpp - Concrete kernel launches for one call ---*- C++ -*-===//

#include "fuser/Runtime/LaunchPlan.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Manifest/TensorMapRules.h"

#include <cstring>
#include <limits>

namespace fuser {

namespace {

class Planner {
public:
  Planner(const FunctionSpec &fn, const ShapeList &argShapes,
          const std::vector<TensorType> &buffers)
      : fn(fn), argShapes(argShapes), buffers(buffers) {}

  PlannedLaunch plan(size_t index) {
    const LaunchSpec &spec = fn.launches[index];
    label = fn.name + ": launches[" + std::to_string(index) + "] (kernel '" +
            spec.kernel + "')";
    PlannedLaunch launch;
    launch.index = index;
    for (int d = 0; d < 3; ++d) {
      std::string g = "grid[" + std::to_string(d) + "]";
      std::string b = "block[" + std::to_string(d) + "]";
      launch.grid[d] = dimension(spec.grid[d], g, /*allowZero=*/true);
      launch.block[d] = dimension(spec.block[d], b, /*allowZero=*/false);
      if (launch.grid[d] == 0)
        launch.skip = true;
    }
    if (spec.sharedBytes > std::numeric_limits<uint32_t>::max())
      fail("shared_bytes " + std::to_string(spec.sharedBytes) +
           " is too large");
    launch.sharedBytes = static_cast<uint32_t>(spec.sharedBytes);
    for (size_t a = 0; a < spec.args.size(); ++a)
      pack(spec.args[a], "args[" + std::to_string(a) + "]", launch);
    return launch;
  }

private:
  const FunctionSpec &fn;
  const ShapeList &argShapes;
  const std::vector<TensorType> &buffers;
  std::string label;

  [[noreturn]] void fail(const std::string &message) const {
    throw Error(label + " " + message);
  }

  int64_t evaluate(const Expr &e, const std::string &field) const {
    try {
      return e.evaluate(argShapes);
    } catch (const Error &err) {
      fail(field + ": " + err.what());
    }
  }

  uint32_t dimension(const Expr &e, const std::string &field, bool allowZero) {
    int64_t v = evaluate(e, field);
    if (v < 0 || (v == 0 && !allowZero))
      fail(field + " is " + std::to_string(v) + " (" + e.toString() +
           "), which is not positive");
    if (v > std::numeric_limits<uint32_t>::max())
      fail(field + " is " + std::to_string(v) + " (" + e.toString() +
           "), which exceeds the CUDA limit");
    return static_cast<uint32_t>(v);
  }

  static uint64_t bits(int64_t v) { return static_cast<uint64_t>(v); }

  void pack(const KernelArgSpec &arg, const std::string &field,
            PlannedLaunch &launch) {
    std::vector<uint64_t> &params = launch.params;
    switch (arg.kind) {
    case KernelArgSpec::Kind::Ptr:
      launch.addressSlots.emplace_back(params.size(), arg.buffer);
      params.push_back(0);
      return;
    case KernelArgSpec::Kind::I64:
      params.push_back(bits(evaluate(arg.value, field)));
      return;
    case KernelArgSpec::Kind::I32: {
      int64_t v = evaluate(arg.value, field);
      if (v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max())
        fail(field + " is " + std::to_string(v) + " (" + arg.value.toString() +
             "), which does not fit in i32");
      int32_t narrow = static_cast<int32_t>(v);
      uint64_t slot = 0;
      std::memcpy(&slot, &narrow, sizeof(narrow));
      params.push_back(slot);
      return;
    }
    case KernelArgSpec::Kind::F32: {
      uint64_t slot = 0;
      std::memcpy(&slot, &arg.f32, sizeof(arg.f32));
      params.push_back(slot);
      return;
    }
    case KernelArgSpec::Kind::Memref:
      packMemref(arg, field, launch);
      return;
    case KernelArgSpec::Kind::TensorMap:
      packTensorMap(arg, field, launch);
      return;
    }
  }

  /// Checks what cuTensorMapEncodeTiled needs of the view's sizes. Skipped
  /// launches encode nothing, so their (typically zero) sizes pass.
  void packTensorMap(const KernelArgSpec &arg, const std::string &field,
                     PlannedLaunch &launch) {
    size_t slot = launch.params.size();
    launch.params.push_back(0); // The map is passed by pointer at launch.
    std::array<int64_t, 2> sizes;
    for (size_t d = 0; d < 2; ++d)
      sizes[d] =
          evaluate(arg.shape[d], field + ".shape[" + std::to_string(d) + "]");
    if (launch.skip)
      return;
    // The rules the reader applied to constant sizes, now to the call's.
    for (size_t d = 0; d < 2; ++d)
      if (std::string why = tensorMapSizeError(sizes[d]); !why.empty())
        fail(field + ".shape[" + std::to_string(d) + "] (" +
             arg.shape[d].toString() + "): " + why);
    const BufferSpec &buf = fn.buffers[arg.buffer];
    std::vector<int64_t> view(sizes.begin(), sizes.end());
    if (std::string why = tensorMapPitchError(buf.dtype, sizes[1]);
        !why.empty())
      fail(field + ": tensor_map view " + shapeToString(view) + ": " + why);
    // Both sizes are below 2^32, so the product cannot overflow.
    uint64_t numel = static_cast<uint64_t>(sizes[0]) * sizes[1];
    int64_t available = buffers[arg.buffer].numel();
    if (numel > static_cast<uint64_t>(available))
      fail(field + ": tensor_map view " + shapeToString(view) + " has " +
           std::to_string(numel) + " elements but buffer " +
           std::to_string(buf.id) + " has only " + std::to_string(available));

    PlannedTensorMap map;
    map.slot = slot;
    map.buffer = arg.buffer;
    map.bufferId = buf.id;
    map.dtype = buf.dtype;
    map.rows = static_cast<uint64_t>(sizes[0]);
    map.cols = static_cast<uint64_t>(sizes[1]);
    map.box = arg.box;
    map.swizzle = arg.swizzle;
    map.label = label + " " + field;
    launch.tensorMaps.push_back(std::move(map));
  }

  /// MLIR's default memref descriptor: allocated and aligned pointer,
  /// offset 0, sizes, then dense row-major strides.
  void packMemref(const KernelArgSpec &arg, const std::string &field,
                  PlannedLaunch &launch) {
    std::vector<int64_t> sizes;
    int64_t numel = 1;
    for (size_t d = 0; d < arg.shape.size(); ++d) {
      std::string f = field + ".shape[" + std::to_string(d) + "]";
      int64_t size = evaluate(arg.shape[d], f);
      if (size < 0)
        fail(f + " is " + std::to_string(size) + ", which is negative");
      if (__builtin_mul_overflow(numel, size, &numel))
        fail(field + ": the memref view's element count overflows");
      sizes.push_back(size);
    }
    // The view must stay inside the buffer, or the kernel would access
    // memory the call does not own.
    int64_t available = buffers[arg.buffer].numel();
    if (numel > available)
      fail(field + ": memref view " + shapeToString(sizes) + " has " +
           std::to_string(numel) + " elements but buffer " +
           std::to_string(fn.buffers[arg.buffer].id) + " has only " +
           std::to_string(available));

    std::vector<uint64_t> &params = launch.params;
    launch.addressSlots.emplace_back(params.size(), arg.buffer);
    params.push_back(0); // allocated pointer
    launch.addressSlots.emplace_back(params.size(), arg.buffer);
    params.push_back(0); // aligned pointer
    params.push_back(0); // offset
    for (int64_t s : sizes)
      params.push_back(bits(s));
    for (int64_t s : contiguousStrides(sizes))
      params.push_back(bits(s));
  }
};

} // namespace

std::vector<PlannedLaunch>
planLaunches(const FunctionSpec &fn, const ShapeList &argShapes,
             const std::vector<TensorType> &buffers) {
  Planner planner(fn, argShapes, buffers);
  std::vector<PlannedLaunch> launches;
  launches.reserve(fn.launches.size());
  for (size_t i = 0; i < fn.launches.size(); ++i)
    launches.push_back(planner.plan(i));
  return launches;
}

void bindAddresses(PlannedLaunch &launch,
                   const std::vector<uint64_t> &bufferAddresses) {
  for (const auto &[slot, buffer] : launch.addressSlots)
    launch.params[slot] = bufferAddresses[buffer];
}

} // namespace fuser
