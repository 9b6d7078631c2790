"""fuser: run kernels compiled by the fuser MLIR compiler on CUDA tensors.

Typical use::

    import fuser
    art = fuser.Artifact.from_files("model.ptx", "model.manifest.json")
    mod = fuser.load(art)
    y = mod.forward(x)          # x: a CUDA torch/cupy tensor; y: same framework

`fuser.compile("model.mlir", chip="sm_90a")` makes the Artifact where the
compiler tools (fuser-opt, fuser-translate) are built; see fuser.compiler.
"""

from ._native import FuserError, TensorRef
from .artifact import Artifact
from .compiler import compile
from .frameworks import cuda_graphs, set_cuda_graphs
from .loader import EntryFunction, LoadedModule, load

__version__ = "0.1.0"

__all__ = [
    "Artifact",
    "EntryFunction",
    "FuserError",
    "LoadedModule",
    "TensorRef",
    "compile",
    "cuda_graphs",
    "load",
    "set_cuda_graphs",
    "__version__",
]
