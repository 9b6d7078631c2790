//===- ModuleTest.cpp - Tests for Module/Function without a GPU -*- C++ -*-===//
//
// The runtime must load and validate on machines with no NVIDIA driver. When
// the driver is absent these tests check the launch error; when it is
// present they are skipped (GpuLaunchTest covers that case).
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Module.h"
#include "TestUtil.h"
#include "fuser/Runtime/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>

using namespace fuser;
using fuser::test::cudaTensor;
using fuser::test::expectError;
using fuser::test::matmulManifest;

namespace {

constexpr const char *kPtx = ".version 8.0\n.target sm_90a\n";

bool driverInstalled() {
  const char *env = std::getenv("FUSER_LIBCUDA");
  void *handle = dlopen(env && *env ? env : "libcuda.so.1", RTLD_LAZY);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

TEST(ModuleTest, ConstructionParsesManifest) {
  Module module(kPtx, matmulManifest());
  EXPECT_EQ(module.manifest().chip, "sm_90a");
  EXPECT_EQ(module.functionNames(), std::vector<std::string>{"forward"});
  Function fn = module.function("forward");
  EXPECT_EQ(fn.name(), "forward");
  EXPECT_EQ(fn.spec().args.size(), 2u);
}

TEST(ModuleTest, InvalidManifestFailsAtConstruction) {
  expectError([] { Module(kPtx, "{\"format\": \"fuser-manifest\"}"); },
              "invalid manifest: missing required field 'version'");
}

TEST(ModuleTest, EmptyImage) {
  expectError([] { Module("", matmulManifest()); },
              "the module image is empty (expected PTX text or a cubin)");
}

TEST(ModuleTest, UnknownFunctionListsAvailable) {
  Module module(kPtx, matmulManifest());
  expectError([&] { module.function("backward"); },
              "no function named 'backward' in the module (available: "
              "'forward')");
}

TEST(ModuleTest, FunctionOutlivesModule) {
  std::optional<Function> fn;
  {
    Module module(kPtx, matmulManifest());
    fn = module.function("forward");
  }
  EXPECT_EQ(fn->name(), "forward");
  EXPECT_EQ(fn->spec().launches.size(), 2u);
}

TEST(ModuleTest, ResultSpecsWithoutGpu) {
  Module module(kPtx, matmulManifest());
  std::vector<TensorType> results = module.function("forward").resultSpecs(
      {cudaTensor(DType::F32, {5, 8}, 0x10000),
       cudaTensor(DType::F32, {8, 4}, 0x20000)});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].dtype, DType::F32);
  EXPECT_EQ(results[0].shape, (std::vector<int64_t>{5, 4}));
}

TEST(ModuleTest, ResultSpecsValidatesInputs) {
  Module module(kPtx, matmulManifest());
  TensorRef x = cudaTensor(DType::F32, {5, 8}, 0x10000);
  x.device = DeviceKind::CPU;
  expectError(
      [&] {
        module.function("forward").resultSpecs(
            {x, cudaTensor(DType::F32, {8, 4}, 0x20000)});
      },
      "forward: argument 0 ('x') is on the CPU");
}

TEST(ModuleTest, LaunchValidatesBeforeTouchingTheDriver) {
  // Holds with or without a driver: validation comes first.
  Module module(kPtx, matmulManifest());
  expectError(
      [&] {
        module.function("forward").launch(
            {cudaTensor(DType::F32, {5, 8}, 0x10000),
             cudaTensor(DType::F32, {7, 4}, 0x20000)},
            {cudaTensor(DType::F32, {5, 4}, 0x30000)}, nullptr);
      },
      "forward: argument 1 dim 0 is 7 but must equal argument 0 dim 1 (8)");
  expectError(
      [&] {
        module.function("forward").launch(
            {cudaTensor(DType::F32, {5, 8}, 0x10000),
             cudaTensor(DType::F32, {8, 4}, 0x20000)},
            {cudaTensor(DType::F32, {5, 5}, 0x30000)}, nullptr);
      },
      "forward: output 0 has shape [5, 5], expected [5, 4]");
}

TEST(ModuleTest, LaunchWithoutDriverFailsClearly) {
  if (driverInstalled())
    GTEST_SKIP() << "an NVIDIA driver is installed; GpuLaunchTest covers it";
  Module module(kPtx, matmulManifest());
  expectError(
      [&] {
        module.function("forward").launch(
            {cudaTensor(DType::F32, {5, 8}, 0x10000),
             cudaTensor(DType::F32, {8, 4}, 0x20000)},
            {cudaTensor(DType::F32, {5, 4}, 0x30000)}, nullptr);
      },
      "libcuda.so.1 not found: is the NVIDIA driver installed?");
}

TEST(CudaDriverTest, MissingLibraryIsAClearError) {
  // Runs everywhere: a library name that cannot exist.
  expectError([] { CudaDriver::load("libfuser-no-such-driver.so.1"); },
              "libfuser-no-such-driver.so.1 not found: is the NVIDIA driver "
              "installed? (dlopen: ");
}

TEST(CudaDriverTest, LibraryWithoutCudaSymbolsIsAClearError) {
  // libdl/libc exist everywhere but export no CUDA entry points.
  expectError([] { CudaDriver::load("libc.so.6"); },
              "libc.so.6 has no symbol cuInit: the NVIDIA driver is too old");
}

} // namespace
