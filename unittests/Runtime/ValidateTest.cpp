//===- ValidateTest.cpp - Tests for call argument validation ----*- C++ -*-===//

#include "fuser/Runtime/Validate.h"
#include "TestUtil.h"

using namespace fuser;
using fuser::test::cudaTensor;
using fuser::test::expectError;
using fuser::test::matmulManifest;
using fuser::test::replaceInManifest;

namespace {

constexpr uint64_t kX = 0x7f0000010000, kW = 0x7f0000020000,
                   kOut = 0x7f0000030000;

class ValidateTest : public ::testing::Test {
protected:
  ManifestModule module = parseManifest(matmulManifest());
  const FunctionSpec &fn = module.functions[0];
  TensorRef x = cudaTensor(DType::F32, {3, 8}, kX);
  TensorRef w = cudaTensor(DType::F32, {8, 4}, kW);
  TensorRef out = cudaTensor(DType::F32, {3, 4}, kOut);

  std::vector<TensorRef> inputs() const { return {x, w}; }

  void expectInputError(const std::string &message) {
    expectError([&] { validateInputs(fn, inputs()); }, message);
  }

  void expectOutputError(const std::vector<TensorRef> &outputs,
                         const std::string &message) {
    ShapeList shapes = validateInputs(fn, inputs());
    std::vector<TensorType> buffers = resolveBuffers(fn, shapes);
    expectError([&] { validateOutputs(fn, buffers, inputs(), outputs); },
                message);
  }
};

TEST_F(ValidateTest, AcceptsValidCall) {
  ShapeList shapes = validateInputs(fn, inputs());
  EXPECT_EQ(shapes, (ShapeList{{3, 8}, {8, 4}}));
  std::vector<TensorType> buffers = resolveBuffers(fn, shapes);
  EXPECT_NO_THROW(validateOutputs(fn, buffers, inputs(), {out}));
}

TEST_F(ValidateTest, WrongArgumentCount) {
  expectError([&] { validateInputs(fn, {x}); },
              "forward: expected 2 arguments, got 1");
  expectError(
      [&] {
        validateInputs(fn, {x, w, w});
      },
      "forward: expected 2 arguments, got 3");
}

TEST_F(ValidateTest, WrongDtype) {
  x.dtype = DType::F16;
  expectInputError("forward: argument 0 ('x') has dtype f16, expected f32");
}

TEST_F(ValidateTest, WrongRank) {
  x = cudaTensor(DType::F32, {3, 8, 1}, kX);
  expectInputError("forward: argument 0 ('x') has rank 3 (shape [3, 8, 1]), "
                   "expected rank 2");
}

TEST_F(ValidateTest, WrongStaticDim) {
  w = cudaTensor(DType::F32, {8, 5}, kW);
  expectInputError("forward: argument 1 ('w') dim 1 is 5, expected 4");
}

TEST_F(ValidateTest, NegativeDim) {
  x.shape = {-1, 8};
  expectInputError("forward: argument 0 ('x') dim 0 has negative size -1");
}

TEST_F(ValidateTest, FailedCheck) {
  w = cudaTensor(DType::F32, {7, 4}, kW);
  expectInputError("forward: argument 1 dim 0 is 7 but must equal argument 0 "
                   "dim 1 (8): w dim 0 must equal x dim 1");
}

TEST_F(ValidateTest, FailedCheckAgainstConstantAndExpression) {
  std::string json = replaceInManifest(
      matmulManifest(), R"j("lhs": "dim(1,0)", "rhs": "dim(0,1)")j",
      R"j("lhs": "mul(dim(0,0),2)", "rhs": 5)j");
  ManifestModule m = parseManifest(json);
  expectError([&] { validateInputs(m.functions[0], inputs()); },
              "forward: mul(dim(0,0),2) is 6 but must equal 5: w dim 0");
}

TEST_F(ValidateTest, CheckEvaluationError) {
  std::string json =
      replaceInManifest(matmulManifest(), R"j("lhs": "dim(1,0)")j",
                        R"j("lhs": "floordiv(dim(1,0),sub(dim(0,0),3))")j");
  ManifestModule m = parseManifest(json);
  expectError([&] { validateInputs(m.functions[0], inputs()); },
              "forward: evaluating a shape check: division by zero");
}

TEST_F(ValidateTest, CpuTensor) {
  x.device = DeviceKind::CPU;
  expectInputError("forward: argument 0 ('x') is on the CPU; fuser kernels "
                   "need CUDA tensors");
}

TEST_F(ValidateTest, PinnedHostTensor) {
  w.device = DeviceKind::CUDAHost;
  expectInputError("forward: argument 1 ('w') is in pinned host memory; "
                   "fuser kernels need CUDA device tensors");
}

TEST_F(ValidateTest, OtherDeviceTensor) {
  w.device = DeviceKind::Other;
  expectInputError("argument 1 ('w') is in an unsupported device type");
}

TEST_F(ValidateTest, ManagedMemoryIsAccepted) {
  x.device = DeviceKind::CUDAManaged;
  EXPECT_NO_THROW(validateInputs(fn, inputs()));
}

TEST_F(ValidateTest, MixedDevices) {
  w.deviceId = 1;
  expectInputError("forward: argument 1 ('w') is on cuda:1 but argument 0 "
                   "('x') is on cuda:0; all tensors must be on one device");
}

TEST_F(ValidateTest, NonContiguous) {
  x.strides = {1, 3}; // A transposed view.
  expectInputError("forward: argument 0 ('x') is not contiguous (shape [3, "
                   "8], strides [1, 3]); pass a dense row-major tensor");
}

TEST_F(ValidateTest, PaddedRowsAreNotContiguous) {
  x.strides = {16, 1};
  expectInputError("argument 0 ('x') is not contiguous");
}

TEST_F(ValidateTest, SizeOneDimsMayHaveAnyStride) {
  x = cudaTensor(DType::F32, {1, 8}, kX);
  x.strides = {12345, 1};
  w = cudaTensor(DType::F32, {8, 4}, kW);
  EXPECT_NO_THROW(validateInputs(fn, inputs()));
}

TEST_F(ValidateTest, StrideCountMismatch) {
  x.strides = {8};
  expectInputError("argument 0 ('x') has 1 stride for rank 2");
}

TEST_F(ValidateTest, MisalignedPointer) {
  // x requires the manifest's 16 bytes; w the f32 element size.
  x.data = kX + 4;
  expectInputError("forward: argument 0 ('x') data pointer 0x7f0000010004 is "
                   "not aligned to 16 bytes, which the kernels assume");
  x.data = kX + 16;
  w.data = kW + 2;
  expectInputError("argument 1 ('w') data pointer 0x7f0000020002 is not "
                   "aligned to 4 bytes");
  w.data = kW + 4;
  EXPECT_NO_THROW(validateInputs(fn, inputs()));
}

TEST_F(ValidateTest, NullPointer) {
  x.data = 0;
  expectInputError("forward: argument 0 ('x') has a null data pointer but 24 "
                   "elements");
}

TEST_F(ValidateTest, EmptyTensorsSkipPointerAndLayoutChecks) {
  x = cudaTensor(DType::F32, {0, 8}, 0);
  x.strides = {0, 0};
  EXPECT_NO_THROW(validateInputs(fn, inputs()));
  // ...but not the device check.
  x.device = DeviceKind::CPU;
  expectInputError("is on the CPU");
}

TEST_F(ValidateTest, ResolvesBufferShapes) {
  ShapeList shapes = validateInputs(fn, inputs());
  std::vector<TensorType> buffers = resolveBuffers(fn, shapes);
  ASSERT_EQ(buffers.size(), 4u);
  EXPECT_EQ(buffers[0].shape, (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(buffers[0].dtype, DType::F32);
  EXPECT_EQ(buffers[1].shape, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(buffers[2].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(buffers[2].dtype, DType::F32);
  EXPECT_EQ(buffers[3].shape, (std::vector<int64_t>{12}));
  EXPECT_EQ(buffers[3].dtype, DType::F16);
  EXPECT_EQ(buffers[3].byteSize(), 24);

  std::vector<TensorType> results = resultTypes(fn, buffers);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(results[0].dtype, DType::F32);

  // Other shapes give other results: nothing is cached between calls.
  results = resultTypes(fn, resolveBuffers(fn, {{5, 8}, {8, 4}}));
  EXPECT_EQ(results[0].shape, (std::vector<int64_t>{5, 4}));
}

TEST_F(ValidateTest, ResolveRejectsNegativeSize) {
  std::string json = replaceInManifest(
      matmulManifest(), R"j("shape": ["dim(0,0)", "dim(1,1)"]},)j",
      R"j("shape": ["sub(dim(0,0),10)", "dim(1,1)"]},)j");
  ManifestModule m = parseManifest(json);
  expectError(
      [&] {
        resolveBuffers(m.functions[0], {{3, 8}, {8, 4}});
      },
      "forward: buffer 2 dim 0 (sub(dim(0,0),10)) evaluates to -7, "
      "which is negative");
}

TEST_F(ValidateTest, ResolveReportsExpressionErrors) {
  std::string json = replaceInManifest(
      matmulManifest(), R"j("shape": ["dim(0,0)", "dim(1,1)"]},)j",
      R"j("shape": ["floordiv(8,sub(dim(0,0),3))", "dim(1,1)"]},)j");
  ManifestModule m = parseManifest(json);
  expectError(
      [&] {
        resolveBuffers(m.functions[0], {{3, 8}, {8, 4}});
      },
      "forward: buffer 2 shape[0]: division by zero");
}

TEST_F(ValidateTest, ResolveRejectsHugeBuffers) {
  std::string json = replaceInManifest(
      matmulManifest(), R"j("shape": ["dim(0,0)", "dim(1,1)"]},)j",
      R"j("shape": ["dim(0,0)", 4611686018427387904]},)j");
  ManifestModule m = parseManifest(json);
  expectError(
      [&] {
        resolveBuffers(m.functions[0], {{3, 8}, {8, 4}});
      },
      "forward: buffer 2 is too large: its byte size overflows 64 "
      "bits");
}

TEST_F(ValidateTest, OutputCount) {
  expectOutputError({}, "forward: expected 1 output, got 0");
  expectOutputError({out, out}, "forward: expected 1 output, got 2");
}

TEST_F(ValidateTest, OutputShape) {
  expectOutputError({cudaTensor(DType::F32, {3, 5}, kOut)},
                    "forward: output 0 has shape [3, 5], expected [3, 4]");
  expectOutputError({cudaTensor(DType::F32, {12}, kOut)},
                    "forward: output 0 has shape [12], expected [3, 4]");
}

TEST_F(ValidateTest, OutputDtype) {
  out.dtype = DType::BF16;
  expectOutputError({out}, "forward: output 0 has dtype bf16, expected f32");
}

TEST_F(ValidateTest, OutputDevice) {
  out.device = DeviceKind::CPU;
  expectOutputError({out}, "forward: output 0 is on the CPU");
  out.device = DeviceKind::CUDA;
  out.deviceId = 2;
  expectOutputError({out}, "forward: output 0 is on cuda:2 but argument 0 "
                           "('x') is on cuda:0");
}

TEST_F(ValidateTest, OutputLayoutAndPointer) {
  TensorRef t = out;
  t.strides = {1, 3};
  expectOutputError({t}, "forward: output 0 is not contiguous");
  t = out;
  t.data = kOut + 2;
  expectOutputError({t}, "forward: output 0 data pointer 0x7f0000030002 is "
                         "not aligned to 4 bytes");
  t.data = 0;
  expectOutputError({t}, "forward: output 0 has a null data pointer but 12 "
                         "elements");
}

TEST_F(ValidateTest, OutputMustNotAliasInputs) {
  out.data = kX + 16; // Inside x's 96 bytes.
  expectOutputError({out}, "forward: output 0 overlaps argument 0 ('x') in "
                           "memory; outputs must not alias inputs");
  out.data = kX + 96; // Just past x: fine.
  ShapeList shapes = validateInputs(fn, inputs());
  EXPECT_NO_THROW(
      validateOutputs(fn, resolveBuffers(fn, shapes), inputs(), {out}));
}

TEST(ValidateOutputsTest, OutputsMustNotAliasEachOther) {
  ManifestModule m = parseManifest(R"json({
    "format": "fuser-manifest", "version": 1,
    "functions": [{"name": "two",
      "args": [{"name": "a", "dtype": "i32", "shape": [4]}],
      "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                  {"id": 1, "kind": "alloc", "dtype": "i32", "shape": [4]},
                  {"id": 2, "kind": "alloc", "dtype": "i64", "shape": [2]}],
      "results": [{"buffer": 1}, {"buffer": 2}],
      "launches": []}]})json");
  const FunctionSpec &fn = m.functions[0];
  std::vector<TensorRef> in = {cudaTensor(DType::I32, {4}, 0x1000)};
  std::vector<TensorType> buffers = resolveBuffers(fn, validateInputs(fn, in));
  std::vector<TensorRef> outs = {cudaTensor(DType::I32, {4}, 0x2000),
                                 cudaTensor(DType::I64, {2}, 0x2008)};
  expectError([&] { validateOutputs(fn, buffers, in, outs); },
              "two: output 1 overlaps output 0 in memory; outputs must not "
              "alias each other");
  outs[1].data = 0x2010;
  EXPECT_NO_THROW(validateOutputs(fn, buffers, in, outs));
  EXPECT_EQ(callDevice(in, outs), 0);
}

TEST(ValidateOutputsTest, CallDevice) {
  EXPECT_EQ(callDevice({}, {}), -1);
  EXPECT_EQ(callDevice({}, {cudaTensor(DType::F32, {1}, 0x100, 3)}), 3);
  EXPECT_EQ(callDevice({cudaTensor(DType::F32, {1}, 0x100, 2)},
                       {cudaTensor(DType::F32, {1}, 0x100, 3)}),
            2);
}

} // namespace
