"""How a module's forward arguments become kernel arguments: the binding of
example inputs to forward's signature (tensors are kernel arguments,
anything else a constant of the export), the module's state before them,
and `dynamic=...` as torch.export's dynamic_shapes. Torch only."""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import torch

from ..._native import FuserError
from .._package import jsonable

DynamicSpec = Union[None, bool, str, Mapping[Union[str, int], Any]]


class ForwardBinding:
    """The binding of one module's forward for `example_inputs`: the
    spec's "signature", "inputs" and "args" entries (_package.py), and what
    export and later calls need to rebuild forward's arguments."""

    def __init__(self, module: torch.nn.Module,
                 example_inputs: Sequence[Any]) -> None:
        self.module = module
        sig = inspect.signature(module.forward)
        params = list(sig.parameters.values())
        P = inspect.Parameter
        if any(p.kind == P.VAR_POSITIONAL for p in params):
            # forward(*xs): one positional entry per example input.
            entries = [{"name": f"arg{i}", "kind": "POSITIONAL_ONLY"}
                       for i in range(len(example_inputs))]
            values = list(example_inputs)
            keywords: List[Optional[str]] = [None] * len(values)
        else:
            bound = sig.bind(*example_inputs)
            bound.apply_defaults()
            values, entries, keywords = [], [], []
            for p in params:
                if p.kind == P.VAR_KEYWORD:
                    continue
                values.append(bound.arguments[p.name])
                entry = {"name": p.name, "kind": p.kind.name}
                if p.default is not P.empty:
                    entry["has_default"] = True
                    try:
                        entry["default"] = jsonable(p.default)
                    except (TypeError, ValueError):
                        pass  # A tensor default, say: bound at call time.
                entries.append(entry)
                keywords.append(p.name if p.kind == P.KEYWORD_ONLY else None)
        inputs = []
        for e, v in zip(entries, values):
            if isinstance(v, torch.Tensor):
                inputs.append({"name": e["name"], "tensor": True})
                continue
            if isinstance(v, (list, tuple, dict)) and any(
                    isinstance(x, torch.Tensor)
                    for x in (v.values() if isinstance(v, dict) else v)):
                raise FuserError(
                    f"forward argument '{e['name']}' holds tensors in a "
                    f"{type(v).__name__}; fuser.torch takes tensors as "
                    "arguments of their own")
            try:
                inputs.append({"name": e["name"], "value": jsonable(v)})
            except (TypeError, ValueError):
                raise FuserError(
                    f"forward argument '{e['name']}' is a "
                    f"{type(v).__name__}, neither a tensor nor a JSON "
                    "value") from None
        # forward's arguments as bound: tensors stand at `positions`.
        self.template = values
        self.signature = sig
        self.keywords = keywords
        self.positions = [i for i, e in enumerate(inputs) if e.get("tensor")]
        state_names = ([n for n, _ in module.named_parameters()]
                       + [n for n, _ in module.named_buffers()])
        n_params = len(list(module.named_parameters()))
        self.state_names = state_names
        args = [{"kind": "parameter" if i < n_params else "buffer",
                 "name": n} for i, n in enumerate(state_names)]
        args += [{"kind": "input", "name": inputs[p]["name"], "position": p}
                 for p in self.positions]
        self.entries = entries  # The spec's "signature".
        self.inputs = inputs
        self.args = args

    def example_tensors(self) -> List[torch.Tensor]:
        """The tensor arguments among the example inputs."""
        return [self.template[p] for p in self.positions]

    def tensor_inputs(self, example_inputs: Sequence[Any]
                      ) -> List[torch.Tensor]:
        """The tensor arguments among forward arguments `example_inputs`."""
        if any(p.kind == inspect.Parameter.VAR_POSITIONAL
               for p in self.signature.parameters.values()):
            values = list(example_inputs)
        else:
            bound = self.signature.bind(*example_inputs)
            bound.apply_defaults()
            values = [bound.arguments[e["name"]] for e in self.entries]
        tensors = [values[p] for p in self.positions]
        if not all(isinstance(t, torch.Tensor) for t in tensors):
            raise TypeError("the example inputs have no tensor where the "
                            "first ones had one")
        return tensors

    def state_tensors(self) -> List[torch.Tensor]:
        return ([t for _, t in self.module.named_parameters()]
                + [t for _, t in self.module.named_buffers()])

    def dynamic_shapes(self, dynamic: DynamicSpec,
                       inputs: Sequence[torch.Tensor]
                       ) -> Tuple[Optional[tuple], Dict[str, Dict[str, str]]]:
        """dynamic=... as torch.export dynamic_shapes for the flat
        arguments (state, then tensor inputs), and as the variant's info
        records it ({input name: {dim: name}})."""
        if dynamic is None or dynamic is False:
            return None, {}
        names = [self.inputs[p]["name"] for p in self.positions]
        per_input: Dict[int, Dict[int, Any]] = {}
        if dynamic is True or dynamic == "batch":
            for i, t in enumerate(inputs):
                if t.dim() >= 1:
                    per_input[i] = {0: "batch"}
        elif isinstance(dynamic, Mapping):
            for key, dims in dynamic.items():
                if isinstance(key, int):
                    i = key
                elif key in names:
                    i = names.index(key)
                else:
                    raise ValueError(
                        f"dynamic names '{key}', which is not a tensor "
                        f"argument of forward ({', '.join(names)})")
                if not 0 <= i < len(names):
                    raise ValueError(f"dynamic: no tensor argument {i}")
                if isinstance(dims, int):
                    dims = [dims]
                if isinstance(dims, Mapping):
                    per_input[i] = dict(dims)
                else:
                    per_input[i] = {d: f"{names[i]}_dim{d}" for d in dims}
        else:
            raise ValueError(
                "dynamic must be None, True or 'batch' (dim 0 of every "
                "tensor argument), or {argument: dims} with dims an int, a "
                "list of ints or {dim: name}")
        made: Dict[str, Any] = {}
        specs: List[Optional[dict]] = [None] * len(self.state_names)
        described: Dict[str, Dict[str, str]] = {}
        for i in range(len(inputs)):
            dims = per_input.get(i)
            if not dims:
                specs.append(None)
                continue
            spec = {}
            for d, name in dims.items():
                if isinstance(name, str):
                    if name not in made:
                        made[name] = torch.export.Dim(name)
                    spec[int(d)] = made[name]
                    label = name
                else:  # A torch.export.Dim (or Dim.DYNAMIC) as given.
                    spec[int(d)] = name
                    label = getattr(name, "__name__", str(name))
                described.setdefault(names[i], {})[str(d)] = label
            specs.append(spec)
        return (tuple(specs),), described
