//===- TorchNativeModule.cpp - The _fuser_torch Python extension ----------===//
//
// fuser's call path for PyTorch tensors, linked against the PyTorch of the
// Python it is built for (TorchNative.h). Optional: where it is not built,
// fuser.frameworks falls back to _fuser_runtime's TorchLauncher.
//
//===----------------------------------------------------------------------===//

#include "TorchNative.h"
#include "fuser/Runtime/GraphMode.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

namespace nb = nanobind;
using fuser::python::NativeTorchLauncher;

NB_MODULE(_fuser_torch, m) {
  m.doc() = "fuser's call path for PyTorch tensors, in PyTorch's C++ API";
  // The PyTorch whose libraries it links: only that one may use it.
  m.attr("torch_version") = FUSER_TORCH_VERSION;
  nb::class_<NativeTorchLauncher>(
      m, "TorchLauncher",
      "Launches entry functions on PyTorch tensors in one native call, as "
      "_fuser_runtime.TorchLauncher does, through PyTorch's C++ API.")
      .def(
          "__init__",
          [](NativeTorchLauncher *self, nb::handle select,
             nb::handle errorType, bool makeDense) {
            new (self)
                NativeTorchLauncher(select.ptr(), errorType.ptr(), makeDense);
          },
          nb::arg("select"), nb::arg("error_type"), nb::arg("make_dense"),
          "select(tensors) -> (Function, mutations, artifact, function name) "
          "picks the function for a new signature; error_type is "
          "fuser.FuserError; make_dense: pass dense, 16-byte aligned copies of "
          "non-contiguous or misaligned tensors (else NotImplemented).")
      .def(
          "__call__",
          [](NativeTorchLauncher &self, nb::handle tensors) {
            PyObject *result = self.call(tensors.ptr());
            if (!result)
              throw nb::python_error();
            return nb::steal(result);
          },
          nb::arg("tensors"),
          "Runs the kernels: None, the result, or a tuple of results; "
          "NotImplemented (nothing launched) unless every tensor is a "
          "PyTorch CUDA tensor of a fuser dtype on one device.")
      .def("clear", &NativeTorchLauncher::clear,
           "Forgets every prepared signature.")
      .def_prop_ro("signatures", &NativeTorchLauncher::signatures,
                   "How many signatures are prepared.")
      .def_prop_ro("graphs", &NativeTorchLauncher::graphs,
                   "How many prepared signatures launch as CUDA graphs.");
  // This extension links its own copy of the runtime: fuser.set_cuda_graphs
  // sets both.
  m.def(
      "set_cuda_graphs",
      [](std::string_view mode) {
        fuser::setGraphMode(fuser::parseGraphMode(mode));
      },
      nb::arg("mode"));
  m.def("cuda_graphs", [] {
    return std::string(fuser::graphModeName(fuser::graphMode()));
  });
}
