//===- CHeaderTest.cpp - The C header emitter on hand-written manifests ---===//
//
// Covers what the compiler cannot produce yet (tensor_map arguments): the
// generated launcher code, the manifest checks, and that the header and
// Inputs/use_tma_header.c compile as C99, C11 and C++17. That program also
// runs on an sm_90 GPU (it exits 0 when the TMA tile is right).
//
//===----------------------------------------------------------------------===//

#include "../TmaTileKernel.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Target/CHeader.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>

using namespace mlir;

namespace {

// The TMA kernel the runtime tests launch too.
const char *kPtx = kTmaTilePtx;

// x has no "align": TMA alone makes the header require 16 bytes.
const char *kManifest = R"json({
  "format": "fuser-manifest", "version": 1, "chip": "sm_90",
  "functions": [{
    "name": "tile",
    "args": [{"name": "x", "dtype": "f32", "shape": ["?", "?"]}],
    "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                {"id": 1, "kind": "alloc", "dtype": "f32", "shape": [8, 32]}],
    "results": [{"buffer": 1}],
    "checks": [],
    "launches": [{"kernel": "tma_tile", "grid": ["min(dim(0,0),1)", 1, 1],
                  "block": [256, 1, 1],
      "args": [{"kind": "i32", "value": "sub(dim(0,1),8)"},
               {"kind": "tensor_map", "buffer": 0,
                "shape": ["dim(0,0)", "dim(0,1)"], "box": [8, 32],
                "swizzle": 128},
               {"kind": "ptr", "buffer": 1},
               {"kind": "i32", "value": "sub(dim(0,0),2)"}]}]
  }]
})json";

const char *kMap = R"j("shape": ["dim(0,0)", "dim(0,1)"], "box": [8, 32],
                "swizzle": 128)j";

/// Emits the header of `manifest`, or returns the diagnostics in `errors`.
std::string emit(const std::string &manifest, std::string *errors = nullptr) {
  MLIRContext context;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  // The one manifest reader checks the manifest; the header, what only it
  // needs.
  ::fuser::ManifestModule model;
  try {
    model = ::fuser::parseManifest(manifest);
  } catch (const ::fuser::Error &e) {
    if (!errors)
      ADD_FAILURE() << e.what();
    else
      *errors = e.what();
    return "";
  }
  std::string header;
  llvm::raw_string_ostream os(header);
  LogicalResult result = mlir::fuser::emitCHeader(
      model, kPtx, "tma", os,
      [&] { return emitError(UnknownLoc::get(&context)); });
  if (errors)
    *errors = diagnostics;
  else
    EXPECT_TRUE(succeeded(result)) << diagnostics;
  return succeeded(result) ? header : "";
}

std::string replace(std::string s, const std::string &from,
                    const std::string &to) {
  size_t pos = s.find(from);
  if (pos == std::string::npos) {
    ADD_FAILURE() << "test bug: '" << from << "' not found";
    return s;
  }
  return s.replace(pos, from.size(), to);
}

void expectContains(const std::string &text, const std::string &part) {
  EXPECT_NE(text.find(part), std::string::npos)
      << "expected:\n" << part << "\nin:\n" << text;
}

TEST(CHeaderTest, TensorMapLauncher) {
  std::string h = emit(kManifest);
  expectContains(h, "#if CUDA_VERSION < 12000\n#error");
  // 16-byte alignment although the manifest asks for 4.
  expectContains(h, "buf0 == 0 || buf0 % 16 != 0");
  // Sizes TMA cannot describe fail before anything is enqueued, unless the
  // grid is empty.
  expectContains(h, R"c(
  if (((arg0_dim0 < 1 ? arg0_dim0 : 1) > 0) &&
      (arg0_dim0 < 1 || arg0_dim0 > 0xffffffff ||
       arg0_dim1 < 1 || arg0_dim1 > 0xffffffff ||
       arg0_dim1 % 4 != 0))
    return CUDA_ERROR_INVALID_VALUE;
  do {
)c");
  // The map: a 64-byte aligned local, encoded per call; the parameter
  // points at the map itself.
  expectContains(h, R"c(
        unsigned char p1_bytes[sizeof(CUtensorMap) + 64];
        CUtensorMap *p1 = (CUtensorMap *)(void *)(p1_bytes +
            (64 - (uintptr_t)p1_bytes % 64) % 64);
)c");
  expectContains(h, R"c(
        cuuint32_t p1_box[2] = {32, 8};
        cuuint32_t p1_step[2] = {1, 1};
        p1_dim[0] = (cuuint64_t)arg0_dim1;
        p1_dim[1] = (cuuint64_t)arg0_dim0;
        p1_pitch[0] = (cuuint64_t)arg0_dim1 * 4;
        /* Out-of-bounds elements read as zeros. */
        err = cuTensorMapEncodeTiled(
            p1, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)(uintptr_t)buf0,
            p1_dim, p1_pitch, p1_box, p1_step, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (err != CUDA_SUCCESS)
          break;
)c");
  expectContains(h, "void *params[] = {&p0, p1, &buf1, &p3};");
}

TEST(CHeaderTest, TensorMapDTypesAndSwizzles) {
  std::string json = replace(kManifest, R"("dtype": "f32", "shape": ["?")",
                             R"("dtype": "bf16", "shape": ["?")");
  json = replace(json, kMap, R"j("shape": ["dim(0,0)", 64], "box": [8, 16],
                                 "swizzle": 32)j");
  std::string h = emit(json);
  expectContains(h, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16");
  expectContains(h, "CU_TENSOR_MAP_SWIZZLE_32B");
  expectContains(h, "p1_pitch[0] = (cuuint64_t)64 * 2;");
  // A constant pitch needs no check.
  EXPECT_EQ(h.find(" % 8 != 0"), std::string::npos);
  json = replace(json, R"("swizzle": 32)", R"("swizzle": 0)");
  expectContains(emit(json), "CU_TENSOR_MAP_SWIZZLE_NONE");
}

TEST(CHeaderTest, ViewMustFitTheBuffer) {
  std::string h = emit(replace(kManifest, kMap,
                               R"j("shape": ["mul(dim(0,0),2)", 32],
                                   "box": [8, 32], "swizzle": 128)j"));
  expectContains(h, R"c(
      ((arg0_dim0 * 2) < 1 || (arg0_dim0 * 2) > 0xffffffff ||
       (uint64_t)(arg0_dim0 * 2) * (uint64_t)32 > (uint64_t)(arg0_dim0 * arg0_dim1)))
    return CUDA_ERROR_INVALID_VALUE;
)c");
}

TEST(CHeaderTest, EmptyGridChecksNothing) {
  std::string h = emit(replace(kManifest, R"j("grid": ["min(dim(0,0),1)", 1, 1])j",
                               R"("grid": [0, 1, 1])"));
  EXPECT_EQ(h.find("err = cuTensorMapEncodeTiled"), std::string::npos);
  EXPECT_EQ(h.find("TMA needs the view"), std::string::npos);
}

// The tensor-map rules are the one reader's (lib/Manifest, covered by the
// runtime's TensorMapTest); a manifest breaking them never reaches the
// header emitter.
TEST(CHeaderTest, RejectsBadTensorMaps) {
  std::string errors;
  EXPECT_EQ(emit(replace(kManifest, kMap,
                         R"j("shape": ["dim(0,0)", "dim(0,1)"], "box": [8, 32],
                            "swizzle": 16)j"),
                 &errors),
            "");
  EXPECT_NE(errors.find("functions[0].launches[0].args[1].swizzle: "
                        "unsupported swizzle 16"),
            std::string::npos)
      << errors;
  emit(replace(kManifest, R"("dtype": "f32", "shape": ["?")",
               R"("dtype": "i32", "shape": ["?")"),
       &errors);
  EXPECT_NE(errors.find("tensor_map needs an f32, bf16 or f16 buffer, but "
                        "buffer 0 has dtype i32"),
            std::string::npos)
      << errors;
}

/// Runs `command`, returning whether it exited with 0.
bool run(const std::string &command) {
  int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  return status == 0;
}

TEST(CHeaderTest, TensorMapHeaderCompiles) {
  std::string cudaInclude = FUSER_TEST_CUDA_INCLUDE;
  if (cudaInclude.empty())
    GTEST_SKIP() << "cuda.h not found";
  std::string dir = FUSER_TEST_OUTPUT;
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/tma_kernels.h") << emit(kManifest);
  // As test/Target/c-header-compile.mlir: cuda.h is not pedantic C99.
  std::string common = " -Wall -Wextra -pedantic -Werror -isystem " +
                       cudaInclude + " -I" + dir + " -fsyntax-only ";
  std::string input = std::string(FUSER_TEST_INPUTS) + "/use_tma_header.c";
  run(std::string(FUSER_TEST_CC) + " -std=c99" + common + input);
  run(std::string(FUSER_TEST_CC) + " -std=c11" + common + input);
  run(std::string(FUSER_TEST_CXX) + " -std=c++17" + common + "-x c++ " +
      input);
}

} // namespace
