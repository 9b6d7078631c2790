"""How fast can a streaming pointwise kernel run? W1's shape, several load/store forms.

W1 (leaky_relu over 4096 x 393216 fp32) moves 12.9 GB and PyTorch eager already streams it at the
device-to-device copy rate. This measures which access form, if any, beats that rate, so the
pointwise lowering can adopt it:

  fuser      one 16-byte load and store per thread, 1024-thread blocks (today's lowering)
  stream     the same with ld.global.nc.L1::no_allocate and st.global.cs (evict-first hints)
  unroll4    four 16-byte loads in flight per thread before the stores, persistent grid
  unroll4s   unroll4 with the streaming hints
  l2pf       unroll4 with .L2::256B prefetch on the loads
  tma        1-D bulk copies (cp.async.bulk) into shared memory, pointwise there, bulk store back

against eager F.leaky_relu and a device copy, in interleaved rounds (CUDA events, L2 flushed before
each call), and, for the ceiling's shape, reads alone (torch.sum) and writes alone (fill_), each over
one 6.4 GB tensor. Needs only torch and CuPy:
    python bench/experiments/w1_bandwidth.py [--rows 4096] [--rounds 10]
"""
import argparse
import statistics
import warnings

import cupy
import torch
import torch.nn.functional as F

SOURCE = r"""
typedef unsigned long long u64;

__device__ __forceinline__ float leaky(float v, float s) { return v > 0.f ? v : v * s; }
__device__ __forceinline__ float4 leaky4(float4 v, float s) {
  return make_float4(leaky(v.x, s), leaky(v.y, s), leaky(v.z, s), leaky(v.w, s));
}

extern "C" __global__ void __launch_bounds__(1024) fuser_form(const float4* x, float4* y, u64 n4, float s) {
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n4; i += (u64)gridDim.x * blockDim.x) y[i] = leaky4(x[i], s);
}

__device__ __forceinline__ float4 ld_stream(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ float4 ld_pf(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void st_stream(float4* p, float4 v) {
  asm volatile("st.global.cs.v4.f32 [%0], {%1,%2,%3,%4};" :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}

extern "C" __global__ void __launch_bounds__(1024) stream_form(const float4* x, float4* y, u64 n4, float s) {
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i < n4; i += (u64)gridDim.x * blockDim.x) st_stream(y + i, leaky4(ld_stream(x + i), s));
}

template <int MODE>
__device__ __forceinline__ void unrolled(const float4* x, float4* y, u64 n4, float s) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      v[u] = MODE == 0 ? x[i + u * stride] : MODE == 1 ? ld_stream(x + i + u * stride) : ld_pf(x + i + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      if (MODE == 1) st_stream(y + i + u * stride, leaky4(v[u], s));
      else y[i + u * stride] = leaky4(v[u], s);
    }
  }
  for (; i < n4; i += stride) y[i] = leaky4(x[i], s);
}
extern "C" __global__ void __launch_bounds__(256) unroll4(const float4* x, float4* y, u64 n4, float s) { unrolled<0>(x, y, n4, s); }
extern "C" __global__ void __launch_bounds__(256) unroll4s(const float4* x, float4* y, u64 n4, float s) { unrolled<1>(x, y, n4, s); }
extern "C" __global__ void __launch_bounds__(256) l2pf(const float4* x, float4* y, u64 n4, float s) { unrolled<2>(x, y, n4, s); }

// Reads alone, one 16-byte load per thread (the read ceiling of this access form).
extern "C" __global__ void __launch_bounds__(1024) read_only(const float4* x, float4* y, u64 n4, float s) {
  u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  for (; i < n4; i += (u64)gridDim.x * blockDim.x) { float4 t = x[i]; v.x += t.x; v.y += t.y; v.z += t.z; v.w += t.w; }
  if (v.x + v.y + v.z + v.w == 12345.f) y[0] = v;  // keeps the loads
}

// Bulk copies: STAGES buffers of CHUNK bytes; thread 0 drives the copy engine.
template <int CHUNK, int STAGES>
__device__ __forceinline__ void tma_body(const float* x, float* y, u64 nchunks, float s) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ __align__(8) u64 full[8];
  const unsigned base = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned bar = (unsigned)__cvta_generic_to_shared(full);
  u64 mine = nchunks > blockIdx.x ? (nchunks - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  auto chunk_of = [&](u64 k) { return (u64)blockIdx.x + k * gridDim.x; };
  auto issue_load = [&](u64 k) {
    unsigned st = (unsigned)(k % STAGES), b = bar + 8 * st;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(CHUNK) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(base + st * CHUNK), "l"((const char*)x + chunk_of(k) * CHUNK), "r"(CHUNK), "r"(b) : "memory");
  };
  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar + 8 * st) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (u64 k = 0; k < mine && k < STAGES; ++k) issue_load(k);
  }
  __syncthreads();
  for (u64 k = 0; k < mine; ++k) {
    unsigned st = (unsigned)(k % STAGES), parity = (unsigned)((k / STAGES) & 1);
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                 :: "r"(bar + 8 * st), "r"(parity) : "memory");
    float4* buf = (float4*)(smem + st * CHUNK);
    for (int j = threadIdx.x; j < CHUNK / 16; j += blockDim.x) buf[j] = leaky4(buf[j], s);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                   :: "l"((char*)y + chunk_of(k) * CHUNK), "r"(base + st * CHUNK), "r"(CHUNK) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      // The previous chunk's buffer is free once its store has read it; refill it.
      if (k >= 1 && k - 1 + STAGES < mine) {
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        issue_load(k - 1 + STAGES);
      }
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
extern "C" __global__ void __launch_bounds__(256) tma(const float* x, float* y, u64 n, float s) { tma_body<16384, 6>(x, y, n, s); }
extern "C" __global__ void __launch_bounds__(256) tma32k(const float* x, float* y, u64 n, float s) { tma_body<32768, 3>(x, y, n, s); }
extern "C" __global__ void __launch_bounds__(256) tma8k(const float* x, float* y, u64 n, float s) { tma_body<8192, 6>(x, y, n, s); }
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=393216)
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=DeprecationWarning)  # cupy's ExternalStream

    mod = cupy.RawModule(code=SOURCE, options=("-arch=sm_90a", "-std=c++17"))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n = args.rows * args.cols
    assert n % (16384 // 4) == 0, "the bulk-copy form wants whole 16 KiB chunks"
    x = torch.randn(args.rows, args.cols, device="cuda")
    y = torch.empty_like(x)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    ref = F.leaky_relu(x, 0.01)  # exact: v > 0 ? v : v * 0.01 in fp32
    slope = cupy.float32(0.01)
    n4 = cupy.uint64(n // 4)

    def launch(name, grid, block, shared=0, count=None):
        fn = mod.get_function(name)
        if shared:
            fn.max_dynamic_shared_size_bytes = shared
        def go():
            with cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
                fn((grid,), (block,), (x.data_ptr(), y.data_ptr(), count if count is not None else n4, slope),
                   shared_mem=shared)
        return go

    forms = {
        "eager F.leaky_relu": lambda: F.leaky_relu(x, 0.01),
        "device copy": lambda: y.copy_(x),
        "reads alone (sum)": lambda: torch.sum(x),
        "writes alone (fill_)": lambda: y.fill_(1.0),
        "fuser": launch("fuser_form", min((n // 4 + 1023) // 1024, 2**31 - 1), 1024),
        "stream": launch("stream_form", min((n // 4 + 1023) // 1024, 2**31 - 1), 1024),
        "unroll4": launch("unroll4", sms * 8, 256),
        "unroll4s": launch("unroll4s", sms * 8, 256),
        "l2pf": launch("l2pf", sms * 8, 256),
        "tma": launch("tma", sms * 2, 256, shared=16384 * 6, count=cupy.uint64(n * 4 // 16384)),
        "tma32k 2/SM": launch("tma32k", sms * 2, 256, shared=32768 * 3, count=cupy.uint64(n * 4 // 32768)),
        "tma8k 4/SM": launch("tma8k", sms * 4, 256, shared=8192 * 6, count=cupy.uint64(n * 4 // 8192)),
        "reads alone (fuser form)": launch("read_only", min((n // 4 + 1023) // 1024, 2**31 - 1), 1024),
    }
    references = [k for k in forms if k in ("eager F.leaky_relu", "device copy") or "alone" in k]
    # Correctness first, on a NaN-poisoned output: every form is exact.
    for name, fn in forms.items():
        if name in references:
            continue
        y.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = (y - ref).abs().max().item()
        print(f"{name:>22}: max error {err:.3g}", flush=True)
        assert err == 0, name
    del ref

    times = {k: [] for k in forms}
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(2):
        for fn in forms.values():
            fn()
    for r in range(args.rounds):
        for name, fn in forms.items():
            flush.zero_()
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times[name].append(start.elapsed_time(end))
    eager = statistics.median(times["eager F.leaky_relu"])
    print(f"\n{torch.cuda.get_device_name()}  {args.rows} x {args.cols} fp32, {args.rounds} rounds")
    print(f"{'form':>22} {'median ms':>10} {'min ms':>8} {'TB/s':>6} {'vs eager':>8}")
    for name, t in times.items():
        med = statistics.median(t)
        moved = (1 if "alone" in name else 2) * n * 4
        print(f"{name:>22} {med:10.3f} {min(t):8.3f} {moved / med / 1e9:6.3f} {eager / med:8.3f}x")


if __name__ == "__main__":
    main()
