//===- PreparedCall.h - A function's launches for one signature -*- C++ -*-===//
//
// Everything a call of a Function depends on besides tensor addresses: the
// validated shapes, every buffer's type, the results' types and the
// evaluated launches. Callers that see the same (dtypes, shapes, device)
// again (a compiled module called in a loop) prepare once and then pay only
// for binding addresses and launching; see Function::prepare and the
// address-only Function::launch (which checks what may change per call:
// checkAddresses in Validate.h).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_PREPAREDCALL_H
#define FUSER_RUNTIME_PREPAREDCALL_H

#include "fuser/Manifest/Manifest.h"
#include "fuser/Runtime/LaunchPlan.h"
#include "fuser/Runtime/Tensor.h"

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace fuser {

namespace detail {
struct CallGraphs;
} // namespace detail

struct PreparedCall {
  /// The function this was prepared for; launching it through another
  /// function is an error.
  const FunctionSpec *function = nullptr;
  ShapeList shapes;
  /// Indexed like FunctionSpec::buffers.
  std::vector<TensorType> buffers;
  std::vector<TensorType> results;
  /// Addresses unbound (bindAddresses fills a copy per call).
  std::vector<PlannedLaunch> launches;

  /// The TMA descriptors last encoded for each launch's tensor maps, with
  /// the address each was encoded for: a call on the same buffer (a
  /// parameter, a recycled allocation) reuses it instead of encoding again.
  struct EncodedMap {
    uint64_t address = 0;
    bool valid = false;
    CUtensorMap map;
  };
  mutable std::mutex encodedMutex;
  mutable std::vector<std::vector<EncodedMap>> encoded;

  /// The launches as CUDA graphs, one per context (GraphMode.h).
  std::shared_ptr<detail::CallGraphs> graphs;
};

} // namespace fuser

#endif // FUSER_RUNTIME_PREPAREDCALL_H
