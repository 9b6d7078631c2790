//===- TorchLauncher.h - One native call per PyTorch forward -*- C++ -*-===//
//
// The call path of compiled modules: a forward's tensors go to the kernels
// in one native call, with no per-call Python between them. A launcher
// reads each tensor's dtype, shape, strides, device and address through
// PyTorch's Python API (no libtorch link: the extension stays framework
// neutral), looks the call's signature (device, dtypes, shapes) up in its
// cache, and on a hit allocates the results with torch.empty, launches the
// prepared call (fuser::PreparedCall) on the device's current stream and
// returns the results. On a miss it asks its `select` callback which
// function takes these tensors (Python's variant choice, which may compile
// one), prepares the call (every check of Function::launch), and caches it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_PYTHON_TORCHLAUNCHER_H
#define FUSER_PYTHON_TORCHLAUNCHER_H

#include <nanobind/nanobind.h>

namespace fuser::python {

/// Adds the TorchLauncher class to the extension module.
void bindTorchLauncher(nanobind::module_ &m);

} // namespace fuser::python

#endif // FUSER_PYTHON_TORCHLAUNCHER_H
