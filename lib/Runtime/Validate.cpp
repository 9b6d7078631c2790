//===- Validate.cpp - Check call arguments against a function ---*- C++ -*-===//

#include "fuser/Runtime/Validate.h"
#include "fuser/Runtime/PreparedCall.h"
#include "fuser/Manifest/Error.h"

#include <cstdio>

namespace fuser {

namespace {

/// Prefixes every message with the function name.
[[noreturn]] void fail(const FunctionSpec &fn, const std::string &message) {
  throw Error(fn.name + ": " + message);
}

std::string argLabel(const FunctionSpec &fn, size_t i) {
  return "argument " + std::to_string(i) + " ('" + fn.args[i].name + "')";
}

std::string outputLabel(size_t i) { return "output " + std::to_string(i); }

std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx",
                static_cast<unsigned long long>(value));
  return buf;
}

std::string plural(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

bool isCudaAccessible(DeviceKind kind) {
  return kind == DeviceKind::CUDA || kind == DeviceKind::CUDAManaged;
}

/// Describes an expression for a check failure: "argument 1 dim 0" for a
/// plain dim(), the text otherwise.
std::string describe(const Expr &e) {
  if (e.kind() == Expr::Kind::Dim)
    return "argument " + std::to_string(e.dimArg()) + " dim " +
           std::to_string(e.dimIndex());
  return e.toString();
}

/// Dense row-major, ignoring the strides of size-1 dimensions (which are
/// never stepped over). Empty tensors are never dereferenced.
bool isContiguous(const TensorRef &t) {
  if (t.numel() == 0)
    return true;
  int64_t expected = 1;
  for (size_t i = t.shape.size(); i-- > 0;) {
    if (t.shape[i] != 1 && t.strides[i] != expected)
      return false;
    expected *= t.shape[i];
  }
  return true;
}

/// A non-empty tensor's address: not null, aligned as the kernels assume.
/// `label` names the tensor; it is called only to report a failure, so a
/// passing call (a prepared call's, per launch) builds no strings.
template <typename Label>
void checkAddress(const FunctionSpec &fn, uint64_t address, int64_t numel,
                  int64_t align, Label label) {
  if (numel == 0)
    return;
  if (address == 0)
    fail(fn, label() + " has a null data pointer but " +
                 plural(numel, "element"));
  if (align > 0 && address % static_cast<uint64_t>(align) != 0)
    fail(fn, label() + " data pointer " + hex(address) + " is not aligned to " +
                 std::to_string(align) + " bytes, which the kernels assume");
}

/// Device, pointer and layout checks shared by inputs and outputs.
void checkMemory(const FunctionSpec &fn, const TensorRef &t,
                 const std::string &label, int64_t align) {
  if (!isCudaAccessible(t.device)) {
    if (t.device == DeviceKind::CPU)
      fail(fn, label + " is on the CPU; fuser kernels need CUDA tensors "
                       "(move it with .cuda() / .to('cuda'))");
    fail(fn, label + " is in " + deviceDescription(t.device, t.deviceId) +
                 "; fuser kernels need CUDA device tensors");
  }
  if (t.strides.size() != t.shape.size())
    fail(fn, label + " has " + plural(t.strides.size(), "stride") +
                 " for rank " + std::to_string(t.shape.size()));
  int64_t numel = t.numel();
  if (numel == 0)
    return;
  checkAddress(fn, t.data, numel, align, [&] { return label; });
  if (!isContiguous(t))
    fail(fn, label + " is not contiguous (shape " + shapeToString(t.shape) +
                 ", strides " + shapeToString(t.strides) +
                 "); pass a dense row-major tensor (e.g. .contiguous())");
}

void checkSameDevice(const FunctionSpec &fn, const TensorRef &t,
                     const std::string &label, const TensorRef &first,
                     const std::string &firstLabel) {
  if (t.deviceId != first.deviceId)
    fail(fn, label + " is on " + deviceDescription(t.device, t.deviceId) +
                 " but " + firstLabel + " is on " +
                 deviceDescription(first.device, first.deviceId) +
                 "; all tensors must be on one device");
}

/// Byte range [begin, end) of a non-empty dense tensor.
struct ByteRange {
  uint64_t begin, end;
};

ByteRange byteRange(const TensorRef &t) {
  uint64_t bytes = static_cast<uint64_t>(t.numel()) *
                   static_cast<uint64_t>(dtypeSize(t.dtype));
  return {t.data, t.data + bytes};
}

bool overlaps(const TensorRef &a, const TensorRef &b) {
  if (a.numel() == 0 || b.numel() == 0)
    return false;
  ByteRange ra = byteRange(a), rb = byteRange(b);
  return ra.begin < rb.end && rb.begin < ra.end;
}

} // namespace

ShapeList validateInputs(const FunctionSpec &fn,
                         const std::vector<TensorRef> &inputs) {
  // 1. Count, dtype, rank and static sizes: what the signature promises.
  if (inputs.size() != fn.args.size())
    fail(fn, "expected " + plural(fn.args.size(), "argument") + ", got " +
                 std::to_string(inputs.size()));
  ShapeList shapes;
  shapes.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorRef &t = inputs[i];
    const ArgSpec &spec = fn.args[i];
    if (t.dtype != spec.dtype)
      fail(fn, argLabel(fn, i) + " has dtype " + dtypeName(t.dtype) +
                   ", expected " + dtypeName(spec.dtype));
    if (static_cast<int64_t>(t.shape.size()) != spec.rank())
      fail(fn, argLabel(fn, i) + " has rank " + std::to_string(t.shape.size()) +
                   " (shape " + shapeToString(t.shape) + "), expected rank " +
                   std::to_string(spec.rank()));
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 0)
        fail(fn, argLabel(fn, i) + " dim " + std::to_string(d) +
                     " has negative size " + std::to_string(t.shape[d]));
      if (spec.shape[d] != ArgSpec::kDynamic && t.shape[d] != spec.shape[d])
        fail(fn, argLabel(fn, i) + " dim " + std::to_string(d) + " is " +
                     std::to_string(t.shape[d]) + ", expected " +
                     std::to_string(spec.shape[d]));
    }
    shapes.push_back(t.shape);
  }

  // 2. The manifest's cross-argument checks (e.g. broadcast agreement).
  for (const CheckSpec &check : fn.checks) {
    int64_t lhs, rhs;
    try {
      lhs = check.lhs.evaluate(shapes);
      rhs = check.rhs.evaluate(shapes);
    } catch (const Error &e) {
      fail(fn, std::string("evaluating a shape check: ") + e.what());
    }
    if (lhs == rhs)
      continue;
    std::string rhsText =
        check.rhs.isConstant()
            ? std::to_string(rhs)
            : describe(check.rhs) + " (" + std::to_string(rhs) + ")";
    fail(fn, describe(check.lhs) + " is " + std::to_string(lhs) +
                 " but must equal " + rhsText +
                 (check.message.empty() ? "" : ": " + check.message));
  }

  // 3. Where the memory is and how it is laid out.
  for (size_t i = 0; i < inputs.size(); ++i) {
    checkMemory(fn, inputs[i], argLabel(fn, i), fn.args[i].align);
    if (i > 0)
      checkSameDevice(fn, inputs[i], argLabel(fn, i), inputs[0],
                      argLabel(fn, 0));
  }
  return shapes;
}

std::vector<TensorType> resolveBuffers(const FunctionSpec &fn,
                                       const ShapeList &argShapes) {
  std::vector<TensorType> types;
  types.reserve(fn.buffers.size());
  for (const BufferSpec &buf : fn.buffers) {
    TensorType type;
    type.dtype = buf.dtype;
    std::string label = "buffer " + std::to_string(buf.id);
    if (buf.kind == BufferSpec::Kind::Arg) {
      if (buf.arg >= static_cast<int64_t>(argShapes.size()))
        fail(fn,
             label + " refers to missing argument " + std::to_string(buf.arg));
      type.shape = argShapes[buf.arg];
      types.push_back(std::move(type));
      continue;
    }
    int64_t bytes = dtypeSize(buf.dtype);
    for (size_t d = 0; d < buf.shape.size(); ++d) {
      int64_t size;
      try {
        size = buf.shape[d].evaluate(argShapes);
      } catch (const Error &e) {
        fail(fn, label + " shape[" + std::to_string(d) + "]: " + e.what());
      }
      if (size < 0)
        fail(fn, label + " dim " + std::to_string(d) + " (" +
                     buf.shape[d].toString() + ") evaluates to " +
                     std::to_string(size) + ", which is negative");
      if (__builtin_mul_overflow(bytes, size, &bytes))
        fail(fn, label + " is too large: its byte size overflows 64 bits");
      type.shape.push_back(size);
    }
    types.push_back(std::move(type));
  }
  return types;
}

std::vector<TensorType> resultTypes(const FunctionSpec &fn,
                                    const std::vector<TensorType> &buffers) {
  std::vector<TensorType> results;
  for (int64_t b : fn.results)
    results.push_back(buffers[b]);
  return results;
}

void validateOutputs(const FunctionSpec &fn,
                     const std::vector<TensorType> &buffers,
                     const std::vector<TensorRef> &inputs,
                     const std::vector<TensorRef> &outputs) {
  if (outputs.size() != fn.results.size())
    fail(fn, "expected " + plural(fn.results.size(), "output") + ", got " +
                 std::to_string(outputs.size()));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorRef &t = outputs[i];
    const BufferSpec &buf = fn.buffers[fn.results[i]];
    const TensorType &expected = buffers[fn.results[i]];
    if (t.dtype != expected.dtype)
      fail(fn, outputLabel(i) + " has dtype " + dtypeName(t.dtype) +
                   ", expected " + dtypeName(expected.dtype));
    if (t.shape != expected.shape)
      fail(fn, outputLabel(i) + " has shape " + shapeToString(t.shape) +
                   ", expected " + shapeToString(expected.shape));
    checkMemory(fn, t, outputLabel(i), buf.align);
    if (!inputs.empty())
      checkSameDevice(fn, t, outputLabel(i), inputs[0], argLabel(fn, 0));
    else if (i > 0)
      checkSameDevice(fn, t, outputLabel(i), outputs[0], outputLabel(0));
    // A kernel writing an output that another tensor of the call reads or
    // writes would race with itself; the manifest has no in-place semantics.
    for (size_t a = 0; a < inputs.size(); ++a)
      if (overlaps(t, inputs[a]))
        fail(fn, outputLabel(i) + " overlaps " + argLabel(fn, a) +
                     " in memory; outputs must not alias inputs");
    for (size_t o = 0; o < i; ++o)
      if (overlaps(t, outputs[o]))
        fail(fn, outputLabel(i) + " overlaps " + outputLabel(o) +
                     " in memory; outputs must not alias each other");
  }
}

void checkAddresses(const PreparedCall &call,
                    const std::vector<uint64_t> &inputs,
                    const std::vector<uint64_t> &outputs) {
  const FunctionSpec &fn = *call.function;
  if (inputs.size() != fn.args.size() || outputs.size() != fn.results.size())
    fail(fn, "expected " + std::to_string(fn.args.size()) +
                 " arguments and " + std::to_string(fn.results.size()) +
                 " outputs, got " + std::to_string(inputs.size()) + " and " +
                 std::to_string(outputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    checkAddress(fn, inputs[i],
                 TensorType{fn.args[i].dtype, call.shapes[i]}.numel(),
                 fn.args[i].align, [&] { return argLabel(fn, i); });
  for (size_t r = 0; r < outputs.size(); ++r)
    checkAddress(fn, outputs[r], call.results[r].numel(),
                 fn.buffers[fn.results[r]].align,
                 [&] { return outputLabel(r); });
}

int callDevice(const std::vector<TensorRef> &inputs,
               const std::vector<TensorRef> &outputs) {
  if (!inputs.empty())
    return inputs[0].deviceId;
  if (!outputs.empty())
    return outputs[0].deviceId;
  return -1;
}

} // namespace fuser
