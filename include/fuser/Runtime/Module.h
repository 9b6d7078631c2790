//===- Module.h - A loaded fuser module and its entry functions -*- C++ -*-===//
//
// A Module pairs the compiled image (PTX text or cubin) with its manifest.
// The manifest is parsed eagerly, so errors in it surface at construction
// and shape queries work without a GPU; the CUDA module is loaded lazily, on
// the first launch in each device context.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_MODULE_H
#define FUSER_RUNTIME_MODULE_H

#include "fuser/Manifest/Manifest.h"
#include "fuser/Runtime/Tensor.h"

#include <cuda.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fuser {

namespace detail {
struct ModuleState;
} // namespace detail

struct PreparedCall;

/// An entry function of a Module. Cheap to copy; keeps its Module alive.
class Function {
public:
  const std::string &name() const;
  const FunctionSpec &spec() const { return *fnSpec; }

  /// Validates `inputs` (see validateInputs) and returns the dtype and shape
  /// of each result, for callers that allocate the outputs themselves.
  std::vector<TensorType>
  resultSpecs(const std::vector<TensorRef> &inputs) const;

  /// Runs the function on `stream` (asynchronously with respect to the
  /// host), writing the results into `outputs`. Everything is validated
  /// before the first CUDA call; intermediates are allocated per call and
  /// freed in stream order. Throws fuser::Error with a readable message.
  void launch(const std::vector<TensorRef> &inputs,
              const std::vector<TensorRef> &outputs, CUstream stream) const;

  /// Validates `inputs` as launch does and evaluates everything their
  /// dtypes and shapes decide (buffers, results, launches): reusable for
  /// every call of the same signature, through the launch below. Needs no
  /// GPU.
  std::shared_ptr<const PreparedCall>
  prepare(const std::vector<TensorRef> &inputs) const;

  /// Runs `call` (prepared by this function) on the tensors at the device
  /// addresses `inputs` and `outputs` (in argument and result order), on
  /// CUDA device `device`. Checks what may differ between calls of one
  /// signature: counts, null pointers and alignment. The caller vouches
  /// that the addresses hold dense tensors of the prepared dtypes and
  /// shapes on `device`, and that no output overlaps another tensor (a
  /// framework's own tensors, outputs it just allocated).
  void launch(const PreparedCall &call, const std::vector<uint64_t> &inputs,
              const std::vector<uint64_t> &outputs, int device,
              CUstream stream) const;

private:
  friend class Module;
  Function(std::shared_ptr<detail::ModuleState> state, const FunctionSpec *spec)
      : state(std::move(state)), fnSpec(spec) {}

  /// Both launches end here: `call` validated, the addresses checked, and
  /// `context` (of `device`) current.
  void execute(const PreparedCall &call, const std::vector<uint64_t> &inputs,
               const std::vector<uint64_t> &outputs, int device,
               CUcontext context, CUstream stream) const;

  std::shared_ptr<detail::ModuleState> state;
  const FunctionSpec *fnSpec;
};

/// A compiled module: image + manifest.
class Module {
public:
  /// `image` is PTX text or a cubin; `manifestJson` the manifest text.
  /// Throws fuser::Error if the manifest is invalid.
  Module(std::string image, std::string_view manifestJson);

  const ManifestModule &manifest() const;
  std::vector<std::string> functionNames() const;

  /// The entry function `name`; throws fuser::Error listing the available
  /// names if there is none.
  Function function(std::string_view name) const;

private:
  std::shared_ptr<detail::ModuleState> state;
};

} // namespace fuser

#endif // FUSER_RUNTIME_MODULE_H
