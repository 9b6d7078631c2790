//===- Chips.h - The NVIDIA chips fuser compiles for ------------*- C++ -*-===//
//
// One table of the chips fuser supports and what each can run: the
// pipelines check the `chip` option and pick the PTX ISA version from it,
// the configuration step picks each chip's kernels from it, and the README's
// chip table describes it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_CHIPS_H
#define FUSER_DIALECT_FUSER_IR_CHIPS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::fuser {

struct ChipInfo {
  /// The `chip` option's spelling: sm_<major><minor>, with `a` for the
  /// architecture-specific features of exactly that chip, `f` for those of
  /// its family.
  StringLiteral name;
  /// The compute capability as major * 10 + minor (100 for sm_100a).
  unsigned sm;
  /// The oldest PTX ISA version that can target it, as major * 10 + minor
  /// (86 for 8.6). LLVM's NVPTX backend aborts on an older one.
  unsigned minPtxVersion;
  /// fp64 tensor cores (mma.sync m16n8k8 f64) at the fp32 FMA peak: fp32
  /// matmuls run on them (Hopper).
  bool fastFp64TensorCores;
  /// wgmma.mma_async and TMA copies (cp.async.bulk.tensor): sm_90a only.
  bool wgmma;
  /// The most dynamic shared memory one block may opt into, in bytes (the
  /// CUDA programming guide's table of compute capabilities).
  int64_t maxSharedBytesPerBlock;
  /// Threads per block of the pointwise (grid-stride) kernel, as measured on
  /// the chip's GPUs (W1's stream, bench/experiments/pointwise_sweep.py);
  /// 0 where it was not measured: ConfigurePointwise's default then.
  int64_t pointwiseBlock;
  /// L2 cache per SM, in bytes, on the chip's GPU with the least; 0 where
  /// not recorded. A reduction epilogue re-reads each block's rows and
  /// wants them still in L2 (ConfigureReductions.cpp).
  int64_t l2BytesPerSm;
  /// The split precision (GemmStrategy.h) of fp32-kernel=auto where wgmma
  /// runs, the faster measured on the chip's GPUs; "" elsewhere.
  StringLiteral splitPrecision;
  /// The GPUs it names, for messages and the README.
  StringLiteral gpus;
};

/// Every supported chip, oldest first.
ArrayRef<ChipInfo> supportedChips();

/// The chip named `name`, or null when fuser does not support it.
const ChipInfo *lookupChip(StringRef name);

/// Whether the chip has mma.sync's fp64 m16n8k8 shape (sm_90 and newer),
/// which fuser's fp64 tensor-core kernel uses.
inline bool hasFp64Mma(const ChipInfo &chip) { return chip.sm >= 90; }

/// "sm_80, sm_86, ...", for messages.
std::string supportedChipNames();

/// The PTX ISA version (major * 10 + minor) to use for `chip` (known): the
/// chip's minimum, but at least PTX 8.0 (CUDA 12.0 drivers JIT it, and
/// fuser's kernels are tested with it). Older PTX keeps newer drivers
/// happy too: the driver JIT-compiles any PTX version it knows.
unsigned defaultPtxVersion(const ChipInfo &chip);

/// The PTX ISA version a `features` string asks for (`+ptx86` -> 86), or
/// nullopt when it names none.
std::optional<unsigned> ptxVersionOfFeatures(StringRef features);

/// "8.6" for 86.
std::string formatPtxVersion(unsigned version);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_CHIPS_H
