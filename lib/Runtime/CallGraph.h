//===- CallGraph.h - A prepared call's launches as CUDA graphs -*- C++ -*-===//
//
// Private to the runtime; the policy and its guarantees are in
// fuser/Runtime/GraphMode.h.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_RUNTIME_CALLGRAPH_H
#define FUSER_LIB_RUNTIME_CALLGRAPH_H

#include "fuser/Runtime/CudaDriver.h"
#include "fuser/Runtime/PreparedCall.h"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace fuser::detail {

struct GraphEntry;

/// A prepared call's graphs, one per context.
struct CallGraphs {
  std::mutex mutex;
  std::map<CUcontext, std::unique_ptr<GraphEntry>> entries;
  ~CallGraphs();
};

/// Where GraphEntry is complete.
std::shared_ptr<CallGraphs> makeCallGraphs();

/// Launches `call` on `stream` as its graph in `context` (current) when
/// the mode and the call allow, and returns true; returns false when the
/// caller must launch kernel by kernel (the first call of the signature,
/// a stream being captured, graphs off or unavailable). `kernels` and
/// `constants` are the call's resolved kernels and the module's constant
/// buffers in this context.
bool launchAsGraph(CudaDriver &driver, const FunctionSpec &fn,
                   const PreparedCall &call,
                   const std::vector<CUfunction> &kernels,
                   const std::vector<CUdeviceptr> &constants,
                   const std::vector<uint64_t> &inputs,
                   const std::vector<uint64_t> &outputs, CUcontext context,
                   CUstream stream);

} // namespace fuser::detail

#endif // FUSER_LIB_RUNTIME_CALLGRAPH_H
