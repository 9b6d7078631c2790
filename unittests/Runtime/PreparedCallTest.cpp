//===- PreparedCallTest.cpp - Prepared calls without a GPU ------*- C++ -*-===//
//
// Function::prepare validates once per signature what Function::launch
// validates per call; the address-only launch then checks only what can
// change between calls of one signature. All of it runs before the driver.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/PreparedCall.h"
#include "TestUtil.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/Validate.h"

using namespace fuser;
using fuser::test::cudaTensor;
using fuser::test::expectError;
using fuser::test::matmulManifest;

namespace {

constexpr const char *kPtx = ".version 8.0\n.target sm_90a\n";

std::shared_ptr<const PreparedCall> prepareMatmul(const Function &fn) {
  return fn.prepare({cudaTensor(DType::F32, {5, 8}, 0x10000),
                     cudaTensor(DType::F32, {8, 4}, 0x20000)});
}

TEST(PreparedCallTest, EvaluatesShapesResultsAndLaunches) {
  Module module(kPtx, matmulManifest());
  Function fn = module.function("forward");
  std::shared_ptr<const PreparedCall> call = prepareMatmul(fn);
  EXPECT_EQ(call->function, &fn.spec());
  EXPECT_EQ(call->shapes, (ShapeList{{5, 8}, {8, 4}}));
  ASSERT_EQ(call->results.size(), 1u);
  EXPECT_EQ(call->results[0].shape, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(call->launches.size(), fn.spec().launches.size());
  EXPECT_EQ(call->encoded.size(), call->launches.size());
}

TEST(PreparedCallTest, PrepareValidatesLikeLaunch) {
  Module module(kPtx, matmulManifest());
  expectError(
      [&] {
        module.function("forward").prepare(
            {cudaTensor(DType::F32, {5, 8}, 0x10000),
             cudaTensor(DType::F32, {7, 4}, 0x20000)});
      },
      "forward: argument 1 dim 0 is 7 but must equal argument 0 dim 1 (8)");
  expectError(
      [&] {
        module.function("forward").prepare(
            {cudaTensor(DType::F16, {5, 8}, 0x10000),
             cudaTensor(DType::F32, {8, 4}, 0x20000)});
      },
      "forward: argument 0 ('x') has dtype f16, expected f32");
}

TEST(PreparedCallTest, AddressesAreCheckedPerCall) {
  Module module(kPtx, matmulManifest());
  Function fn = module.function("forward");
  std::shared_ptr<const PreparedCall> call = prepareMatmul(fn);
  checkAddresses(*call, {0x10000, 0x20000}, {0x30000});
  expectError([&] { checkAddresses(*call, {0x10004, 0x20000}, {0x30000}); },
              "forward: argument 0 ('x') data pointer 0x10004 is not aligned "
              "to 16 bytes, which the kernels assume");
  expectError([&] { checkAddresses(*call, {0, 0x20000}, {0x30000}); },
              "forward: argument 0 ('x') has a null data pointer but 40 "
              "elements");
  expectError([&] { checkAddresses(*call, {0x10000, 0x20000}, {}); },
              "forward: expected 2 arguments and 1 outputs, got 2 and 0");
}

TEST(PreparedCallTest, LaunchChecksAddressesBeforeTheDriver) {
  Module module(kPtx, matmulManifest());
  Function fn = module.function("forward");
  std::shared_ptr<const PreparedCall> call = prepareMatmul(fn);
  expectError([&] { fn.launch(*call, {0x10000, 0x20000}, {0}, 0, nullptr); },
              "forward: output 0 has a null data pointer but 20 elements");
}

TEST(PreparedCallTest, LaunchRefusesAnotherFunctionsCall) {
  Module a(kPtx, matmulManifest());
  Module b(kPtx, matmulManifest());
  std::shared_ptr<const PreparedCall> call =
      prepareMatmul(a.function("forward"));
  expectError(
      [&] {
        b.function("forward").launch(*call, {0x10000, 0x20000}, {0x30000}, 0,
                                     nullptr);
      },
      "forward: the call was prepared for function 'forward'");
}

} // namespace
