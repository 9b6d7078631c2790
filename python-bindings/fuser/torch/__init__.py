"""fuser.torch: PyTorch modules through fuser's kernels.

    import fuser.torch
    compiled = fuser.torch.compile(model, (x,), dynamic="batch")
    y = compiled(x)                       # fuser's kernels, model's weights
    trained = fuser.torch.compile(model, (x,), training=True)
    trained(x).sum().backward()           # fuser's backward kernels: .grad
    @fuser.torch.elementwise              # fn's forward and backward kernels
    def leaky(x, slope): return torch.where(x > 0, x, x * slope)
    leaky.forward(x, 0.1); leaky.backward(dy, x, 0.1); leaky(x, 0.1)
    import fuser.torch.dynamo             # torch.compile(m, backend="fuser")
    print(compiled.fuser_report())        # kernels; fused where, or not and why
    fuser.torch.save(compiled, "model.fuser")
    again = fuser.torch.load("model.fuser", module=model)   # no MLIR needed

compile() exports with torch-mlir (imported on first use) and compiles with
fuser's compiler tools; save()/load() and the module they give need only
torch and fuser's runtime. `python -m fuser.torch.kernelbench problem.py -o
model_new.py` turns a problem file (Model, get_inputs, get_init_inputs) into
a self-contained ModelNew file.
"""

try:
    import torch  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the install
    raise ImportError("fuser.torch needs PyTorch (pip install torch)") from e

# The layers, each importing only those before it (torch-mlir is imported
# inside the export functions, not here: loading a package must work where
# torch-mlir is not installed):
#   _remarks, _package      the package: spec, variants, remarks, dtypes
#   _runtime/               CompiledModule, TrainingModule, autograd glue,
#                           the compiler interface they are handed
#   _save_load              save() / load()
#   _export/                binding, torch.export, torch-mlir's import
#   _lowering/              FX rewrites, AOTAutograd's partition, the plan
#   _conversion/            fuser.compile through the cache; the compilers
#   _compiler               compile(), add_variant()
#   _elementwise, kernelbench, dynamo, _partitioned (compile() for models
#   with ops left to PyTorch): on top.
from ._compiler import add_variant
from ._partitioned import PartitionedModule, compile
from ._elementwise import ElementwiseKernel, elementwise, load_elementwise
from ._package import Package, Variant
from ._remarks import Remark, parse_remarks
from ._runtime import (CompiledModule, TrainingModule, check_init_arguments,
                       compiled_forward)
from ._save_load import load, save

# torch.compile(backend="fuser"): registered by fuser.torch.dynamo, imported
# here when torch._dynamo already is (importing it costs seconds).
import sys as _sys
if "torch._dynamo" in _sys.modules:
    try:
        from . import dynamo as _dynamo  # noqa: F401
    except ImportError:  # pragma: no cover - a torch without these APIs.
        pass

__all__ = ["CompiledModule", "ElementwiseKernel", "Package",
           "PartitionedModule", "Remark",
           "TrainingModule", "Variant", "add_variant", "check_init_arguments",
           "compile", "compiled_forward", "elementwise", "load", "load_elementwise",
           "parse_remarks", "save"]
