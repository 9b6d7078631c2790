//===- GraphMode.h - When a call's launches form a CUDA graph ---*- C++ -*-===//
//
// A call pays the driver's launch cost once per kernel (a few microseconds
// of host time each); replaying a graph costs less than one such launch,
// whatever its kernels. With graphs, a prepared call's
// launches are instantiated as one CUDA graph in each context, on the
// second call of its signature, and later calls replay it: kernel nodes
// whose buffer addresses changed are updated first, and intermediates live
// in buffers the graph owns. Launches of one graph are ordered after each
// other on the GPU (whatever their streams), so the owned buffers are never
// shared by two calls in flight. A stream being captured (torch.cuda.graph)
// gets the kernels one by one, captured as usual.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_RUNTIME_GRAPHMODE_H
#define FUSER_RUNTIME_GRAPHMODE_H

#include <cstddef>
#include <string>
#include <string_view>

namespace fuser {

enum class GraphMode {
  /// Kernel by kernel, intermediates in stream order for each call.
  Off,
  /// Graphs for calls of two or more launches whose intermediates are
  /// small enough to keep per signature (CallGraph.cpp says why).
  Auto,
  /// Graphs for every call, one launch or many, whatever its
  /// intermediates take.
  On,
};

/// The process-wide mode: FUSER_CUDA_GRAPHS (off, auto or on) when first
/// asked, else auto. Throws fuser::Error for another value.
GraphMode graphMode();
void setGraphMode(GraphMode mode);

struct PreparedCall;

/// In how many contexts `call` launches as a graph: none before its second
/// call there, nor where the rule declined it.
size_t graphsInUse(const PreparedCall &call);

/// "off", "auto" or "on"; throws fuser::Error naming the choices otherwise.
GraphMode parseGraphMode(std::string_view text);
std::string_view graphModeName(GraphMode mode);

} // namespace fuser

#endif // FUSER_RUNTIME_GRAPHMODE_H
