//===- TorchNative.h - The call path in PyTorch's C++ API -------*- C++ -*-===//
//
// The launcher of TorchLauncher.h (same contract), built against the
// PyTorch of the Python the extension is built for: it reads tensors
// through THPVariable, allocates results with at::empty and takes the
// current stream from c10::cuda, which cost a fraction of the same calls
// through PyTorch's Python API. Only this file's .cpp includes PyTorch's
// headers (they bring pybind11, which stays out of the nanobind module).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_PYTHON_TORCHNATIVE_H
#define FUSER_PYTHON_TORCHNATIVE_H

#include <Python.h>

#include <cstddef>
#include <memory>

namespace fuser::python {

class NativeTorchLauncher {
public:
  /// `select(tensors)` returns (Function, mutations, artifact, function
  /// name) for a new signature; this launcher loads the artifact's image
  /// itself (once per artifact). `errorType` is fuser.FuserError.
  NativeTorchLauncher(PyObject *select, PyObject *errorType, bool makeDense);
  ~NativeTorchLauncher();

  /// A new reference: None, the result or a tuple of results; or
  /// NotImplemented where TorchLauncher returns it; or nullptr with a
  /// Python error set.
  PyObject *call(PyObject *tensors);
  void clear();
  size_t signatures() const;
  /// How many prepared signatures launch as CUDA graphs (GraphMode.h).
  size_t graphs() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace fuser::python

#endif // FUSER_PYTHON_TORCHNATIVE_H
