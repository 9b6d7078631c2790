//===- RuntimeModule.cpp - The _fuser_runtime Python extension --*- C++ -*-===//
//
// Thin nanobind wrapper over fuser::Module / fuser::Function. The Python
// package (fuser/) adds framework-aware output allocation and streams.
//
//===----------------------------------------------------------------------===//

#include "TensorConversion.h"
#include "TorchLauncher.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/GraphMode.h"
#include "fuser/Runtime/Module.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace fuser;
using fuser::python::toTensorRefs;

namespace {

/// One argument's spec as a dict: name, dtype, shape (None for dynamic
/// dims), align.
nb::dict argSpecToDict(const ArgSpec &arg) {
  nb::list shape;
  for (int64_t d : arg.shape)
    if (d == ArgSpec::kDynamic)
      shape.append(nb::none());
    else
      shape.append(d);
  nb::dict dict;
  dict["name"] = arg.name;
  dict["dtype"] = dtypeName(arg.dtype);
  dict["shape"] = nb::tuple(shape);
  dict["align"] = arg.align;
  return dict;
}

/// (shape, dtype) pairs for the Python side to allocate outputs.
nb::list typesToList(const std::vector<TensorType> &types) {
  nb::list list;
  for (const TensorType &t : types) {
    nb::list shape;
    for (int64_t d : t.shape)
      shape.append(d);
    list.append(nb::make_tuple(nb::tuple(shape), dtypeName(t.dtype)));
  }
  return list;
}

TensorRef makeTensorRef(uint64_t data, const std::string &dtype,
                        const std::vector<int64_t> &shape,
                        std::optional<std::vector<int64_t>> strides,
                        const std::string &device,
                        std::optional<int> deviceId) {
  TensorRef t;
  t.data = data;
  std::optional<DType> dt = dtypeFromString(dtype);
  if (!dt)
    throw Error("unknown dtype '" + dtype + "' (expected one of " +
                supportedDTypeNames() + ")");
  t.dtype = *dt;
  t.shape = shape;
  t.strides = strides ? *strides : contiguousStrides(shape);
  if (t.strides.size() != t.shape.size())
    throw Error("TensorRef: " + std::to_string(t.strides.size()) +
                " strides for " + std::to_string(t.shape.size()) +
                " dimensions");
  t.device = python::deviceKindFromString(device);
  if (deviceId) {
    t.deviceId = *deviceId;
  } else if (t.device == DeviceKind::CUDA && data != 0) {
    // __cuda_array_interface__ carries no device: ask the driver.
    t.deviceId = CudaDriver::get().pointerDevice(data);
  }
  return t;
}

} // namespace

NB_MODULE(_fuser_runtime, m) {
  m.doc() = "fuser runtime: load compiled fuser modules and launch them on "
            "CUDA tensors";

  nb::exception<Error>(m, "FuserError", PyExc_RuntimeError);

  nb::class_<TensorRef>(m, "TensorRef",
                        "A raw tensor descriptor, for objects without "
                        "DLPack (e.g. __cuda_array_interface__ only). "
                        "Strides are in elements; device_id=None asks the "
                        "driver which device owns the pointer.")
      .def(nb::new_(&makeTensorRef), nb::arg("data"), nb::arg("dtype"),
           nb::arg("shape"), nb::arg("strides") = nb::none(),
           nb::arg("device") = "cuda", nb::arg("device_id") = nb::none())
      .def_ro("data", &TensorRef::data)
      .def_prop_ro("dtype",
                   [](const TensorRef &t) { return dtypeName(t.dtype); })
      .def_ro("shape", &TensorRef::shape)
      .def_ro("strides", &TensorRef::strides)
      .def_prop_ro(
          "device",
          [](const TensorRef &t) { return python::deviceKindName(t.device); })
      .def_ro("device_id", &TensorRef::deviceId)
      .def("__repr__", [](const TensorRef &t) {
        return "TensorRef(data=" + std::to_string(t.data) + ", dtype='" +
               dtypeName(t.dtype) + "', shape=" + shapeToString(t.shape) +
               ", strides=" + shapeToString(t.strides) + ", device='" +
               python::deviceKindName(t.device) +
               "', device_id=" + std::to_string(t.deviceId) + ")";
      });

  nb::class_<Function>(m, "Function", "An entry function of a Module.")
      .def_prop_ro("name", &Function::name)
      .def_prop_ro("arg_specs",
                   [](const Function &f) {
                     nb::list specs;
                     for (const ArgSpec &arg : f.spec().args)
                       specs.append(argSpecToDict(arg));
                     return specs;
                   })
      .def_prop_ro("num_results",
                   [](const Function &f) { return f.spec().results.size(); })
      .def(
          "result_specs",
          [](const Function &f, nb::handle inputs) {
            return typesToList(
                f.resultSpecs(toTensorRefs(inputs, f.name(), "argument")));
          },
          nb::arg("inputs"),
          "Validates the inputs and returns [(shape, dtype), ...] of the "
          "results.")
      .def(
          "launch",
          [](const Function &f, nb::handle inputs, nb::handle outputs,
             uintptr_t stream) {
            std::vector<TensorRef> in =
                toTensorRefs(inputs, f.name(), "argument");
            std::vector<TensorRef> out =
                toTensorRefs(outputs, f.name(), "output");
            // The tensors stay alive: the caller holds the lists.
            nb::gil_scoped_release release;
            f.launch(in, out, reinterpret_cast<CUstream>(stream));
          },
          nb::arg("inputs"), nb::arg("outputs"), nb::arg("stream") = 0,
          "Launches on `stream` (a CUstream as int; 0 is the legacy default "
          "stream), writing the results into `outputs`.")
      .def("__repr__", [](const Function &f) {
        return "<fuser Function '" + f.name() + "'>";
      });

  nb::class_<Module>(m, "Module", "A compiled module: image + manifest.")
      .def(
          "__init__",
          [](Module *self, nb::bytes image, const std::string &manifest) {
            new (self)
                Module(std::string(image.c_str(), image.size()), manifest);
          },
          nb::arg("image"), nb::arg("manifest_json"))
      .def(
          "__init__",
          [](Module *self, const std::string &image,
             const std::string &manifest) {
            new (self) Module(image, manifest);
          },
          nb::arg("image"), nb::arg("manifest_json"))
      .def_prop_ro("function_names", &Module::functionNames)
      .def_prop_ro("chip", [](const Module &m) { return m.manifest().chip; })
      .def("function", &Module::function, nb::arg("name"))
      .def("__repr__", [](const Module &m) {
        std::string names;
        for (const std::string &n : m.functionNames())
          names += (names.empty() ? "" : ", ") + n;
        return "<fuser Module [" + names + "]>";
      });

  python::bindTorchLauncher(m);

  m.def(
      "set_cuda_graphs",
      [](std::string_view mode) { setGraphMode(parseGraphMode(mode)); },
      nb::arg("mode"),
      "When calls launch as one CUDA graph: 'off', 'auto' or 'on' "
      "(fuser.set_cuda_graphs).");
  m.def(
      "cuda_graphs", [] { return std::string(graphModeName(graphMode())); },
      "The CUDA graph mode: 'off', 'auto' or 'on'.");
}
