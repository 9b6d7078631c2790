/* Calls the launcher of the header generated from
 * test/gpu/Inputs/mma/nt_k200_bf16.mlir (test/Target/c-header-tensor-map.mlir
 * compiles this as C99 and as C++17): the TMA-fed wgmma kernel, whose two
 * tensor maps the launcher encodes with cuTensorMapEncodeTiled. On a
 * machine with an sm_90a GPU it also runs: y = max(x * W^T + b[n], 0) * s[m]
 * + r[m, n] * k for M = 130 and N = 300 (partial tiles in both) and K = 200
 * (a partial k tile), compared with a CPU reference (exact: every value is
 * a small multiple of a power of two). Exits 0 when right, 2 without a
 * device. */
#include "kernels.h"

#include <stdio.h>
#include <stdlib.h>

enum { M = 130, N = 300, K = 200 };

static uint16_t to_bf16(float f) { /* exact for the values used here */
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  return (uint16_t)(bits >> 16);
}

static float xval(int m, int k) { return (float)((m * 7 + k * 3) % 17 - 8) / 8.0f; }
static float wval(int n, int k) { return (float)((n * 5 + k * 11) % 13 - 6) / 4.0f; }

int main(void) {
  static uint16_t host_x[M * K], host_w[N * K];
  static float host_b[N], host_s[M], host_r[M * N], host_y[M * N];
  float host_k = 0.5f;
  int64_t shape[2];
  CUdevice device;
  CUcontext context;
  CUstream stream;
  CUdeviceptr x = 0, w = 0, b = 0, s = 0, r = 0, k = 0, y = 0;
  CUresult err;
  int major = 0, minor = 0, i, j, l, bad = 0, wrong = 0;
  double max_err = 0.0;

  for (i = 0; i < M; ++i)
    for (l = 0; l < K; ++l)
      host_x[i * K + l] = to_bf16(xval(i, l));
  for (j = 0; j < N; ++j)
    for (l = 0; l < K; ++l)
      host_w[j * K + l] = to_bf16(wval(j, l));
  for (j = 0; j < N; ++j)
    host_b[j] = (float)(j % 9 - 4);
  for (i = 0; i < M; ++i)
    host_s[i] = (float)(i % 3 + 1) / 2.0f;
  for (i = 0; i < M * N; ++i)
    host_r[i] = (float)(i % 5 - 2);

  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           device) != CUDA_SUCCESS ||
      major != 9 || minor != 0 ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    fprintf(stderr, "no sm_90 CUDA device\n");
    return 2;
  }
  fuser_forward_result_shape_0(M, N, N, M, M, N, shape);
  if (shape[0] != M || shape[1] != N) {
    fprintf(stderr, "result shape %lld x %lld\n", (long long)shape[0],
            (long long)shape[1]);
    return 1;
  }
  err = cuMemAlloc(&x, sizeof(host_x));
  if (err == CUDA_SUCCESS) err = cuMemAlloc(&w, sizeof(host_w));
  if (err == CUDA_SUCCESS) err = cuMemAlloc(&b, sizeof(host_b));
  if (err == CUDA_SUCCESS) err = cuMemAlloc(&s, sizeof(host_s));
  if (err == CUDA_SUCCESS) err = cuMemAlloc(&r, sizeof(host_r));
  if (err == CUDA_SUCCESS) err = cuMemAlloc(&k, sizeof(host_k));
  if (err == CUDA_SUCCESS) err = cuMemAlloc(&y, sizeof(host_y));
  if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(x, host_x, sizeof(host_x));
  if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(w, host_w, sizeof(host_w));
  if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(b, host_b, sizeof(host_b));
  if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(s, host_s, sizeof(host_s));
  if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(r, host_r, sizeof(host_r));
  if (err == CUDA_SUCCESS) err = cuMemcpyHtoD(k, &host_k, sizeof(host_k));
  if (err == CUDA_SUCCESS) err = cuMemsetD32(y, 0x7fc00000u, M * N); /* NaN */
  /* A misaligned operand is refused before anything is enqueued (TMA
   * needs 16-byte aligned rows). */
  if (err == CUDA_SUCCESS &&
      fuser_forward(stream, (const uint16_t *)(uintptr_t)(x + 2),
                    (const uint16_t *)(uintptr_t)w, (const float *)(uintptr_t)b,
                    (const float *)(uintptr_t)s, (const float *)(uintptr_t)r,
                    (const float *)(uintptr_t)k, M, N, N, M, M, N,
                    (float *)(uintptr_t)y) != CUDA_ERROR_INVALID_VALUE) {
    fprintf(stderr, "a misaligned x was accepted\n");
    bad = 1;
  }
  if (err == CUDA_SUCCESS)
    err = fuser_forward(stream, (const uint16_t *)(uintptr_t)x,
                        (const uint16_t *)(uintptr_t)w,
                        (const float *)(uintptr_t)b, (const float *)(uintptr_t)s,
                        (const float *)(uintptr_t)r, (const float *)(uintptr_t)k,
                        M, N, N, M, M, N, (float *)(uintptr_t)y);
  if (err == CUDA_SUCCESS) err = cuStreamSynchronize(stream);
  if (err == CUDA_SUCCESS) err = cuMemcpyDtoH(host_y, y, sizeof(host_y));
  if (err != CUDA_SUCCESS) {
    fprintf(stderr, "CUDA error %d\n", (int)err);
    return 1;
  }
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      float acc = 0.0f, want, got = host_y[i * N + j];
      double e;
      for (l = 0; l < K; ++l)
        acc += xval(i, l) * wval(j, l);
      acc += host_b[j];
      want = (acc > 0.0f ? acc : 0.0f) * host_s[i] + host_r[i * N + j] * host_k;
      e = got > want ? (double)got - want : (double)want - got;
      if (!(e <= 1e-3 * (1.0 + (want > 0 ? want : -want)))) {
        if (wrong++ < 5)
          fprintf(stderr, "y[%d, %d] = %g, want %g\n", i, j, got, want);
      }
      if (e > max_err)
        max_err = e;
    }
  printf("y[0, 0..2] = %g %g %g, max error %g, %d wrong: %s\n", host_y[0],
         host_y[1], host_y[2], max_err, wrong, bad || wrong ? "WRONG" : "ok");
  cuMemFree(x);
  cuMemFree(w);
  cuMemFree(b);
  cuMemFree(s);
  cuMemFree(r);
  cuMemFree(k);
  cuMemFree(y);
  fuser_unload();
  return bad || wrong ? 1 : 0;
}
