//===- Validate.h - Check call arguments against a function -----*- C++ -*-===//
//
// Everything a launch needs to be safe is checked here, before any CUDA
// call: kernels index memory from the shapes the manifest promises, so a
// tensor of the wrong shape, dtype, layout or device would read or write out
// of bounds. These functions are pure (no CUDA) so CPU-only tests cover them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_VALIDATE_H
#define FUSER_RUNTIME_VALIDATE_H

#include "fuser/Manifest/Manifest.h"
#include "fuser/Runtime/Tensor.h"

#include <vector>

namespace fuser {

struct PreparedCall;

/// Checks the call's inputs: count, dtype, rank, static sizes, the
/// manifest's checks, then device (CUDA, one device), null pointers,
/// alignment and dense row-major layout. Returns the argument shapes for
/// evaluating expressions. Throws fuser::Error prefixed with the function
/// name, e.g. "forward: argument 0 ('arg0') has dtype f16, expected f32".
ShapeList validateInputs(const FunctionSpec &fn,
                         const std::vector<TensorRef> &inputs);

/// The concrete dtype and shape of every buffer of `fn` (same order as
/// fn.buffers) for inputs of `argShapes`, which must have passed
/// validateInputs. Throws if a size evaluates to a negative number, an
/// expression fails, or a byte size overflows.
std::vector<TensorType> resolveBuffers(const FunctionSpec &fn,
                                       const ShapeList &argShapes);

/// The types of `fn`'s results, picked from resolveBuffers' output.
std::vector<TensorType> resultTypes(const FunctionSpec &fn,
                                    const std::vector<TensorType> &buffers);

/// Checks caller-provided outputs against the resolved result types: count,
/// dtype, shape, device (the inputs' device), null pointers, alignment,
/// layout, and that no output overlaps an input or another output.
void validateOutputs(const FunctionSpec &fn,
                     const std::vector<TensorType> &buffers,
                     const std::vector<TensorRef> &inputs,
                     const std::vector<TensorRef> &outputs);

/// The per-call checks of a prepared call's addresses (dtypes, shapes and
/// layout were checked when it was prepared): counts, null pointers of
/// non-empty tensors and the alignment the kernels assume.
void checkAddresses(const PreparedCall &call,
                    const std::vector<uint64_t> &inputs,
                    const std::vector<uint64_t> &outputs);

/// The CUDA device ordinal the call runs on (that of the first input, else
/// the first output), or -1 if there are no tensors at all.
int callDevice(const std::vector<TensorRef> &inputs,
               const std::vector<TensorRef> &outputs);

} // namespace fuser

#endif // FUSER_RUNTIME_VALIDATE_H
