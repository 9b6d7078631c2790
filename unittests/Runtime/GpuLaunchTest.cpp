//===- GpuLaunchTest.cpp - End-to-end launches on a real GPU ----*- C++ -*-===//
//
// Skipped unless libcuda and a GPU are present. Runs hand-written PTX through
// Module::launch to check what CPU tests cannot: parameter packing as the
// driver sees it (ptr, i64, i32, f32, memref, tensor_map through a TMA
// load), intermediates, the >48 KiB shared memory opt-in, zero-size calls
// and driver-side error messages.
//
//===----------------------------------------------------------------------===//

#include "../TmaTileKernel.h"
#include "TestUtil.h"
#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/GraphMode.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/PreparedCall.h"

#include <cmath>

using namespace fuser;
using fuser::test::cudaTensor;
using fuser::test::expectError;
using fuser::test::replaceInManifest;

namespace {

// scale: tmp[i] = x[i] * alpha; add_size: out[i] = a[i] + size(a, 0), both
// reading through rank-1 memref descriptors (offset and stride honoured).
const char *kPtx = R"ptx(
.version 8.0
.target sm_80
.address_size 64

// tmp[i] = x[i] * alpha for i < n.
.visible .entry scale(
  .param .u64 scale_x,
  .param .u64 scale_tmp,
  .param .u64 scale_n,
  .param .f32 scale_alpha)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [scale_x];
  ld.param.u64 %rd2, [scale_tmp];
  ld.param.u64 %rd3, [scale_n];
  ld.param.f32 %f1, [scale_alpha];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  shl.b64 %rd5, %rd4, 2;
  add.u64 %rd6, %rd1, %rd5;
  cvta.to.global.u64 %rd6, %rd6;
  ld.global.f32 %f2, [%rd6];
  mul.f32 %f2, %f2, %f1;
  add.u64 %rd7, %rd2, %rd5;
  cvta.to.global.u64 %rd7, %rd7;
  st.global.f32 [%rd7], %f2;
DONE:
  ret;
}

// out[i] = a[i] + size(a, 0) through two rank-1 memref descriptors.
.visible .entry add_size(
  .param .u64 a_alloc, .param .u64 a_aligned, .param .u64 a_offset,
  .param .u64 a_size, .param .u64 a_stride,
  .param .u64 o_alloc, .param .u64 o_aligned, .param .u64 o_offset,
  .param .u64 o_size, .param .u64 o_stride,
  .param .u32 add_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [a_aligned];
  ld.param.u64 %rd2, [a_offset];
  ld.param.u64 %rd3, [a_size];
  ld.param.u64 %rd4, [a_stride];
  ld.param.u64 %rd5, [o_aligned];
  ld.param.u64 %rd6, [o_offset];
  ld.param.u64 %rd7, [o_stride];
  ld.param.u32 %r4, [add_n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r1, %r1, %r2, %r3;
  setp.ge.u32 %p1, %r1, %r4;
  @%p1 bra DONE;
  cvt.u64.u32 %rd8, %r1;
  mad.lo.u64 %rd9, %rd8, %rd4, %rd2;
  shl.b64 %rd9, %rd9, 2;
  add.u64 %rd9, %rd1, %rd9;
  cvta.to.global.u64 %rd9, %rd9;
  ld.global.f32 %f1, [%rd9];
  cvt.rn.f32.u64 %f2, %rd3;
  add.f32 %f1, %f1, %f2;
  mad.lo.u64 %rd10, %rd8, %rd7, %rd6;
  shl.b64 %rd10, %rd10, 2;
  add.u64 %rd10, %rd5, %rd10;
  cvta.to.global.u64 %rd10, %rd10;
  st.global.f32 [%rd10], %f1;
DONE:
  ret;
}
)ptx";

const char *kManifest = R"json({
  "format": "fuser-manifest", "version": 1, "chip": "sm_80",
  "functions": [{
    "name": "scale_add",
    "args": [{"name": "x", "dtype": "f32", "shape": ["?"], "align": 16}],
    "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                {"id": 1, "kind": "alloc", "dtype": "f32", "shape": ["dim(0,0)"]},
                {"id": 2, "kind": "alloc", "dtype": "f32", "shape": ["dim(0,0)"]}],
    "results": [{"buffer": 2}],
    "launches": [
      {"kernel": "scale", "grid": ["ceildiv(dim(0,0),128)", 1, 1],
       "block": [128, 1, 1],
       "args": [{"kind": "ptr", "buffer": 0}, {"kind": "ptr", "buffer": 1},
                {"kind": "i64", "value": "dim(0,0)"},
                {"kind": "f32", "value": 2.0}]},
      {"kernel": "add_size", "grid": ["ceildiv(dim(0,0),128)", 1, 1],
       "block": [128, 1, 1], "shared_bytes": 65536,
       "args": [{"kind": "memref", "buffer": 1, "shape": ["dim(0,0)"]},
                {"kind": "memref", "buffer": 2, "shape": ["dim(0,0)"]},
                {"kind": "i32", "value": "dim(0,0)"}]}]
  }, {
    "name": "missing_kernel",
    "args": [{"name": "x", "dtype": "f32", "shape": ["?"]}],
    "buffers": [{"id": 0, "kind": "arg", "arg": 0}],
    "results": [],
    "launches": [{"kernel": "nope", "grid": [1, 1, 1], "block": [1, 1, 1],
                  "args": []}]
  }]
})json";

const char *kTmaPtx = kTmaTilePtx;

// The box starts at column cols - 8 and row rows - 2, so it straddles the
// right and bottom edges.
const char *kTmaManifest = R"json({
  "format": "fuser-manifest", "version": 1, "chip": "sm_90",
  "functions": [{
    "name": "tile",
    "args": [{"name": "x", "dtype": "f32", "shape": ["?", "?"], "align": 16}],
    "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                {"id": 1, "kind": "alloc", "dtype": "f32", "shape": [8, 32],
                 "align": 16}],
    "results": [{"buffer": 1}],
    "launches": [{"kernel": "tma_tile", "grid": [1, 1, 1],
                  "block": [256, 1, 1],
      "args": [{"kind": "i32", "value": "sub(dim(0,1),8)"},
               {"kind": "tensor_map", "buffer": 0,
                "shape": ["dim(0,0)", "dim(0,1)"], "box": [8, 32],
                "swizzle": 128},
               {"kind": "ptr", "buffer": 1},
               {"kind": "i32", "value": "sub(dim(0,0),2)"}]}]
  }]
})json";

class GpuLaunchTest : public ::testing::Test {
protected:
  void SetUp() override {
    try {
      driver = &CudaDriver::get();
      context.emplace(*driver, 0);
    } catch (const Error &e) {
      GTEST_SKIP() << "no usable CUDA driver/GPU: " << e.what();
    }
  }

  void TearDown() override {
    for (CUdeviceptr p : allocations)
      (void)driver->memFree(p);
    context.reset();
  }

  CUdeviceptr alloc(size_t bytes) {
    CUdeviceptr p = 0;
    driver->check(driver->memAlloc(&p, bytes), "cuMemAlloc");
    allocations.push_back(p);
    return p;
  }

  CudaDriver *driver = nullptr;
  std::optional<ScopedDeviceContext> context;
  std::vector<CUdeviceptr> allocations;
};

TEST_F(GpuLaunchTest, RunsKernelsWithEveryParameterKind) {
  const int64_t n = 1000; // Not a multiple of the block size.
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(i) * 0.25f - 3.0f;
  CUdeviceptr dx = alloc(n * 4), dout = alloc((n + 1) * 4);
  driver->check(driver->memcpyHtoD(dx, x.data(), n * 4), "copy in");
  // A sentinel just past the output must survive.
  const float sentinel = -12345.0f;
  driver->check(driver->memcpyHtoD(dout + n * 4, &sentinel, 4), "sentinel");

  Module module(kPtx, kManifest);
  Function fn = module.function("scale_add");
  fn.launch({cudaTensor(DType::F32, {n}, dx)},
            {cudaTensor(DType::F32, {n}, dout)}, nullptr);
  driver->check(driver->streamSynchronize(nullptr), "sync");

  std::vector<float> out(n + 1);
  driver->check(driver->memcpyDtoH(out.data(), dout, (n + 1) * 4), "copy out");
  for (int64_t i = 0; i < n; ++i)
    ASSERT_FLOAT_EQ(out[i], 2.0f * x[i] + static_cast<float>(n)) << "i=" << i;
  EXPECT_EQ(out[n], sentinel);

  // A second call with another size reuses the loaded module.
  const int64_t m = 7;
  fn.launch({cudaTensor(DType::F32, {m}, dx)},
            {cudaTensor(DType::F32, {m}, dout)}, nullptr);
  driver->check(driver->streamSynchronize(nullptr), "sync");
  driver->check(driver->memcpyDtoH(out.data(), dout, m * 4), "copy out");
  for (int64_t i = 0; i < m; ++i)
    ASSERT_FLOAT_EQ(out[i], 2.0f * x[i] + static_cast<float>(m));
}

TEST_F(GpuLaunchTest, ZeroSizeCallLaunchesNothing) {
  Module module(kPtx, kManifest);
  EXPECT_NO_THROW(module.function("scale_add")
                      .launch({cudaTensor(DType::F32, {0}, 0)},
                              {cudaTensor(DType::F32, {0}, 0)}, nullptr));
}

TEST_F(GpuLaunchTest, MissingKernelIsNamed) {
  Module module(kPtx, kManifest);
  CUdeviceptr dx = alloc(16);
  expectError(
      [&] {
        module.function("missing_kernel")
            .launch({cudaTensor(DType::F32, {4}, dx)}, {}, nullptr);
      },
      "missing_kernel: kernel 'nope' is not in the module image: "
      "CUDA_ERROR_NOT_FOUND");
}

TEST_F(GpuLaunchTest, BadPtxReportsTheJitLog) {
  Module module(".version 8.0\n.target sm_80\n.address_size 64\n"
                ".visible .entry scale() { bogus; }\n",
                kManifest);
  CUdeviceptr dx = alloc(16), dout = alloc(16);
  std::string message = expectError(
      [&] {
        module.function("scale_add")
            .launch({cudaTensor(DType::F32, {4}, dx)},
                    {cudaTensor(DType::F32, {4}, dout)}, nullptr);
      },
      "loading the module (PTX) on cuda:0 failed: CUDA_ERROR_INVALID_PTX");
  EXPECT_NE(message.find("JIT error log:"), std::string::npos) << message;
}

TEST_F(GpuLaunchTest, HostPointerIsRejected) {
  Module module(kPtx, kManifest);
  std::vector<float> host(4);
  CUdeviceptr dout = alloc(16);
  expectError(
      [&] {
        module.function("scale_add")
            .launch({cudaTensor(DType::F32, {4},
                                reinterpret_cast<uint64_t>(host.data()))},
                    {cudaTensor(DType::F32, {4}, dout)}, nullptr);
      },
      "is not CUDA memory");
}

TEST_F(GpuLaunchTest, TensorMapLoadsSwizzledBoxWithZeroFill) {
  int cc = driver->computeCapability(0);
  if (cc < 90)
    GTEST_SKIP() << "TMA needs sm_90; the device is sm_" << cc;
  Module module(kTmaPtx, kTmaManifest);
  Function fn = module.function("tile");
  CUdeviceptr dx = alloc(64 * 64 * 4), dout = alloc(8 * 32 * 4);
  // Two calls with different sizes: each encodes its own map.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{5, 40}, {3, 64}}) {
    std::vector<float> x(rows * cols);
    for (int64_t i = 0; i < rows * cols; ++i)
      x[i] = static_cast<float>(i + 1);
    driver->check(driver->memcpyHtoD(dx, x.data(), x.size() * 4), "copy in");
    fn.launch({cudaTensor(DType::F32, {rows, cols}, dx)},
              {cudaTensor(DType::F32, {8, 32}, dout)}, nullptr);
    driver->check(driver->streamSynchronize(nullptr), "sync");
    std::vector<float> out(8 * 32);
    driver->check(driver->memcpyDtoH(out.data(), dout, out.size() * 4),
                  "copy out");
    int64_t row0 = rows - 2, col0 = cols - 8;
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = 0; c < 32; ++c) {
        // 128-byte swizzle: 16-byte chunk j of row r lands at j ^ (r % 8).
        int64_t at = r * 32 + ((c / 4) ^ (r % 8)) * 4 + c % 4;
        bool inside = row0 + r < rows && col0 + c < cols;
        float want = inside ? x[(row0 + r) * cols + col0 + c] : 0.0f;
        ASSERT_EQ(out[at], want) << rows << "x" << cols << " r=" << r
                                 << " c=" << c;
      }
  }
}

TEST_F(GpuLaunchTest, TensorMapMisalignedBufferIsRejected) {
  // Without "align": 16, validation admits the pointer; encoding does not.
  Module module(kTmaPtx, replaceInManifest(kTmaManifest,
                                           R"("shape": ["?", "?"], "align": 16})",
                                           R"("shape": ["?", "?"]})"));
  CUdeviceptr dx = alloc(64 * 64 * 4), dout = alloc(8 * 32 * 4);
  expectError(
      [&] {
        module.function("tile").launch(
            {cudaTensor(DType::F32, {5, 40}, dx + 4)},
            {cudaTensor(DType::F32, {8, 32}, dout)}, nullptr);
      },
      "tile: launches[0] (kernel 'tma_tile') args[1]: the address 0x");
}

} // namespace

namespace {

/// Sets the process-wide graph mode for a test and restores it after.
struct GraphModeScope {
  explicit GraphModeScope(GraphMode mode) { setGraphMode(mode); }
  ~GraphModeScope() { setGraphMode(saved); }
  GraphMode saved = graphMode();
};

TEST_F(GpuLaunchTest, PreparedCallsReplayAsGraphsWithNewAddresses) {
  const int64_t n = 1000;
  for (GraphMode mode : {GraphMode::Off, GraphMode::Auto, GraphMode::On}) {
    GraphModeScope scope(mode);
    Module module(kPtx, kManifest);
    Function fn = module.function("scale_add");
    auto call = fn.prepare({cudaTensor(DType::F32, {n})});
    // Inputs and outputs alternate between two buffers each, so the
    // graph's nodes see new addresses on some calls and old on others.
    CUdeviceptr xs[2] = {alloc(n * 4), alloc(n * 4)};
    CUdeviceptr outs[2] = {alloc(n * 4), alloc(n * 4)};
    for (int k = 0; k < 6; ++k) {
      CUdeviceptr dx = xs[k % 2], dout = outs[(k / 2) % 2];
      std::vector<float> x(n);
      for (int64_t i = 0; i < n; ++i)
        x[i] = static_cast<float>(i) * 0.5f - static_cast<float>(k * 7);
      driver->check(driver->memcpyHtoD(dx, x.data(), n * 4), "copy in");
      fn.launch(*call, {dx}, {dout}, 0, nullptr);
      driver->check(driver->streamSynchronize(nullptr), "sync");
      std::vector<float> out(n);
      driver->check(driver->memcpyDtoH(out.data(), dout, n * 4), "copy out");
      for (int64_t i = 0; i < n; ++i)
        ASSERT_FLOAT_EQ(out[i], 2.0f * x[i] + static_cast<float>(n))
            << graphModeName(mode) << " call " << k << " i=" << i;
    }
    // Two launches with a small intermediate: auto takes it as on does,
    // from the second call.
    EXPECT_EQ(graphsInUse(*call), mode == GraphMode::Off ? 0u : 1u)
        << graphModeName(mode);
  }
}

TEST_F(GpuLaunchTest, GraphTensorMapsFollowTheirBuffers) {
  if (driver->computeCapability(0) < 90)
    GTEST_SKIP() << "TMA needs sm_90";
  GraphModeScope scope(GraphMode::On);
  Module module(kTmaPtx, kTmaManifest);
  Function fn = module.function("tile");
  const int64_t rows = 3, cols = 64;
  auto call = fn.prepare({cudaTensor(DType::F32, {rows, cols})});
  CUdeviceptr xs[2] = {alloc(rows * cols * 4), alloc(rows * cols * 4)};
  CUdeviceptr dout = alloc(8 * 32 * 4);
  for (int k = 0; k < 4; ++k) {
    std::vector<float> x(rows * cols);
    for (int64_t i = 0; i < rows * cols; ++i)
      x[i] = static_cast<float>(i + 100 * k);
    driver->check(driver->memcpyHtoD(xs[k % 2], x.data(), x.size() * 4),
                  "copy in");
    fn.launch(*call, {xs[k % 2]}, {dout}, 0, nullptr);
    driver->check(driver->streamSynchronize(nullptr), "sync");
    std::vector<float> out(8 * 32);
    driver->check(driver->memcpyDtoH(out.data(), dout, out.size() * 4),
                  "copy out");
    // Row rows - 2 of the box, chunk 0 (no swizzle in row 0): the map
    // must read this call's buffer, not the one the graph was built with.
    for (int64_t c = 0; c < 4; ++c)
      ASSERT_EQ(out[c], x[(rows - 2) * cols + cols - 8 + c]) << "call " << k;
  }
  EXPECT_EQ(graphsInUse(*call), 1u);
}

} // namespace
