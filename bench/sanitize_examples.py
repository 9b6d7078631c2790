#!/usr/bin/env python3
"""Runs every example once at its real size, for compute-sanitizer (the test
suite's sanitizer runs use small shapes; this covers the shipped kernels as
built for the workloads). usage: compute-sanitizer --tool T python3 bench/sanitize_examples.py"""
import os
from pathlib import Path

import torch

import fuser

ART = Path(os.environ.get("FUSER_ARTIFACTS", ".artifacts"))


def load(stem):
    return fuser.load(fuser.Artifact.from_files(ART / f"{stem}.ptx", ART / f"{stem}.manifest.json"))


def main():
    x = torch.randn(1024, 8192, device="cuda")
    w = torch.randn(8192, 8192, device="cuda") * 0.01
    b, g, be = (torch.randn(8192, device="cuda") for _ in range(3))
    # racecheck takes minutes per full-size GEMM; its kernels (same builder,
    # same epilogues) pass racecheck in the small-shape tests.
    if os.environ.get("FUSER_SANITIZE_TOOL") != "racecheck":
        load("w2_linear_scale_leaky").forward(x, w, b)
        load("w3_linear_groupnorm").forward(x, w, b, g, be)
    load("pointwise_chain").forward(torch.randn(4096, 1000, device="cuda"), torch.randn(1000, device="cuda"))
    load("w1_leaky_relu_dynamic").forward(torch.randn(333, 4097, device="cuda"))
    # W1 static is 6.4 GB: checked at full size by test_w1_static_full_size; a
    # fraction of its grid here keeps the tools' shadow memory affordable.
    if os.environ.get("FUSER_SANITIZE_W1_FULL"):
        load("w1_leaky_relu_static").forward(torch.randn(4096, 393216, device="cuda"))
    torch.cuda.synchronize()
    print("examples ran")


if __name__ == "__main__":
    main()
