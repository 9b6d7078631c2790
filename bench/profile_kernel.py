#!/usr/bin/env python3
"""Runs one compiled matmul kernel a few times, for `ncu` to profile: W2's
shape (x, W, b), or with M,N,K a bare x * W^T; float32 operands, or the
dtype named last (bfloat16, float16).

usage: ncu -k regex:matmul -c 1 python3 bench/profile_kernel.py <artifact stem> [M,N,K|w2] [dtype]
"""
import os
import sys
from pathlib import Path

import torch

import fuser

stem = sys.argv[1] if len(sys.argv) > 1 else "matmul_w2"
art = Path(os.environ.get("FUSER_ARTIFACTS", ".artifacts"))
mod = fuser.load(fuser.Artifact.from_files(art / f"{stem}.ptx", art / f"{stem}.manifest.json"))
dtype = getattr(torch, sys.argv[3]) if len(sys.argv) > 3 else torch.float32
if len(sys.argv) > 2 and sys.argv[2] != "w2":  # M,N,K of a bare x * W^T
    m, n, k = (int(v) for v in sys.argv[2].split(","))
    x = torch.rand(m, k, device="cuda", dtype=dtype) - 0.5
    w = torch.rand(n, k, device="cuda", dtype=dtype) - 0.5
    args = (x, w)
else:
    x = torch.rand(1024, 8192, device="cuda", dtype=dtype)
    w = torch.rand(8192, 8192, device="cuda", dtype=dtype) - 0.5
    args = (x, w, torch.rand(8192, device="cuda", dtype=dtype))
out = torch.empty(x.shape[0], w.shape[0], device="cuda", dtype=dtype)
for _ in range(3):
    mod.forward(*args, out=out)
torch.cuda.synchronize()
print("ok", stem)
