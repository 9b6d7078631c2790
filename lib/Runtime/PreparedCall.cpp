//===- PreparedCall.cpp - A function's launches for one call signature -*- C++ -*-===//

#include "fuser/Runtime/PreparedCall.h"
#include "fuser/Manifest/Error.h"

#include <cstdio>

namespace fuser {

namespace {

std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx",
                static_cast<unsigned long long>(value));
  return buf;
}

int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// `what` names the tensor; it is called only to report a failure, so a
/// passing call builds no strings.
template <typename Label>
void checkAddress(const FunctionSpec &fn, uint64_t address, int64_t numel,
                  int64_t align, Label what) {
  if (numel == 0)
    return;
  if (address == 0)
    throw Error(fn.name + ": " + what() + " has a null data pointer but " +
                std::to_string(numel) + " elements");
  if (align > 0 && address % static_cast<uint64_t>(align) != 0)
    throw Error(fn.name + ": " + what() + " data pointer " + hex(address) +
                " is not aligned to " + std::to_string(align) +
                " bytes, which the kernels assume");
}

} // namespace

void checkAddresses(const PreparedCall &call,
                    const std::vector<uint64_t> &inputs,
                    const std::vector<uint64_t> &outputs) {
  const FunctionSpec &fn = *call.function;
  if (inputs.size() != fn.args.size() || outputs.size() != fn.results.size())
    throw Error(fn.name + ": expected " + std::to_string(fn.args.size()) +
                " arguments and " + std::to_string(fn.results.size()) +
                " outputs, got " + std::to_string(inputs.size()) + " and " +
                std::to_string(outputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    checkAddress(fn, inputs[i], numelOf(call.shapes[i]), fn.args[i].align,
                 [&] {
                   return "argument " + std::to_string(i) + " ('" +
                          fn.args[i].name + "')";
                 });
  for (size_t r = 0; r < outputs.size(); ++r)
    checkAddress(fn, outputs[r], call.results[r].numel(),
                 fn.buffers[fn.results[r]].align,
                 [&] { return "output " + std::to_string(r); });
}

} // namespace fuser
