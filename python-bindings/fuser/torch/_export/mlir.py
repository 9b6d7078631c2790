"""torch-mlir's FX importer: an exported program, or an aten-level fx
graph, as linalg on tensors. Each op's location is its frame in the user's
code, so the remarks say which line of the model an op came from.

torch-mlir is imported inside these functions, not at import time, so that
the layers above import where it is not installed (a GPU host loading
packages).
"""

from __future__ import annotations

import os
import re
from typing import List, Tuple

import torch

from .._lowering.fx_graph import NOT_USER_DIRS, user_frame

# torch-mlir writes torch.cumsum and torch.cumprod as `tm_tensor.scan` (its
# TMTensor dialect, which fuser-opt does not load); fuser.scan has the same
# form and output (FuserOps.td), so a rename imports it. (Its accumulator
# of an inclusive scan of length 1 is the element, where torch-mlir's stays
# the init; torch-mlir's cumsum and cumprod never read it.)
_TM_SCAN = re.compile(r"\btm_tensor\.scan\b")
_TM_YIELD = re.compile(r"\btm_tensor\.yield\b")
_TM_OTHER = re.compile(r"\btm_tensor\.(?!scan\b|yield\b)\w+")



def _skipped_dirs() -> Tuple[str, ...]:
    """Frames in these directories are not the user's: torch, fuser itself
    and torch-mlir."""
    import torch_mlir

    return NOT_USER_DIRS + (
        os.path.join(list(torch_mlir.__path__)[0], ""),)  # A namespace package.


def locate_in_user_code(graph) -> None:
    """Rewrites each node's stack trace (of an fx graph) to its innermost
    frame in the user's code, which torch-mlir turns into the op's location:
    remarks then name the model's line (`model.py:20`) rather than torch's
    internals."""
    skipped = _skipped_dirs()
    for node in graph.nodes:
        # Else the innermost frame, whatever it is.
        frame = (user_frame(node, skipped) or
                 user_frame(node, (), generated=True))
        if frame is None:
            continue
        file, line, fn = frame
        node.meta["stack_trace"] = f'  File "{file}", line {line}, in {fn}\n'


def import_scans(asm: str) -> str:
    """torch-mlir's scans (`tm_tensor.scan`) as fuser.scan ops. Another
    TMTensor op (scatter, sort, attention) is left as it is, and its yields
    too, so that fuser-opt's error names it."""
    asm = _TM_SCAN.sub("fuser.scan", asm)
    if not _TM_OTHER.search(asm):
        asm = _TM_YIELD.sub("fuser.yield", asm)
    return asm


def drop_devices(gm: "torch.fx.GraphModule") -> None:
    """Factory ops (arange, empty_strided, scalar_tensor: sdpa's causal
    mask, a relu's backward) name the tracing device, `meta` included,
    which torch-mlir's lowering refuses; fuser's kernels decide where they
    run, so the device goes."""
    changed = False
    for node in gm.graph.nodes:
        if node.op == "call_function" and "device" in node.kwargs:
            node.kwargs = {k: v for k, v in node.kwargs.items()
                           if k != "device"}
            changed = True
    if changed:
        gm.recompile()


def import_program(program) -> Tuple[str, List[int]]:
    """An ExportedProgram (export_program's) as linalg on tensors, after
    torch-mlir's decompositions, and the inputs the program updates in
    place (BatchNorm's running statistics in training mode): their indices,
    in the order the function returns their new values, first."""
    from torch.export.graph_signature import InputKind, OutputKind
    from torch_mlir import fx
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    program = program.run_decompositions(get_decomposition_table())
    signature = program.graph_signature
    inputs = [spec.arg.name for spec in signature.input_specs
              if spec.kind == InputKind.USER_INPUT]
    mutated = [inputs.index(spec.target) for spec in signature.output_specs
               if spec.kind == OutputKind.USER_INPUT_MUTATION]
    locate_in_user_code(program.graph_module.graph)
    drop_devices(program.graph_module)
    module = fx.export_and_import(program, output_type="linalg-on-tensors",
                                  decomposition_table={})
    asm = module.operation.get_asm(enable_debug_info=True)
    return import_scans(asm), mutated


def import_graph(gm: "torch.fx.GraphModule") -> str:
    """An aten-level fx graph (placeholders in, a tuple out, fake tensors in
    node.meta["val"], e.g. AOTAutograd's partitioned forward or backward) as
    linalg on tensors through torch-mlir's FX importer, its ops located at
    the user's lines as import_program does."""
    from torch_mlir import fx

    locate_in_user_code(gm.graph)
    drop_devices(gm)
    module = fx.stateless_fx_import(gm, output_type="linalg-on-tensors")
    return import_scans(module.operation.get_asm(enable_debug_info=True))
