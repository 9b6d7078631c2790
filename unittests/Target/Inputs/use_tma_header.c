/* Calls the tensor_map launcher of the header that CHeaderTest generates
 * (it compiles this as C99, C11 and C++17). On an sm_90 GPU it also runs:
 *   cc -std=c99 -I<dir of tma_kernels.h> use_tma_header.c -lcuda
 * and exits 0 when the TMA tile (128-byte swizzled, zeros out of bounds)
 * and the launcher's checks are right. */
#include "tma_kernels.h"

#include <stdio.h>

/* The tile's shared memory image at (r, c): the box starts at row rows - 2
 * and column cols - 8 of x; chunk c / 4 of row r moved to (c / 4) ^ r. */
static int check(const float *x, const float *out, int64_t rows,
                 int64_t cols) {
  int64_t r, c, bad = 0;
  for (r = 0; r < 8; ++r)
    for (c = 0; c < 32; ++c) {
      int64_t row = rows - 2 + r, col = cols - 8 + c;
      float want = row < rows && col < cols ? x[row * cols + col] : 0.0f;
      if (out[r * 32 + ((c / 4) ^ r) * 4 + c % 4] != want)
        ++bad;
    }
  return bad == 0;
}

int main(void) {
  static float host_x[64 * 64], host_out[8 * 32];
  CUdevice device;
  CUcontext context;
  CUdeviceptr x, out;
  CUresult err;
  int i, ok = 1;

  for (i = 0; i < 64 * 64; ++i)
    host_x[i] = (float)(i + 1);
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS) {
    fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  err = cuMemAlloc(&x, sizeof(host_x));
  if (err == CUDA_SUCCESS)
    err = cuMemAlloc(&out, sizeof(host_out));
  if (err == CUDA_SUCCESS)
    err = cuMemcpyHtoD(x, host_x, sizeof(host_x));
  /* A row pitch of 41 floats and a misaligned pointer are refused. */
  if (err == CUDA_SUCCESS &&
      (tma_tile(NULL, (const float *)(uintptr_t)x, 5, 41,
                (float *)(uintptr_t)out) != CUDA_ERROR_INVALID_VALUE ||
       tma_tile(NULL, (const float *)(uintptr_t)(x + 4), 5, 40,
                (float *)(uintptr_t)out) != CUDA_ERROR_INVALID_VALUE))
    ok = 0;
  /* An empty input launches nothing. */
  if (err == CUDA_SUCCESS &&
      tma_tile(NULL, (const float *)(uintptr_t)x, 0, 40,
               (float *)(uintptr_t)out) != CUDA_SUCCESS)
    ok = 0;
  /* Two sizes, so each call encodes its own map. */
  if (err == CUDA_SUCCESS)
    err = tma_tile(NULL, (const float *)(uintptr_t)x, 5, 40,
                   (float *)(uintptr_t)out);
  if (err == CUDA_SUCCESS)
    err = cuCtxSynchronize();
  if (err == CUDA_SUCCESS)
    err = cuMemcpyDtoH(host_out, out, sizeof(host_out));
  if (err == CUDA_SUCCESS && !check(host_x, host_out, 5, 40))
    ok = 0;
  if (err == CUDA_SUCCESS)
    err = tma_tile(NULL, (const float *)(uintptr_t)x, 3, 64,
                   (float *)(uintptr_t)out);
  if (err == CUDA_SUCCESS)
    err = cuCtxSynchronize();
  if (err == CUDA_SUCCESS)
    err = cuMemcpyDtoH(host_out, out, sizeof(host_out));
  if (err == CUDA_SUCCESS && !check(host_x, host_out, 3, 64))
    ok = 0;
  if (err != CUDA_SUCCESS) {
    fprintf(stderr, "CUDA error %d\n", (int)err);
    return 1;
  }
  printf("TMA tile through the C header: %s\n", ok ? "ok" : "WRONG");
  tma_unload();
  return ok ? 0 : 1;
}
