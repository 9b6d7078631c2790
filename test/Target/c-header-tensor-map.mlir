// The C header of a function whose kernel takes TMA tensor maps (the
// wgmma_tma GEMM that -fuser-gpu-pipeline picks for a bf16 x * W^T with a
// static K of 200): the launcher checks what the copy engine needs, encodes
// each map with cuTensorMapEncodeTiled into 64-byte aligned storage and
// passes it by value. The header compiles as strict C99 and as C++17, and
// links against libcuda with a caller (Inputs/use_tensor_map_header.c,
// which on an sm_90a machine also runs the kernel and checks its result).
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nt_k200_bf16.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-c-header | FileCheck %s
//
// CHECK:       fuser_forward(CUstream stream, const uint16_t *arg0, const uint16_t *arg1, const float *arg2, const float *arg3, const float *arg4, const float *arg5, int64_t arg0_dim0, int64_t arg1_dim0, int64_t arg2_dim0, int64_t arg3_dim0, int64_t arg4_dim0, int64_t arg4_dim1, float *result0)
// CHECK:       #include <cuda.h>
// CHECK:       #if CUDA_VERSION < 12000
// CHECK-NEXT:  #error "the kernels take TMA tensor maps (cuTensorMapEncodeTiled), which need CUDA 12.0 or newer"
// CHECK-NEXT:  #endif
// The kernel's last two parameters are the 128-byte maps, by value, after
// the tile counts.
// CHECK:       "\t.param .u64 forward_matmul_param_13,\n"
// CHECK-NEXT:  "\t.param .align 64 .b8 forward_matmul_param_14[128],\n"
// CHECK-NEXT:  "\t.param .align 64 .b8 forward_matmul_param_15[128]\n"
// CHECK-NEXT:  ")\n"
// CHECK-NEXT:  ".maxntid 384, 1, 1\n"
// CHECK-NEXT:  ".minnctapersm 1\n"
// and are read in place (cvta.param), not copied.
// CHECK:       "\tcvta.param.u64
// CHECK-LABEL: static inline CUresult fuser_forward(CUstream stream,
// Both operands: 16-byte aligned, and sizes the copy engine can describe
// (K = 200 is static: its 400-byte pitch needs no runtime check).
// CHECK:       /* arg0: non-null, 16-byte aligned when non-empty. */
// CHECK-NEXT:  if ((arg0_dim0 * 200) > 0 && (buf0 == 0 || buf0 % 16 != 0))
// CHECK:       /* launch 0 arg 14: TMA needs the view of buf0
// CHECK:         (arg0_dim0 < 1 || arg0_dim0 > 0xffffffff))
// CHECK-NEXT:    return CUDA_ERROR_INVALID_VALUE;
// CHECK:       /* launch 0 arg 15: TMA needs the view of buf1
// CHECK:         (arg1_dim0 < 1 || arg1_dim0 > 0xffffffff))
// CHECK-NEXT:    return CUDA_ERROR_INVALID_VALUE;
// CHECK:       { /* launch 0: forward_matmul */
// The tile counts: K tiles (static K), M tiles, tiles per batch, tiles.
// CHECK:         int64_t p10 = 4;
// CHECK-NEXT:    int64_t p11 = ((arg0_dim0 + 128 - 1) / 128);
// CHECK-NEXT:    int64_t p12 = (((arg0_dim0 + 128 - 1) / 128) * ((arg1_dim0 + 256 - 1) / 256));
// CHECK-NEXT:    int64_t p13 = (((arg0_dim0 + 128 - 1) / 128) * ((arg1_dim0 + 256 - 1) / 256));
// The map of x: [128, 64] boxes of the M x 200 bf16 matrix, innermost
// dimension first, 400-byte rows, 128-byte swizzle, zeros out of bounds.
// CHECK:         unsigned char p14_bytes[sizeof(CUtensorMap) + 64];
// CHECK-NEXT:    CUtensorMap *p14 = (CUtensorMap *)(void *)(p14_bytes +
// CHECK-NEXT:        (64 - (uintptr_t)p14_bytes % 64) % 64);
// CHECK-NEXT:    /* The TMA view [arg0_dim0, 200] of buf0, innermost dimension first. */
// CHECK-NEXT:    cuuint64_t p14_dim[2];
// CHECK-NEXT:    cuuint64_t p14_pitch[1];
// CHECK-NEXT:    cuuint32_t p14_box[2] = {64, 128};
// CHECK-NEXT:    cuuint32_t p14_step[2] = {1, 1};
// CHECK-NEXT:    p14_dim[0] = (cuuint64_t)200;
// CHECK-NEXT:    p14_dim[1] = (cuuint64_t)arg0_dim0;
// CHECK-NEXT:    p14_pitch[0] = (cuuint64_t)200 * 2;
// CHECK:         err = cuTensorMapEncodeTiled(
// CHECK-NEXT:        p14, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)(uintptr_t)buf0,
// CHECK-NEXT:        p14_dim, p14_pitch, p14_box, p14_step, CU_TENSOR_MAP_INTERLEAVE_NONE,
// CHECK-NEXT:        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
// CHECK-NEXT:        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
// CHECK-NEXT:    if (err != CUDA_SUCCESS)
// CHECK-NEXT:      break;
// The map of W: [256, 64] boxes of the N x 200 matrix.
// CHECK:         cuuint32_t p15_box[2] = {64, 256};
// CHECK:         p15_dim[0] = (cuuint64_t)200;
// CHECK-NEXT:    p15_dim[1] = (cuuint64_t)arg1_dim0;
// CHECK-NEXT:    p15_pitch[0] = (cuuint64_t)200 * 2;
// CHECK:         err = cuTensorMapEncodeTiled(
// CHECK-NEXT:        p15, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)(uintptr_t)buf1,
// CHECK-NEXT:        p15_dim, p15_pitch, p15_box, p15_step, CU_TENSOR_MAP_INTERLEAVE_NONE,
// CHECK-NEXT:        CU_TENSOR_MAP_SWIZZLE_128B,
// The maps are passed as the parameters' storage itself (no &).
// CHECK:         void *params[] = {&buf0, &buf1, &buf2, &buf3, &buf4, &buf5, &buf6, &p7, &p8, &p9, &p10, &p11, &p12, &p13, p14, p15};
// CHECK:         cuFuncSetAttribute(
// CHECK-NEXT:        fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 197696);
// CHECK:         err = cuLaunchKernel(fn, {{.+}},
// CHECK-NEXT:                         384, 1, 1,
// CHECK-NEXT:                         197696, stream, params, NULL);
// CHECK-NOT:   cuTensorMapEncodeTiled
//
// The compile and link test (nothing runs here).
// REQUIRES: cuda-headers
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: fuser-opt %fuser_src/test/gpu/Inputs/mma/nt_k200_bf16.mlir --fuser-gpu-pipeline \
// RUN:   | fuser-translate --fuser-to-c-header -o %t.dir/kernels.h
// RUN: cc -std=c99 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -I%t.dir %S/Inputs/use_tensor_map_header.c -L%cuda_stubs -lcuda \
// RUN:   -o %t.dir/use_header_c
// RUN: c++ -std=c++17 -Wall -Wextra -pedantic -Werror -isystem %cuda_include \
// RUN:   -I%t.dir -x c++ %S/Inputs/use_tensor_map_header.c -L%cuda_stubs -lcuda \
// RUN:   -o %t.dir/use_header_cxx
