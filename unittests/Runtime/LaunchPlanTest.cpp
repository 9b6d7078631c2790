//===- LaunchPlanTest.cpp - Tests for launch planning and packing -*- C++ -*-=//

#include "fuser/Runtime/LaunchPlan.h"
#include "TestUtil.h"
#include "fuser/Runtime/Validate.h"

#include <cstring>

using namespace fuser;
using fuser::test::expectError;
using fuser::test::matmulManifest;

namespace {

std::vector<PlannedLaunch> plan(const std::string &json,
                                const ShapeList &shapes) {
  ManifestModule m = parseManifest(json);
  const FunctionSpec &fn = m.functions[0];
  return planLaunches(fn, shapes, resolveBuffers(fn, shapes));
}

/// A matmulManifest() with a single launch whose args are `args` and whose
/// grid is `grid`.
std::string oneLaunch(const std::string &grid, const std::string &args,
                      const std::string &block = "[128, 1, 1]") {
  return matmulManifest(R"([{"kernel": "k", "grid": )" + grid +
                        R"(, "block": )" + block + R"(, "args": )" + args +
                        "}]");
}

TEST(LaunchPlanTest, EvaluatesConfigAndPacksScalars) {
  std::vector<PlannedLaunch> launches =
      plan(matmulManifest(), {{130, 8}, {8, 4}});
  ASSERT_EQ(launches.size(), 2u);

  const PlannedLaunch &l0 = launches[0];
  EXPECT_EQ(l0.index, 0u);
  EXPECT_EQ(l0.grid, (std::array<uint32_t, 3>{3, 1, 1})); // ceildiv(130,64)
  EXPECT_EQ(l0.block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(l0.sharedBytes, 65536u);
  EXPECT_FALSE(l0.skip);
  ASSERT_EQ(l0.params.size(), 6u);
  EXPECT_EQ(l0.params[3], 130u); // i64 dim(0,0)
  int32_t i32;
  std::memcpy(&i32, &l0.params[4], sizeof(i32));
  EXPECT_EQ(i32, 4); // i32 dim(1,1)
  float f32;
  std::memcpy(&f32, &l0.params[5], sizeof(f32));
  EXPECT_EQ(f32, 0.5f);
  // Buffer ids 0, 1, 3 are at indices 0, 1, 3.
  using Slot = std::pair<size_t, int64_t>;
  EXPECT_EQ(l0.addressSlots,
            (std::vector<Slot>{Slot{0, 0}, Slot{1, 1}, Slot{2, 3}}));
}

TEST(LaunchPlanTest, PacksMemrefDescriptor) {
  std::vector<PlannedLaunch> launches =
      plan(matmulManifest(), {{130, 8}, {8, 4}});
  PlannedLaunch l1 = launches[1];
  EXPECT_EQ(l1.grid, (std::array<uint32_t, 3>{3, 1, 1})); // ceildiv(520,256)
  EXPECT_EQ(l1.sharedBytes, 0u);
  // ptr, then memref<130x4>: allocated, aligned, offset, 2 sizes, 2 strides.
  ASSERT_EQ(l1.params.size(), 1u + 3u + 2u + 2u);
  bindAddresses(l1, {0x1000, 0x2000, 0x3000, 0x4000});
  EXPECT_EQ(l1.params,
            (std::vector<uint64_t>{0x4000, 0x3000, 0x3000, 0, 130, 4, 4, 1}));
}

TEST(LaunchPlanTest, BindAddressesFillsPointerSlots) {
  std::vector<PlannedLaunch> launches =
      plan(matmulManifest(), {{3, 8}, {8, 4}});
  bindAddresses(launches[0], {0x1000, 0x2000, 0x3000, 0x4000});
  EXPECT_EQ(launches[0].params[0], 0x1000u);
  EXPECT_EQ(launches[0].params[1], 0x2000u);
  EXPECT_EQ(launches[0].params[2], 0x4000u);
  EXPECT_EQ(launches[0].params[3], 3u);
}

TEST(LaunchPlanTest, ZeroSizeGridIsSkipped) {
  std::vector<PlannedLaunch> launches =
      plan(matmulManifest(), {{0, 8}, {8, 4}});
  EXPECT_TRUE(launches[0].skip);
  EXPECT_TRUE(launches[1].skip);
  EXPECT_EQ(launches[0].grid[0], 0u);
}

TEST(LaunchPlanTest, RankZeroMemref) {
  std::vector<PlannedLaunch> launches =
      plan(oneLaunch("[1, 1, 1]",
                     R"([{"kind": "memref", "buffer": 2, "shape": []}])"),
           {{3, 8}, {8, 4}});
  EXPECT_EQ(launches[0].params.size(), 3u);
}

TEST(LaunchPlanTest, NegativeGrid) {
  expectError(
      [] {
        plan(oneLaunch(R"j(["sub(dim(0,0),4)", 1, 1])j", "[]"),
             {{3, 8}, {8, 4}});
      },
      "forward: launches[0] (kernel 'k') grid[0] is -1 "
      "(sub(dim(0,0),4)), which is not positive");
}

TEST(LaunchPlanTest, ZeroBlock) {
  expectError(
      [] {
        plan(oneLaunch("[1, 1, 1]", "[]", "[0, 1, 1]"), {{3, 8}, {8, 4}});
      },
      "forward: launches[0] (kernel 'k') block[0] is 0 (0), which is "
      "not positive");
}

TEST(LaunchPlanTest, GridTooLarge) {
  expectError(
      [] {
        plan(oneLaunch("[1, 4294967296, 1]", "[]"), {{3, 8}, {8, 4}});
      },
      "grid[1] is 4294967296 (4294967296), which exceeds the CUDA "
      "limit");
}

TEST(LaunchPlanTest, GridExpressionError) {
  expectError(
      [] {
        plan(oneLaunch(R"j(["floordiv(1,sub(dim(0,0),3))", 1, 1])j", "[]"),
             {{3, 8}, {8, 4}});
      },
      "forward: launches[0] (kernel 'k') grid[0]: division by zero");
}

TEST(LaunchPlanTest, I32Overflow) {
  expectError(
      [] {
        plan(oneLaunch(
                 "[1, 1, 1]",
                 R"j([{"kind": "i32", "value": "mul(dim(0,0),1073741824)"}])j"),
             {{3, 8}, {8, 4}});
      },
      "forward: launches[0] (kernel 'k') args[0] is 3221225472 "
      "(mul(dim(0,0),1073741824)), which does not fit in i32");
}

TEST(LaunchPlanTest, NegativeI32IsPackedAsTwosComplement) {
  std::vector<PlannedLaunch> launches =
      plan(oneLaunch("[1, 1, 1]", R"([{"kind": "i32", "value": -2},
                                 {"kind": "i64", "value": -2}])"),
           {{3, 8}, {8, 4}});
  EXPECT_EQ(launches[0].params[0], 0xFFFFFFFEu); // High half stays zero.
  EXPECT_EQ(launches[0].params[1], 0xFFFFFFFFFFFFFFFEu);
}

TEST(LaunchPlanTest, MemrefViewLargerThanBuffer) {
  expectError(
      [] {
        plan(oneLaunch("[1, 1, 1]", R"j([{"kind": "memref", "buffer": 2,
                                         "shape": ["dim(0,0)", 5]}])j"),
             {{3, 8}, {8, 4}});
      },
      "forward: launches[0] (kernel 'k') args[0]: memref view [3, 5] has 15 "
      "elements but buffer 2 has only 12");
}

TEST(LaunchPlanTest, MemrefNegativeSize) {
  expectError(
      [] {
        plan(oneLaunch("[1, 1, 1]", R"j([{"kind": "memref", "buffer": 2,
                                         "shape": ["sub(dim(0,0),4)"]}])j"),
             {{3, 8}, {8, 4}});
      },
      "args[0].shape[0] is -1, which is negative");
}

} // namespace
