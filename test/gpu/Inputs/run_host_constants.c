/* Runs both functions of host_constants.mlir through the generated C header
 * (test/gpu/test_host_constants.py compiles and runs this on the GPU
 * machine): reads `rows` x 8 and `rows` x 16 f32 inputs from argv[2] and
 * argv[3], writes the two outputs to argv[4] and argv[5]. Exits 0 when every
 * call succeeds; the test compares the outputs with float64 references. */
#include "host_constants.h"

#include <stdio.h>
#include <stdlib.h>

static int readFile(const char *path, void *data, size_t bytes) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(data, 1, bytes, f) : 0;
  if (f)
    fclose(f);
  return n == bytes;
}

static int writeFile(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  size_t n = f ? fwrite(data, 1, bytes, f) : 0;
  if (f)
    fclose(f);
  return n == bytes;
}

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult e_ = (call);                                                      \
    if (e_ != CUDA_SUCCESS) {                                                  \
      fprintf(stderr, "%s failed: CUDA error %d\n", #call, (int)e_);           \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  int64_t rows, shape[2];
  size_t a8, a16;
  float *x8, *x16, *y8, *y16;
  CUdevice device;
  CUcontext context;
  CUstream stream;
  CUdeviceptr dx8, dx16, dy8, dy16;
  if (argc != 6) {
    fprintf(stderr, "usage: %s rows x8.bin x16.bin y8.bin y16.bin\n", argv[0]);
    return 2;
  }
  rows = atoll(argv[1]);
  a8 = (size_t)rows * 8 * sizeof(float);
  a16 = (size_t)rows * 16 * sizeof(float);
  x8 = malloc(a8), x16 = malloc(a16), y8 = malloc(a8), y16 = malloc(a8);
  if (!x8 || !x16 || !y8 || !y16 || !readFile(argv[2], x8, a8) ||
      !readFile(argv[3], x16, a16)) {
    fprintf(stderr, "cannot read the inputs\n");
    return 2;
  }
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  hc_leaky_scaled_result_shape_0(rows, shape);
  if (shape[0] != rows || shape[1] != 8) {
    fprintf(stderr, "unexpected result shape\n");
    return 1;
  }
  CHECK(cuMemAlloc(&dx8, a8));
  CHECK(cuMemAlloc(&dx16, a16));
  CHECK(cuMemAlloc(&dy8, a8));
  CHECK(cuMemAlloc(&dy16, a8));
  CHECK(cuMemcpyHtoD(dx8, x8, a8));
  CHECK(cuMemcpyHtoD(dx16, x16, a16));
  CHECK(hc_leaky_scaled(stream, (const float *)(uintptr_t)dx8, rows,
                        (float *)(uintptr_t)dy8));
  CHECK(hc_linear_constant_weight(stream, (const float *)(uintptr_t)dx16, rows,
                                  (float *)(uintptr_t)dy16));
  CHECK(cuStreamSynchronize(stream));
  CHECK(cuMemcpyDtoH(y8, dy8, a8));
  CHECK(cuMemcpyDtoH(y16, dy16, a8));
  /* The constants are freed with the module. */
  CHECK(hc_unload());
  if (!writeFile(argv[4], y8, a8) || !writeFile(argv[5], y16, a8)) {
    fprintf(stderr, "cannot write the outputs\n");
    return 2;
  }
  printf("ran %lld rows\n", (long long)rows);
  return 0;
}
