//===- ManifestReaderTest.cpp - The one manifest reader ---------*- C++ -*-===//

#include "fuser/Manifest/Manifest.h"
#include "ManifestTestUtil.h"

#include <cmath>

using namespace fuser;
using fuser::test::expectError;
using fuser::test::matmulManifest;
using fuser::test::replaceInManifest;

namespace {

/// The example of docs/manifest.md, assembled into one valid document.
const char *kDocExample = R"json({
  "format": "fuser-manifest",
  "version": 1,
  "chip": "sm_90a",
  "functions": [{
    "name": "forward",
    "args":    [ {"name": "arg0", "dtype": "f32", "shape": ["?", 393216], "align": 16} ],
    "buffers": [ {"id": 0, "kind": "arg", "arg": 0},
                 {"id": 1, "kind": "alloc", "dtype": "f32", "shape": ["dim(0,0)", 393216]} ],
    "results": [ {"buffer": 1} ],
    "checks":  [ {"lhs": "dim(0,1)", "rhs": 393216, "message": "arg0 dim 1 must be 393216"} ],
    "launches": [{
      "kernel": "forward_pointwise_0",
      "grid":  ["min(ceildiv(mul(dim(0,0),393216),1024),1048576)", 1, 1],
      "block": [256, 1, 1],
      "shared_bytes": 0,
      "args": [ {"kind": "ptr", "buffer": 0},
                {"kind": "ptr", "buffer": 1},
                {"kind": "i64", "value": "mul(dim(0,0),393216)"},
                {"kind": "memref", "buffer": 1, "shape": ["dim(0,0)", 393216]} ]
    }]
  }]
})json";

TEST(ManifestTest, ParsesDocExample) {
  ManifestModule m = parseManifest(kDocExample);
  EXPECT_EQ(m.format, "fuser-manifest");
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.chip, "sm_90a");
  ASSERT_EQ(m.functions.size(), 1u);
  const FunctionSpec &f = m.functions[0];
  EXPECT_EQ(f.name, "forward");
  ASSERT_EQ(f.args.size(), 1u);
  EXPECT_EQ(f.args[0].name, "arg0");
  EXPECT_EQ(f.args[0].dtype, DType::F32);
  EXPECT_EQ(f.args[0].shape, (std::vector<int64_t>{ArgSpec::kDynamic, 393216}));
  EXPECT_EQ(f.args[0].align, 16);

  ASSERT_EQ(f.buffers.size(), 2u);
  EXPECT_EQ(f.buffers[0].kind, BufferSpec::Kind::Arg);
  EXPECT_EQ(f.buffers[0].arg, 0);
  EXPECT_FALSE(f.buffers[0].isResult);
  EXPECT_EQ(f.buffers[1].kind, BufferSpec::Kind::Alloc);
  EXPECT_EQ(f.buffers[1].dtype, DType::F32);
  ASSERT_EQ(f.buffers[1].shape.size(), 2u);
  EXPECT_EQ(f.buffers[1].shape[0].toString(), "dim(0,0)");
  EXPECT_EQ(f.buffers[1].shape[1].constantValue(), 393216);
  EXPECT_EQ(f.buffers[1].align, 4); // Element size by default.
  EXPECT_TRUE(f.buffers[1].isResult);
  EXPECT_EQ(f.results, std::vector<int64_t>{1});

  ASSERT_EQ(f.checks.size(), 1u);
  EXPECT_EQ(f.checks[0].message, "arg0 dim 1 must be 393216");

  ASSERT_EQ(f.launches.size(), 1u);
  const LaunchSpec &l = f.launches[0];
  EXPECT_EQ(l.kernel, "forward_pointwise_0");
  EXPECT_EQ(l.grid[0].toString(),
            "min(ceildiv(mul(dim(0,0),393216),1024),1048576)");
  EXPECT_EQ(l.block[0].constantValue(), 256);
  EXPECT_EQ(l.sharedBytes, 0);
  ASSERT_EQ(l.args.size(), 4u);
  EXPECT_EQ(l.args[0].kind, KernelArgSpec::Kind::Ptr);
  EXPECT_EQ(l.args[1].buffer, 1);
  EXPECT_EQ(l.args[2].kind, KernelArgSpec::Kind::I64);
  EXPECT_EQ(l.args[2].value.evaluate({{3, 393216}}), 3 * 393216);
  EXPECT_EQ(l.args[3].kind, KernelArgSpec::Kind::Memref);
  EXPECT_EQ(l.args[3].shape.size(), 2u);

  EXPECT_EQ(m.lookup("forward"), &m.functions[0]);
  EXPECT_EQ(m.lookup("backward"), nullptr);
}

TEST(ManifestTest, BufferIdsAreResolvedToIndices) {
  // Ids need not be dense or ordered; references become vector indices.
  std::string json =
      replaceInManifest(kDocExample, R"("id": 1, "kind": "alloc")",
                        R"("id": 7, "kind": "alloc")");
  json = replaceInManifest(json, R"("results": [ {"buffer": 1} ])",
                           R"("results": [ {"buffer": 7} ])");
  json = replaceInManifest(json, R"({"kind": "ptr", "buffer": 1})",
                           R"({"kind": "ptr", "buffer": 7})");
  json = replaceInManifest(json, R"({"kind": "memref", "buffer": 1)",
                           R"({"kind": "memref", "buffer": 7)");
  ManifestModule m = parseManifest(json);
  const FunctionSpec &f = m.functions[0];
  EXPECT_EQ(f.buffers[1].id, 7);
  EXPECT_EQ(f.results, std::vector<int64_t>{1});
  EXPECT_EQ(f.launches[0].args[1].buffer, 1);
  EXPECT_EQ(f.launches[0].args[3].buffer, 1);
}

TEST(ManifestTest, OptionalFields) {
  // No chip, no checks, no shared_bytes, unnamed argument, f32 specials.
  ManifestModule m = parseManifest(R"json({
    "format": "fuser-manifest", "version": 1,
    "functions": [{"name": "f",
      "args": [{"dtype": "bf16", "shape": []}],
      "buffers": [{"id": 0, "kind": "arg", "arg": 0}],
      "results": [],
      "launches": [{"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1],
                    "args": [{"kind": "f32", "value": "-inf"},
                             {"kind": "f32", "value": "nan"},
                             {"kind": "f32", "value": 2},
                             {"kind": "i32", "value": 3}]}]}]})json");
  const FunctionSpec &f = m.functions[0];
  EXPECT_EQ(m.chip, "");
  EXPECT_EQ(f.args[0].name, "arg0");
  EXPECT_EQ(f.args[0].align, 2);
  EXPECT_TRUE(f.checks.empty());
  EXPECT_EQ(f.launches[0].sharedBytes, 0);
  EXPECT_TRUE(std::isinf(f.launches[0].args[0].f32));
  EXPECT_LT(f.launches[0].args[0].f32, 0);
  EXPECT_TRUE(std::isnan(f.launches[0].args[1].f32));
  EXPECT_EQ(f.launches[0].args[2].f32, 2.0f);
  EXPECT_EQ(f.launches[0].args[3].kind, KernelArgSpec::Kind::I32);
}

TEST(ManifestTest, ParsesTestManifest) {
  ManifestModule m = parseManifest(matmulManifest());
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].launches.size(), 2u);
  EXPECT_EQ(m.functions[0].launches[0].sharedBytes, 65536);
}

struct ErrorCase {
  const char *name;
  const char *from; // Text of the doc example to replace...
  const char *to;   // ...with this.
  const char *message;
};

class ManifestErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ManifestErrorTest, NamesThePath) {
  const ErrorCase &c = GetParam();
  std::string json = replaceInManifest(kDocExample, c.from, c.to);
  std::string message = expectError([&] { parseManifest(json); }, c.message);
  EXPECT_EQ(message.rfind("invalid manifest: ", 0), 0u) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Structural, ManifestErrorTest,
    ::testing::Values(
        ErrorCase{"NotJson", "\"version\": 1,", "\"version\": 1,,",
                  "invalid manifest: JSON error at line 3, column 16: "
                  "expected a string key"},
        ErrorCase{"WrongFormat", "\"fuser-manifest\"", "\"other\"",
                  "format: expected \"fuser-manifest\", found \"other\""},
        ErrorCase{"MissingFormat", "\"format\": \"fuser-manifest\",", "",
                  "missing required field 'format'"},
        ErrorCase{"WrongVersion", "\"version\": 1", "\"version\": 3",
                  "version: unsupported manifest version 3 (this fuser reads "
                  "versions 1 to 2; a newer fuser wrote it)"},
        ErrorCase{"VersionZero", "\"version\": 1", "\"version\": 0",
                  "version: unsupported manifest version 0"},
        ErrorCase{"VersionType", "\"version\": 1", "\"version\": \"1\"",
                  "version: expected an integer, found a string"},
        ErrorCase{"ChipType", "\"sm_90a\"", "90",
                  "chip: expected a string, found an integer"},
        ErrorCase{"FunctionsType", "\"functions\": [{",
                  "\"functions\": 5, \"unused\": [{",
                  "functions: expected an array, found an integer"},
        ErrorCase{"MissingName", "\"name\": \"forward\",", "",
                  "functions[0]: missing required field 'name'"},
        ErrorCase{"EmptyName", "\"name\": \"forward\"", "\"name\": \"\"",
                  "functions[0].name: must not be empty"},
        ErrorCase{"MissingArgs", "\"args\":    [", "\"argz\": [",
                  "functions[0]: missing required field 'args'"},
        ErrorCase{"ArgNotObject",
                  "[ {\"name\": \"arg0\", \"dtype\": \"f32\", \"shape\": "
                  "[\"?\", 393216], \"align\": 16} ]",
                  "[ 3 ]",
                  "functions[0].args[0]: expected an object, found an integer"},
        ErrorCase{"BadDtype", "\"dtype\": \"f32\", \"shape\": [\"?\"",
                  "\"dtype\": \"f8\", \"shape\": [\"?\"",
                  "functions[0].args[0].dtype: unknown dtype 'f8' (expected "
                  "one of f32, f16, bf16, f64, i32, i64, i8, i1)"},
        ErrorCase{"MissingDtype", "\"dtype\": \"f32\", \"shape\": [\"?\"",
                  "\"shape\": [\"?\"",
                  "functions[0].args[0]: missing required field 'dtype'"},
        ErrorCase{"BadShapeEntry", "[\"?\", 393216], \"align\"",
                  "[\"*\", 393216], \"align\"",
                  "functions[0].args[0].shape[0]: expected a non-negative "
                  "integer or \"?\""},
        ErrorCase{"NegativeShape", "[\"?\", 393216], \"align\"",
                  "[\"?\", -1], \"align\"",
                  "functions[0].args[0].shape[1]: expected a non-negative"},
        ErrorCase{"BadAlign", "\"align\": 16", "\"align\": 12",
                  "functions[0].args[0].align: must be a power of two, found "
                  "12"},
        ErrorCase{"ZeroAlign", "\"align\": 16", "\"align\": 0",
                  "functions[0].args[0].align: must be at least 1, found 0"},
        ErrorCase{"BadBufferKind", "\"kind\": \"alloc\"", "\"kind\": \"heap\"",
                  "functions[0].buffers[1].kind: unknown buffer kind 'heap' "
                  "(expected 'arg', 'alloc' or 'constant')"},
        ErrorCase{"BufferArgOutOfRange", "\"kind\": \"arg\", \"arg\": 0",
                  "\"kind\": \"arg\", \"arg\": 3",
                  "functions[0].buffers[0].arg: argument index 3 is out of "
                  "range ('forward' has 1 arguments)"},
        ErrorCase{"DuplicateBufferId", "{\"id\": 1, \"kind\": \"alloc\"",
                  "{\"id\": 0, \"kind\": \"alloc\"",
                  "functions[0].buffers[1].id: duplicate buffer id 0"},
        ErrorCase{"NegativeBufferId", "{\"id\": 1, \"kind\": \"alloc\"",
                  "{\"id\": -1, \"kind\": \"alloc\"",
                  "functions[0].buffers[1].id: must be at least 0, found -1"},
        ErrorCase{"AllocMissingShape",
                  "\"dtype\": \"f32\", \"shape\": [\"dim(0,0)\", 393216]",
                  "\"dtype\": \"f32\"",
                  "functions[0].buffers[1]: missing required field 'shape'"},
        ErrorCase{"AllocNegativeSize", "[\"dim(0,0)\", 393216]} ]",
                  "[\"dim(0,0)\", -4]} ]",
                  "functions[0].buffers[1].shape[1]: size must not be "
                  "negative"},
        ErrorCase{"AllocBadExpr", "[\"dim(0,0)\", 393216]} ]",
                  "[\"dim(0,0)\", \"mul(2)\"]} ]",
                  "functions[0].buffers[1].shape[1]: expected ',' but found "
                  "')'"},
        ErrorCase{"AllocShapeBool", "[\"dim(0,0)\", 393216]} ]",
                  "[\"dim(0,0)\", true]} ]",
                  "functions[0].buffers[1].shape[1]: expected an integer or "
                  "an expression string, found a boolean"},
        ErrorCase{"ResultUnknownBuffer", "\"results\": [ {\"buffer\": 1} ]",
                  "\"results\": [ {\"buffer\": 9} ]",
                  "functions[0].results[0].buffer: unknown buffer id 9"},
        ErrorCase{"ResultIsArg", "\"results\": [ {\"buffer\": 1} ]",
                  "\"results\": [ {\"buffer\": 0} ]",
                  "functions[0].results[0].buffer: buffer 0 is an argument; "
                  "results must be 'alloc' buffers"},
        ErrorCase{"ResultTwice", "\"results\": [ {\"buffer\": 1} ]",
                  "\"results\": [ {\"buffer\": 1}, {\"buffer\": 1} ]",
                  "functions[0].results[1].buffer: buffer 1 is returned "
                  "twice"},
        ErrorCase{"CheckMissingRhs", "\"rhs\": 393216, ", "",
                  "functions[0].checks[0]: missing required field 'rhs'"},
        ErrorCase{"CheckDimOutOfRange", "\"lhs\": \"dim(0,1)\"",
                  "\"lhs\": \"dim(0,2)\"",
                  "functions[0].checks[0].lhs: dim(0,2) refers to dimension 2 "
                  "of argument 0, which has rank 2"},
        ErrorCase{"MissingLaunches", "\"launches\": [{", "\"launchez\": [{",
                  "functions[0]: missing required field 'launches'"},
        ErrorCase{"MissingKernel", "\"kernel\": \"forward_pointwise_0\",", "",
                  "functions[0].launches[0]: missing required field 'kernel'"},
        ErrorCase{"UnknownOperator", "\"min(ceildiv(", "\"foo(ceildiv(",
                  "functions[0].launches[0].grid[0]: unknown operator 'foo'"},
        ErrorCase{"GridArity", "\"block\": [256, 1, 1]", "\"block\": [256, 1]",
                  "functions[0].launches[0].block: expected 3 entries (x, y, "
                  "z), found 2"},
        ErrorCase{"GridDimOutOfRange", "1048576)\", 1, 1]",
                  "1048576)\", \"dim(5,0)\", 1]",
                  "functions[0].launches[0].grid[1]: dim(5,0) refers to "
                  "argument 5, but 'forward' has 1 arguments"},
        ErrorCase{"SharedBytesType", "\"shared_bytes\": 0",
                  "\"shared_bytes\": \"0\"",
                  "functions[0].launches[0].shared_bytes: expected an "
                  "integer, found a string"},
        ErrorCase{"NegativeSharedBytes", "\"shared_bytes\": 0",
                  "\"shared_bytes\": -1",
                  "functions[0].launches[0].shared_bytes: must be at least 0"},
        ErrorCase{"BadArgKind", "{\"kind\": \"ptr\", \"buffer\": 0}",
                  "{\"kind\": \"tensor\", \"buffer\": 0}",
                  "functions[0].launches[0].args[0].kind: unknown kernel "
                  "argument kind 'tensor' (expected ptr, i64, i32, f32, "
                  "memref or tensor_map)"},
        ErrorCase{"ArgMissingKind", "{\"kind\": \"ptr\", \"buffer\": 0}",
                  "{\"buffer\": 0}",
                  "functions[0].launches[0].args[0]: missing required field "
                  "'kind'"},
        ErrorCase{"PtrUnknownBuffer", "{\"kind\": \"ptr\", \"buffer\": 1}",
                  "{\"kind\": \"ptr\", \"buffer\": 5}",
                  "functions[0].launches[0].args[1].buffer: unknown buffer id "
                  "5"},
        ErrorCase{"I64MissingValue",
                  "\"kind\": \"i64\", \"value\": "
                  "\"mul(dim(0,0),393216)\"",
                  "\"kind\": \"i64\"",
                  "functions[0].launches[0].args[2]: missing required field "
                  "'value'"},
        ErrorCase{"I64BadValue", "\"value\": \"mul(dim(0,0),393216)\"",
                  "\"value\": 1.5",
                  "functions[0].launches[0].args[2].value: expected an "
                  "integer or an expression string, found a number"},
        ErrorCase{"F32BadValue",
                  "\"kind\": \"i64\", \"value\": "
                  "\"mul(dim(0,0),393216)\"",
                  "\"kind\": \"f32\", \"value\": \"pi\"",
                  "functions[0].launches[0].args[2].value: expected a number "
                  "or one of \"inf\", \"-inf\", \"nan\""},
        ErrorCase{"F32TooLarge",
                  "\"kind\": \"i64\", \"value\": "
                  "\"mul(dim(0,0),393216)\"",
                  "\"kind\": \"f32\", \"value\": 1e300",
                  "functions[0].launches[0].args[2].value: value"},
        ErrorCase{"MemrefMissingShape",
                  ", \"shape\": [\"dim(0,0)\", 393216]} ]\n    }]",
                  "} ]\n    }]",
                  "functions[0].launches[0].args[3]: missing required field "
                  "'shape'"},
        ErrorCase{"MemrefDimOutOfRange",
                  "\"buffer\": 1, \"shape\": [\"dim(0,0)\"",
                  "\"buffer\": 1, \"shape\": [\"dim(1,0)\"",
                  "functions[0].launches[0].args[3].shape[0]: dim(1,0) refers "
                  "to argument 1"}),
    [](const ::testing::TestParamInfo<ErrorCase> &info) {
      return std::string(info.param.name);
    });

TEST(ManifestTest, RejectsTopLevelArray) {
  expectError([] { parseManifest("[]"); },
              "invalid manifest: (top level): expected an object, found an "
              "array");
}

TEST(ManifestTest, RejectsDuplicateFunctionNames) {
  const char *fn = R"({"name": "f", "args": [], "buffers": [], "results": [],
                       "launches": []})";
  std::string json =
      std::string(
          R"({"format": "fuser-manifest", "version": 1, "functions": [)") +
      fn + ", " + fn + "]}";
  expectError([&] { parseManifest(json); },
              "invalid manifest: functions[1].name: duplicate function name "
              "'f'");
}

} // namespace
