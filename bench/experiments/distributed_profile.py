"""Where a distributed training step's time goes: per wrapper (DDP, FSDP2,
dynamo under DDP) and per side (fuser's kernels, eager PyTorch), rank 0's
kernels from torch.profiler over --steps steps (the step of
test/gpu/Inputs/distributed_train.py: forward, MSE, backward, SGD), the
step's wall time from CUDA events, and the time the GPU ran no kernel
(the step minus the union of its kernels' intervals). Also times
all_reduce alone on the sizes of the models' gradients.

Usage (a torchrun worker on the 2-GPU machine, NVLink multicast off):
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
  PYTHONPATH=$PWD/build-gpu/python_packages FUSER_ARTIFACTS=$PWD/.artifacts \\
      python3 -m torch.distributed.run --nproc-per-node 2 \\
      bench/experiments/distributed_profile.py [--names w2] [--forms ddp fsdp2]
"""

import argparse
import copy
import sys
from collections import defaultdict
from pathlib import Path

import torch
import torch.distributed as dist

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
import distributed_train as dt  # noqa: E402


def all_reduce_times(sizes_mb, iters=20):
    """{MB: (ms, GB/s of bus bandwidth)} of dist.all_reduce on fp32."""
    out = {}
    n = dist.get_world_size()
    for mb in sizes_mb:
        t = torch.ones(mb << 18, device="cuda")
        for _ in range(3):
            dist.all_reduce(t)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        start.record()
        for _ in range(iters):
            dist.all_reduce(t)
        end.record()
        end.synchronize()
        ms = start.elapsed_time(end) / iters
        out[mb] = (ms, mb * 2**20 * 2 * (n - 1) / n / (ms * 1e6))
    return out


def profile_steps(net, x, target, steps):
    """(mean step ms, {kernel: (launches, us) per step}, idle us per step,
    the last step's kernels as (start us, duration us, name))."""
    from torch.profiler import ProfilerActivity, profile

    opt = torch.optim.SGD(net.parameters(), lr=0.0)
    mse = torch.nn.functional.mse_loss

    def step():
        opt.zero_grad(set_to_none=True)
        mse(net(x), target).backward()
        opt.step()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    spans = []
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            dist.barrier()
            start, end = (torch.cuda.Event(enable_timing=True),
                          torch.cuda.Event(enable_timing=True))
            start.record()
            step()
            end.record()
            end.synchronize()
            spans.append(start.elapsed_time(end))
    totals = defaultdict(lambda: [0, 0.0])
    intervals = []
    for ev in prof.events():
        if ev.device_type != torch.autograd.DeviceType.CUDA:
            continue
        totals[ev.name][0] += 1
        totals[ev.name][1] += ev.device_time_total
        intervals.append((ev.time_range.start, ev.time_range.end, ev.name))
    busy, last = 0.0, None
    intervals.sort()
    for s, e, _ in intervals:
        if last is None or s > last:
            busy += e - s
            last = e
        elif e > last:
            busy += e - last
            last = e
    ms = sum(spans) / len(spans)
    per_step = {k: (n / steps, us / steps) for k, (n, us) in totals.items()}
    # Every step (its barrier included) launches the same kernels.
    last = intervals[-(len(intervals) // steps):]
    return ms, per_step, ms * 1000 - busy / steps, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=["w2", "w3"])
    ap.add_argument("--forms", nargs="+", default=["ddp", "fsdp2", "dynamo-ddp"])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--limit", type=int, default=14)
    args = ap.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.backends.cuda.matmul.allow_tf32 = False
    for mb, (ms, bw) in all_reduce_times([1, 32, 128, 256]).items():
        if rank == 0:
            print(f"[all_reduce] {mb:4d} MB fp32: {ms:.3f} ms, bus {bw:.0f} GB/s", flush=True)
    for name in args.names:
        for form in args.forms:
            base, entry = dt.build(name, rank)
            x = torch.rand(entry["shape"], device="cuda")
            with torch.no_grad():
                target = torch.randn_like(base(x))
            for label, model in (("fuser", base), ("eager", copy.deepcopy(base))):
                if form == "dynamo-ddp":
                    torch._dynamo.reset()
                net = dt.wrap(form, model, label == "fuser", rank, name)
                ms, kernels, idle, last = profile_steps(net, x, target, args.steps)
                if rank == 0:
                    total = sum(us for _, us in kernels.values())
                    print(f"\n[profile] {name} {form} {label}: step {ms:.3f} ms, kernels "
                          f"{total / 1000:.3f} ms, GPU idle {idle / 1000:.3f} ms", flush=True)
                    for k, (n, us) in sorted(kernels.items(), key=lambda kv: -kv[1][1])[
                            :args.limit]:
                        print(f"[profile]   {us:9.1f} us x{n:<4.1f} {k[:100]}", flush=True)
                    t0, prev = last[0][0], last[0][0]
                    for s, e, k in last:
                        print(f"[timeline] {s - t0:8.1f} +{e - s:7.1f} gap {s - prev:6.1f}  {k[:70]}")
                        prev = max(prev, e)
                del net
            del base
            torch.cuda.empty_cache()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
