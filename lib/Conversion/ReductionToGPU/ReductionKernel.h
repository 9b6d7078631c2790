//===- ReductionKernel.h - the reduction kernels' bodies -------*- C++ -*-===//
//
// Internal to ReductionToGPU: the body of each reduction kernel
// (ReductionKernel.cpp), which ReductionToGPU.cpp's pass creates and
// launches, and the rules both read. ReductionToGPU.cpp's header says what
// the kernels compute and how their threads divide the work.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_REDUCTIONTOGPU_REDUCTIONKERNEL_H
#define FUSER_LIB_CONVERSION_REDUCTIONTOGPU_REDUCTIONKERNEL_H

#include "fuser/Dialect/Fuser/IR/FuserOps.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionAnalysis.h"
#include "fuser/Dialect/Fuser/Transforms/ReductionEpilogue.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::fuser::reduction {

/// Whether the threads of an output combine by warp shuffles: they are
/// consecutive, at most a warp, and every running value is 32 or 64 bits.
bool usesShuffles(KernelConfigAttr config, TypeRange types);

/// Outputs per thread along a window's row loop: U of tile = [1, D, 1, U]
/// or [1, D, 1, U, V], else 1.
int64_t windowRowsPerThread(KernelConfigAttr config);

/// Outputs per thread along a window's column loop: V of tile =
/// [1, D, 1, U, V], else 1.
int64_t windowColumnsPerThread(KernelConfigAttr config);

/// The element types of `op`'s results: what each thread keeps running.
SmallVector<Type> accumulatorTypes(linalg::GenericOp op);

/// Which kernel of a reduction: the whole of it, or the two stages.
enum class Stage {
  Whole,    // inputs -> init (+) reduction -> out
  Partials, // inputs -> one slice's partial result per block -> partials
  Combine,  // partials -> init (+) their reduction -> out
};

/// Emits the body of `kernel`, one reduction kernel of `op` (`stage` of
/// it, with `slices` slices of the reduced extent): its parameters are
/// the pass's (ReductionToGPU.cpp). `readInputs`: the inputs the kernel
/// loads; `initConstants`: per result, the constant its init is filled
/// with (null: loaded); `epilogue`: the consumer the kernel computes
/// (strategy "reduction_epilogue"), whose element results alone are
/// stored unless `writeResults`.
void emitReductionKernel(gpu::GPUFuncOp kernel, linalg::GenericOp op,
                         const ReductionShape &shape, KernelConfigAttr config,
                         ArrayRef<unsigned> readInputs,
                         ArrayRef<TypedAttr> initConstants, Stage stage,
                         int64_t slices,
                         const ReductionEpilogue *epilogue = nullptr,
                         bool writeResults = true);

} // namespace mlir::fuser::reduction

#endif // FUSER_LIB_CONVERSION_REDUCTIONTOGPU_REDUCTIONKERNEL_H
