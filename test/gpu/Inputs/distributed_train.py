"""fuser's training modules under torch.distributed, one process per GPU
(started by torchrun): test/gpu/test_torch_distributed.py checks what it
prints, bench/distributed.py times it.

Per model (the training packages of scripts/build-torch-artifacts.py) and
form, the same model trains for --steps SGD steps (MSE against a target,
each rank its own data batch, which does not require grad) twice: through
fuser's kernels and eagerly, wrapped the same way:

  ddp          DistributedDataParallel around fuser.torch.load's training
               module (it shares the model's parameters) / around the model
  fsdp2        torch.distributed.fsdp.fully_shard on the training module
               (the parameters it gathers before the forward are the ones
               the kernels read; the gradients of the backward kernels are
               reduce-scattered) / on the model
  dynamo-ddp   torch.compile(backend="fuser") of the DDP-wrapped model
               (dynamo splits the graph at DDP's bucket boundaries; the
               graphs load from .artifacts/torch/dynamo) / the DDP model

Rank 0 prints one JSON line per (model, form): the largest difference of
the losses and of the full parameters after the steps between the two runs
over every rank, and with --time the mean step time of each: one step
between CUDA events after an L2 flush and a barrier (after warm-up steps),
and in steady state (the steps back to back, the host queueing ahead).

    torchrun --nproc-per-node 2 test/gpu/Inputs/distributed_train.py \\
        --names w2_small w3_small --forms ddp fsdp2 [--time]
"""

import argparse
import copy
import json
import os
import statistics
import sys
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).parent))
import torch_models  # noqa: E402

ARTIFACTS = Path(os.environ.get("FUSER_ARTIFACTS", ".artifacts")) / "torch"
LR = 0.05
# The environment torchrun starts this worker with: NVLink multicast off in
# NCCL, PyTorch and NVSHMEM (a program using it can take the host's shared
# GPUs out of service).
NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                "NVSHMEM_DISABLE_NVLS": "1"}


def build(name, rank):
    """(the eager model on this rank's GPU, the index entry)."""
    index = json.loads((ARTIFACTS / "index.json").read_text())
    entry = index["training"][name]
    torch.manual_seed(0)  # The same weights on every rank.
    model = torch_models.problem(entry["seed"]).Model(*entry["init"])
    return model.cuda(rank), entry


def wrap(form, model, fused, rank, name):
    """The module a step calls: `fused` says whether fuser's kernels run."""
    import fuser.torch as ft
    from torch.nn.parallel import DistributedDataParallel as DDP

    if form == "ddp":
        if fused:
            model = ft.load(ARTIFACTS / "training" / f"{name}.fuser",
                            module=model)
        return DDP(model, device_ids=[rank])
    if form == "fsdp2":
        from torch.distributed.fsdp import fully_shard
        if fused:
            model = ft.load(ARTIFACTS / "training" / f"{name}.fuser",
                            module=model)
        return fully_shard(model)
    if form == "dynamo-ddp":
        net = DDP(model, device_ids=[rank])
        if not fused:
            return net
        import fuser.torch.dynamo as fd  # noqa: F401 - registers "fuser"
        os.environ["FUSER_CACHE_DIR"] = str(ARTIFACTS / "dynamo")
        return torch.compile(net, backend="fuser", dynamic=False,
                             options={"fallback": False})
    raise SystemExit(f"unknown form {form}")


def full(p):
    return p.full_tensor() if hasattr(p, "full_tensor") else p


def flush_l2(buf):
    buf.zero_()


def train(net, xs, targets, time_it):
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    mse = torch.nn.functional.mse_loss
    losses = []
    for x, t in zip(xs, targets):
        opt.zero_grad(set_to_none=True)
        loss = mse(net(x), t)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    ms = None
    if time_it:
        buf = torch.empty(64 << 20, device=xs[0].device)  # 256 MB
        times = []
        step_opt = torch.optim.SGD(net.parameters(), lr=0.0)
        for i in range(time_it):
            step_opt.zero_grad(set_to_none=True)
            flush_l2(buf)
            dist.barrier()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            mse(net(xs[i % len(xs)]), targets[i % len(xs)]).backward()
            step_opt.step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        ms = statistics.fmean(times[3:])
        # Steady state, as a training loop runs: the steps back to back
        # between two events, the host queueing ahead (no flush, no sync).
        dist.barrier()
        start.record()
        for i in range(time_it):
            step_opt.zero_grad(set_to_none=True)
            mse(net(xs[i % len(xs)]), targets[i % len(xs)]).backward()
            step_opt.step()
        end.record()
        end.synchronize()
        ms = (ms, start.elapsed_time(end) / time_it)
    params = [full(p).detach().clone() for p in net.parameters()]
    return torch.stack(losses), params, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", nargs="+", default=["w2_small", "w3_small"])
    ap.add_argument("--forms", nargs="+", default=["ddp", "fsdp2"])
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--time", type=int, default=0,
                    help="time this many steps (the first 3 discarded)")
    args = ap.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for name in args.names:
        for form in args.forms:
            base, entry = build(name, rank)
            eager_model = copy.deepcopy(base)
            g = torch.Generator(device="cuda")
            g.manual_seed(1000 + rank)  # Each rank its own batches.
            xs = [torch.rand(entry["shape"], device="cuda", generator=g)
                  for _ in range(args.steps)]
            with torch.no_grad():
                shape = base(xs[0]).shape
            targets = [torch.randn(shape, device="cuda", generator=g)
                       for _ in xs]
            runs = {}
            for label, model in (("fuser", base), ("eager", eager_model)):
                if form == "dynamo-ddp":
                    torch._dynamo.reset()
                net = wrap(form, model, label == "fuser", rank, name)
                runs[label] = train(net, xs, targets, args.time)
                del net
            (lf, pf, tf), (le, pe, te) = runs["fuser"], runs["eager"]
            diff = torch.stack([(lf - le).abs().max()] + [
                (a - b).abs().max() for a, b in zip(pf, pe)]).max()
            ok = all(torch.allclose(b, a, atol=1e-4, rtol=1e-4)
                     for a, b in zip(pf, pe)) and torch.allclose(
                         le, lf, atol=1e-4, rtol=1e-4)
            ok_t = torch.tensor([float(ok)], device="cuda")
            dist.all_reduce(diff, op=dist.ReduceOp.MAX)
            dist.all_reduce(ok_t, op=dist.ReduceOp.MIN)
            record = {"name": name, "form": form, "ranks": dist.get_world_size(),
                      "max_abs_diff": float(diff), "allclose_1e-4": bool(ok_t.item()),
                      "losses": [round(float(v), 6) for v in lf]}
            if args.time:
                t = torch.tensor([*tf, *te], device="cuda")
                dist.all_reduce(t, op=dist.ReduceOp.MAX)
                record.update(fuser_ms=float(t[0]), eager_ms=float(t[2]),
                              speedup=float(t[2] / t[0]),
                              fuser_steady_ms=float(t[1]), eager_steady_ms=float(t[3]),
                              speedup_steady=float(t[3] / t[1]))
            if rank == 0:
                print("[distributed] " + json.dumps(record), flush=True)
            del base, eager_model, runs, xs, targets
            torch.cuda.empty_cache()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
