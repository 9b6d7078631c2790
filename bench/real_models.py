#!/usr/bin/env python3
"""Blocks of real models (transformers' BERT, GPT-2, LLaMA and ViT layers,
timm's ViT block and MLPs; test/gpu/Inputs/model_blocks.py) at a small size
and at BERT-base's width: fuser against eager and torch.compile, by
memory_bound.py's protocol (allclose to eager at 1e-4, errors against a
float64 run, CUDA events with L2 flushed, mean), with each fuser kernel's
device time: every op of a block runs in fuser's kernels (compiled with
fallback=False), so the kernels' times are the block's whole device time.

    PYTHONPATH=build/python_packages .venv/bin/python bench/real_models.py --build
    FUSER_ARTIFACTS=.artifacts python3 bench/real_models.py [--only a,b] [--out DIR]

Both machines need transformers and timm (the GPU machine builds the eager
blocks from the same configs, with the package's weights).
"""

import argparse
import json
import sys
import traceback
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test" / "gpu" / "Inputs"))
import memory_bound  # noqa: E402
import model_blocks  # noqa: E402
from bench import ARTIFACTS  # noqa: E402

OUT = ARTIFACTS / "real_models"


def _factory(name):
    # No seed of its own: run_one seeds per model before it builds one.
    return lambda: model_blocks.build(name, seed=None)


# memory_bound's table form: name -> (factory, input shapes, kind).
MODELS = {name: (_factory(name), [model_blocks.shape(name)], "block")
          for name in model_blocks.MODELS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="store_true", help="compile the packages (needs torch-mlir)")
    ap.add_argument("--only", help="comma-separated model names")
    ap.add_argument("--list", action="store_true", help="name the models")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-compile", action="store_true", help="no torch.compile column")
    ap.add_argument("--out", type=Path, help="write <out>.md and <out>.json")
    a = ap.parse_args()
    names = a.only.split(",") if a.only else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown models {unknown}; --list names them")
    if a.list:
        print("\n".join(f"{n}: {MODELS[n][1][0]}" for n in MODELS))
        return 0
    if a.build:
        memory_bound.build(names, MODELS, OUT)
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    for name in names:
        try:
            row = memory_bound.run_one(name, a.iters, a.rounds, not a.skip_compile,
                                       MODELS, OUT)
        except Exception as e:  # one model's failure does not end the table
            traceback.print_exc()
            row = {"name": name, "kind": "block", "error": f"{type(e).__name__}: {e}"}
            torch.cuda.empty_cache()
        rows.append(row)
        print(json.dumps(row), flush=True)
    device = torch.cuda.get_device_name()
    text = memory_bound.markdown(rows, device, "Blocks of real models")
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.with_suffix(".md").write_text(text)
        a.out.with_suffix(".json").write_text(json.dumps({"device": device, "rows": rows},
                                                         indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
