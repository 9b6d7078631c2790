//===- SignatureCache.h - Prepared calls by call signature ------*- C++ -*-===//
//
// What both PyTorch launchers (TorchLauncher.cpp, TorchNative.cpp) keep per
// call signature: the key is the device, then per tensor its dtype, rank
// and sizes; the last hit is checked first (a module called in a loop).
// Used with the GIL held.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_PYTHON_SIGNATURECACHE_H
#define FUSER_PYTHON_SIGNATURECACHE_H

#include "fuser/Manifest/Error.h"
#include "fuser/Runtime/Module.h"
#include "fuser/Runtime/PreparedCall.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fuser::python {

/// The address alignment the kernels' widest accesses (16-byte vectors,
/// TMA) need: with make_dense, both launchers pass a dense copy of an
/// argument that lacks it (x[1:] of a float tensor), as of a strided one.
/// (fuser.torch's dense_aligned, for the general path, takes the same.)
constexpr uint64_t kDenseAlignment = 16;

/// `fn` prepared for a new signature (dense tensors `refs`), checked to
/// return a new value for each of the `mutations` arguments it updates in
/// place: they are its first results.
inline std::shared_ptr<const PreparedCall>
prepareSignature(const Function &fn, const std::vector<TensorRef> &refs,
                 size_t mutations) {
  std::shared_ptr<const PreparedCall> call = fn.prepare(refs);
  if (mutations > call->results.size())
    throw Error(fn.name() + ": " + std::to_string(mutations) +
                " arguments updated in place but " +
                std::to_string(call->results.size()) + " results");
  return call;
}

template <typename Entry> class SignatureCache {
public:
  using Key = std::vector<int64_t>;

  /// The entry of `key`, or null.
  std::shared_ptr<Entry> find(const Key &key) {
    if (last && key == lastKey)
      return last;
    auto found = entries.find(key);
    if (found == entries.end())
      return nullptr;
    remember(key, found->second);
    return found->second;
  }

  void insert(const Key &key, std::shared_ptr<Entry> entry) {
    entries.emplace(key, entry);
    remember(key, std::move(entry));
  }

  void clear() {
    entries.clear();
    last.reset();
    lastKey.clear();
  }

  size_t size() const { return entries.size(); }

  /// Calls `fn(const Entry &)` for every entry.
  template <typename Fn> void forEach(Fn fn) const {
    for (const auto &entry : entries)
      fn(*entry.second);
  }

private:
  struct Hash {
    size_t operator()(const Key &key) const {
      uint64_t h = 1469598103934665603ull; // FNV-1a
      for (int64_t v : key)
        h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };

  void remember(const Key &key, std::shared_ptr<Entry> entry) {
    last = std::move(entry);
    lastKey = key;
  }

  std::unordered_map<Key, std::shared_ptr<Entry>, Hash> entries;
  std::shared_ptr<Entry> last;
  Key lastKey;
};

} // namespace fuser::python

#endif // FUSER_PYTHON_SIGNATURECACHE_H
