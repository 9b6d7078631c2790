// What one launch of a prepared call costs the host, in the runtime alone
// (no Python): fuser::Function::launch(call, addresses) against the bare
// cuLaunchKernel of the same kernel with the same parameters, and the
// driver calls the runtime adds (the context check). One pointwise package
// (gelu on 16 x 16384, scripts/build-torch-artifacts.py's host/).
//
// On the GPU machine, after bench/gpu-check.sh built build-gpu/:
//   g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include \
//     bench/experiments/launch_cost.cpp build-gpu/lib/libFuserRuntime.a \
//     build-gpu/lib/libFuserManifest.a -ldl -o /tmp/launch_cost
//   /tmp/launch_cost .artifacts/torch/host/gelu_16x16384.fuser/kernels/static

#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/LaunchPlan.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/PreparedCall.h"

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
  d.check(d.streamSynchronize(nullptr), "sync");
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    f();
    if (i % 256 == 255)
      d.check(d.streamSynchronize(nullptr), "sync"); // Keep the queue short.
  }
  d.check(d.streamSynchronize(nullptr), "sync");
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(end - start).count() / n;
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
  const int n = 20000;
  double prepared = usPerCall(
      d, [&] { fn.launch(*call, in, out, 0, nullptr); }, n);

  std::printf("[launch] %zu launches per call\n", call->launches.size());
  std::printf("[launch] Function::launch(prepared)  %6.2f us\n", prepared);
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
