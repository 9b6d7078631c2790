//===- CHeaderTensorMap.cpp - tensor_map parameters in C --------*- C++ -*-===//
//
// A tensor_map kernel parameter is a CUtensorMap passed by value; it holds
// the buffer's address, so the launcher encodes it on every call with
// cuTensorMapEncodeTiled, with the arguments the runtime uses
// (lib/Runtime/TensorMap.cpp).
//
//===----------------------------------------------------------------------===//

#include "CHeaderInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::cheader;

void cheader::emitTensorMapChecks(raw_ostream &os, const Function &fn,
                                  const Launch &launch, size_t index) {
  // An empty grid launches nothing and encodes nothing.
  if (llvm::any_of(launch.grid, [](const Term &g) { return g.constant == 0; }))
    return;
  SmallVector<std::string> runs;
  for (const Term &g : launch.grid)
    if (!g.constant)
      runs.push_back(g.text + " > 0");
  for (auto [k, arg] : llvm::enumerate(launch.args)) {
    if (arg.kind != ::fuser::KernelArgSpec::Kind::TensorMap)
      continue;
    const Buffer &buf = fn.buffers[arg.buffer];
    const Term &rows = arg.shape[0], &cols = arg.shape[1];
    // Constant sizes and pitches were checked when reading.
    SmallVector<std::string> bad;
    for (const Term *t : {&rows, &cols})
      if (!t->constant)
        bad.push_back(t->text + " < 1 || " + t->text + " > 0xffffffff");
    if (!cols.constant)
      bad.push_back(cols.text + " % " + std::to_string(16 / buf.dtype.size) +
                    " != 0");
    // A view of the buffer's own 2-D shape fits; so do constants that do
    // (both below 2^32, so their product fits in uint64_t).
    bool fits = buf.shape.size() == 2 && buf.shape[0].text == rows.text &&
                buf.shape[1].text == cols.text;
    fits |= rows.constant && cols.constant && buf.numel.constant &&
            *buf.numel.constant >= 0 &&
            static_cast<uint64_t>(*rows.constant) *
                    static_cast<uint64_t>(*cols.constant) <=
                static_cast<uint64_t>(*buf.numel.constant);
    if (!fits)
      bad.push_back("(uint64_t)" + rows.text + " * (uint64_t)" + cols.text +
                    " > (uint64_t)" + buf.numel.text);
    if (bad.empty())
      continue;
    os << "  /* launch " << index << " arg " << k
       << ": TMA needs the view of " << buf.var
       << " to have sizes of 1 to\n"
          "   * 2^32 - 1, a row pitch of a multiple of 16 bytes, and to fit "
          "in it. */\n  if (";
    if (!runs.empty())
      os << "(" << llvm::join(runs, " && ") << ") &&\n      ";
    os << "(" << llvm::join(bad, " ||\n       ") << "))\n"
       << "    return CUDA_ERROR_INVALID_VALUE;\n";
  }
}

void cheader::emitTensorMapEncode(raw_ostream &os, const Function &fn,
                                  const KernelArg &arg, StringRef name,
                                  StringRef ind) {
  const Buffer &buf = fn.buffers[arg.buffer];
  StringRef type = buf.dtype.name == "f32"    ? "FLOAT32"
                   : buf.dtype.name == "bf16" ? "BFLOAT16"
                                              : "FLOAT16";
  std::string swizzle =
      arg.swizzle ? std::to_string(arg.swizzle) + "B" : "NONE";
  const Term &rows = arg.shape[0], &cols = arg.shape[1];
  // C99 cannot align a local, and cuda.h aligns CUtensorMap only for C11
  // and C++, so the 64-byte aligned map is carved out of a larger buffer.
  os << ind << "unsigned char " << name
     << "_bytes[sizeof(CUtensorMap) + 64];\n"
     << ind << "CUtensorMap *" << name << " = (CUtensorMap *)(void *)(" << name
     << "_bytes +\n"
     << ind << "    (64 - (uintptr_t)" << name << "_bytes % 64) % 64);\n"
     << ind << "/* The TMA view [" << rows.text << ", " << cols.text << "] of "
     << buf.var << ", innermost dimension first. */\n"
     << ind << "cuuint64_t " << name << "_dim[2];\n"
     << ind << "cuuint64_t " << name << "_pitch[1];\n"
     << ind << "cuuint32_t " << name << "_box[2] = {" << arg.box[1] << ", "
     << arg.box[0] << "};\n"
     << ind << "cuuint32_t " << name << "_step[2] = {1, 1};\n"
     << ind << name << "_dim[0] = (cuuint64_t)" << cols.text << ";\n"
     << ind << name << "_dim[1] = (cuuint64_t)" << rows.text << ";\n"
     << ind << name << "_pitch[0] = (cuuint64_t)" << cols.text << " * "
     << buf.dtype.size << ";\n"
     << ind << "/* Out-of-bounds elements read as zeros. */\n"
     << ind << "err = cuTensorMapEncodeTiled(\n"
     << ind << "    " << name << ", CU_TENSOR_MAP_DATA_TYPE_" << type
     << ", 2, (void *)(uintptr_t)" << buf.var << ",\n"
     << ind << "    " << name << "_dim, " << name << "_pitch, " << name
     << "_box, " << name << "_step, CU_TENSOR_MAP_INTERLEAVE_NONE,\n"
     << ind << "    CU_TENSOR_MAP_SWIZZLE_" << swizzle
     << ", CU_TENSOR_MAP_L2_PROMOTION_L2_256B,\n"
     << ind << "    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"
     << ind << "if (err != CUDA_SUCCESS)\n"
     << ind << "  break;\n";
}
