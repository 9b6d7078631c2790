/* Calls the launcher of the generated header (test/Target/c-header-compile.mlir
 * compiles this as C99 and as C++17). It also runs on a machine with a GPU:
 * it prints the first few outputs and exits 0 when they are right. */
#include "kernels.h"

#include <stdio.h>

static float expected(float x) {
  float m = 2.0f * x;
  return m > 0.0f ? m : m * 0.01f;
}

int main(void) {
  enum { N = 3, C = 1000 };
  static float host_x[N * C], host_y[N * C];
  int64_t shape[2];
  CUdevice device;
  CUcontext context;
  CUstream stream;
  CUmodule module;
  CUdeviceptr x, y;
  CUresult err;
  int i, bad = 0;

  for (i = 0; i < N * C; ++i)
    host_x[i] = (float)(i % 17) - 8.0f;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    fprintf(stderr, "no CUDA device\n");
    return 2;
  }
  fuser_scale_result_shape_0(N, C, shape);
  err = fuser_load(&module);
  if (err == CUDA_SUCCESS)
    err = cuMemAlloc(&x, sizeof(host_x));
  if (err == CUDA_SUCCESS)
    err = cuMemAlloc(&y, (size_t)(shape[0] * shape[1]) * sizeof(float));
  if (err == CUDA_SUCCESS)
    err = cuMemcpyHtoD(x, host_x, sizeof(host_x));
  /* Negative sizes are refused before anything is enqueued. */
  if (err == CUDA_SUCCESS &&
      fuser_scale(stream, (const float *)(uintptr_t)x, -1, C,
                  (float *)(uintptr_t)y) != CUDA_ERROR_INVALID_VALUE)
    bad = 1;
  if (err == CUDA_SUCCESS)
    err = fuser_scale(stream, (const float *)(uintptr_t)x, N, C,
                      (float *)(uintptr_t)y);
  if (err == CUDA_SUCCESS)
    err = cuStreamSynchronize(stream);
  if (err == CUDA_SUCCESS)
    err = cuMemcpyDtoH(host_y, y, sizeof(host_y));
  if (err != CUDA_SUCCESS) {
    fprintf(stderr, "CUDA error %d\n", (int)err);
    return 1;
  }
  for (i = 0; i < N * C; ++i)
    if (host_y[i] != expected(host_x[i]))
      bad = 1;
  printf("y[0..3] = %g %g %g %g: %s\n", host_y[0], host_y[1], host_y[2],
         host_y[3], bad ? "WRONG" : "ok");
  fuser_unload();
  return bad;
}
