//===- ManifestWriterTest.cpp - ManifestModule -> JSON ----------*- C++ -*-===//
//
// What the compiler writes is what the runtime reads: every manifest written
// parses back to the same model, and writing that again gives the same text.
//
//===----------------------------------------------------------------------===//

#include "ManifestTestUtil.h"
#include "fuser/Manifest/Base64.h"
#include "fuser/Manifest/Manifest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace fuser;
using fuser::test::expectError;
using fuser::test::matmulManifest;
using fuser::test::replaceInManifest;

namespace {

/// A function using every kind of buffer and kernel argument.
ManifestModule everyKind() {
  ManifestModule m;
  m.format = "fuser-manifest";
  m.version = kManifestVersion;
  m.chip = "sm_90a";
  FunctionSpec fn;
  fn.name = "forward";
  fn.args.push_back({"x", DType::F32, {ArgSpec::kDynamic, 64}, 16});
  BufferSpec x;
  x.id = 0;
  x.kind = BufferSpec::Kind::Arg;
  x.arg = 0;
  x.dtype = DType::F32;
  x.align = 16;
  BufferSpec w;
  w.id = 1;
  w.kind = BufferSpec::Kind::Constant;
  w.dtype = DType::F32;
  w.shape = {Expr::constant(2), Expr::constant(3)};
  w.align = 4;
  float values[6] = {1.5f, -2.0f, 0.0f, -0.0f, 3.25f, 1e-30f};
  w.data.assign(reinterpret_cast<const char *>(values), sizeof(values));
  BufferSpec out;
  out.id = 2;
  out.kind = BufferSpec::Kind::Alloc;
  out.dtype = DType::BF16;
  out.shape = {Expr::dim(0, 0), Expr::constant(64)};
  out.align = 16;
  out.isResult = true;
  fn.buffers = {x, w, out};
  fn.results = {2};
  fn.checks.push_back(
      {Expr::dim(0, 1), Expr::constant(64), "x dim 1 must be 64"});
  LaunchSpec l;
  l.kernel = "forward_k";
  l.grid = {Expr::binary(Expr::Kind::CeilDiv, Expr::dim(0, 0),
                         Expr::constant(128)),
            Expr::constant(1), Expr::constant(1)};
  l.block = {Expr::constant(256), Expr::constant(1), Expr::constant(1)};
  l.sharedBytes = 65536;
  KernelArgSpec ptr;
  ptr.kind = KernelArgSpec::Kind::Ptr;
  ptr.buffer = 1;
  KernelArgSpec i64;
  i64.kind = KernelArgSpec::Kind::I64;
  i64.value = Expr::binary(Expr::Kind::Mul, Expr::dim(0, 0),
                           Expr::constant(64));
  KernelArgSpec f32;
  f32.kind = KernelArgSpec::Kind::F32;
  f32.f32 = 0.1f;
  KernelArgSpec inf = f32;
  inf.f32 = -std::numeric_limits<float>::infinity();
  KernelArgSpec memref;
  memref.kind = KernelArgSpec::Kind::Memref;
  memref.buffer = 2;
  memref.shape = out.shape;
  KernelArgSpec map;
  map.kind = KernelArgSpec::Kind::TensorMap;
  map.buffer = 0;
  map.shape = {Expr::dim(0, 0), Expr::constant(64)};
  map.box = {128, 32};
  map.swizzle = 128;
  l.args = {ptr, i64, f32, inf, memref, map};
  fn.launches.push_back(l);
  m.functions.push_back(fn);
  return m;
}

TEST(ManifestWriterTest, RoundTripsEveryKind) {
  std::string text = writeManifest(everyKind());
  ManifestModule back = parseManifest(text);
  EXPECT_EQ(writeManifest(back), text);

  const FunctionSpec &fn = back.functions.at(0);
  EXPECT_EQ(back.version, kManifestVersion);
  EXPECT_EQ(fn.args[0].align, 16);
  EXPECT_EQ(fn.buffers[1].kind, BufferSpec::Kind::Constant);
  ASSERT_EQ(fn.buffers[1].data.size(), 24u);
  float values[6];
  std::memcpy(values, fn.buffers[1].data.data(), sizeof(values));
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_TRUE(std::signbit(values[3]));
  EXPECT_EQ(values[5], 1e-30f);
  EXPECT_EQ(fn.launches[0].sharedBytes, 65536);
  EXPECT_EQ(fn.launches[0].args[2].f32, 0.1f);
  EXPECT_TRUE(std::isinf(fn.launches[0].args[3].f32));
  EXPECT_EQ(fn.launches[0].grid[0].toString(), "ceildiv(dim(0,0),128)");
  EXPECT_EQ(fn.launches[0].args[5].box[1], 32u);
}

TEST(ManifestWriterTest, LayoutIsStable) {
  // Keys sorted, two-space indentation, constants as JSON integers: the
  // layout earlier manifests (and the lit tests) have.
  std::string text = writeManifest(everyKind());
  EXPECT_NE(text.find("{\n  \"chip\": \"sm_90a\",\n  \"format\": "
                      "\"fuser-manifest\",\n  \"functions\": ["),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"grid\": [\n            \"ceildiv(dim(0,0),128)\",\n"
                      "            1,\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"value\": 0.10000000149011612"), std::string::npos);
  EXPECT_NE(text.find("\"value\": \"-inf\""), std::string::npos);
  EXPECT_NE(text.find("\"data\": \"" +
                      encodeBase64(everyKind().functions[0].buffers[1].data) +
                      "\""),
            std::string::npos);
}

TEST(ManifestWriterTest, RoundTripsHandWrittenManifests) {
  std::string text = writeManifest(parseManifest(matmulManifest()));
  EXPECT_EQ(writeManifest(parseManifest(text)), text);
}

TEST(ManifestReaderConstants, RejectsBadConstants) {
  std::string text = writeManifest(everyKind());
  std::string data =
      encodeBase64(everyKind().functions[0].buffers[1].data);
  expectError(
      [&] {
        parseManifest(replaceInManifest(text, data, encodeBase64("short")));
      },
      "functions[0].buffers[1].data: holds 5 bytes, but 6 f32 elements "
      "need 24");
  expectError(
      [&] { parseManifest(replaceInManifest(text, data, "not base64!")); },
      "functions[0].buffers[1].data: is not valid base64");
  expectError(
      [&] {
        parseManifest(replaceInManifest(text, "\"buffer\": 2\n",
                                        "\"buffer\": 1\n"));
      },
      "buffer 1 is a constant; results must be 'alloc' buffers");
}

TEST(ManifestReaderConstants, VersionsAreChecked) {
  std::string text = writeManifest(everyKind());
  expectError(
      [&] {
        parseManifest(replaceInManifest(text, "\"version\": 2",
                                        "\"version\": 3"));
      },
      "version: unsupported manifest version 3 (this fuser reads versions 1 "
      "to 2; a newer fuser wrote it)");
}

} // namespace
