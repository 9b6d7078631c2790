// W1 (LeakyReLU over 4096 x 393216 fp32) kernel variants, built on the GPU
// machine by bench/experiments/w1_variants.py with nvcc into a shared library and timed
// against eager there. A probe for issue #13 (fuser's kernel is ~1% faster
// than eager's; is there a memory path that streams faster than one float4
// per thread?):
//   vec4        one float4 per thread, 1024 threads (fuser's pointwise kernel)
//   vec4_l2pf   the same with ld.global.nc.L2::256B (256-byte L2 prefetch)
//   bulk<S,C>   persistent blocks: cp.async.bulk (TMA 1-D) loads C-byte chunks
//               into an S-stage shared ring on mbarriers, threads apply the
//               op in shared memory, cp.async.bulk stores the chunk back
//   bulkld<S,C> bulk loads, ordinary coalesced float4 stores
#include <cstdint>
#include <cuda_runtime.h>

namespace {

__device__ __forceinline__ float lrelu(float v, float s) {
  return v > 0.f ? v : v * s;
}
__device__ __forceinline__ float4 lrelu4(float4 v, float s) {
  return make_float4(lrelu(v.x, s), lrelu(v.y, s), lrelu(v.z, s),
                     lrelu(v.w, s));
}

__global__ void __launch_bounds__(1024)
    vec4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4,
         float s) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  for (; i < n4; i += (long)gridDim.x * blockDim.x)
    y[i] = lrelu4(x[i], s);
}

// Loads with a cache qualifier string Q (e.g. ".nc.L2::256B").
#define LOAD_VARIANT(NAME, Q)                                                 \
  __global__ void __launch_bounds__(1024)                                     \
      NAME(const float4 *__restrict__ x, float4 *__restrict__ y, long n4,     \
           float s) {                                                         \
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;                     \
    for (; i < n4; i += (long)gridDim.x * blockDim.x) {                       \
      float4 v;                                                               \
      asm volatile("ld.global" Q ".v4.f32 {%0,%1,%2,%3}, [%4];"               \
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)               \
                   : "l"(x + i));                                             \
      y[i] = lrelu4(v, s);                                                    \
    }                                                                         \
  }
LOAD_VARIANT(vec4_l2pf, ".nc.L2::256B")
LOAD_VARIANT(vec4_l2pf128, ".nc.L2::128B")
LOAD_VARIANT(vec4_l2pf256_plain, ".L2::256B")
LOAD_VARIANT(vec4_l2pf256_noalloc, ".nc.L1::no_allocate.L2::256B")
LOAD_VARIANT(vec4_l2pf64, ".nc.L2::64B")
LOAD_VARIANT(vec4_l2pf128_plain, ".L2::128B")

// 128-byte L2 prefetch, the loads under an evict_first L2 policy.
__global__ void __launch_bounds__(1024)
    vec4_l2pf128_evict_first(const float4 *__restrict__ x,
                             float4 *__restrict__ y, long n4, float s) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
               : "=l"(policy));
  for (; i < n4; i += (long)gridDim.x * blockDim.x) {
    float4 v;
    asm volatile("ld.global.nc.L2::cache_hint.L2::128B.v4.f32 {%0,%1,%2,%3}, "
                 "[%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(x + i), "l"(policy));
    y[i] = lrelu4(v, s);
  }
}

// 128-byte L2 prefetch, two float4 per thread a block apart (both loads
// before the stores).
__global__ void __launch_bounds__(1024)
    vec4x2_l2pf128(const float4 *__restrict__ x, float4 *__restrict__ y,
                   long n4, float s) {
  long i = blockIdx.x * 2L * blockDim.x + threadIdx.x;
  long j = i + blockDim.x;
  float4 a, b;
  if (j < n4) {
    asm volatile("ld.global.nc.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(a.x), "=f"(a.y), "=f"(a.z), "=f"(a.w)
                 : "l"(x + i));
    asm volatile("ld.global.nc.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(b.x), "=f"(b.y), "=f"(b.z), "=f"(b.w)
                 : "l"(x + j));
    y[i] = lrelu4(a, s);
    y[j] = lrelu4(b, s);
  } else if (i < n4) {
    y[i] = lrelu4(x[i], s);
  }
}

// 256-byte L2 prefetch, and streaming (.cs) stores.
__global__ void __launch_bounds__(1024)
    vec4_l2pf_cs(const float4 *__restrict__ x, float4 *__restrict__ y, long n4,
                 float s) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  for (; i < n4; i += (long)gridDim.x * blockDim.x) {
    float4 v;
    asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(x + i));
    __stcs(y + i, lrelu4(v, s));
  }
}

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barInit(uint64_t *bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smemAddr(bar)));
}
__device__ __forceinline__ void bulkLoad(void *dst, const void *src,
                                         uint32_t bytes, uint64_t *bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   smemAddr(bar)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];" ::"r"(smemAddr(dst)),
               "l"(src), "r"(bytes), "r"(smemAddr(bar))
               : "memory");
}
__device__ __forceinline__ void barWait(uint64_t *bar, uint32_t phase) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 "
               "p, [%0], %1;\n @!p bra W;\n}" ::"r"(smemAddr(bar)),
               "r"(phase)
               : "memory");
}

// Chunk k of the block is global chunk blockIdx.x + k * gridDim.x.
template <int S, int C, bool BulkStore>
__global__ void __launch_bounds__(256)
    bulk(const float *__restrict__ x, float *__restrict__ y, long nChunks,
         float s) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ __align__(8) uint64_t bars[S];
  const int tid = threadIdx.x;
  const long mine = (nChunks - blockIdx.x + gridDim.x - 1) / gridDim.x;
  auto src = [&](long k) {
    return x + (blockIdx.x + k * gridDim.x) * (long)(C / 4);
  };
  auto dst = [&](long k) {
    return y + (blockIdx.x + k * gridDim.x) * (long)(C / 4);
  };
  if (tid == 0) {
    for (int i = 0; i < S; ++i)
      barInit(&bars[i]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int k = 0; k < S && k < mine; ++k)
      bulkLoad(ring + k * C, src(k), C, &bars[k]);
  }
  __syncthreads();
  for (long k = 0; k < mine; ++k) {
    const int st = k % S;
    barWait(&bars[st], (k / S) & 1);
    float4 *buf = reinterpret_cast<float4 *>(ring + st * C);
    if (BulkStore) {
      for (int j = tid; j < C / 16; j += 256)
        buf[j] = lrelu4(buf[j], s);
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
      if (tid == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], "
                     "%2;" ::"l"(dst(k)),
                     "r"(smemAddr(buf)), "r"(C)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        // Refill the stage stored one chunk ago once its store read it.
        if (k >= 1 && k - 1 + S < mine) {
          asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
          const int prev = (k - 1) % S;
          bulkLoad(ring + prev * C, src(k - 1 + S), C, &bars[prev]);
        }
      }
    } else {
      float4 *out = reinterpret_cast<float4 *>(dst(k));
      for (int j = tid; j < C / 16; j += 256)
        out[j] = lrelu4(buf[j], s);
      __syncthreads();
      if (tid == 0 && k + S < mine)
        bulkLoad(ring + st * C, src(k + S), C, &bars[st]);
    }
  }
  if (BulkStore && tid == 0)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <int S, int C, bool BulkStore>
int launchBulk(const float *x, float *y, long n, float s, int blocksPerSm,
               cudaStream_t stream) {
  auto k = bulk<S, C, BulkStore>;
  int smem = S * C;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  long chunks = n * 4 / C; // the probe's sizes are chunk multiples
  k<<<132 * blocksPerSm, 256, smem, stream>>>(x, y, chunks, s);
  return cudaGetLastError();
}

using Float4Kernel = void (*)(const float4 *, float4 *, long, float);

/// The one-float4-per-thread kernels: variant, kernel, threads per block,
/// float4s per thread, name.
struct Float4Variant {
  int variant;
  Float4Kernel kernel;
  int threads, perThread;
  const char *name;
};
const Float4Variant kFloat4Variants[] = {
    {0, vec4, 1024, 1, "vec4 1024 threads (fuser's)"},
    {1, vec4_l2pf, 1024, 1, "vec4 + L2::256B prefetch"},
    {8, vec4_l2pf128, 1024, 1, "vec4 + nc.L2::128B"},
    {9, vec4_l2pf256_plain, 1024, 1, "vec4 + L2::256B (not .nc)"},
    {10, vec4_l2pf256_noalloc, 1024, 1, "vec4 + nc.L1::no_allocate.L2::256B"},
    {11, vec4_l2pf_cs, 1024, 1, "vec4 + nc.L2::256B, st.cs"},
    {12, vec4_l2pf, 512, 1, "vec4 + nc.L2::256B, 512 threads"},
    {13, vec4_l2pf128_evict_first, 1024, 1,
     "vec4 + nc.L2::128B, loads evict_first"},
    {14, vec4x2_l2pf128, 1024, 2, "2 x vec4 + nc.L2::128B"},
    {15, vec4_l2pf64, 1024, 1, "vec4 + nc.L2::64B"},
    {17, vec4_l2pf128_plain, 1024, 1, "vec4 + L2::128B (not .nc)"},
};

} // namespace

extern "C" int w1_launch(int variant, const float *x, float *y, long n,
                         float s, cudaStream_t stream) {
  long n4 = n / 4;
  for (const Float4Variant &v : kFloat4Variants) {
    if (v.variant != variant)
      continue;
    long perBlock = long(v.threads) * v.perThread;
    v.kernel<<<(n4 + perBlock - 1) / perBlock, v.threads, 0, stream>>>(
        reinterpret_cast<const float4 *>(x), reinterpret_cast<float4 *>(y),
        n4, s);
    return cudaGetLastError();
  }
  switch (variant) {
  case 2: return launchBulk<4, 16384, true>(x, y, n, s, 2, stream);
  case 3: return launchBulk<4, 32768, true>(x, y, n, s, 1, stream);
  case 4: return launchBulk<6, 16384, true>(x, y, n, s, 2, stream);
  case 5: return launchBulk<3, 32768, true>(x, y, n, s, 2, stream);
  case 6: return launchBulk<4, 16384, false>(x, y, n, s, 2, stream);
  case 7: return launchBulk<8, 8192, true>(x, y, n, s, 3, stream);
  }
  return -1;
}

extern "C" const char *w1_variant_name(int variant) {
  for (const Float4Variant &v : kFloat4Variants)
    if (v.variant == variant)
      return v.name;
  switch (variant) {
  case 2: return "bulk ld+st, 4 x 16 KiB, 2 blocks/SM";
  case 3: return "bulk ld+st, 4 x 32 KiB, 1 block/SM";
  case 4: return "bulk ld+st, 6 x 16 KiB, 2 blocks/SM";
  case 5: return "bulk ld+st, 3 x 32 KiB, 2 blocks/SM";
  case 6: return "bulk ld, st.v4, 4 x 16 KiB, 2 blocks/SM";
  case 7: return "bulk ld+st, 8 x 8 KiB, 3 blocks/SM";
  }
  return nullptr;
}
