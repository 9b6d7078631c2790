// Pipeline options are checked when parsed, for every fuser pipeline, with
// an error and a non-zero exit. NVPTX only warned about an unknown chip and
// compiled anyway; an empty chip crashed the NVVM target verifier.
// DEFINE: %{nocrash} = --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"
// RUN: not fuser-opt %s --fuser-gpu-pipeline="chip=gfx90a" 2>&1 | FileCheck %s %{nocrash} --check-prefix=CHIP
// RUN: not fuser-opt %s --fuser-gpu-pipeline="chip=" 2>&1 | FileCheck %s %{nocrash} --check-prefix=NOCHIP
// RUN: not fuser-opt %s --fuser-kernel-pipeline="chip=sm_" 2>&1 | FileCheck %s %{nocrash} --check-prefix=SMONLY
// RUN: not fuser-opt %s --fuser-fusion-pipeline="chip=sm_90x" 2>&1 | FileCheck %s %{nocrash} --check-prefix=SUFFIX
// RUN: not fuser-opt %s --fuser-cpu-reference-pipeline="chip=90" 2>&1 | FileCheck %s %{nocrash} --check-prefix=CPU
// RUN: not fuser-opt %s --fuser-gpu-pipeline="format=elf" 2>&1 | FileCheck %s %{nocrash} --check-prefix=FORMAT
// RUN: not fuser-opt %s --fuser-gpu-pipeline="opt-level=4" 2>&1 | FileCheck %s %{nocrash} --check-prefix=OPT
// RUN: not fuser-opt %s --fuser-gpu-pipeline="opt-level=-1" 2>&1 | FileCheck %s %{nocrash} --check-prefix=NEGOPT
// CHIP: error: fuser-gpu-pipeline: unsupported chip 'gfx90a'; supported: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_100f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f, sm_120, sm_120a, sm_120f, sm_121, sm_121a, sm_121f
// NOCHIP: error: fuser-gpu-pipeline: unsupported chip ''
// SMONLY: error: fuser-kernel-pipeline: unsupported chip 'sm_'
// SUFFIX: error: fuser-fusion-pipeline: unsupported chip 'sm_90x'
// CPU: error: fuser-cpu-reference-pipeline: unsupported chip '90'
// FORMAT: error: fuser-gpu-pipeline: unsupported format 'elf': expected ptx or cubin
// OPT: error: fuser-gpu-pipeline: opt-level must be 0 to 3, got 4
// NEGOPT: error: fuser-gpu-pipeline: opt-level must be 0 to 3, got -1

// format=cubin asks the toolkit's ptxas whether it knows the chip and the
// PTX ISA version, before compiling anything.
// RUN: not fuser-opt %s --fuser-gpu-pipeline="chip=sm_100 format=cubin cuda-path=%S/Inputs/old-cuda" 2>&1 | FileCheck %s %{nocrash} --check-prefix=OLDPTXAS
// RUN: not fuser-opt %s --fuser-gpu-pipeline="format=cubin cuda-path=%t.nonexistent" 2>&1 | FileCheck %s %{nocrash} --check-prefix=NOPTXAS
// OLDPTXAS: error: fuser-gpu-pipeline: format=cubin: the ptxas at {{.*}}old-cuda/bin/ptxas cannot assemble PTX ISA 8.6 for sm_100 (ptxas fatal   : Value 'sm_100' is not defined for option 'gpu-name'); use a newer CUDA toolkit (cuda-path=) or format=ptx
// NOPTXAS: error: fuser-gpu-pipeline: format=cubin runs ptxas, and there is none at {{.*}}nonexistent/bin/ptxas (set cuda-path= or CUDA_HOME, or use format=ptx)
// An unknown chip and a PTX ISA too old for the chip: one line each, before
// LLVM sees them (it aborted on the second).
// RUN: not fuser-opt %s --fuser-gpu-pipeline="chip=sm_999" 2>&1 | FileCheck %s %{nocrash} --check-prefix=SM999
// RUN: not fuser-opt %s --fuser-gpu-pipeline="chip=sm_100 features=+ptx80" 2>&1 | FileCheck %s %{nocrash} --check-prefix=OLDPTX
// SM999: error: fuser-gpu-pipeline: unsupported chip 'sm_999'; supported: sm_80,
// SM999-NOT: error
// OLDPTX: error: fuser-gpu-pipeline: sm_100 needs PTX ISA 8.6 or newer, but features=+ptx80 asks for 8.0; use features=+ptx86 or leave features out
// OLDPTX-NOT: LLVM ERROR

// Valid chips, with or without a suffix, compile.
// RUN: fuser-opt %s --fuser-gpu-pipeline="chip=sm_80 features=+ptx70 opt-level=0" | fuser-translate --fuser-to-ptx | FileCheck %s --check-prefix=SM80
// RUN: fuser-opt %s --fuser-kernel-pipeline="chip=sm_100f" -o /dev/null
// RUN: fuser-opt %s --fuser-kernel-pipeline="chip=sm_90a" -o /dev/null
// SM80: .target sm_80

func.func @exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.exp ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
