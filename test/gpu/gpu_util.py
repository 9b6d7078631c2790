"""Helpers shared by the GPU tests: artifact loading, inputs, checks."""

import math
import os
from pathlib import Path

import pytest
import torch

import fuser

ARTIFACTS = Path(os.environ.get(
    "FUSER_ARTIFACTS", Path(__file__).resolve().parents[2] / ".artifacts"))


def load(stem):
    path = ARTIFACTS / f"{stem}.ptx"
    if not path.exists():
        pytest.skip(f"{path} missing: run scripts/build-gpu-artifacts.sh")
    return fuser.load(fuser.Artifact.from_files(
        path, ARTIFACTS / f"{stem}.manifest.json"))


def linear_weights(n_out, n_in, generator, dtype=torch.float32):
    """nn.Linear's default init: U(-1/sqrt(in), 1/sqrt(in)), both signs."""
    bound = 1.0 / math.sqrt(n_in)
    w = (torch.rand(n_out, n_in, device="cuda", generator=generator) * 2 - 1) * bound
    b = (torch.rand(n_out, device="cuda", generator=generator) * 2 - 1) * bound
    return w.to(dtype), b.to(dtype)


def randn(shape, generator, scale=3.0):
    """Both signs, with some exact zeros mixed in (LeakyReLU's kink)."""
    x = torch.randn(shape, device="cuda", generator=generator) * scale
    if x.numel() > 8:
        x.view(-1)[:: max(1, x.numel() // 7)] = 0.0
    return x


def uniform(shape, generator, scale=1.0):
    """Uniform in [-scale, scale): fresh values of both signs."""
    return (torch.rand(*shape, device="cuda", generator=generator) * 2 - 1) * scale


def check_both(name, out, ref64, eager, tol=1e-4, what="eager fp32"):
    """`check` against float64, then allclose to eager (what users check)
    at `tol` (the users' fp32 rule by default); prints eager's own max
    error. Returns both max errors."""
    ours = check(name, out, ref64, tol)
    theirs = float((eager.double() - ref64).abs().max()) if eager.numel() else 0.0
    print(f"[gpu tests] {name}: {what} max abs error {theirs:.3e}")
    assert torch.allclose(out, eager, atol=tol, rtol=tol), \
        f"{name}: differs from {what} beyond {tol}"
    return ours, theirs


def poisoned(shape):
    return torch.full(shape, float("nan"), device="cuda")


def check(name, out, ref, tol):
    """Every element written (no NaN left where the reference has none),
    then allclose against the float64 reference; returns the max error."""
    assert out.shape == ref.shape, f"{name}: shape {tuple(out.shape)} != {tuple(ref.shape)}"
    written = torch.isnan(out) == torch.isnan(ref)
    assert bool(written.all()), f"{name}: {int((~written).sum())} elements unwritten or NaN-mismatched"
    err = (out.double() - ref).abs().nan_to_num(0.0)
    max_err = float(err.max()) if err.numel() else 0.0
    print(f"[gpu tests] {name}: max abs error {max_err:.3e} over {out.numel()} elements")
    assert torch.allclose(out.double(), ref, atol=tol, rtol=tol, equal_nan=True), \
        f"{name}: max abs error {max_err:.3e} exceeds tolerance {tol}"
    return max_err
