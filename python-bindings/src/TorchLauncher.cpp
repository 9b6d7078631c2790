//===- TorchLauncher.cpp - One native call per PyTorch forward ------------===//

#include "TorchLauncher.h"
#include "SignatureCache.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/GraphMode.h"
#include "fuser/Runtime/PreparedCall.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <utility>
#include <vector>

namespace nb = nanobind;

namespace fuser::python {

namespace {

/// What a call needs of one tensor argument.
struct TensorFacts {
  nb::object tensor; // The tensor the kernels read (a dense copy if needed).
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t data = 0;
  /// A plain torch.Tensor (no subclass whose new_empty would make one).
  bool plain = false;
};

/// A prepared signature: the function, its launches, and how to allocate
/// its results.
struct CachedCall {
  Function function;
  std::shared_ptr<const PreparedCall> call;
  int device = 0;
  nb::object deviceIndex; // A Python int, for the stream getter.
  std::vector<nb::object> resultShapes; // Tuples, for torch.empty.
  std::vector<nb::object> resultOptions; // {dtype:, device:} dicts.
  /// Per result: the index of an argument of its dtype, whose new_empty
  /// allocates it (cheaper to call than torch.empty), or -1; and whether
  /// that argument has its shape too (torch.empty_like, cheaper still).
  std::vector<int> likeArgument;
  std::vector<bool> sameShape;
  /// Results that are new values of arguments (results[i] is copied into
  /// argument mutations[i]); the kernels return them first.
  std::vector<size_t> mutations;
};

/// Strings looked up on every call, made once.
struct Names {
  nb::object dtype = nb::str("dtype"), shape = nb::str("shape"),
             stride = nb::str("stride"), dataPtr = nb::str("data_ptr"),
             getDevice = nb::str("get_device"), device = nb::str("device"),
             contiguous = nb::str("contiguous"), clone = nb::str("clone"),
             copy = nb::str("copy_"),
             newEmpty = nb::str("new_empty");
};

/// A Python call result, or an unwinding Python error.
nb::object check(PyObject *result) {
  if (!result)
    throw nb::python_error();
  return nb::steal(result);
}

bool contiguous(const std::vector<int64_t> &shape, PyObject *strides) {
  int64_t expected = 1, numel = 1;
  for (int64_t d : shape)
    numel *= d;
  if (numel == 0)
    return true;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 &&
        PyLong_AsLongLong(PyTuple_GET_ITEM(strides, i)) != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

class TorchLauncher {
public:
  /// `select(tensors) -> (Function, mutations)` picks the function for a
  /// new signature; `dtypes` maps torch dtypes to fuser dtype names;
  /// `tensorType` is torch.Tensor; `empty` torch.empty (and `emptyLike`
  /// torch.empty_like, for results shaped like an argument); `currentStream`
  /// returns a device's current CUstream as an int. `makeDense`: pass
  /// a dense, 16-byte aligned copy of a non-contiguous or misaligned tensor
  /// (else the general path takes the call, to reject it).
  TorchLauncher(nb::object select, nb::dict dtypes, nb::object tensorType,
                nb::object empty, nb::object emptyLike,
                nb::object currentStream, bool makeDense)
      : select(std::move(select)), tensorType(std::move(tensorType)),
        empty(std::move(empty)), emptyLike(std::move(emptyLike)),
        currentStream(std::move(currentStream)), makeDense(makeDense) {
    for (auto [key, value] : dtypes) {
      std::optional<DType> dt = dtypeFromString(nb::cast<std::string>(value));
      if (!dt)
        throw Error("TorchLauncher: unknown dtype name '" +
                    nb::cast<std::string>(value) + "'");
      torchDTypes.emplace_back(nb::borrow(key), *dt);
    }
  }

  /// Runs the kernels on `tensors` (a tuple or list): None, the result, or
  /// a tuple of results. Returns NotImplemented, launching nothing, where
  /// the tensors are not all PyTorch CUDA tensors of a dtype fuser has
  /// (the caller's general path then reports what is wrong).
  nb::object call(nb::handle tensors) {
    PyObject *seq = PySequence_Fast(tensors.ptr(), "tensors");
    if (!seq)
      throw nb::python_error();
    nb::object owner = nb::steal(seq);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (n == 0)
      return nb::borrow(Py_NotImplemented);

    // 1. Read the tensors; the key is (device, then per tensor: dtype,
    //    rank, sizes).
    // The key is local: `select` may release the GIL (a compile), and
    // another thread may call meanwhile.
    std::vector<TensorFacts> facts(n);
    std::vector<int64_t> key;
    key.reserve(1 + 3 * n);
    int device = -1;
    key.push_back(0);
    for (Py_ssize_t i = 0; i < n; ++i) {
      int tensorDevice = -1;
      if (!read(items[i], facts[i], tensorDevice))
        return nb::borrow(Py_NotImplemented);
      if (i == 0)
        device = tensorDevice;
      else if (tensorDevice != device)
        return nb::borrow(Py_NotImplemented);
      key.push_back(static_cast<int64_t>(facts[i].dtype));
      key.push_back(static_cast<int64_t>(facts[i].shape.size()));
      key.insert(key.end(), facts[i].shape.begin(), facts[i].shape.end());
    }
    key[0] = device;

    // 2. The prepared call of this signature.
    std::shared_ptr<CachedCall> entry = cache.find(key);
    if (!entry)
      entry = prepare(facts, device, key);

    // 3. Results from PyTorch's allocator, on the current stream.
    const PreparedCall &call = *entry->call;
    size_t nResults = call.results.size();
    std::vector<nb::object> results(nResults);
    std::vector<uint64_t> outputs(nResults), inputs(n);
    for (size_t r = 0; r < nResults; ++r) {
      int like = entry->likeArgument[r];
      if (like >= 0 && entry->sameShape[r]) {
        results[r] = check(
            PyObject_CallOneArg(emptyLike.ptr(), facts[like].tensor.ptr()));
      } else if (like >= 0) {
        results[r] = check(PyObject_CallMethodOneArg(
            facts[like].tensor.ptr(), names.newEmpty.ptr(),
            entry->resultShapes[r].ptr()));
      } else {
        PyObject *args[] = {entry->resultShapes[r].ptr()};
        results[r] = check(PyObject_VectorcallDict(
            empty.ptr(), args, 1, entry->resultOptions[r].ptr()));
      }
      outputs[r] = address(results[r].ptr());
    }
    for (Py_ssize_t i = 0; i < n; ++i)
      inputs[i] = facts[i].data;
    nb::object stream = check(
        PyObject_CallOneArg(currentStream.ptr(), entry->deviceIndex.ptr()));
    auto streamHandle =
        reinterpret_cast<CUstream>(PyLong_AsUnsignedLongLong(stream.ptr()));
    if (PyErr_Occurred())
      throw nb::python_error();

    // 4. Launch, then write the arguments' new values back.
    {
      nb::gil_scoped_release release;
      entry->function.launch(call, inputs, outputs, entry->device,
                             streamHandle);
    }
    for (size_t m = 0; m < entry->mutations.size(); ++m)
      check(PyObject_CallMethodOneArg(items[entry->mutations[m]],
                                      names.copy.ptr(), results[m].ptr()));
    size_t first = entry->mutations.size();
    size_t kept = nResults - first;
    if (kept == 0)
      return nb::none();
    if (kept == 1)
      return results[first];
    PyObject *tuple = PyTuple_New(static_cast<Py_ssize_t>(kept));
    if (!tuple)
      throw nb::python_error();
    for (size_t r = first; r < nResults; ++r)
      PyTuple_SET_ITEM(tuple, r - first, results[r].release().ptr());
    return nb::steal(tuple);
  }

  /// Forgets every prepared signature (the choice of function may change:
  /// a variant was added).
  void clear() {
    cache.clear();
  }

  size_t size() const { return cache.size(); }

  size_t graphs() const {
    size_t count = 0;
    cache.forEach(
        [&](const CachedCall &entry) { count += graphsInUse(*entry.call); });
    return count;
  }

private:
  /// Fills `facts` for one argument; false if it is not a CUDA tensor of
  /// a known dtype.
  bool read(PyObject *obj, TensorFacts &facts, int &device) {
    if (!PyObject_TypeCheck(obj,
                            reinterpret_cast<PyTypeObject *>(tensorType.ptr())))
      return false;
    nb::object dtype = check(PyObject_GetAttr(obj, names.dtype.ptr()));
    bool known = false;
    for (const auto &[object, dt] : torchDTypes)
      if (object.ptr() == dtype.ptr()) {
        facts.dtype = dt;
        known = true;
        break;
      }
    if (!known)
      return false;
    nb::object deviceIndex =
        check(PyObject_CallMethodNoArgs(obj, names.getDevice.ptr()));
    device = static_cast<int>(PyLong_AsLong(deviceIndex.ptr()));
    if (device < 0)
      return false; // The CPU (or a meta tensor).
    nb::object shape = check(PyObject_GetAttr(obj, names.shape.ptr()));
    if (!PyTuple_Check(shape.ptr()))
      return false;
    Py_ssize_t rank = PyTuple_GET_SIZE(shape.ptr());
    facts.shape.resize(rank);
    for (Py_ssize_t d = 0; d < rank; ++d)
      facts.shape[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), d));
    nb::object strides =
        check(PyObject_CallMethodNoArgs(obj, names.stride.ptr()));
    if (!PyTuple_Check(strides.ptr()) || PyTuple_GET_SIZE(strides.ptr()) != rank)
      return false;
    if (contiguous(facts.shape, strides.ptr()))
      facts.tensor = nb::borrow(obj);
    else if (makeDense)
      facts.tensor =
          check(PyObject_CallMethodNoArgs(obj, names.contiguous.ptr()));
    else
      return false;
    facts.data = address(facts.tensor.ptr());
    // A dense view at an address the kernels' 16-byte accesses cannot take
    // (x[1:] of a float tensor): an aligned copy, as for a strided one.
    if (makeDense && facts.data % kDenseAlignment != 0) {
      facts.tensor =
          check(PyObject_CallMethodNoArgs(facts.tensor.ptr(), names.clone.ptr()));
      facts.data = address(facts.tensor.ptr());
    }
    facts.plain = Py_TYPE(facts.tensor.ptr()) ==
                  reinterpret_cast<PyTypeObject *>(tensorType.ptr());
    if (PyErr_Occurred())
      throw nb::python_error();
    return true;
  }

  uint64_t address(PyObject *tensor) {
    nb::object ptr = check(PyObject_CallMethodNoArgs(tensor, names.dataPtr.ptr()));
    uint64_t value = PyLong_AsUnsignedLongLong(ptr.ptr());
    if (PyErr_Occurred())
      throw nb::python_error();
    return value;
  }

  /// The function `select` picks for these tensors, prepared (validated
  /// as Function::launch validates) and cached.
  std::shared_ptr<CachedCall> prepare(const std::vector<TensorFacts> &facts,
                                      int device,
                                      const std::vector<int64_t> &key) {
    nb::list tensors;
    for (const TensorFacts &f : facts)
      tensors.append(f.tensor);
    nb::object chosen = select(tensors);
    auto entry = std::make_shared<CachedCall>(CachedCall{
        nb::cast<Function>(chosen[0]), nullptr, device, nb::int_(device),
        {}, {}, {}, {}, {}});
    for (nb::handle m : chosen[1]) {
      size_t index = nb::cast<size_t>(m);
      if (index >= facts.size())
        throw Error(entry->function.name() + ": mutation of argument " +
                    std::to_string(index) + ", which does not exist");
      entry->mutations.push_back(index);
    }
    std::vector<TensorRef> refs;
    for (const TensorFacts &f : facts) {
      TensorRef t;
      t.data = f.data;
      t.dtype = f.dtype;
      t.shape = f.shape;
      t.strides = contiguousStrides(f.shape);
      t.device = DeviceKind::CUDA;
      t.deviceId = device;
      refs.push_back(std::move(t));
    }
    entry->call =
        prepareSignature(entry->function, refs, entry->mutations.size());
    nb::object torchDevice =
        check(PyObject_GetAttr(facts[0].tensor.ptr(), names.device.ptr()));
    for (const TensorType &result : entry->call->results) {
      nb::list shape;
      for (int64_t d : result.shape)
        shape.append(d);
      entry->resultShapes.push_back(nb::tuple(shape));
      nb::dict options;
      options["dtype"] = torchDType(result.dtype);
      options["device"] = torchDevice;
      entry->resultOptions.push_back(options);
      int like = -1;
      bool same = false;
      for (size_t i = 0; i < facts.size() && !same; ++i) {
        if (!facts[i].plain || facts[i].dtype != result.dtype)
          continue;
        if (like < 0 || facts[i].shape == result.shape)
          like = static_cast<int>(i);
        same = facts[i].shape == result.shape;
      }
      entry->likeArgument.push_back(like);
      entry->sameShape.push_back(same);
    }
    cache.insert(key, entry);
    return entry;
  }

  nb::object torchDType(DType dtype) const {
    for (const auto &[object, dt] : torchDTypes)
      if (dt == dtype)
        return object;
    throw Error(std::string("no torch dtype for fuser dtype ") +
                dtypeName(dtype));
  }

  nb::object select, tensorType, empty, emptyLike, currentStream;
  bool makeDense;
  std::vector<std::pair<nb::object, DType>> torchDTypes;
  Names names;
  SignatureCache<CachedCall> cache;
};

} // namespace

void bindTorchLauncher(nb::module_ &m) {
  nb::class_<TorchLauncher>(
      m, "TorchLauncher",
      "Launches entry functions on PyTorch tensors in one native call per "
      "call, with each signature (device, dtypes, shapes) prepared once.")
      .def(nb::init<nb::object, nb::dict, nb::object, nb::object,
                    nb::object, nb::object, bool>(),
           nb::arg("select"), nb::arg("dtypes"), nb::arg("tensor_type"),
           nb::arg("empty"), nb::arg("empty_like"), nb::arg("current_stream"),
           nb::arg("make_dense"),
           "select(tensors) -> (Function, mutations) picks the function "
           "for a new signature; dtypes maps torch dtypes to fuser dtype "
           "names; empty and empty_like are torch's; current_stream(device) "
           "returns "
           "the device's current CUstream as an int; make_dense: pass dense, "
           "16-byte aligned copies of non-contiguous or misaligned tensors "
           "(else NotImplemented).")
      .def("__call__", &TorchLauncher::call, nb::arg("tensors"),
           "Runs the kernels: None, the result, or a tuple of results; "
           "NotImplemented (nothing launched) unless every tensor is a "
           "PyTorch CUDA tensor of a fuser dtype on one device.")
      .def("clear", &TorchLauncher::clear,
           "Forgets every prepared signature.")
      .def_prop_ro("signatures", &TorchLauncher::size,
                   "How many signatures are prepared.")
      .def_prop_ro("graphs", &TorchLauncher::graphs,
                   "How many prepared signatures launch as CUDA graphs.");
}

} // namespace fuser::python
