"""W1 kernel variants (bench/experiments/w1_variants.cu) against eager, interleaved, the
users' timing (L2 flushed before each call). Builds the .cu with nvcc into
$OUT-or-/tmp, checks every variant equal to eager first (small and real
size), then times them. A probe for issue #13; needs only torch and nvcc.

    python3 bench/experiments/w1_variants.py [--rounds R] [--iters N]
"""

import argparse
import ctypes
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
from bench import time_interleaved  # noqa: E402

VARIANTS = [0, 1, 8, 9, 10, 11, 12, 3]


def build():
    src = Path(__file__).with_suffix(".cu")
    lib = Path(tempfile.gettempdir()) / "w1_variants.so"
    subprocess.run(["nvcc", "-O3", "-arch=sm_90a", "-shared", "-Xcompiler", "-fPIC",
                    "-o", str(lib), str(src)], check=True)
    so = ctypes.CDLL(str(lib))
    so.w1_launch.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long,
                             ctypes.c_float, ctypes.c_void_p]
    so.w1_variant_name.restype = ctypes.c_char_p
    return so


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--variants", type=lambda s: [int(v) for v in s.split(",")],
                   default=VARIANTS, help="comma-separated variant numbers")
    args = p.parse_args()
    so = build()

    def call(v, x, y):
        rc = so.w1_launch(v, x.data_ptr(), y.data_ptr(), x.numel(), 0.01,
                          torch.cuda.current_stream().cuda_stream)
        if rc:
            raise RuntimeError(f"variant {v}: launch error {rc}")
        return y

    names = {v: so.w1_variant_name(v).decode() for v in args.variants}
    for shape in [(3, 2**20), (4096, 393216)]:
        x = torch.randn(shape, device="cuda")
        ref = F.leaky_relu(x, 0.01)
        for v in args.variants:
            y = torch.full_like(x, float("nan"))
            call(v, x, y)
            torch.cuda.synchronize()
            ok = torch.equal(y, ref)
            print(f"[w1 variants] {shape} {names[v]:42s} equal to eager: {ok}")
            if not ok:
                raise SystemExit(f"variant {v} differs")
        del ref
    out = torch.empty_like(x)
    fns = {"eager": lambda: F.leaky_relu(x, 0.01)}
    for v in args.variants:
        fns[names[v]] = (lambda v=v: call(v, x, out))
    res = time_interleaved(fns, args.iters, rounds=args.rounds)
    e = res["eager"]["median_ms"]
    gb = 2 * x.numel() * 4 / 1e9
    for k, r in res.items():
        print(f"[w1 variants] {k:42s} {r['median_ms']:.4f} ms {gb / r['median_ms'] * 1e3:.0f} GB/s"
              f"  vs eager {e / r['median_ms']:.4f}x  rounds {[round(t, 4) for t in r['round_medians_ms']]}")


if __name__ == "__main__":
    main()
