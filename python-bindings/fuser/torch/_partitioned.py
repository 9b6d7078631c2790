"""fuser.torch.compile for models with ops fuser leaves to PyTorch
(convolutions, random numbers: _lowering/graph_split.py). The export says
so (LeftToPyTorch); the module is then split as the dynamo backend splits
graphs: the runs between those ops compile through fuser, the ops run in
PyTorch (cuDNN's convolutions, PyTorch's generator), each named in a
remark at its line. So a model with one convolution or dropout keeps
fuser's kernels for the rest, instead of running wholly eagerly or, for a
convolution, in a kernel far slower than cuDNN's.

The split runs under torch.compile(backend="fuser") (_dynamo_backend.py):
dynamo
captures the graph at the first call, as it does for that backend, and
compiles a new graph where a call's shapes differ (static ones, unless a
`dynamic` spec was given: then dynamo's automatic dynamic sizes).
"""

from __future__ import annotations

import functools
import re
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import torch

from . import _compiler, _dynamo_backend
from ._lowering.graph_split import LeftToPyTorch
from ._remarks import Remark
from ._runtime import CompiledModule, share_state


def compile(module: torch.nn.Module, example_inputs: Any, **kwargs: Any
            ) -> Union[CompiledModule, "PartitionedModule"]:
    try:
        return _compiler.compile(module, example_inputs, **kwargs)
    except LeftToPyTorch as left:
        return PartitionedModule(module, left, **kwargs)


compile.__doc__ = (_compiler.compile.__doc__ or "") + """
    A module with ops fuser leaves to PyTorch (convolutions, random
    numbers) comes back as a PartitionedModule: those ops run in PyTorch,
    the runs between them through fuser's kernels, compiled at the first
    call under torch.compile(backend="fuser"); a remark names each op at
    its line. fuser.torch.save takes whole models only; the ModelNew
    converter partitions them, for get_inputs()'s shapes.
    """


class PartitionedModule(torch.nn.Module):
    """The module fuser.torch.compile returns for a model with ops fuser
    leaves to PyTorch. Shares the module's parameters, buffers and
    submodules, as CompiledModule does. Its graphs compile at the first
    call (dynamo traces there). `fuser_pytorch_ops`: (op, reason, file,
    line) of each op left to PyTorch; `fuser_remarks`, `fuser_kernels`,
    `fuser_report()` as CompiledModule's, over the graphs compiled so far;
    `fuser_fallback`: None (a graph fuser cannot compile runs eagerly, as
    under torch.compile(backend="fuser"), said in the remarks; with
    fallback=False it raises). Without a `dynamic` spec every new shape is
    a new static graph, up to dynamo's recompile limit. Where nothing of
    the model runs through fuser at the first call in a mode (train or
    eval; every op left to PyTorch), later calls in that mode run the
    module itself, without dynamo."""

    def __init__(self, module: torch.nn.Module,
                 left: Union[LeftToPyTorch, Sequence[Sequence[Any]]], *,
                 dynamic: Any = None, precision: str = "fp32",
                 chip: str = "sm_90a", report: bool = False,
                 format: str = "ptx",
                 options: Optional[Mapping[str, Any]] = None,
                 cache: Any = True, fallback: bool = True,
                 training: bool = False,
                 packages: Optional[Mapping[str, Any]] = None,
                 warn: bool = True) -> None:
        """`left`: the export's LeftToPyTorch, or its ops. `packages`:
        the graphs' packages by key, as a generated ModelNew file holds
        them (graph_packages.EmbeddedGraphPackages), used instead of the
        cache's; `warn`: say the ops left to PyTorch in a warning."""
        super().__init__()
        share_state(self, module)
        d = self.__dict__
        ops = left.ops if isinstance(left, LeftToPyTorch) else left
        d["fuser_pytorch_ops"] = [tuple(op) for op in ops]
        d["fuser_fallback"] = None
        d["_fuser_training"] = training
        d["_fuser_records"] = []
        d["_fuser_eager_by_mode"] = {}
        config = dict(options or {}, chip=chip, precision=precision,
                      format=format, cache=cache, fallback=fallback,
                      report=report, records=d["_fuser_records"],
                      packages=packages)
        d["_fuser_compiled"] = torch.compile(
            module, backend=functools.partial(_dynamo_backend.backend,
                                      options=config),
            dynamic=None if dynamic not in (None, False) else False)
        if warn:
            said = "; ".join(str(r) for r in self._fuser_pytorch_remarks())
            warnings.warn(f"fuser.torch: {type(module).__name__} runs these "
                          f"ops in PyTorch and the rest through fuser: "
                          f"{said}", RuntimeWarning, stacklevel=3)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._fuser_call(args, kwargs)

    def _fuser_call(self, args: tuple, kwargs: dict) -> Any:
        d = self.__dict__
        # Where nothing of the model ran through fuser at the first call in
        # this mode (train or eval: they split differently), later calls
        # skip dynamo and run the module itself.
        mode = d["_fuser_module"].training
        eager = d["_fuser_eager_by_mode"].get(mode)
        run = d["_fuser_module"] if eager else d["_fuser_compiled"]
        seen = len(d["_fuser_records"])
        if self._fuser_training:
            out = run(*args, **kwargs)
        else:
            with torch.no_grad():  # As CompiledModule: no autograd graph.
                out = run(*args, **kwargs)
        if eager is None:
            records = d["_fuser_records"][seen:]
            d["_fuser_eager_by_mode"][mode] = bool(records) and all(
                r["kind"] == "split" and r["fuser_parts"] == 0
                for r in records)
        return out

    @property
    def _fuser_eager(self) -> bool:
        """Whether calls in the module's current mode run it eagerly."""
        return bool(self._fuser_eager_by_mode.get(
            self._fuser_module.training))

    @property
    def fuser_graph_packages(self) -> Dict[str, Any]:
        """The packages of the graphs compiled so far, by graph key (what a
        ModelNew file embeds)."""
        return {r["key"]: r["module"].fuser_package
                for r in self._fuser_graphs() if "module" in r}

    def train(self, mode: bool = True) -> "PartitionedModule":
        super().train(mode)
        self._fuser_module.training = mode
        return self

    def _fuser_pytorch_remarks(self) -> List[Remark]:
        """The export's ops left to PyTorch, then those the split left too
        that the export did not name (pooling, scans: dynamo's split)."""
        remarks = [Remark(file, line, "remark",
                          f"{name} runs in PyTorch: {why}")
                   for name, why, file, line in self.fuser_pytorch_ops]
        # The same op at the same line: named once.
        named = {(name, file, line)
                 for name, _, file, line in self.fuser_pytorch_ops}
        for record in self._fuser_records:
            if record["kind"] != "split":
                continue
            for said in record["pytorch"]:
                if not any(said.startswith(f"{name}:") and
                           f"({file}:{line})" in said
                           for name, file, line in named if file):
                    # "name: why (file:line)", as the split says it.
                    at = re.fullmatch(r"(\w+): (.*) \((.+):(\d+)\)", said)
                    remarks.append(
                        Remark(at[3], int(at[4]), "remark",
                               f"{at[1]} runs in PyTorch: {at[2]}") if at
                        else Remark("", 0, "remark",
                                    f"runs in PyTorch: {said}"))
        return remarks

    def _fuser_graphs(self) -> List[Dict[str, Any]]:
        return [r for r in self._fuser_records if r["kind"] != "split"]

    @property
    def fuser_remarks(self) -> List[Remark]:
        remarks = self._fuser_pytorch_remarks()
        if self._fuser_eager:
            remarks.append(Remark("", 0, "remark", "nothing of the model "
                                  "runs through fuser: after the first "
                                  "call the module runs as PyTorch runs it"))
        for r in self._fuser_graphs():
            remarks.extend(r.get("remarks", []))
            if r["eager"] is not None:
                remarks.append(Remark("", 0, "remark",
                                      f"a graph runs eagerly: {r['eager']}"))
        return remarks

    @property
    def fuser_kernels(self) -> Dict[str, List[str]]:
        kernels: Dict[str, List[str]] = {}
        for i, r in enumerate(self._fuser_graphs()):
            for name, ks in (r.get("kernels") or {}).items():
                kernels[f"graph{i}.{name}"] = ks
        return kernels

    def fuser_report(self) -> str:
        lines = [f"fuser: {type(self._fuser_module).__name__}, partitioned: "
                 "these ops run in PyTorch"]
        lines += [f"  {r}" for r in self._fuser_pytorch_remarks()]
        graphs = self._fuser_graphs()
        if self._fuser_eager:
            lines.append("nothing runs through fuser: the module runs as "
                         "PyTorch runs it")
        elif not graphs:
            lines.append("no graph compiled yet (at the first call)")
        for i, r in enumerate(graphs):
            if r["eager"] is not None:
                lines.append(f"graph {i} ({r['kind']}): runs eagerly: "
                             f"{r['eager']}")
            elif "module" in r:
                lines.append(f"graph {i} ({r['kind']}):")
                lines += ["  " + l for l in
                          r["module"].fuser_report().splitlines()]
        return "\n".join(lines)

    def extra_repr(self) -> str:
        return (f"fuser: partitioned, {len(self.fuser_pytorch_ops)} op(s) in "
                "PyTorch")
