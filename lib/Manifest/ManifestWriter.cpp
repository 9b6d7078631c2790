//===- ManifestWriter.cpp - ManifestModule -> JSON --------------*- C++ -*-===//
//
// The one writer of manifests (docs/manifest.md): what the compiler emits is
// exactly what parseManifest reads. Optional fields with their default value
// are left out, except `checks` and `shared_bytes`, which are always written.
//
//===----------------------------------------------------------------------===//

#include "fuser/Manifest/Base64.h"
#include "fuser/Manifest/Json.h"
#include "fuser/Manifest/Manifest.h"

#include <cmath>

namespace fuser {

namespace {

using Members = std::vector<std::pair<std::string, JsonValue>>;

JsonValue str(std::string s) { return JsonValue::makeString(std::move(s)); }
JsonValue num(int64_t i) { return JsonValue::makeInt(i); }

/// Constants as JSON integers, everything else in the expression grammar.
JsonValue expr(const Expr &e) {
  return e.isConstant() ? num(e.constantValue()) : str(e.toString());
}

template <typename Range> JsonValue exprs(const Range &range) {
  std::vector<JsonValue> out;
  for (const Expr &e : range)
    out.push_back(expr(e));
  return JsonValue::makeArray(std::move(out));
}

/// JSON has no literals for infinities and NaN; the reader takes strings.
JsonValue f32(float f) {
  if (std::isnan(f))
    return str("nan");
  if (std::isinf(f))
    return str(f > 0 ? "inf" : "-inf");
  return JsonValue::makeDouble(f);
}

JsonValue arg(const ArgSpec &a) {
  std::vector<JsonValue> shape;
  for (int64_t d : a.shape)
    shape.push_back(d == ArgSpec::kDynamic ? str("?") : num(d));
  Members m{{"name", str(a.name)},
            {"dtype", str(dtypeName(a.dtype))},
            {"shape", JsonValue::makeArray(std::move(shape))}};
  if (a.align != dtypeSize(a.dtype))
    m.push_back({"align", num(a.align)});
  return JsonValue::makeObject(std::move(m));
}

JsonValue buffer(const BufferSpec &b) {
  Members m{{"id", num(b.id)}};
  switch (b.kind) {
  case BufferSpec::Kind::Arg:
    m.push_back({"kind", str("arg")});
    m.push_back({"arg", num(b.arg)});
    return JsonValue::makeObject(std::move(m));
  case BufferSpec::Kind::Alloc:
    m.push_back({"kind", str("alloc")});
    break;
  case BufferSpec::Kind::Constant:
    m.push_back({"kind", str("constant")});
    m.push_back({"data", str(encodeBase64(b.data))});
    break;
  }
  m.push_back({"dtype", str(dtypeName(b.dtype))});
  m.push_back({"shape", exprs(b.shape)});
  if (b.align != dtypeSize(b.dtype))
    m.push_back({"align", num(b.align)});
  return JsonValue::makeObject(std::move(m));
}

JsonValue kernelArg(const FunctionSpec &fn, const KernelArgSpec &a) {
  auto bufferId = [&] { return num(fn.buffers[a.buffer].id); };
  switch (a.kind) {
  case KernelArgSpec::Kind::Ptr:
    return JsonValue::makeObject({{"kind", str("ptr")}, {"buffer", bufferId()}});
  case KernelArgSpec::Kind::I64:
  case KernelArgSpec::Kind::I32:
    return JsonValue::makeObject(
        {{"kind", str(a.kind == KernelArgSpec::Kind::I64 ? "i64" : "i32")},
         {"value", expr(a.value)}});
  case KernelArgSpec::Kind::F32:
    return JsonValue::makeObject({{"kind", str("f32")}, {"value", f32(a.f32)}});
  case KernelArgSpec::Kind::Memref:
    return JsonValue::makeObject({{"kind", str("memref")},
                                  {"buffer", bufferId()},
                                  {"shape", exprs(a.shape)}});
  case KernelArgSpec::Kind::TensorMap:
    return JsonValue::makeObject(
        {{"kind", str("tensor_map")},
         {"buffer", bufferId()},
         {"shape", exprs(a.shape)},
         {"box", JsonValue::makeArray({num(a.box[0]), num(a.box[1])})},
         {"swizzle", num(a.swizzle)}});
  }
  return JsonValue();
}

JsonValue launch(const FunctionSpec &fn, const LaunchSpec &l) {
  std::vector<JsonValue> args;
  for (const KernelArgSpec &a : l.args)
    args.push_back(kernelArg(fn, a));
  return JsonValue::makeObject({{"kernel", str(l.kernel)},
                                {"grid", exprs(l.grid)},
                                {"block", exprs(l.block)},
                                {"shared_bytes", num(l.sharedBytes)},
                                {"args", JsonValue::makeArray(std::move(args))}});
}

JsonValue function(const FunctionSpec &fn) {
  std::vector<JsonValue> args, buffers, results, checks, launches;
  for (const ArgSpec &a : fn.args)
    args.push_back(arg(a));
  for (const BufferSpec &b : fn.buffers)
    buffers.push_back(buffer(b));
  for (int64_t r : fn.results)
    results.push_back(
        JsonValue::makeObject({{"buffer", num(fn.buffers[r].id)}}));
  for (const CheckSpec &c : fn.checks)
    checks.push_back(JsonValue::makeObject({{"lhs", expr(c.lhs)},
                                            {"rhs", expr(c.rhs)},
                                            {"message", str(c.message)}}));
  for (const LaunchSpec &l : fn.launches)
    launches.push_back(launch(fn, l));
  return JsonValue::makeObject(
      {{"name", str(fn.name)},
       {"args", JsonValue::makeArray(std::move(args))},
       {"buffers", JsonValue::makeArray(std::move(buffers))},
       {"results", JsonValue::makeArray(std::move(results))},
       {"checks", JsonValue::makeArray(std::move(checks))},
       {"launches", JsonValue::makeArray(std::move(launches))}});
}

} // namespace

std::string writeManifest(const ManifestModule &module) {
  std::vector<JsonValue> functions;
  for (const FunctionSpec &fn : module.functions)
    functions.push_back(function(fn));
  Members top{{"format", str(module.format)},
              {"version", num(module.version)},
              {"functions", JsonValue::makeArray(std::move(functions))}};
  if (!module.chip.empty())
    top.push_back({"chip", str(module.chip)});
  return writeJson(JsonValue::makeObject(std::move(top)));
}

} // namespace fuser
