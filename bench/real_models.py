#!/usr/bin/env python3
"""Blocks of real models (transformers' BERT, GPT-2, LLaMA and ViT layers,
timm's ViT block and MLPs; test/gpu/Inputs/model_blocks.py) at a small size
and at BERT-base's width: fuser against eager and torch.compile, by
memory_bound.py's protocol (allclose to eager at 1e-4, errors against a
float64 run, CUDA events with L2 flushed, mean), with each kernel's
device time. Every op of a transformer block runs in fuser's kernels
(compiled with fallback=False). timm's ConvNeXt and ResNet blocks compile
partitioned: their convolutions run in PyTorch (cuDNN), the rest in
fuser's kernels, loaded on the GPU through torch.compile(backend="fuser")
from the graph cache --build wrote (memory_bound.build_partitioned).

    PYTHONPATH=build/python_packages .venv/bin/python bench/real_models.py --build
    FUSER_ARTIFACTS=.artifacts python3 bench/real_models.py [--only a,b] [--out DIR]

Both machines need transformers and timm (the GPU machine builds the eager
blocks from the same configs, with the package's weights).
"""

import sys
from pathlib import Path

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


if __name__ == "__main__":
    sys.exit(memory_bound.main(MODELS, OUT, "Blocks of real models", __doc__.splitlines()[0],
                               iters=20))
