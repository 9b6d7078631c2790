//===- CHeader.cpp - embeddable C header emission ---------------*- C++ -*-===//
//
// Turns a kernel manifest and its PTX into one header that C and C++
// programs include to run the entry functions with nothing but the CUDA
// driver API. This file writes the header from the HeaderModel that
// CHeaderManifest.cpp translates from the manifest model; CHeaderExpr.cpp
// turns the manifest's size expressions into C.
//
//===----------------------------------------------------------------------===//

#include "fuser/Target/CHeader.h"

#include "CHeaderInternal.h"
#include "fuser/Target/KernelImage.h"
#include "fuser/Target/Manifest.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::cheader;
using ArgKind = ::fuser::KernelArgSpec::Kind;

/// A float literal that reads back as the same float, or a bit pattern for
/// infinities and NaNs, which C has no portable literal for.
static std::string formatFloat(double value, StringRef prefix) {
  float f = static_cast<float>(value);
  if (!std::isfinite(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    char buf[32];
    std::snprintf(buf, sizeof(buf), "0x%08xu", bits);
    return (prefix + "_f32_from_bits_(" + buf + ")").str();
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", f);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

static bool isIdentifier(StringRef s) {
  if (s.empty() || llvm::isDigit(s.front()))
    return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Text safe inside a /* */ comment.
static std::string commentSafe(StringRef text) {
  std::string s;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n' || c == '\r')
      c = ' ';
    s += c;
    if ((c == '*' && i + 1 < text.size() && text[i + 1] == '/') ||
        (c == '/' && i + 1 < text.size() && text[i + 1] == '*'))
      s += ' ';
  }
  return s;
}

/// One character of a C string literal. '?' is escaped because C99 reads
/// "??x" as a trigraph; other bytes outside printable ASCII use three-digit
/// octal escapes, which never absorb the following character.
static void appendEscaped(std::string &out, unsigned char c) {
  switch (c) {
  case '\\':
    out += "\\\\";
    return;
  case '"':
    out += "\\\"";
    return;
  case '?':
    out += "\\?";
    return;
  case '\n':
    out += "\\n";
    return;
  case '\t':
    out += "\\t";
    return;
  default:
    break;
  }
  if (c >= 0x20 && c < 0x7f) {
    out += static_cast<char>(c);
    return;
  }
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\%03o", c);
  out += buf;
}

namespace {

/// Writes the header. All functions of the manifest are read first, so a
/// manifest the header cannot express produces no output.
class HeaderEmitter {
public:
  HeaderEmitter(StringRef ptx, StringRef prefix, raw_ostream &os)
      : ptx(ptx), prefix(prefix), os(os) {}

  void emit(const HeaderModel &model) {
    StringRef chip = model.chip;
    ArrayRef<Function> functions = model.functions;
    emitDocumentation(chip, functions);
    std::string guard = "FUSER_GENERATED_" + StringRef(prefix).upper() + "_H";
    os << "#ifndef " << guard << "\n#define " << guard << "\n\n"
       << "#include <cuda.h>\n#include <stdint.h>\n#include <string.h>\n\n";
    if (usesTensorMaps(functions))
      os << "#if CUDA_VERSION < 12000\n#error \"the kernels take TMA tensor "
            "maps (cuTensorMapEncodeTiled), which need CUDA 12.0 or "
            "newer\"\n#endif\n\n";
    os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    emitPtx();
    emitConstants(model.constants);
    emitModuleCache(model.kernelNames, model.constants.size());
    for (const Function &fn : functions) {
      emitResultShapes(fn);
      emitLauncher(fn);
    }
    os << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
       << guard << " */\n";
  }

private:
  static bool usesTensorMaps(ArrayRef<Function> functions) {
    for (const Function &fn : functions)
      for (const Launch &launch : fn.launches)
        for (const KernelArg &arg : launch.args)
          if (arg.kind == ArgKind::TensorMap)
            return true;
    return false;
  }

  /// The launcher's parameters after `stream`, as "type name" strings.
  SmallVector<std::string> launcherParams(const Function &fn) {
    SmallVector<std::string> params;
    for (auto [i, arg] : llvm::enumerate(fn.args))
      params.push_back("const " + arg.dtype.cType.str() + " *arg" +
                       std::to_string(i));
    for (std::string &dim : dimParams(fn))
      params.push_back("int64_t " + dim);
    for (unsigned r = 0; r < fn.results.size(); ++r)
      params.push_back(fn.buffers[fn.results[r]].dtype.cType.str() +
                       " *result" + std::to_string(r));
    return params;
  }

  SmallVector<std::string> dimParams(const Function &fn) {
    SmallVector<std::string> dims;
    for (auto [i, arg] : llvm::enumerate(fn.args))
      for (auto [d, size] : llvm::enumerate(arg.shape))
        if (!size)
          dims.push_back(dimParam(i, d));
    return dims;
  }

  static std::string join(ArrayRef<std::string> items, StringRef sep) {
    std::string s;
    for (auto [i, item] : llvm::enumerate(items))
      s += (i ? sep.str() : "") + item;
    return s;
  }

  static std::string shapeDoc(const Arg &arg) {
    SmallVector<std::string> dims;
    for (const std::optional<int64_t> &d : arg.shape)
      dims.push_back(d ? std::to_string(*d) : "?");
    return arg.dtype.name.str() + "[" + join(dims, ", ") + "]";
  }

  void emitDocumentation(StringRef chip, ArrayRef<Function> functions) {
    os << "/*===- " << prefix
       << ".h - fused GPU kernels, generated by fuser-translate -===*\n"
          " *\n"
          " * Generated by `fuser-translate --fuser-to-c-header` from a module "
          "compiled\n"
          " * by fuser for "
       << (chip.empty() ? StringRef("an NVIDIA GPU") : chip)
       << ". Do not edit; regenerate instead.\n"
          " *\n"
          " * Embeds the kernels' PTX and gives each entry function a typed "
          "launcher that\n"
          " * checks sizes, allocates intermediates and enqueues the kernels "
          "on a stream.\n"
          " * Valid C99 and C++; needs only <cuda.h>, <stdint.h>, <string.h> "
          "and libcuda\n"
          " * (link with -lcuda).\n"
          " *\n"
          " * Usage:\n"
          " *   cuInit(0), then make a context current (e.g. the primary "
          "context);\n"
          " *   size and allocate each result with the *_result_shape_<k> "
          "function;\n"
          " *   CUresult r = "
       << prefix
       << "_<function>(stream, inputs..., dynamic sizes..., results...);\n"
          " *\n"
          " * - Pointers are device pointers to dense row-major tensors; "
          "half-precision\n"
          " *   elements (f16, bf16) are passed as uint16_t. Each dynamic "
          "size (\"?\") of\n"
          " *   an input is an int64_t parameter argN_dimD, in argument "
          "order.\n"
          " * - Launches are asynchronous on `stream`; results are ready when "
          "it is.\n"
          " *   Intermediate buffers are allocated and freed in stream order.\n"
          " * - Returns CUDA_ERROR_INVALID_VALUE before enqueuing anything "
          "when sizes are\n"
          " *   negative or inconsistent, or a pointer of a non-empty tensor "
          "is null or\n"
          " *   misaligned; otherwise the first failing CUresult.\n";
    if (usesTensorMaps(functions))
      os << " * - Kernels taking TMA tensor maps (sm_90 or newer) get them "
            "encoded on each\n"
            " *   call. Views with sizes outside 1 to 2^32 - 1, a row pitch "
            "that is not a\n"
            " *   multiple of 16 bytes, or more elements than their buffer are "
            "refused as\n"
            " *   above, and their pointers must be 16-byte aligned.\n";
    os << " * - The module is loaded on first use in each CUDA context "
          "(at most\n"
          " *   "
       << macroPrefix() << "_MAX_CONTEXTS). The cache is not locked: call "
       << prefix
       << "_load() once per\n"
          " *   context before launching from several threads, and "
       << prefix
       << "_unload()\n"
          " *   before destroying a context. Every translation unit has its "
          "own cache.\n"
          " *\n"
          " * Functions:\n";
    for (const Function &fn : functions) {
      os << " *   " << fn.cName << "(CUstream stream";
      for (std::string &p : launcherParams(fn))
        os << ", " << p;
      os << ")\n";
      for (auto [i, arg] : llvm::enumerate(fn.args))
        os << " *     arg" << i << ": " << shapeDoc(arg) << "\n";
      for (auto [r, b] : llvm::enumerate(fn.results)) {
        const Buffer &buf = fn.buffers[b];
        os << " *     result" << r << ": "
           << commentSafe(buf.dtype.name.str() + "[" +
                          join(buf.shapeText, ", ") + "]")
           << "\n";
      }
    }
    if (functions.empty())
      os << " *   (none)\n";
    os << " *\n"
          " *===--------------------------------------------------------------"
          "--------===*/\n\n";
  }

  std::string macroPrefix() const { return StringRef(prefix).upper(); }

  /// The PTX as concatenated literals, one per line and never longer than
  /// 4000 characters, since some compilers (MSVC) limit a literal's length.
  void emitPtx() {
    constexpr size_t maxChunk = 3000;
    // -pedantic warns on literals longer than C99's 4095 characters.
    os << "/* The kernels, for cuModuleLoadDataEx. */\n"
       << "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
       << "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n#endif\n"
       << "static const char " << prefix << "_ptx[] =";
    if (ptx.empty())
      os << " \"\"";
    std::string chunk;
    auto flush = [&] {
      os << "\n    \"" << chunk << "\"";
      chunk.clear();
    };
    for (unsigned char c : ptx) {
      std::string escaped;
      appendEscaped(escaped, c);
      if (chunk.size() + escaped.size() > maxChunk)
        flush();
      chunk += escaped;
      if (c == '\n')
        flush();
    }
    if (!chunk.empty())
      flush();
    os << ";\n#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n\n";
  }

  /// The constant buffers' bytes, uploaded to each context with the module.
  void emitConstants(ArrayRef<std::string> constants) {
    if (constants.empty())
      return;
    std::string p = prefix.str();
    os << "/* Constant buffers (row-major, little-endian), uploaded when the "
          "module loads. */\n";
    for (auto [i, data] : llvm::enumerate(constants)) {
      // C has no zero-length arrays; an empty constant has no data.
      if (data.empty())
        continue;
      os << "static const unsigned char " << p << "_constant_" << i << "_["
         << data.size() << "] = {";
      for (auto [k, c] : llvm::enumerate(data)) {
        if (k % 16 == 0)
          os << "\n   ";
        char buf[8];
        std::snprintf(buf, sizeof(buf), " 0x%02x", static_cast<unsigned char>(c));
        os << buf << (k + 1 == data.size() ? "" : ",");
      }
      os << "};\n";
    }
    os << "static const unsigned char *const " << p << "_constants_["
       << constants.size() << "] = {";
    for (auto [i, data] : llvm::enumerate(constants))
      os << (i ? ", " : "")
         << (data.empty() ? "NULL" : p + "_constant_" + std::to_string(i) + "_");
    os << "};\nstatic const size_t " << p << "_constant_sizes_["
       << constants.size() << "] = {";
    for (auto [i, data] : llvm::enumerate(constants))
      os << (i ? ", " : "") << data.size();
    os << "};\n\n";
  }

  void emitModuleCache(ArrayRef<std::string> kernelNames, size_t numConstants) {
    std::string p = prefix.str(), m = macroPrefix();
    // C has no zero-length arrays.
    size_t n = std::max<size_t>(kernelNames.size(), 1);
    os << "#ifndef " << m << "_MAX_CONTEXTS\n#define " << m
       << "_MAX_CONTEXTS 8\n#endif\n\n";
    os << "/* The kernels' .entry names; index k is " << p
       << "_contexts_[i].functions[k]. */\n"
       << "static const char *const " << p << "_kernel_names_[" << n << "] = {";
    for (auto [i, k] : llvm::enumerate(kernelNames))
      os << (i ? "," : "") << "\n    \"" << k << "\"";
    if (kernelNames.empty())
      os << "NULL";
    os << "};\n\n";
    os << "/* The module and kernels loaded in one CUDA context. */\n"
       << "typedef struct " << p << "_context_entry_ {\n"
       << "  CUcontext context;\n  CUmodule module;\n"
       << "  CUfunction functions[" << n << "];\n";
    if (numConstants)
      os << "  CUdeviceptr constants[" << numConstants << "];\n";
    os << "} " << p << "_context_entry_;\n\n"
       << "static " << p << "_context_entry_ " << p << "_contexts_[" << m
       << "_MAX_CONTEXTS];\n\n";

    os << "/* The entry of the current context, loading the module and "
          "resolving every\n"
          " * kernel on first use so that later calls only read the table. "
          "*/\n"
       << "static inline CUresult " << p << "_context_(" << p
       << "_context_entry_ **out) {\n"
       << "  CUcontext ctx = NULL;\n"
       << "  " << p << "_context_entry_ *entry = NULL;\n"
       << "  CUresult err = cuCtxGetCurrent(&ctx);\n"
       << "  int i;\n"
       << "  if (err != CUDA_SUCCESS)\n    return err;\n"
       << "  if (ctx == NULL)\n    return CUDA_ERROR_INVALID_CONTEXT;\n"
       << "  for (i = 0; i < " << m << "_MAX_CONTEXTS; ++i) {\n"
       << "    if (" << p << "_contexts_[i].context == ctx) {\n"
       << "      *out = &" << p << "_contexts_[i];\n"
       << "      return CUDA_SUCCESS;\n    }\n"
       << "    if (entry == NULL && " << p << "_contexts_[i].context == NULL)\n"
       << "      entry = &" << p << "_contexts_[i];\n  }\n"
       << "  if (entry == NULL)\n    return CUDA_ERROR_OUT_OF_MEMORY;\n"
       << "  err = cuModuleLoadDataEx(&entry->module, " << p
       << "_ptx, 0, NULL, NULL);\n"
       << "  if (err != CUDA_SUCCESS)\n    return err;\n";
    if (!kernelNames.empty())
      os << "  for (i = 0; i < " << kernelNames.size() << "; ++i) {\n"
         << "    err = cuModuleGetFunction(&entry->functions[i], "
            "entry->module,\n"
         << "                              " << p << "_kernel_names_[i]);\n"
         << "    if (err != CUDA_SUCCESS) {\n"
         << "      cuModuleUnload(entry->module);\n"
         << "      entry->module = NULL;\n      return err;\n    }\n  }\n";
    if (numConstants)
      os << "  for (i = 0; i < " << numConstants << "; ++i) {\n"
         << "    entry->constants[i] = 0;\n"
         << "    if (" << p << "_constant_sizes_[i] == 0)\n      continue;\n"
         << "    err = cuMemAlloc(&entry->constants[i], " << p
         << "_constant_sizes_[i]);\n"
         << "    if (err == CUDA_SUCCESS)\n"
         << "      err = cuMemcpyHtoD(entry->constants[i], " << p
         << "_constants_[i],\n"
         << "                         " << p << "_constant_sizes_[i]);\n"
         << "    if (err != CUDA_SUCCESS) {\n"
         << "      for (; i >= 0; --i)\n"
         << "        if (entry->constants[i] != 0)\n"
         << "          cuMemFree(entry->constants[i]);\n"
         << "      cuModuleUnload(entry->module);\n"
         << "      memset(entry, 0, sizeof(*entry));\n      return err;\n"
         << "    }\n  }\n";
    os << "  /* Claimed last, so a failed load leaves the slot free. */\n"
       << "  entry->context = ctx;\n  *out = entry;\n"
       << "  return CUDA_SUCCESS;\n}\n\n";

    os << "/* Loads the module into the current context once; later calls "
          "return the\n * cached module. */\n"
       << "static inline CUresult " << p << "_load(CUmodule *out) {\n"
       << "  " << p << "_context_entry_ *entry = NULL;\n"
       << "  CUresult err = " << p << "_context_(&entry);\n"
       << "  if (err == CUDA_SUCCESS && out != NULL)\n"
       << "    *out = entry->module;\n  return err;\n}\n\n";

    os << "/* Unloads the module from the current context, if loaded. */\n"
       << "static inline CUresult " << p << "_unload(void) {\n"
       << "  CUcontext ctx = NULL;\n"
       << "  CUresult err = cuCtxGetCurrent(&ctx);\n  int i;\n"
       << "  if (err != CUDA_SUCCESS || ctx == NULL)\n    return err;\n"
       << "  for (i = 0; i < " << m << "_MAX_CONTEXTS; ++i) {\n"
       << "    if (" << p << "_contexts_[i].context == ctx) {\n";
    if (numConstants)
      os << "      int k;\n"
         << "      for (k = 0; k < " << numConstants << "; ++k)\n"
         << "        if (" << p << "_contexts_[i].constants[k] != 0)\n"
         << "          cuMemFree(" << p << "_contexts_[i].constants[k]);\n";
    os << "      err = cuModuleUnload(" << p << "_contexts_[i].module);\n"
       << "      memset(&" << p << "_contexts_[i], 0, sizeof(" << p
       << "_contexts_[i]));\n"
       << "      return err;\n    }\n  }\n  return CUDA_SUCCESS;\n}\n\n";

    // Stream-ordered allocation appeared in CUDA 11.2; older drivers must
    // wait for the stream before freeing.
    os << "/* Intermediate buffers, in stream order where the driver "
          "allows. */\n"
       << "static inline CUresult " << p
       << "_alloc_(CUdeviceptr *ptr, size_t bytes, CUstream stream) {\n"
       << "#if CUDA_VERSION >= 11020\n"
       << "  return cuMemAllocAsync(ptr, bytes, stream);\n#else\n"
       << "  (void)stream;\n  return cuMemAlloc(ptr, bytes);\n#endif\n}\n\n"
       << "static inline CUresult " << p
       << "_free_(CUdeviceptr ptr, CUstream stream) {\n"
       << "#if CUDA_VERSION >= 11020\n"
       << "  return cuMemFreeAsync(ptr, stream);\n#else\n"
       << "  CUresult err = cuStreamSynchronize(stream);\n"
       << "  CUresult freed = cuMemFree(ptr);\n"
       << "  return err != CUDA_SUCCESS ? err : freed;\n#endif\n}\n\n"
       << "static inline float " << p << "_f32_from_bits_(uint32_t bits) {\n"
       << "  float f;\n  memcpy(&f, &bits, sizeof(f));\n  return f;\n}\n\n";
  }

  void emitResultShapes(const Function &fn) {
    SmallVector<std::string> dims = dimParams(fn);
    for (auto [r, b] : llvm::enumerate(fn.results)) {
      const Buffer &buf = fn.buffers[b];
      os << "/* The shape of result " << r << " of " << fn.cName << " ("
         << buf.dtype.name << ", rank " << buf.shape.size()
         << "), from the dynamic input sizes. */\n"
         << "static inline void " << fn.cName << "_result_shape_" << r << "(";
      for (std::string &d : dims)
        os << "int64_t " << d << ", ";
      os << "int64_t *shape_out) {\n";
      // Silence unused-parameter warnings for sizes this shape ignores.
      llvm::StringSet<> used;
      for (const Term &t : buf.shape)
        for (auto [a, d] : t.dims)
          used.insert(dimParam(a, d));
      for (std::string &d : dims)
        if (!used.contains(d))
          os << "  (void)" << d << ";\n";
      if (buf.shape.empty())
        os << "  (void)shape_out;\n";
      for (auto [d, t] : llvm::enumerate(buf.shape))
        os << "  shape_out[" << d << "] = " << t.text << ";\n";
      os << "}\n\n";
    }
  }

  void emitLauncher(const Function &fn) {
    os << "/* Runs " << commentSafe(fn.name) << ": " << fn.launches.size()
       << " kernel launch" << (fn.launches.size() == 1 ? "" : "es")
       << " on `stream`. */\n"
       << "static inline CUresult " << fn.cName << "(CUstream stream";
    for (std::string &p : launcherParams(fn))
      os << ",\n    " << p;
    os << ") {\n  CUresult err = CUDA_SUCCESS;\n";
    bool needsEntry = !fn.launches.empty();
    if (needsEntry)
      os << "  " << prefix << "_context_entry_ *entry = NULL;\n";
    SmallVector<unsigned> intermediates;
    for (auto [i, buf] : llvm::enumerate(fn.buffers)) {
      os << "  CUdeviceptr " << buf.var << " = ";
      if (buf.arg)
        os << "(CUdeviceptr)(uintptr_t)arg" << *buf.arg << ";\n";
      else if (buf.result)
        os << "(CUdeviceptr)(uintptr_t)result" << *buf.result << ";\n";
      else if (buf.constant)
        os << "0; /* constant, bound once the module is loaded */\n";
      else {
        os << "0; /* intermediate */\n";
        intermediates.push_back(i);
      }
    }
    if (!needsEntry && intermediates.empty())
      os << "  (void)stream;\n";

    // 1. Validate sizes and pointers before touching the driver.
    SmallVector<std::string> dims = dimParams(fn);
    if (!dims.empty()) {
      os << "  /* Sizes are non-negative. */\n  if (";
      for (auto [i, d] : llvm::enumerate(dims))
        os << (i ? " || " : "") << d << " < 0";
      os << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (const Check &c : fn.checks) {
      if (c.lhs.constant && c.rhs.constant &&
          *c.lhs.constant == *c.rhs.constant)
        continue;
      os << "  /* " << commentSafe(c.message.empty() ? "size check" : c.message)
         << " */\n  if (" << c.lhs.text << " != " << c.rhs.text
         << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (const Buffer &buf : fn.buffers) {
      if (buf.arg || buf.result || buf.constant)
        continue;
      for (auto [d, t] : llvm::enumerate(buf.shape))
        if (!t.nonNegative)
          os << "  if (" << t.text
             << " < 0) /* a negative intermediate size */\n"
                "    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (const Buffer &buf : fn.buffers) {
      if (!buf.arg && !buf.result)
        continue;
      if (buf.result)
        for (auto [d, t] : llvm::enumerate(buf.shape))
          if (!t.nonNegative)
            os << "  if (" << t.text << " < 0) /* result" << *buf.result
               << " dim " << d
               << " */\n"
                  "    return CUDA_ERROR_INVALID_VALUE;\n";
      const Term &n = buf.numel;
      if (n.constant == 0)
        continue;
      std::string bad = buf.var + " == 0";
      if (buf.align > 1)
        bad += " || " + buf.var + " % " + std::to_string(buf.align) + " != 0";
      std::string name = buf.arg ? "arg" + std::to_string(*buf.arg)
                                 : "result" + std::to_string(*buf.result);
      os << "  /* " << name << ": non-null";
      if (buf.align > 1)
        os << ", " << buf.align << "-byte aligned";
      os << " when non-empty. */\n  if (";
      if (n.constant)
        os << bad;
      else
        os << n.text << " > 0 && (" << bad << ")";
      os << ")\n    return CUDA_ERROR_INVALID_VALUE;\n";
    }
    for (auto [i, launch] : llvm::enumerate(fn.launches))
      emitTensorMapChecks(os, fn, launch, i);
    if (!needsEntry && intermediates.empty()) {
      os << "  return err;\n}\n\n";
      return;
    }

    // 2. Allocate, launch, and free whatever was allocated, even on failure.
    os << "  do {\n";
    if (needsEntry)
      os << "    err = " << prefix << "_context_(&entry);\n"
         << "    if (err != CUDA_SUCCESS)\n      break;\n";
    for (const Buffer &buf : fn.buffers)
      if (buf.constant && needsEntry)
        os << "    " << buf.var << " = entry->constants[" << *buf.constant
           << "];\n";
    for (unsigned i : intermediates) {
      const Buffer &buf = fn.buffers[i];
      const Term &n = buf.numel;
      if (n.constant == 0)
        continue;
      std::string bytes =
          "(size_t)" + n.text + " * " + std::to_string(buf.dtype.size);
      if (!n.constant)
        os << "    if (" << n.text << " > 0) {\n  ";
      os << "    err = " << prefix << "_alloc_(&" << buf.var << ", " << bytes
         << ", stream);\n";
      if (!n.constant)
        os << "      if (err != CUDA_SUCCESS)\n        break;\n    }\n";
      else
        os << "    if (err != CUDA_SUCCESS)\n      break;\n";
    }
    for (auto [i, launch] : llvm::enumerate(fn.launches))
      emitLaunch(fn, launch, i);
    os << "  } while (0);\n";
    for (unsigned i : llvm::reverse(intermediates)) {
      const std::string &var = fn.buffers[i].var;
      os << "  if (" << var << " != 0) {\n"
         << "    CUresult freed = " << prefix << "_free_(" << var
         << ", stream);\n"
         << "    if (err == CUDA_SUCCESS)\n      err = freed;\n  }\n";
    }
    os << "  return err;\n}\n\n";
  }

  void emitLaunch(const Function &fn, const Launch &launch, size_t index) {
    os << "    { /* launch " << index << ": " << launch.kernel << " */\n";
    if (llvm::any_of(launch.grid,
                     [](const Term &g) { return g.constant == 0; })) {
      os << "      /* an empty grid: nothing to launch */\n    }\n";
      return;
    }
    // Constants go straight into cuLaunchKernel (the reader checked their
    // range); expressions get a local and a runtime range check.
    static const char *const names[] = {"grid_x",  "grid_y",  "grid_z",
                                        "block_x", "block_y", "block_z",
                                        "shared"};
    SmallVector<const Term *, 7> values;
    for (const Term &t : launch.grid)
      values.push_back(&t);
    for (const Term &t : launch.block)
      values.push_back(&t);
    values.push_back(&launch.shared);
    SmallVector<std::string, 7> launchArgs;
    SmallVector<std::string> nonEmpty, outOfRange;
    std::string ind = "      ";
    for (auto [i, t] : llvm::enumerate(values)) {
      if (t->constant) {
        launchArgs.push_back(std::to_string(*t->constant));
        continue;
      }
      os << ind << "int64_t " << names[i] << " = " << t->text << ";\n";
      launchArgs.push_back("(unsigned)" + std::string(names[i]));
      // CUDA takes unsigned 32-bit dimensions; an empty tensor gives an
      // empty grid, which CUDA rejects, so that launch is skipped.
      std::string v = names[i];
      if (i < 3)
        nonEmpty.push_back(v + " > 0");
      else if (i < 6)
        outOfRange.push_back(v + " <= 0");
      else
        outOfRange.push_back(v + " < 0");
      outOfRange.push_back(v + " > 0xffffffff");
    }
    if (!nonEmpty.empty()) {
      os << ind << "if (" << join(nonEmpty, " && ") << ") {\n";
      ind += "  ";
    }
    os << ind << "CUfunction fn = entry->functions[" << launch.kernelIndex
       << "];\n";
    // Each kernel parameter points at a local of its exact width.
    SmallVector<std::string> params;
    for (auto [k, arg] : llvm::enumerate(launch.args)) {
      std::string name = "p" + std::to_string(k);
      const Buffer &buf = fn.buffers[arg.buffer];
      if (arg.kind == ArgKind::Ptr) {
        params.push_back("&" + buf.var);
      } else if (arg.kind == ArgKind::I64) {
        os << ind << "int64_t " << name << " = " << arg.value.text << ";\n";
        params.push_back("&" + name);
      } else if (arg.kind == ArgKind::I32) {
        os << ind << "int32_t " << name << " = (int32_t)" << arg.value.text
           << ";\n";
        params.push_back("&" + name);
      } else if (arg.kind == ArgKind::F32) {
        os << ind << "float " << name << " = " << formatFloat(arg.f32, prefix)
           << ";\n";
        params.push_back("&" + name);
      } else if (arg.kind == ArgKind::TensorMap) {
        // Passed by value: the parameter points at the map itself.
        emitTensorMapEncode(os, fn, arg, name, ind);
        params.push_back(name);
      } else {
        // MLIR's memref descriptor: allocated and aligned pointer, offset 0,
        // sizes, then dense row-major strides.
        size_t rank = arg.shape.size();
        os << ind << "int64_t " << name << "[" << 3 + 2 * rank << "];\n"
           << ind << name << "[0] = (int64_t)" << buf.var << ";\n"
           << ind << name << "[1] = (int64_t)" << buf.var << ";\n"
           << ind << name << "[2] = 0;\n";
        for (auto [d, t] : llvm::enumerate(arg.shape))
          os << ind << name << "[" << 3 + d << "] = " << t.text << ";\n";
        for (size_t d = rank; d-- > 0;) {
          os << ind << name << "[" << 3 + rank + d << "] = ";
          if (d + 1 == rank)
            os << "1;\n";
          else
            os << name << "[" << 4 + rank + d << "] * " << name << "[" << 4 + d
               << "];\n";
        }
        for (size_t j = 0; j < 3 + 2 * rank; ++j)
          params.push_back("&" + name + "[" + std::to_string(j) + "]");
      }
    }
    if (params.empty())
      os << ind << "void **params = NULL;\n";
    else
      os << ind << "void *params[] = {" << join(params, ", ") << "};\n";
    if (!outOfRange.empty())
      os << ind << "if (" << join(outOfRange, " || ") << ") {\n"
         << ind << "  err = CUDA_ERROR_INVALID_VALUE;\n"
         << ind << "  break;\n"
         << ind << "}\n";
    // Above 48 KiB a kernel must opt in to dynamic shared memory.
    const std::optional<int64_t> &shared = launch.shared.constant;
    if (!shared || *shared > 48 * 1024) {
      std::string attrInd = ind;
      if (!shared) {
        os << ind << "if (shared > 49152) {\n";
        attrInd += "  ";
      }
      os << attrInd << "err = cuFuncSetAttribute(\n"
         << attrInd
         << "    fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "
         << (shared ? std::to_string(*shared) : "(int)shared") << ");\n"
         << attrInd << "if (err != CUDA_SUCCESS)\n"
         << attrInd << "  break;\n";
      if (!shared)
        os << ind << "}\n";
    }
    os << ind << "err = cuLaunchKernel(fn, "
       << join(ArrayRef(launchArgs).take_front(3), ", ") << ",\n"
       << ind << "                     "
       << join(ArrayRef(launchArgs).slice(3, 3), ", ") << ",\n"
       << ind << "                     " << launchArgs[6]
       << ", stream, params, NULL);\n"
       << ind << "if (err != CUDA_SUCCESS)\n"
       << ind << "  break;\n";
    if (!nonEmpty.empty())
      os << "      }\n";
    os << "    }\n";
  }

  StringRef ptx;
  StringRef prefix;
  raw_ostream &os;
};

} // namespace

LogicalResult
mlir::fuser::emitCHeader(const ::fuser::ManifestModule &manifest, StringRef ptx,
                         StringRef prefix, raw_ostream &os,
                         function_ref<InFlightDiagnostic()> emitError) {
  if (!isIdentifier(prefix))
    return emitError() << "the header prefix '" << prefix
                       << "' is not a C identifier";
  FailureOr<HeaderModel> model = buildHeaderModel(manifest, prefix, emitError);
  if (failed(model))
    return failure();
  HeaderEmitter(ptx, prefix, os).emit(*model);
  return success();
}

LogicalResult mlir::fuser::translateToCHeader(ModuleOp module, StringRef prefix,
                                              raw_ostream &os) {
  FailureOr<KernelImage> image = getKernelImage(module);
  if (failed(image))
    return failure();
  if (!image->isPtx)
    return module.emitError()
           << "the C header embeds PTX, but the module holds a cubin; compile "
              "with --fuser-gpu-pipeline=\"format=ptx\"";
  FailureOr<::fuser::ManifestModule> manifest = buildManifest(module);
  if (failed(manifest))
    return failure();
  return emitCHeader(*manifest, image->bytes, prefix, os,
                     [&] { return module.emitError(); });
}
