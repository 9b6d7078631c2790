#!/usr/bin/env python3
"""Runs one compiled W2-shaped kernel a few times, for `ncu` to profile.

usage: ncu -k regex:matmul -c 1 python3 bench/profile_kernel.py <artifact stem>
"""
import os
import sys
from pathlib import Path

import torch

import fuser

stem = sys.argv[1] if len(sys.argv) > 1 else "matmul_w2"
art = Path(os.environ.get("FUSER_ARTIFACTS", ".artifacts"))
mod = fuser.load(fuser.Artifact.from_files(art / f"{stem}.ptx", art / f"{stem}.manifest.json"))
x = torch.rand(1024, 8192, device="cuda")
w = torch.rand(8192, 8192, device="cuda") - 0.5
b = torch.rand(8192, device="cuda")
out = torch.empty(1024, 8192, device="cuda")
for _ in range(3):
    mod.forward(x, w, b, out=out)
torch.cuda.synchronize()
print("ok", stem)
