//===- TensorMapTest.cpp - tensor_map arguments, without a GPU --*- C++ -*-===//
//
// Parsing, planning and the cuTensorMapEncodeTiled arguments of tensor_map
// kernel arguments. GpuLaunchTest runs one through a real TMA load.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/TensorMap.h"
#include "TestUtil.h"
#include "fuser/Runtime/Validate.h"

using namespace fuser;
using fuser::test::expectError;
using fuser::test::replaceInManifest;

namespace {

/// gemm(a: bf16[?, ?] align 16, n: i32[?]) -> f32[dim(0,0), dim(0,1)], with
/// tensor_maps of an argument (slot 0) and of the result (slot 2).
const char *kManifest = R"json({
  "format": "fuser-manifest", "version": 1, "chip": "sm_90a",
  "functions": [{
    "name": "gemm",
    "args": [{"name": "a", "dtype": "bf16", "shape": ["?", "?"], "align": 16},
             {"name": "n", "dtype": "i32", "shape": ["?"]}],
    "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                {"id": 4, "kind": "alloc", "dtype": "f32",
                 "shape": ["dim(0,0)", "dim(0,1)"], "align": 16},
                {"id": 5, "kind": "arg", "arg": 1}],
    "results": [{"buffer": 4}],
    "launches": [{"kernel": "k", "grid": ["ceildiv(dim(0,0),128)", 1, 1],
      "block": [128, 1, 1],
      "args": [{"kind": "tensor_map", "buffer": 0,
                "shape": ["dim(0,0)", "dim(0,1)"], "box": [128, 64],
                "swizzle": 128},
               {"kind": "ptr", "buffer": 4},
               {"kind": "tensor_map", "buffer": 4,
                "shape": ["dim(0,0)", "dim(0,1)"], "box": [64, 32],
                "swizzle": 128},
               {"kind": "i64", "value": "dim(0,0)"}]}]
  }]
})json";

/// The first tensor_map of kManifest.
const char *kFirstMap =
    R"j("buffer": 0,
                "shape": ["dim(0,0)", "dim(0,1)"], "box": [128, 64],
                "swizzle": 128)j";

std::string withFirstMap(const std::string &replacement) {
  return replaceInManifest(kManifest, kFirstMap, replacement);
}

std::vector<PlannedLaunch> plan(const std::string &json,
                                const ShapeList &shapes) {
  ManifestModule m = parseManifest(json);
  const FunctionSpec &fn = m.functions[0];
  return planLaunches(fn, shapes, resolveBuffers(fn, shapes));
}

TEST(TensorMapTest, Parses) {
  ManifestModule m = parseManifest(kManifest);
  const KernelArgSpec &a = m.functions[0].launches[0].args[0];
  EXPECT_EQ(a.kind, KernelArgSpec::Kind::TensorMap);
  EXPECT_EQ(a.buffer, 0);
  ASSERT_EQ(a.shape.size(), 2u);
  EXPECT_EQ(a.shape[0].toString(), "dim(0,0)");
  EXPECT_EQ(a.shape[1].toString(), "dim(0,1)");
  EXPECT_EQ(a.box, (std::array<uint32_t, 2>{128, 64}));
  EXPECT_EQ(a.swizzle, 128);
  // Buffer ids resolve to indices as for ptr arguments.
  EXPECT_EQ(m.functions[0].launches[0].args[2].buffer, 1);
}

TEST(TensorMapTest, ParsesOtherSwizzles) {
  // bf16: 16 elements are 32 bytes, 32 are 64, 256 are 512 (no swizzle).
  for (const char *box : {R"j("box": [8, 16], "swizzle": 32)j",
                          R"j("box": [8, 8], "swizzle": 32)j",
                          R"j("box": [8, 32], "swizzle": 64)j",
                          R"j("box": [256, 256], "swizzle": 0)j"}) {
    std::string json = replaceInManifest(
        kManifest, R"j("box": [128, 64],
                "swizzle": 128)j",
        box);
    EXPECT_NO_THROW(parseManifest(json)) << box;
  }
}

struct ErrorCase {
  const char *name;
  const char *map; // Replaces kFirstMap.
  const char *message;
};

class TensorMapErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TensorMapErrorTest, IsRejectedAtLoad) {
  std::string json = withFirstMap(GetParam().map);
  std::string message =
      expectError([&] { parseManifest(json); }, GetParam().message);
  EXPECT_EQ(message.rfind("invalid manifest: functions[0].launches[0].args[0]",
                          0),
            0u)
      << message;
}

#define ARG "functions[0].launches[0].args[0]"
#define GOOD_SHAPE R"j("shape": ["dim(0,0)", "dim(0,1)"])j"

INSTANTIATE_TEST_SUITE_P(
    Manifest, TensorMapErrorTest,
    ::testing::Values(
        ErrorCase{"UnknownBuffer",
                  R"j("buffer": 9, )j" GOOD_SHAPE
                  R"j(, "box": [128, 64], "swizzle": 128)j",
                  ARG ".buffer: unknown buffer id 9"},
        ErrorCase{"IntegerBuffer",
                  R"j("buffer": 5, )j" GOOD_SHAPE
                  R"j(, "box": [128, 32], "swizzle": 128)j",
                  ARG ".buffer: tensor_map needs an f32, bf16 or f16 buffer, "
                      "but buffer 5 has dtype i32"},
        ErrorCase{"MissingShape",
                  R"j("buffer": 0, "box": [128, 64], "swizzle": 128)j",
                  ARG ": missing required field 'shape'"},
        ErrorCase{"Rank1",
                  R"j("buffer": 0, "shape": ["dim(0,0)"], "box": [128, 64],
                     "swizzle": 128)j",
                  ARG ".shape: expected 2 entries (rows, cols), found 1"},
        ErrorCase{"ShapeDimOutOfRange",
                  R"j("buffer": 0, "shape": ["dim(0,2)", 8], "box": [128, 64],
                     "swizzle": 128)j",
                  ARG ".shape[0]: dim(0,2) refers to dimension 2 of argument "
                      "0, which has rank 2"},
        ErrorCase{"ConstantZeroRows",
                  R"j("buffer": 0, "shape": [0, "dim(0,1)"], "box": [128, 64],
                     "swizzle": 128)j",
                  ARG ".shape[0]: size 0 is outside TMA's range 1 to "
                      "4294967295"},
        ErrorCase{"ConstantHugeCols",
                  R"j("buffer": 0, "shape": [1, 4294967296], "box": [128, 64],
                     "swizzle": 128)j",
                  ARG ".shape[1]: size 4294967296 is outside TMA's range 1 to "
                      "4294967295"},
        ErrorCase{"ConstantPitch",
                  R"j("buffer": 0, "shape": ["dim(0,0)", 100],
                     "box": [128, 64], "swizzle": 128)j",
                  ARG ".shape[1]: 100 bf16 elements make a row pitch of 200 "
                      "bytes; the row pitch must be a multiple of 16 bytes "
                      "for TMA"},
        ErrorCase{"MissingBox",
                  R"j("buffer": 0, )j" GOOD_SHAPE R"j(, "swizzle": 128)j",
                  ARG ": missing required field 'box'"},
        ErrorCase{"Box1D",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [64], "swizzle": 128)j",
                  ARG ".box: expected 2 entries (rows, cols), found 1"},
        ErrorCase{"BoxString",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": ["128", 64], "swizzle": 128)j",
                  ARG ".box[0]: expected an integer, found a string"},
        ErrorCase{"BoxZero",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [0, 64], "swizzle": 128)j",
                  ARG ".box[0]: must be 1 to 256, found 0"},
        ErrorCase{"BoxTooLarge",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [257, 64], "swizzle": 128)j",
                  ARG ".box[0]: must be 1 to 256, found 257"},
        ErrorCase{"MissingSwizzle",
                  R"j("buffer": 0, )j" GOOD_SHAPE R"j(, "box": [128, 64])j",
                  ARG ": missing required field 'swizzle'"},
        ErrorCase{"BadSwizzle",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [128, 64], "swizzle": 16)j",
                  ARG ".swizzle: unsupported swizzle 16 (expected 0, 32, 64 "
                      "or 128 bytes)"},
        ErrorCase{"Swizzle128NarrowBox",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [128, 32], "swizzle": 128)j",
                  ARG ".box: box[1] = 32 bf16 elements is 64 bytes, but "
                      "swizzle 128 needs box rows of exactly 128 bytes"},
        ErrorCase{"Swizzle64WideBox",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [128, 64], "swizzle": 64)j",
                  ARG ".box: box[1] = 64 bf16 elements is 128 bytes, more "
                      "than the swizzle span of 64 bytes"},
        ErrorCase{"UnalignedBoxRow",
                  R"j("buffer": 0, )j" GOOD_SHAPE
                  R"j(, "box": [128, 4], "swizzle": 0)j",
                  ARG ".box: box[1] = 4 bf16 elements is 8 bytes, but TMA "
                      "needs box rows of a multiple of 16 bytes"}),
    [](const ::testing::TestParamInfo<ErrorCase> &info) {
      return std::string(info.param.name);
    });

#undef ARG
#undef GOOD_SHAPE

TEST(TensorMapTest, PlansSlotsAndViews) {
  std::vector<PlannedLaunch> launches = plan(kManifest, {{300, 96}, {5}});
  ASSERT_EQ(launches.size(), 1u);
  const PlannedLaunch &l = launches[0];
  EXPECT_FALSE(l.skip);
  // Four parameters; the tensor_map slots are placeholders.
  ASSERT_EQ(l.params.size(), 4u);
  EXPECT_EQ(l.params[0], 0u);
  EXPECT_EQ(l.params[3], 300u);
  using Slot = std::pair<size_t, int64_t>;
  EXPECT_EQ(l.addressSlots, (std::vector<Slot>{Slot{1, 1}}));

  ASSERT_EQ(l.tensorMaps.size(), 2u);
  const PlannedTensorMap &a = l.tensorMaps[0];
  EXPECT_EQ(a.slot, 0u);
  EXPECT_EQ(a.buffer, 0);
  EXPECT_EQ(a.bufferId, 0);
  EXPECT_EQ(a.dtype, DType::BF16);
  EXPECT_EQ(a.rows, 300u);
  EXPECT_EQ(a.cols, 96u);
  EXPECT_EQ(a.box, (std::array<uint32_t, 2>{128, 64}));
  EXPECT_EQ(a.swizzle, 128);
  EXPECT_EQ(a.label, "gemm: launches[0] (kernel 'k') args[0]");
  const PlannedTensorMap &c = l.tensorMaps[1];
  EXPECT_EQ(c.slot, 2u);
  EXPECT_EQ(c.buffer, 1);
  EXPECT_EQ(c.bufferId, 4);
  EXPECT_EQ(c.dtype, DType::F32);
  EXPECT_EQ(c.label, "gemm: launches[0] (kernel 'k') args[2]");
}

TEST(TensorMapTest, SkippedLaunchEncodesNothing) {
  // Zero rows: an empty grid, so no map and no size error.
  std::vector<PlannedLaunch> launches = plan(kManifest, {{0, 96}, {5}});
  EXPECT_TRUE(launches[0].skip);
  EXPECT_TRUE(launches[0].tensorMaps.empty());
  EXPECT_EQ(launches[0].params.size(), 4u);
}

TEST(TensorMapTest, PitchNotMultipleOf16) {
  expectError([] { plan(kManifest, {{300, 100}, {5}}); },
              "gemm: launches[0] (kernel 'k') args[0]: tensor_map view "
              "[300, 100]: 100 bf16 elements make a row pitch of 200 bytes; "
              "the row pitch must be a multiple of 16 bytes for TMA");
}

TEST(TensorMapTest, ViewLargerThanBuffer) {
  std::string json = withFirstMap(
      R"j("buffer": 0, "shape": ["add(dim(0,0),1)", "dim(0,1)"],
         "box": [128, 64], "swizzle": 128)j");
  expectError([&] { plan(json, {{300, 96}, {5}}); },
              "gemm: launches[0] (kernel 'k') args[0]: tensor_map view "
              "[301, 96] has 28896 elements but buffer 0 has only 28800");
}

TEST(TensorMapTest, ZeroSizeInNonEmptyGrid) {
  std::string json = replaceInManifest(
      kManifest, R"j("grid": ["ceildiv(dim(0,0),128)", 1, 1])j",
      R"j("grid": [1, 1, 1])j");
  expectError([&] { plan(json, {{0, 96}, {5}}); },
              "gemm: launches[0] (kernel 'k') args[0].shape[0] (dim(0,0)): "
              "size 0 is outside TMA's range 1 to 4294967295");
}

TEST(TensorMapTest, SizeBeyond32Bits) {
  std::string json = withFirstMap(
      R"j("buffer": 0, "shape": [1, "mul(dim(0,1),67108864)"],
         "box": [128, 64], "swizzle": 128)j");
  expectError([&] { plan(json, {{300, 96}, {5}}); },
              "args[0].shape[1] (mul(dim(0,1),67108864)): size 6442450944 "
              "is outside TMA's range");
}

TEST(TensorMapTest, EncodingArguments) {
  std::vector<PlannedLaunch> launches = plan(kManifest, {{300, 96}, {5}});
  TensorMapEncoding a =
      tensorMapEncoding(launches[0].tensorMaps[0], 0x7f0000010000);
  EXPECT_EQ(a.dataType, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.globalAddress, 0x7f0000010000u);
  // Innermost dimension first; the stride is the row pitch in bytes.
  EXPECT_EQ(a.globalDim, (std::array<cuuint64_t, 2>{96, 300}));
  EXPECT_EQ(a.globalStrides, (std::array<cuuint64_t, 1>{96 * 2}));
  EXPECT_EQ(a.boxDim, (std::array<cuuint32_t, 2>{64, 128}));
  EXPECT_EQ(a.elementStrides, (std::array<cuuint32_t, 2>{1, 1}));
  EXPECT_EQ(a.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(a.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(a.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

  TensorMapEncoding c = tensorMapEncoding(launches[0].tensorMaps[1], 0x1000);
  EXPECT_EQ(c.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(c.globalStrides, (std::array<cuuint64_t, 1>{96 * 4}));
  EXPECT_EQ(c.boxDim, (std::array<cuuint32_t, 2>{32, 64}));
}

TEST(TensorMapTest, EncodingDTypesAndSwizzles) {
  std::string json = replaceInManifest(kManifest, R"j("dtype": "bf16")j",
                                       R"j("dtype": "f16")j");
  json = replaceInManifest(json, R"j("box": [128, 64],
                "swizzle": 128)j",
                           R"j("box": [8, 16], "swizzle": 32)j");
  PlannedTensorMap map = plan(json, {{300, 96}, {5}})[0].tensorMaps[0];
  TensorMapEncoding e = tensorMapEncoding(map, 0x1000);
  EXPECT_EQ(e.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(e.swizzle, CU_TENSOR_MAP_SWIZZLE_32B);
  map.swizzle = 64;
  EXPECT_EQ(tensorMapEncoding(map, 0x1000).swizzle, CU_TENSOR_MAP_SWIZZLE_64B);
  map.swizzle = 0;
  EXPECT_EQ(tensorMapEncoding(map, 0x1000).swizzle,
            CU_TENSOR_MAP_SWIZZLE_NONE);
}

TEST(TensorMapTest, MisalignedAddress) {
  std::vector<PlannedLaunch> launches = plan(kManifest, {{300, 96}, {5}});
  expectError(
      [&] { tensorMapEncoding(launches[0].tensorMaps[1], 0x7f0000010008); },
      "gemm: launches[0] (kernel 'k') args[2]: the address 0x7f0000010008 of "
      "buffer 4 is not 16-byte aligned, which TMA requires");
}

} // namespace
