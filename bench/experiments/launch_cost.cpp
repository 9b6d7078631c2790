// What one launch of a prepared call costs the host, in the runtime alone
// (no Python): fuser::Function::launch(call, addresses) kernel by kernel
// and as a CUDA graph (the same addresses every call, and outputs
// alternating between two buffers, which updates kernel nodes), against the
// bare cuLaunchKernel of the first kernel with the same parameters, and
// the driver calls the runtime adds (the context check). Each figure is the
// median host time of one call, the GPU idle before it. Packages from
// scripts/build-torch-artifacts.py's host/ (gelu on 16 x 16384: one
// kernel; linear_gelu_softmax_128x1024x512: five).
//
// On the GPU machine, after bench/gpu-check.sh built build-gpu/:
//   g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include \
//     bench/experiments/launch_cost.cpp build-gpu/lib/libFuserRuntime.a \
//     build-gpu/lib/libFuserManifest.a -ldl -o /tmp/launch_cost
//   /tmp/launch_cost .artifacts/torch/host/gelu_16x16384.fuser/kernels/static

#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/GraphMode.h"
#include "fuser/Runtime/LaunchPlan.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/PreparedCall.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace fuser;

static std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

template <typename F> static double usPerCall(CudaDriver &d, F f, int n) {
  for (int i = 0; i < 100; ++i)
    f();
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    d.check(d.streamSynchronize(nullptr), "sync");
    auto start = std::chrono::steady_clock::now();
    f();
    auto end = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  d.check(d.streamSynchronize(nullptr), "sync");
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: launch_cost <package>/kernels/<variant>\n");
    return 2;
  }
  std::string stem = argv[1];
  Module module(readFile(stem + ".ptx"), readFile(stem + ".manifest.json"));
  Function fn = module.function(module.functionNames()[0]);
  CudaDriver &d = CudaDriver::get();
  CUcontext ctx = d.primaryContext(0);
  d.check(d.ctxSetCurrent(ctx), "cuCtxSetCurrent");
  std::vector<TensorRef> inputs;
  std::vector<uint64_t> in, out;
  for (const ArgSpec &a : fn.spec().args) {
    TensorRef t;
    t.dtype = a.dtype;
    t.shape = a.shape;
    t.strides = contiguousStrides(t.shape);
    CUdeviceptr p;
    d.check(d.memAlloc(&p, t.numel() * dtypeSize(t.dtype) + 256), "alloc");
    t.data = p;
    inputs.push_back(t);
    in.push_back(p);
  }
  auto call = fn.prepare(inputs);
  for (const TensorType &r : call->results) {
    CUdeviceptr p;
    d.check(d.memAlloc(&p, r.byteSize() + 256), "alloc");
    out.push_back(p);
  }
  std::vector<uint64_t> out2;
  for (const TensorType &r : call->results) {
    CUdeviceptr p;
    d.check(d.memAlloc(&p, r.byteSize() + 256), "alloc");
    out2.push_back(p);
  }
  const int n = 5000;
  std::printf("[launch] %zu launches per call\n", call->launches.size());
  for (GraphMode mode : {GraphMode::Off, GraphMode::On}) {
    setGraphMode(mode);
    auto fresh = fn.prepare(inputs);
    double same = usPerCall(
        d, [&] { fn.launch(*fresh, in, out, 0, nullptr); }, n);
    int k = 0;
    double alternating = usPerCall(
        d,
        [&] { fn.launch(*fresh, in, (k++ % 2) ? out2 : out, 0, nullptr); },
        n);
    std::printf("[launch] Function::launch(prepared), graphs %-4s %6.2f us "
                "(outputs alternating: %6.2f us)%s\n",
                std::string(graphModeName(mode)).c_str(), same, alternating,
                graphsInUse(*fresh) ? ", as a graph" : "");
  }
  setGraphMode(GraphMode::Off);
  double context = usPerCall(
      d, [&] { ScopedDeviceContext scope(d, 0); }, n);
  std::printf("[launch] ScopedDeviceContext         %6.2f us\n", context);
  const PlannedLaunch &l = call->launches[0];
  if (!l.tensorMaps.empty()) {
    std::printf("[launch] (the first kernel takes TMA descriptors: not "
                "launched bare)\n");
    return 0;
  }
  // The same first kernel, bare.
  CUmodule raw;
  std::string ptx = readFile(stem + ".ptx");
  d.check(d.moduleLoadDataEx(&raw, ptx.c_str(), 0, nullptr, nullptr), "load");
  CUfunction kernel;
  d.check(d.moduleGetFunction(&kernel, raw,
                              fn.spec().launches[l.index].kernel.c_str()),
          "get");
  std::vector<uint64_t> addresses(fn.spec().buffers.size(), 0);
  for (size_t b = 0; b < addresses.size(); ++b) {
    const BufferSpec &buf = fn.spec().buffers[b];
    if (buf.kind == BufferSpec::Kind::Arg)
      addresses[b] = in[buf.arg];
  }
  for (size_t r = 0; r < fn.spec().results.size(); ++r)
    addresses[fn.spec().results[r]] = out[r];
  PlannedLaunch bound = l;
  bindAddresses(bound, addresses);
  std::vector<void *> params;
  for (uint64_t &slot : bound.params)
    params.push_back(&slot);
  double bare = usPerCall(
      d,
      [&] {
        d.check(d.launchKernel(kernel, l.grid[0], l.grid[1], l.grid[2],
                               l.block[0], l.block[1], l.block[2],
                               l.sharedBytes, nullptr, params.data(), nullptr),
                "launch");
      },
      n);
  std::printf("[launch] cuLaunchKernel alone        %6.2f us\n", bare);
  return 0;
}
