#!/usr/bin/env python3
"""GEMMs in the shapes and layouts users write (KernelBench's problem files
in test/gpu/Inputs/problems: irregular pitches, 3-D and 4-D operands, masked
products, row reductions after a Linear; and the shape classes: square,
tall-skinny, small and large K, matrix-vector, x @ W, bmm) at their real
sizes, with the kernel each got and why (its remarks): fuser against
eager and torch.compile, by memory_bound.py's protocol (allclose to eager at
1e-4, errors against a float64 run, CUDA events with L2 flushed, mean), with
each kernel's device time. The models keep their own initialisation and
take KernelBench's torch.rand inputs. The TB/s columns count the inputs and
outputs only: these models are bound by the tensor cores, not by memory.

    PYTHONPATH=build/python_packages .venv/bin/python bench/gemm_models.py --build
    FUSER_ARTIFACTS=.artifacts python3 bench/gemm_models.py [--only a,b] [--out DIR]
"""

import importlib.util
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import memory_bound  # noqa: E402
from bench import ARTIFACTS  # noqa: E402

OUT = ARTIFACTS / "gemm_models"
PROBLEMS = Path(__file__).resolve().parent.parent / "test" / "gpu" / "Inputs" / "problems"
NAMES = ("matmul_irregular", "matmul_3d_tensor", "einsum_4d_tensor",
         "gemm_divide_sum_scaling", "linear_sigmoid_sum", "linear_max_subtract_gelu",
         "linear_gelu_softmax", "linear_maxpool_sum_scale")


def _problem(name):
    spec = importlib.util.spec_from_file_location(name, PROBLEMS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with torch.device("meta"):
        shapes = [tuple(t.shape) for t in mod.get_inputs()]
    return (lambda: mod.Model(*mod.get_init_inputs())), shapes, "gemm"


# memory_bound's table form: name -> (factory, input shapes, kind).
MODELS = {name: _problem(name) for name in NAMES}
# torch.triu / tril of a product at 4096^2 (the corpus's files take 2048).
MODELS["triu_matmul_4096"] = (lambda: memory_bound.Fn(lambda a, b: torch.triu(a @ b)),
                              [(4096, 4096), (4096, 4096)], "gemm")
MODELS["tril_matmul_4096"] = (lambda: memory_bound.Fn(lambda a, b: torch.tril(a @ b)),
                              [(4096, 4096), (4096, 4096)], "gemm")
# The shape classes of bench/suite.py's gemm topic, as the models users write.
_CLASSES = {
    "square": (lambda a, b: a @ b.T, [(4096, 4096), (4096, 4096)]),
    "tall_skinny": (lambda a, b: a @ b.T, [(32768, 1024), (1024, 1024)]),
    "small_k": (lambda a, b: a @ b.T, [(8192, 32), (8192, 32)]),
    "large_k": (lambda a, b: a @ b.T, [(256, 131072), (256, 131072)]),
    "matvec": (lambda a, x: a @ x, [(8192, 8192), (8192, 1)]),
    "linear_odd": (lambda a, b: a @ b.T, [(1000, 1000), (3000, 1000)]),
    "square_nn": (lambda a, b: a @ b, [(4096, 4096), (4096, 4096)]),
    "bmm": (torch.bmm, [(32, 1024, 1024), (32, 1024, 1024)]),
}
for _name, (_fn, _shapes) in _CLASSES.items():
    MODELS[_name] = ((lambda fn: lambda: memory_bound.Fn(fn))(_fn), _shapes, "gemm")


if __name__ == "__main__":
    sys.exit(memory_bound.main(MODELS, OUT, "GEMM models", __doc__.splitlines()[0]))
