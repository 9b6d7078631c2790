//===- CallGraph.cpp - A prepared call's launches as CUDA graphs ----------===//

#include "CallGraph.h"
#include "LaunchBinding.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/GraphMode.h"

#include <atomic>
#include <cstdlib>

namespace fuser {

//===----------------------------------------------------------------------===//
// The mode
//===----------------------------------------------------------------------===//

namespace {

/// Auto's rule. A graph pays from two launches. Replaying one costs the
/// host less than one cuLaunchKernel (H200 machine: 3.8 us against 36.9 us
/// kernel by kernel for five kernels, 1.9 us against 4.1 us for one;
/// bench/experiments/launch_cost.cpp), but a one-kernel graph starts
/// later on the GPU: with the L2 flushed before each call, gelu on
/// 16 x 16384 took 7.9 us as a graph against 5.5 us (5.2 against 4.9 for
/// leaky_relu; bench/host_overhead.py), more than its host saving where
/// the GPU decides. Its intermediates stay allocated as long as the
/// signature's prepared call, so auto leaves calls with large ones, or past
/// a process-wide total, to stream-ordered allocation.
constexpr size_t kAutoMinLaunches = 2;
constexpr uint64_t kAutoMaxCallBytes = uint64_t(256) << 20;
constexpr uint64_t kAutoMaxTotalBytes = uint64_t(1) << 30;

/// Bytes of intermediates that graphs own, process-wide.
std::atomic<uint64_t> ownedBytes{0};

GraphMode modeFromEnvironment() {
  const char *env = std::getenv("FUSER_CUDA_GRAPHS");
  if (!env || !*env)
    return GraphMode::Auto;
  try {
    return parseGraphMode(env);
  } catch (const Error &e) {
    throw Error(std::string("FUSER_CUDA_GRAPHS: ") + e.what());
  }
}

std::atomic<int> &modeSlot() {
  static std::atomic<int> mode{static_cast<int>(modeFromEnvironment())};
  return mode;
}

} // namespace

GraphMode graphMode() { return static_cast<GraphMode>(modeSlot().load()); }

void setGraphMode(GraphMode mode) { modeSlot().store(static_cast<int>(mode)); }

GraphMode parseGraphMode(std::string_view text) {
  if (text == "off")
    return GraphMode::Off;
  if (text == "auto")
    return GraphMode::Auto;
  if (text == "on")
    return GraphMode::On;
  throw Error("unknown CUDA graph mode '" + std::string(text) +
              "' (expected off, auto or on)");
}

std::string_view graphModeName(GraphMode mode) {
  switch (mode) {
  case GraphMode::Off:
    return "off";
  case GraphMode::Auto:
    return "auto";
  case GraphMode::On:
    return "on";
  }
  return "?";
}

namespace detail {

//===----------------------------------------------------------------------===//
// One graph
//===----------------------------------------------------------------------===//

/// A call's launches instantiated in one context, with the intermediates
/// it owns and the parameters each kernel node last received.
struct GraphEntry {
  CudaDriver &driver;
  CUcontext context;
  /// Calls seen in this context; the graph is built on the second.
  unsigned calls = 0;
  /// Building failed or the rule said no: kernel by kernel from now on.
  bool declined = false;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  /// Per planned launch; null for skipped launches.
  std::vector<CUgraphNode> nodes;
  /// Per planned launch: its parameter values, then the address of each
  /// tensor map's buffer (a changed descriptor shows as a changed address).
  std::vector<std::vector<uint64_t>> bound;
  /// Per buffer: the intermediate's address, or 0.
  std::vector<uint64_t> intermediates;
  std::vector<CUdeviceptr> owned;
  uint64_t ownedTotal = 0;

  GraphEntry(CudaDriver &driver, CUcontext context)
      : driver(driver), context(context) {}
  ~GraphEntry() { release(); }

  void release() {
    if (!exec && !graph && owned.empty())
      return;
    // As ModuleState: at process exit the driver may be shutting down.
    CUcontext previous = nullptr;
    (void)driver.ctxGetCurrent(&previous);
    (void)driver.ctxSetCurrent(context);
    if (exec)
      (void)driver.graphExecDestroy(exec);
    if (graph)
      (void)driver.graphDestroy(graph);
    // The graph's launches in flight still use the intermediates.
    if (!owned.empty())
      (void)driver.ctxSynchronize();
    for (CUdeviceptr ptr : owned)
      (void)driver.memFree(ptr);
    (void)driver.ctxSetCurrent(previous);
    exec = nullptr;
    graph = nullptr;
    owned.clear();
    ownedBytes -= ownedTotal;
    ownedTotal = 0;
  }
};

CallGraphs::~CallGraphs() = default;

std::shared_ptr<CallGraphs> makeCallGraphs() {
  return std::make_shared<CallGraphs>();
}

namespace {

size_t launchCount(const PreparedCall &call) {
  size_t launches = 0;
  for (const PlannedLaunch &launch : call.launches)
    launches += launch.skip ? 0 : 1;
  return launches;
}

/// Whether the rule of `mode` takes this call as a graph, by its launches.
bool launchesAllow(GraphMode mode, const PreparedCall &call) {
  size_t launches = launchCount(call);
  return mode == GraphMode::On ? launches > 0 : launches >= kAutoMinLaunches;
}

/// Whether the rule of `mode` lets a graph own this call's intermediates.
bool bytesAllow(GraphMode mode, const FunctionSpec &fn,
                const PreparedCall &call) {
  if (mode == GraphMode::On)
    return true;
  uint64_t bytes = 0;
  for (size_t b = 0; b < fn.buffers.size(); ++b)
    bytes += intermediateBytes(fn, call, b);
  return bytes <= kAutoMaxCallBytes &&
         ownedBytes.load() + bytes <= kAutoMaxTotalBytes;
}

/// The parameter values a node gets for `addresses` (see GraphEntry::bound).
std::vector<uint64_t> nodeValues(const PlannedLaunch &launch,
                                 const std::vector<uint64_t> &params,
                                 const std::vector<uint64_t> &addresses) {
  std::vector<uint64_t> values = params;
  for (const PlannedTensorMap &map : launch.tensorMaps)
    values.push_back(addresses[map.buffer]);
  return values;
}

CUDA_KERNEL_NODE_PARAMS nodeParams(CUfunction kernel,
                                   const PlannedLaunch &launch,
                                   std::vector<void *> &pointers) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = kernel;
  p.gridDimX = launch.grid[0];
  p.gridDimY = launch.grid[1];
  p.gridDimZ = launch.grid[2];
  p.blockDimX = launch.block[0];
  p.blockDimY = launch.block[1];
  p.blockDimZ = launch.block[2];
  p.sharedMemBytes = launch.sharedBytes;
  p.kernelParams = pointers.empty() ? nullptr : pointers.data();
  return p;
}

/// Allocates the intermediates and instantiates the graph; throws
/// fuser::Error (the entry then holds what to release).
void build(GraphEntry &entry, const FunctionSpec &fn, const PreparedCall &call,
           const std::vector<CUfunction> &kernels,
           const std::vector<uint64_t> &addresses,
           std::vector<std::vector<CUtensorMap>> &maps) {
  CudaDriver &driver = entry.driver;
  const std::vector<PlannedLaunch> &plan = call.launches;
  driver.check(driver.graphCreate(&entry.graph, 0),
               fn.name + ": creating a CUDA graph");
  entry.nodes.assign(plan.size(), nullptr);
  entry.bound.assign(plan.size(), {});
  CUgraphNode previous = nullptr;
  std::vector<uint64_t> params;
  std::vector<void *> pointers;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].skip)
      continue;
    bindLaunch(plan[i], addresses, maps[i], params, pointers);
    CUDA_KERNEL_NODE_PARAMS p = nodeParams(kernels[i], plan[i], pointers);
    driver.check(driver.graphAddKernelNode(&entry.nodes[i], entry.graph,
                                           previous ? &previous : nullptr,
                                           previous ? 1 : 0, &p),
                 fn.name + ": adding launches[" +
                     std::to_string(plan[i].index) + "] to a CUDA graph");
    previous = entry.nodes[i];
    entry.bound[i] = nodeValues(plan[i], params, addresses);
  }
  driver.check(driver.graphInstantiateWithFlags(&entry.exec, entry.graph, 0),
               fn.name + ": instantiating its CUDA graph");
}

} // namespace

bool launchAsGraph(CudaDriver &driver, const FunctionSpec &fn,
                   const PreparedCall &call,
                   const std::vector<CUfunction> &kernels,
                   const std::vector<CUdeviceptr> &constants,
                   const std::vector<uint64_t> &inputs,
                   const std::vector<uint64_t> &outputs, CUcontext context,
                   CUstream stream) {
  GraphMode mode = graphMode();
  if (mode == GraphMode::Off || !call.graphs || !driver.hasGraphs() ||
      !launchesAllow(mode, call))
    return false;
  // A captured stream records the kernels themselves (a graph launch
  // inside a capture would not be replayed with the capture's inputs).
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (driver.streamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return false;

  std::lock_guard<std::mutex> lock(call.graphs->mutex);
  std::unique_ptr<GraphEntry> &slot = call.graphs->entries[context];
  if (!slot)
    slot = std::make_unique<GraphEntry>(driver, context);
  GraphEntry &entry = *slot;
  if (entry.declined || ++entry.calls < 2)
    return false;

  const std::vector<PlannedLaunch> &plan = call.launches;
  std::vector<std::vector<CUtensorMap>> maps;
  std::vector<uint64_t> addresses;
  if (!entry.exec) {
    if (!bytesAllow(mode, fn, call)) {
      entry.declined = true;
      return false;
    }
    try {
      // The intermediates, owned by the graph for its life.
      entry.intermediates.assign(fn.buffers.size(), 0);
      addresses = bufferAddresses(
          fn, call, inputs, outputs, constants,
          [&](size_t b, uint64_t size) {
            CUdeviceptr ptr = 0;
            driver.check(driver.memAlloc(&ptr, size),
                         fn.name + ": allocating " + std::to_string(size) +
                             " bytes for its CUDA graph's intermediate "
                             "buffer " +
                             std::to_string(fn.buffers[b].id));
            entry.owned.push_back(ptr);
            entry.ownedTotal += size;
            ownedBytes += size;
            entry.intermediates[b] = ptr;
            return uint64_t(ptr);
          });
      maps = encodeLaunchMaps(driver, call, addresses);
      build(entry, fn, call, kernels, addresses, maps);
    } catch (const Error &) {
      // No graph for this call (out of memory, say): kernel by kernel, as
      // without graphs.
      entry.release();
      entry.declined = true;
      return false;
    }
  } else {
    addresses = bufferAddresses(
        fn, call, inputs, outputs, constants,
        [&](size_t b, uint64_t) { return entry.intermediates[b]; });
    maps = encodeLaunchMaps(driver, call, addresses);
    // Nodes whose addresses changed since their last parameters.
    std::vector<uint64_t> params;
    std::vector<void *> pointers;
    for (size_t i = 0; i < plan.size(); ++i) {
      if (!entry.nodes[i])
        continue;
      bindLaunch(plan[i], addresses, maps[i], params, pointers);
      std::vector<uint64_t> values = nodeValues(plan[i], params, addresses);
      if (values == entry.bound[i])
        continue;
      CUDA_KERNEL_NODE_PARAMS p = nodeParams(kernels[i], plan[i], pointers);
      CUresult result =
          driver.graphExecKernelNodeSetParams(entry.exec, entry.nodes[i], &p);
      if (result != CUDA_SUCCESS)
        throwLaunchError(driver, fn, plan[i], result);
      entry.bound[i] = std::move(values);
    }
  }
  CUresult result = driver.graphLaunch(entry.exec, stream);
  if (result != CUDA_SUCCESS)
    throw Error(fn.name + ": launching its CUDA graph (" +
                std::to_string(entry.nodes.size()) +
                " launches) failed: " + driver.describe(result));
  return true;
}

} // namespace detail

size_t graphsInUse(const PreparedCall &call) {
  if (!call.graphs)
    return 0;
  std::lock_guard<std::mutex> lock(call.graphs->mutex);
  size_t count = 0;
  for (const auto &entry : call.graphs->entries)
    count += entry.second && entry.second->exec ? 1 : 0;
  return count;
}

} // namespace fuser
