"""Where a compiled module's host time per call goes: one small model
(host/<name>.fuser of scripts/build-torch-artifacts.py) called through each
layer of the call path in turn, against eager PyTorch's op and the
pieces every call pays (torch.empty, the stream query, data_ptr). Each
figure is the median host time of one call with the GPU idle before it
(bench/host_overhead.py's host_us); then a cProfile of the module's calls.

    PYTHONPATH=build-gpu/python_packages FUSER_ARTIFACTS=.artifacts \\
        python3 bench/experiments/call_overhead.py [--model gelu_16x16384]
"""

import argparse
import cProfile
import io
import pstats
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "test" / "gpu" / "Inputs"))
import bench  # noqa: E402
import torch_models  # noqa: E402
from host_overhead import host_us  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="gelu_16x16384")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--loop", type=int, default=0,
                   help="only call the module this many times (for perf record)")
    args = p.parse_args()
    warnings.filterwarnings("ignore")
    import fuser.torch as ft

    model = torch_models.build_host(args.model, device="cuda")
    _, _, shape, _ = torch_models.HOST[args.model]
    compiled = ft.load(bench.ARTIFACTS / "torch" / "host" / f"{args.model}.fuser",
                       module=model)
    x = torch.randn(shape, device="cuda")
    tensors = compiled._fuser_tensors((x,), {})
    launch = compiled._fuser_launch
    raw = torch._C._cuda_getCurrentRawStream
    layers = {
        "eager module": lambda: model(x),
        "fuser module": lambda: compiled(x),
        "fuser .forward": lambda: compiled.forward(x),
        "_fuser_tensors": lambda: compiled._fuser_tensors((x,), {}),
        "_fuser_run": lambda: compiled._fuser_run(tensors),
        "TorchCall": lambda: launch(tensors),
        "TorchLauncher (native)": lambda: launch._launcher(tensors),
        "torch.empty": lambda: torch.empty(shape, dtype=torch.float32, device=x.device),
        "torch.empty (no dtype)": lambda: torch.empty(shape, device=x.device),
        "x.new_empty": lambda: x.new_empty(shape),
        "torch.empty_like": lambda: torch.empty_like(x),
        "x.shape, x.stride()": lambda: (x.shape, x.stride()),
        "current raw stream": lambda: raw(0),
        "x.data_ptr()": lambda: x.data_ptr(),
        "torch.is_autocast_enabled": lambda: torch.is_autocast_enabled("cuda"),
        "nothing": lambda: None,
    }
    if args.loop:
        with torch.no_grad():
            for i in range(args.loop):
                compiled(x)
                if i % 512 == 0:
                    torch.cuda.synchronize()
        torch.cuda.synchronize()
        return
    with torch.no_grad():
        for name, fn in layers.items():
            print(f"[overhead] {name:28s} {host_us(fn, args.calls):6.2f} us")
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.calls):
            compiled(x)
        prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(14)
    print("\n".join("[overhead] " + line for line in s.getvalue().splitlines()
                    if line.strip()))


if __name__ == "__main__":
    main()
