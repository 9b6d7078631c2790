"""fuser.torch.compile: an nn.Module through torch-mlir and fuser, the top
of the front end (every layer below imports nothing from here).

1. Bind the example inputs to forward's signature: tensors become kernel
   arguments, anything else (numbers, flags) a constant of the export
   (_export/binding.py).
2. Export a functional wrapper (torch.func.functional_call) whose arguments
   are the module's parameters and buffers, then the tensor inputs, with
   torch.export on `meta` tensors, else fake CPU ones (_export/program.py),
   and lower it with
   torch-mlir's FX importer to linalg on tensors (_export/mlir.py); for
   training, AOTAutograd's forward and backward graphs (_lowering/).
3. Compile the text with fuser.compile through the on-disk cache
   (_conversion/). If fusion fails, compile again with fuse=false (every
   op alone, the fallback lowering) with a warning; if that fails too, or
   the export does, the module runs eagerly and says why. fallback=False
   raises at the first failure instead.
4. The runtime module (_runtime/) runs the package, handed the compiler
   (ForwardCompiler, TrainingCompiler) for the variants it lacks.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Callable, List, Mapping, Optional, Union

import torch

from .._native import FuserError
from ..compiler import find_tools
from ._conversion.cache import make_cache
from ._conversion.forward import ForwardCompiler, variant_base
from ._conversion.fuser_compile import short_error
from ._conversion.training import TrainingCompiler
from ._export.binding import DynamicSpec
from ._export.autocast import cuda_autocast
from ._lowering.graph_split import LeftToPyTorch
from ._package import (AUTOCAST_DTYPES, TRAINING_PACKAGE_VERSION, Package,
                       Variant, current_autocast)
from ._remarks import Remark
from ._runtime import CompiledModule, TrainingModule, VariantCompiler, \
    make_compiled


def compile(module: torch.nn.Module, example_inputs: Any, *,
            dynamic: DynamicSpec = None, precision: str = "fp32",
            chip: str = "sm_90a", report: bool = False, format: str = "ptx",
            options: Optional[Mapping[str, Any]] = None,
            cache: Union[bool, str, "os.PathLike[str]"] = True,
            fallback: bool = True, training: bool = False
            ) -> CompiledModule:
    """Compiles `module` for `example_inputs` into fuser kernels.

    Returns an nn.Module with the same forward signature whose forward runs
    the kernels on the module's current parameters and buffers (shared with
    `module`: load_state_dict, .to() and weight updates take effect).

    - `example_inputs`: forward's positional arguments (a tensor or a
      tuple). Only their shapes and dtypes matter: they are exported as
      `meta` tensors (fake CPU tensors where torch-mlir cannot lower the
      meta export). Non-tensor arguments are constants of the kernels.
    - `dynamic`: None (static shapes), True or "batch" (dim 0 of every
      tensor argument, one shared size), or {argument name or index: dims}
      with dims an int, a list of ints, or {dim: name} (a shared name is a
      shared size; a torch.export.Dim may stand for a name).
    - `precision`, `chip`, `format` ("ptx" or "cubin"), `options` (other
      pipeline options, e.g. {"fp32-kernel": "ffma"}): as fuser.compile.
    - `report`: print fuser_report() (kernels, and every remark at its line
      of the model) to stderr; the remarks are kept either way
      (`compiled.fuser_remarks`).
    - `cache`: the on-disk compile cache (True: the default directory, a
      path, or False).
    - `fallback`: when fusion fails, the module is compiled again with
      every op alone (fuse=false), and a warning and a remark say so; when
      that fails too, or the export does, the module runs eagerly with a
      warning (`compiled.fuser_fallback` says why). With fallback=False
      the first error is raised: no unfused retry, no eager module.

    - `training`: also compile the backward (AOTAutograd's partitioned
      forward and backward graphs, both through fuser): the module's
      forward then records autograd, and `loss.backward()` runs fuser's
      backward kernels, filling the `.grad` of what requires grad
      (_conversion/training.py). Gradients are chosen per call: the
      backward computes those of the parameters and inputs that require
      grad in that call (a data batch usually does not; frozen parameters
      do not), as the example inputs decide for the first compile; a call
      that requires others compiles (once) or picks the pair for them.

    A call with shapes or dtypes no variant takes compiles a new static
    variant (torch-mlir and the compiler are here); fuser.torch.save writes
    them all.
    """
    if training:
        return compile_training(
            module, example_inputs, dynamic=dynamic, precision=precision,
            chip=chip, report=report, format=format, options=options,
            cache=cache, fallback=fallback)
    example_inputs = _example_tuple(module, example_inputs)
    find_tools()  # A missing compiler is an error, never a silent fallback.
    cache_obj = make_cache(cache)
    compiler = ForwardCompiler(module, example_inputs, chip=chip,
                               precision=precision, format=format,
                               options=options or {}, cache=cache_obj,
                               fallback=fallback, report=report)
    package = Package(compiler.spec)
    inputs = compiler.binding.example_tensors()
    compiler.dynamic_shapes(dynamic, inputs)  # A bad spec raises here.
    # Compiled under torch.autocast: the first variant is for it.
    autocast = current_autocast()
    return finish_compile(
        module, compiler.model_name, package,
        lambda: [compiler.variant(variant_base(dynamic, autocast),
                                  compiler.state_tensors(), inputs, dynamic,
                                  autocast)],
        compiler, fallback=fallback, report=report)


def compile_training(module: torch.nn.Module, example_inputs: Any, *,
                     dynamic=None, precision: str = "fp32",
                     chip: str = "sm_90a", report: bool = False,
                     format: str = "ptx",
                     options: Optional[Mapping[str, Any]] = None,
                     cache=True, fallback: bool = True,
                     recompute: str = "policy",
                     retry_unfused: Optional[bool] = None) -> "TrainingModule":
    """fuser.torch.compile(..., training=True): see compile() and
    _conversion/training.py. `recompute="all"` saves only the forward's
    arguments for the backward (partitioned_graphs; fuser.torch.elementwise
    uses it).
    `retry_unfused`: compile a failed fusion again unfused (default: as
    `fallback`)."""
    example_inputs = _example_tuple(module, example_inputs)
    find_tools()
    compiler = ForwardCompiler(module, example_inputs, chip=chip,
                               precision=precision, format=format,
                               options=options or {}, cache=make_cache(cache),
                               fallback=fallback, report=report,
                               retry_unfused=retry_unfused)
    compiler.spec["version"] = TRAINING_PACKAGE_VERSION
    if recompute not in ("policy", "all"):
        raise ValueError(f"recompute must be 'policy' or 'all', got "
                         f"{recompute!r}")
    compiler.spec["training"] = {}
    if recompute != "policy":
        compiler.spec["training"]["recompute"] = recompute
    package = Package(compiler.spec)
    inputs = compiler.binding.example_tensors()
    compiler.dynamic_shapes(dynamic, inputs)  # A bad spec raises here.
    # Compiled under torch.autocast: the first variant is for it.
    autocast = current_autocast()
    training = TrainingCompiler(compiler)
    return finish_compile(
        module, compiler.model_name, package,
        lambda: training.pair(variant_base(dynamic, autocast),
                              compiler.state_tensors(), inputs, dynamic,
                              autocast),
        training, fallback=fallback, report=report,
        doing="trains", stacklevel=4)


def _example_tuple(module: Any, example_inputs: Any) -> tuple:
    """compile()'s arguments checked: the module, and its example inputs
    as a tuple (a tensor alone is one argument)."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"compile() expects an nn.Module, got "
                        f"{type(module).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    return tuple(example_inputs)


def finish_compile(module: torch.nn.Module, model_name: str,
                   package: Package,
                   make_variants: Callable[[], List[Variant]],
                   compiler: VariantCompiler, *, fallback: bool, report: bool,
                   doing: str = "runs", stacklevel: int = 3
                   ) -> CompiledModule:
    """The compiled module of `package` with the variants `make_variants()`
    builds, handed `compiler` for more; if that fails and `fallback`
    allows, one that runs `module` eagerly, with a warning saying why
    (`doing`: what it does eagerly; `stacklevel`: the user's frame, seen
    from here)."""
    try:
        variants = make_variants()
    except LeftToPyTorch:
        raise  # No failure: fuser.torch.compile partitions the module.
    except Exception as e:  # noqa: BLE001 - any export or compile failure.
        if not fallback:
            raise
        reason = f"{type(e).__name__}: {short_error(e)}"
        warnings.warn(f"fuser.torch: {model_name} {doing} eagerly "
                      f"(PyTorch), not through fuser: {reason}",
                      RuntimeWarning, stacklevel=stacklevel)
        compiled = make_compiled(
            module, package, eager_reason=reason,
            notes=[Remark("", 0, "remark", f"runs eagerly: {reason}")])
    else:
        package.variants.extend(variants)
        compiled = make_compiled(module, package, compiler=compiler)
    if report:
        print(compiled.fuser_report(), file=sys.stderr)
    return compiled


def add_variant(compiled: CompiledModule, example_inputs: Any, *,
                dynamic: DynamicSpec = None, name: Optional[str] = None,
                autocast: Optional[str] = None) -> Variant:
    """Compiles one more variant of a module compiled here (for other
    shapes, or dynamic sizes) into its package, so fuser.torch.save and the
    ModelNew converter carry it.

    `autocast` ("bf16" or "f16"): the variant is for calls under
    `torch.autocast("cuda", dtype)`, with autocast's casts as ops of its
    kernels; it needs no GPU to compile. By default the variant is for the
    autocast this is called under (none outside torch.autocast)."""
    if not isinstance(compiled, CompiledModule):
        raise FuserError("add_variant needs a module compiled in this "
                         "process by fuser.torch.compile")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    if autocast is None:
        return compiled._fuser_add_variant(tuple(example_inputs), dynamic,
                                           name)
    if autocast not in AUTOCAST_DTYPES:
        raise FuserError(f"add_variant: autocast must be one of "
                         f"{', '.join(AUTOCAST_DTYPES)}; got {autocast!r}")
    with cuda_autocast(autocast):
        return compiled._fuser_add_variant(tuple(example_inputs), dynamic,
                                           name)
