//===- Chips.cpp - The NVIDIA chips fuser compiles for ----------*- C++ -*-===//

#include "fuser/Dialect/Fuser/IR/Chips.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::fuser;

// The chips that both LLVM 22's NVPTX backend and CUDA 13's ptxas know, from
// Ampere on (fuser's GEMMs use cp.async and sm_80's mma.sync shapes). Minimum
// PTX ISA versions from the PTX ISA's target table. sm_101 became sm_110 in
// CUDA 13, whose ptxas no longer accepts it.
//
// Pointwise blocks on sm_90/sm_90a: W1's stream over 256-, 512- and
// 1024-thread blocks. H200 (2026-11-28, bench/experiments/pointwise_sweep.py):
// 256 threads 4202 GB/s (1.003x eager), 512 4166, 1024 3991 (0.952x). H100
// (2026-11-24): 1024 3060 GB/s, 512 3037, 256 3024. 256 is within 1.2% of the
// best on both; 1024 loses 5% on the H200. One sm_90a binary runs on both.
//
// L2 bytes per SM: the published L2 size over the SM count of the chip's GPU
// with the least (A100 40 MB / 108, A40 6 MB / 84, Orin 4 MB / 16, RTX 4090
// 72 MB / 128, H100 SXM and H200 50 MB / 132); 0 where not recorded.
static const ChipInfo kChips[] = {
    {"sm_80", 80, 70, false, false, 163 * 1024, 0, 379 * 1024, "", "A100, A30 (Ampere)"},
    {"sm_86", 86, 71, false, false, 99 * 1024, 0, 73 * 1024, "", "RTX 30xx, A10, A40 (Ampere)"},
    {"sm_87", 87, 74, false, false, 163 * 1024, 0, 256 * 1024, "", "Jetson AGX Orin (Ampere)"},
    {"sm_89", 89, 78, false, false, 99 * 1024, 0, 576 * 1024, "", "L4, L40, RTX 40xx (Ada)"},
    {"sm_90", 90, 78, true, false, 227 * 1024, 256, 387 * 1024, "", "H100, H200, GH200 (Hopper), portable"},
    {"sm_90a", 90, 80, true, true, 227 * 1024, 256, 387 * 1024, "3xtf32", "H100, H200, GH200 (Hopper), with wgmma/TMA"},
    {"sm_100", 100, 86, false, false, 227 * 1024, 0, 0, "", "B200, GB200 (Blackwell)"},
    {"sm_100a", 100, 86, false, false, 227 * 1024, 0, 0, "", "B200, GB200 (Blackwell), arch-specific"},
    {"sm_100f", 100, 88, false, false, 227 * 1024, 0, 0, "", "B200, GB200 family (Blackwell)"},
    {"sm_103", 103, 88, false, false, 227 * 1024, 0, 0, "", "B300, GB300 (Blackwell Ultra)"},
    {"sm_103a", 103, 88, false, false, 227 * 1024, 0, 0, "", "B300, GB300, arch-specific"},
    {"sm_103f", 103, 88, false, false, 227 * 1024, 0, 0, "", "B300, GB300 family"},
    {"sm_110", 110, 90, false, false, 227 * 1024, 0, 0, "", "Jetson Thor (Blackwell)"},
    {"sm_110a", 110, 90, false, false, 227 * 1024, 0, 0, "", "Jetson Thor, arch-specific"},
    {"sm_110f", 110, 90, false, false, 227 * 1024, 0, 0, "", "Jetson Thor family"},
    {"sm_120", 120, 87, false, false, 99 * 1024, 0, 0, "", "RTX 50xx, RTX PRO 6000 (Blackwell)"},
    {"sm_120a", 120, 87, false, false, 99 * 1024, 0, 0, "", "RTX 50xx, arch-specific"},
    {"sm_120f", 120, 88, false, false, 99 * 1024, 0, 0, "", "RTX 50xx family"},
    {"sm_121", 121, 88, false, false, 99 * 1024, 0, 0, "", "DGX Spark GB10 (Blackwell)"},
    {"sm_121a", 121, 88, false, false, 99 * 1024, 0, 0, "", "DGX Spark GB10, arch-specific"},
    {"sm_121f", 121, 88, false, false, 99 * 1024, 0, 0, "", "DGX Spark GB10 family"},
};

ArrayRef<ChipInfo> mlir::fuser::supportedChips() { return kChips; }

const ChipInfo *mlir::fuser::lookupChip(StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

std::string mlir::fuser::supportedChipNames() {
  SmallVector<StringRef> names;
  for (const ChipInfo &chip : kChips)
    names.push_back(chip.name);
  return llvm::join(names, ", ");
}

unsigned mlir::fuser::defaultPtxVersion(const ChipInfo &chip) {
  return std::max(chip.minPtxVersion, 80u);
}

std::optional<unsigned> mlir::fuser::ptxVersionOfFeatures(StringRef features) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::optional<unsigned> version;
  for (StringRef part : parts) {
    part = part.trim();
    unsigned v;
    if (part.consume_front("+ptx") && !part.getAsInteger(10, v))
      version = v;
  }
  return version;
}

std::string mlir::fuser::formatPtxVersion(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}
