//===- TorchNative.cpp - The call path in PyTorch's C++ API ---------------===//

#include "TorchNative.h"
#include "SignatureCache.h"
#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/GraphMode.h"
#include "fuser/Runtime/PreparedCall.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/autograd/python_variable.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fuser::python {

namespace {

std::optional<DType> fuserDType(at::ScalarType type) {
  switch (type) {
  case at::kFloat:
    return DType::F32;
  case at::kHalf:
    return DType::F16;
  case at::kBFloat16:
    return DType::BF16;
  case at::kDouble:
    return DType::F64;
  case at::kInt:
    return DType::I32;
  case at::kLong:
    return DType::I64;
  case at::kChar:
    return DType::I8;
  case at::kBool:
    return DType::I1;
  default:
    return std::nullopt;
  }
}

at::ScalarType torchDType(DType type) {
  switch (type) {
  case DType::F16:
    return at::kHalf;
  case DType::BF16:
    return at::kBFloat16;
  case DType::F64:
    return at::kDouble;
  case DType::I32:
    return at::kInt;
  case DType::I64:
    return at::kLong;
  case DType::I8:
    return at::kChar;
  case DType::I1:
    return at::kBool;
  default:
    return at::kFloat;
  }
}

/// An owned Python reference.
struct Ref {
  PyObject *ptr = nullptr;
  Ref() = default;
  explicit Ref(PyObject *p) : ptr(p) {}
  Ref(Ref &&o) noexcept : ptr(std::exchange(o.ptr, nullptr)) {}
  Ref &operator=(Ref &&o) noexcept {
    std::swap(ptr, o.ptr);
    return *this;
  }
  Ref(const Ref &) = delete;
  ~Ref() { Py_XDECREF(ptr); }
};

/// Raised where a Python error is already set.
struct PythonError {};

/// A prepared signature: the function, its launches, its results' types
/// and the arguments its first results update.
struct Prepared {
  Function function;
  std::shared_ptr<const PreparedCall> call;
  std::vector<at::ScalarType> resultTypes;
  std::vector<size_t> mutations;
};

/// Leaves the GIL for the launches; takes it back on any exit.
class WithoutGil {
public:
  WithoutGil() : state(PyEval_SaveThread()) {}
  ~WithoutGil() { PyEval_RestoreThread(state); }

private:
  PyThreadState *state;
};

} // namespace

struct NativeTorchLauncher::Impl {
  Ref select, errorType;
  bool makeDense;
  SignatureCache<Prepared> cache;
  /// Modules loaded from each artifact (kept alive: its identity is the
  /// key).
  std::vector<std::pair<Ref, Module>> modules;

  std::shared_ptr<Prepared> prepare(const std::vector<at::Tensor> &tensors,
                                    const std::vector<DType> &dtypes,
                                    int device,
                                    const std::vector<int64_t> &key);
  const Module &moduleOf(PyObject *artifact);
};

const Module &NativeTorchLauncher::Impl::moduleOf(PyObject *artifact) {
  for (const auto &[object, module] : modules)
    if (object.ptr == artifact)
      return module;
  Ref cubin(PyObject_GetAttrString(artifact, "cubin"));
  if (!cubin.ptr)
    throw PythonError();
  std::string image;
  if (cubin.ptr != Py_None) {
    char *data;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(cubin.ptr, &data, &size) < 0)
      throw PythonError();
    image.assign(data, size);
  } else {
    Ref ptx(PyObject_GetAttrString(artifact, "ptx"));
    const char *text = ptx.ptr ? PyUnicode_AsUTF8(ptx.ptr) : nullptr;
    if (!text)
      throw PythonError();
    image = text;
  }
  Ref manifest(PyObject_GetAttrString(artifact, "manifest"));
  const char *json = manifest.ptr ? PyUnicode_AsUTF8(manifest.ptr) : nullptr;
  if (!json)
    throw PythonError();
  Py_INCREF(artifact);
  modules.emplace_back(Ref(artifact), Module(std::move(image), json));
  return modules.back().second;
}

std::shared_ptr<Prepared>
NativeTorchLauncher::Impl::prepare(const std::vector<at::Tensor> &tensors,
                                   const std::vector<DType> &dtypes,
                                   int device,
                                   const std::vector<int64_t> &key) {
  Ref list(PyList_New(static_cast<Py_ssize_t>(tensors.size())));
  if (!list.ptr)
    throw PythonError();
  for (size_t i = 0; i < tensors.size(); ++i) {
    PyObject *t = THPVariable_Wrap(tensors[i]);
    if (!t)
      throw PythonError();
    PyList_SET_ITEM(list.ptr, i, t);
  }
  Ref chosen(PyObject_CallOneArg(select.ptr, list.ptr));
  if (!chosen.ptr)
    throw PythonError();
  PyObject *mutations, *artifact, *name;
  PyObject *function;
  if (!PyArg_ParseTuple(chosen.ptr, "OOOU", &function, &mutations, &artifact,
                        &name))
    throw PythonError();
  const char *functionName = PyUnicode_AsUTF8(name);
  if (!functionName)
    throw PythonError();
  auto entry = std::make_shared<Prepared>(
      Prepared{moduleOf(artifact).function(functionName), nullptr, {}, {}});
  Ref iter(PyObject_GetIter(mutations));
  if (!iter.ptr)
    throw PythonError();
  for (Ref item(PyIter_Next(iter.ptr)); item.ptr;
       item = Ref(PyIter_Next(iter.ptr))) {
    size_t index = PyLong_AsSize_t(item.ptr);
    if (PyErr_Occurred())
      throw PythonError();
    if (index >= tensors.size())
      throw Error(entry->function.name() + ": mutation of argument " +
                  std::to_string(index) + ", which does not exist");
    entry->mutations.push_back(index);
  }
  if (PyErr_Occurred())
    throw PythonError();
  std::vector<TensorRef> refs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    TensorRef t;
    t.data = reinterpret_cast<uint64_t>(tensors[i].data_ptr());
    t.dtype = dtypes[i];
    t.shape.assign(tensors[i].sizes().begin(), tensors[i].sizes().end());
    t.strides = contiguousStrides(t.shape);
    t.device = DeviceKind::CUDA;
    t.deviceId = device;
    refs.push_back(std::move(t));
  }
  entry->call =
      prepareSignature(entry->function, refs, entry->mutations.size());
  for (const TensorType &result : entry->call->results)
    entry->resultTypes.push_back(torchDType(result.dtype));
  cache.insert(key, entry);
  return entry;
}

NativeTorchLauncher::NativeTorchLauncher(PyObject *select, PyObject *errorType,
                                         bool makeDense)
    : impl(std::make_unique<Impl>()) {
  Py_INCREF(select);
  Py_INCREF(errorType);
  impl->select = Ref(select);
  impl->errorType = Ref(errorType);
  impl->makeDense = makeDense;
}

NativeTorchLauncher::~NativeTorchLauncher() = default;

void NativeTorchLauncher::clear() {
  impl->cache.clear();
}

size_t NativeTorchLauncher::signatures() const { return impl->cache.size(); }

size_t NativeTorchLauncher::graphs() const {
  size_t count = 0;
  impl->cache.forEach(
      [&](const Prepared &entry) { count += graphsInUse(*entry.call); });
  return count;
}

PyObject *NativeTorchLauncher::call(PyObject *tensors) {
  try {
    Ref seq(PySequence_Fast(tensors, "tensors"));
    if (!seq.ptr)
      return nullptr;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.ptr);
    PyObject **items = PySequence_Fast_ITEMS(seq.ptr);
    if (n == 0)
      return Py_NewRef(Py_NotImplemented);

    // 1. Read the tensors; the key (local: `select` may release the GIL
    //    while another thread calls) is the device, then per tensor its
    //    dtype, rank and sizes.
    std::vector<at::Tensor> dense(n);
    std::vector<DType> dtypes(n);
    std::vector<int64_t> key;
    key.reserve(1 + 3 * n);
    key.push_back(0);
    int device = -1;
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!THPVariable_Check(items[i]))
        return Py_NewRef(Py_NotImplemented);
      const at::Tensor &t = THPVariable_Unpack(items[i]);
      std::optional<DType> dtype = fuserDType(t.scalar_type());
      // Wrapper subclasses (no storage of their own) go the general way.
      if (!t.is_cuda() || !dtype || !t.has_storage())
        return Py_NewRef(Py_NotImplemented);
      int index = t.get_device();
      if (i == 0)
        device = index;
      else if (index != device)
        return Py_NewRef(Py_NotImplemented);
      bool aligned =
          reinterpret_cast<uint64_t>(t.const_data_ptr()) % kDenseAlignment ==
          0;
      if (t.is_contiguous() && aligned)
        dense[i] = t;
      else if (impl->makeDense)
        dense[i] = t.is_contiguous() ? t.clone() : t.contiguous();
      else
        return Py_NewRef(Py_NotImplemented);
      dtypes[i] = *dtype;
      key.push_back(static_cast<int64_t>(*dtype));
      key.push_back(t.dim());
      key.insert(key.end(), t.sizes().begin(), t.sizes().end());
    }
    key[0] = device;

    // 2. The prepared call of this signature.
    std::shared_ptr<Prepared> entry = impl->cache.find(key);
    if (!entry)
      entry = impl->prepare(dense, dtypes, device, key);

    // 3. Results from PyTorch's caching allocator, the current stream.
    const PreparedCall &call = *entry->call;
    size_t nResults = call.results.size();
    std::vector<at::Tensor> results(nResults);
    std::vector<uint64_t> inputs(n), outputs(nResults);
    at::TensorOptions options =
        at::TensorOptions().device(at::Device(at::kCUDA, device));
    for (size_t r = 0; r < nResults; ++r) {
      results[r] = at::empty(call.results[r].shape,
                             options.dtype(entry->resultTypes[r]));
      outputs[r] = reinterpret_cast<uint64_t>(results[r].data_ptr());
    }
    for (Py_ssize_t i = 0; i < n; ++i)
      inputs[i] = reinterpret_cast<uint64_t>(dense[i].data_ptr());
    auto stream = reinterpret_cast<CUstream>(
        c10::cuda::getCurrentCUDAStream(device).stream());

    // 4. Launch, then write the arguments' new values back.
    {
      WithoutGil released;
      entry->function.launch(call, inputs, outputs, device, stream);
    }
    if (!entry->mutations.empty()) {
      at::NoGradGuard noGrad;
      for (size_t m = 0; m < entry->mutations.size(); ++m)
        THPVariable_Unpack(items[entry->mutations[m]]).copy_(results[m]);
    }
    size_t first = entry->mutations.size();
    size_t kept = nResults - first;
    if (kept == 0)
      return Py_NewRef(Py_None);
    if (kept == 1)
      return THPVariable_Wrap(std::move(results[first]));
    Ref tuple(PyTuple_New(static_cast<Py_ssize_t>(kept)));
    if (!tuple.ptr)
      return nullptr;
    for (size_t r = first; r < nResults; ++r) {
      PyObject *t = THPVariable_Wrap(std::move(results[r]));
      if (!t)
        return nullptr;
      PyTuple_SET_ITEM(tuple.ptr, r - first, t);
    }
    return std::exchange(tuple.ptr, nullptr);
  } catch (const PythonError &) {
    return nullptr;
  } catch (const Error &e) {
    PyErr_SetString(impl->errorType.ptr, e.what());
    return nullptr;
  } catch (const c10::Error &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
    return nullptr;
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

} // namespace fuser::python
