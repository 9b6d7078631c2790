"""Turns a problem file in the users' format into a ModelNew file.

    python -m fuser.torch.kernelbench problem.py -o model_new.py

A problem file defines `class Model(nn.Module)`, `get_inputs()` and
`get_init_inputs()`, as KernelBench writes them (examples/torch/w1.py).
The ModelNew file written is self-contained: the problem file's text,
unchanged, then `class ModelNew` with Model's constructor and forward
arguments, and fuser's kernels as string literals (PTX and manifests). It
runs with torch and fuser's runtime only (no MLIR, no torch-mlir).

ModelNew builds a Model for its parameters alone: the same constructor, so
the same parameters created in the same order, and a seeded RNG gives both
the same weights. Model.forward is never called; forward runs the kernels.

Variants: one for the shapes get_inputs() gives (static), and unless
--no-dynamic one with dim 0 of every tensor argument dynamic ("batch"; dim 0 of
the first alone where the others' must be fixed, as B's in A @ B), so
other batch sizes run too. The model and inputs are built on the `meta`
device: nothing is allocated, whatever the sizes.

A model with ops fuser leaves to PyTorch (convolutions, random numbers)
gives a partitioned ModelNew (fuser.torch.PartitionedModule): its forward
runs Model.forward under torch.compile(backend="fuser"), those ops in
PyTorch, and each graph between them loads its package from the file
(keyed as the graph cache keys graphs) instead of compiling. The packages
are made here by tracing the meta model: static shapes only.
"""

from __future__ import annotations

import argparse
import ast
import base64
import importlib.util
import json
import sys
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import torch

from .. import __version__
from .._native import FuserError
from ._compiler import add_variant, compile as _compile
from ._lowering.graph_split import LeftToPyTorch
from ._package import graphs_in_place_of_kernels, jsonable
from ._partitioned import PartitionedModule
from ._runtime import CompiledModule

_MAX_REPORT_LINES = 60


def load_problem(path: Path):
    """Imports a problem file as a module (its own name space)."""
    name = f"fuser_problem_{path.stem.replace('-', '_').replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FuserError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for attr in ("Model", "get_inputs", "get_init_inputs"):
        if not hasattr(module, attr):
            raise FuserError(f"{path} defines no {attr} (a problem file "
                             "defines Model, get_inputs and get_init_inputs)")
    return module


def _meta(value):
    if isinstance(value, torch.Tensor) and value.device.type != "meta":
        return torch.empty(value.shape, dtype=value.dtype, device="meta")
    return value


def _function(cls: ast.ClassDef, name: str) -> Optional[ast.FunctionDef]:
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _signature_texts(fn: Optional[ast.FunctionDef]):
    """For a method: (its parameter list as written, a tuple display of its
    positional arguments, a dict display of its keyword arguments, a call's
    argument text), without `self`."""
    if fn is None:
        return "self, *args, **kwargs", "(*args,)", "{**kwargs}", \
            "*args, **kwargs"
    a = fn.args
    pos = [x.arg for x in a.posonlyargs + a.args][1:]
    pos += [f"*{a.vararg.arg}"] if a.vararg else []
    kw = [f"{x.arg!r}: {x.arg}" for x in a.kwonlyargs]
    kw += [f"**{a.kwarg.arg}"] if a.kwarg else []
    call = pos + [f"{x.arg}={x.arg}" for x in a.kwonlyargs]
    call += [f"**{a.kwarg.arg}"] if a.kwarg else []
    return (ast.unparse(a), f"({', '.join(pos)},)" if pos else "()",
            "{" + ", ".join(kw) + "}", ", ".join(call))


def _literal(text: str) -> str:
    """A Python string literal for `text`: raw and triple-quoted when that
    reads back exactly, else repr()."""
    if '"""' not in text and not text.endswith("\\") and "\r" not in text:
        return 'r"""' + text + '"""'
    return repr(text)


def _comment(text: str) -> str:
    return "\n".join(("# " + line).rstrip() for line in text.splitlines())


def _kernel_texts(package) -> Dict[str, str]:
    """A package's kernel files as texts (cubins base64-encoded)."""
    kernels = {}
    for path, data in sorted(package.files().items()):
        if not path.startswith("kernels/"):
            continue
        name = path[len("kernels/"):]
        if name.endswith(".cubin"):
            kernels[name + ".b64"] = base64.b64encode(data).decode()
        else:
            kernels[name] = data.decode()
    return kernels


def _kernel_dict(kernels: Dict[str, str], indent: str) -> str:
    return "{\n" + ",\n".join(
        f"{indent}    {name!r}: {_literal(text)}"
        for name, text in kernels.items()) + f"\n{indent}}}"


def render(problem_path: Path, source: str,
           compiled: Union[CompiledModule, PartitionedModule],
           init_args: list, notes: Sequence[str],
           compile_options: Optional[Dict[str, Any]] = None) -> str:
    """The ModelNew file's text. A partitioned module's file embeds its
    graphs' packages (`compile_options`: chip, precision, format, options,
    the graphs' keys depend on them)."""
    tree = ast.parse(source)
    model = next((n for n in tree.body
                  if isinstance(n, ast.ClassDef) and n.name == "Model"), None)
    if model is None:
        raise FuserError(f"{problem_path}: no top-level `class Model`")
    init_params, init_args_tuple, init_kwargs, init_call = \
        _signature_texts(_function(model, "__init__"))
    fwd_params, fwd_args, fwd_kwargs, _ = _signature_texts(
        _function(model, "forward"))
    partitioned = isinstance(compiled, PartitionedModule)
    report = compiled.fuser_report().splitlines()
    if len(report) > _MAX_REPORT_LINES:
        report = report[:_MAX_REPORT_LINES] + [
            f"... ({len(report) - _MAX_REPORT_LINES} more lines: "
            f"{type(compiled).__name__}.fuser_report())"]
    if partitioned:
        options = dict(compile_options or {})
        chip, precision = options["chip"], options["precision"]
        model_name = type(compiled._fuser_module).__name__
        spec = {"model": model_name, "init_args": init_args,
                "pytorch_ops": [list(op) for op in compiled.fuser_pytorch_ops],
                "compile": options}
        runs = [
            "ModelNew runs the ops below in PyTorch and the rest through",
            "fuser's kernels, embedded below as PTX and manifests, one package",
            "per graph: it runs the model under torch.compile(backend=\"fuser\"),",
            "which loads each graph's package instead of compiling it (for",
            "get_inputs()'s shapes only: others would need the compiler);"]
    else:
        package = compiled.fuser_package
        package.spec["init_args"] = init_args
        chip, precision = package.spec["chip"], package.spec["precision"]
        model_name = package.spec.get("model", "Model")
        runs = ["ModelNew runs fuser's kernels, embedded below as PTX and "
                "manifests;"]
    header = [
        f"Generated by `python -m fuser.torch.kernelbench "
        f"{problem_path.name}`: do not edit.",
        f"fuser {__version__}, exported with torch {torch.__version__}; "
        f"chip {chip}, precision {precision}.",
        "",
        *runs,
        "it needs torch and fuser's runtime, not MLIR or torch-mlir. Model,",
        "get_inputs and get_init_inputs are the problem file's, unchanged:",
        "ModelNew builds a Model for its parameters alone (same constructor",
        "arguments, same creation order, so a seeded RNG gives both the same",
        "weights)" + (" and runs its forward through torch.compile." if
                      partitioned else " and never calls Model.forward."),
        "",
        *report,
        *notes,
    ]
    if partitioned:
        graphs = ",\n".join(
            f"    {key!r}: (\n        {_literal(pkg.to_json())},\n"
            f"        {_kernel_dict(_kernel_texts(pkg), '        ')})"
            for key, pkg in sorted(compiled.fuser_graph_packages.items()))
        data = f'''_FUSER_SPEC = _json.loads({_literal(json.dumps(spec, indent=1))})

# Graph key -> (package spec, kernels), as torch.compile's graphs key them.
_FUSER_GRAPHS = {{
{graphs}
}}


class ModelNew(_fuser_torch.PartitionedModule):
    """{model_name} through PyTorch and fuser's kernels (see the top of this file)."""

    def __init__({init_params}):
        _fuser_torch.check_init_arguments(
            Model, {init_args_tuple}, {init_kwargs}, _FUSER_SPEC["init_args"])
        super().__init__(Model({init_call}), _FUSER_SPEC["pytorch_ops"],
                         packages=_FUSER_GRAPHS, cache=False, warn=False,
                         **_FUSER_SPEC["compile"])

    def forward({fwd_params}):
        return self._fuser_call({fwd_args}, {fwd_kwargs})
'''
        imports = "import json as _json\n\nimport fuser.torch as _fuser_torch"
    else:
        data = f'''_FUSER_SPEC = {_literal(package.to_json())}

_FUSER_KERNELS = {_kernel_dict(_kernel_texts(package), "")}

# One Package for every instance: each CUDA module is loaded once per device.
_FUSER_PACKAGE = _fuser_torch.Package.from_texts(_FUSER_SPEC, _FUSER_KERNELS)


class ModelNew(_fuser_torch.CompiledModule):
    """{model_name} through fuser's kernels (see the top of this file)."""

    def __init__({init_params}):
        _fuser_torch.check_init_arguments(
            Model, {init_args_tuple}, {init_kwargs}, _FUSER_PACKAGE.spec["init_args"])
        super().__init__(Model({init_call}), _FUSER_PACKAGE)

    @_fuser_torch.compiled_forward  # Only passes the arguments on: calls may skip it.
    def forward({fwd_params}):
        return self._fuser_call({fwd_args}, {fwd_kwargs})
'''
        imports = "import fuser.torch as _fuser_torch"
    return f'''{_comment(chr(10).join(header))}

# ---- the problem file, unchanged ({problem_path.name}) ----
{source.rstrip()}


# ---- fuser ----
{imports}

{data}'''


def _partitioned(model: torch.nn.Module, inputs: list, left: LeftToPyTorch,
                 cache, compile_options: Dict[str, Any]) -> PartitionedModule:
    """The model split around the ops fuser leaves to PyTorch, its graphs
    compiled: dynamo traces the meta model and each graph compiles at its
    first call, which runs the graph's fx code in place of the kernels."""
    import torch._dynamo  # Only here: fuser.torch stays fast to import.

    torch._dynamo.reset()  # Graphs of an earlier model are not this one's.
    compiled = PartitionedModule(model, left, cache=cache, fallback=False,
                                 warn=False, **compile_options)
    with graphs_in_place_of_kernels(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # The split's.
        compiled(*inputs)
    torch._dynamo.reset()
    if not compiled.fuser_graph_packages:
        raise FuserError(f"nothing of the model compiles through fuser: "
                         f"{left}")
    return compiled


def convert(problem: Path, *, chip: str = "sm_90a", precision: str = "fp32",
            format: str = "ptx", dynamic: bool = True, cache=True,
            report: bool = False, options=None) -> str:
    """Compiles a problem file's Model and returns the ModelNew file's text.
    A model with ops fuser leaves to PyTorch (convolutions, random numbers)
    gives a partitioned ModelNew (those ops in PyTorch, static shapes).
    Raises FuserError when no kernels come out (a ModelNew running PyTorch
    would not be a replacement)."""
    problem = Path(problem)
    source = problem.read_text()
    mod = load_problem(problem)
    init_args = list(mod.get_init_inputs())
    try:
        recorded = jsonable(init_args)
    except (TypeError, ValueError):
        raise FuserError("get_init_inputs() returns values that are not "
                         "JSON (numbers, strings, lists)") from None
    with torch.device("meta"):
        model = mod.Model(*init_args)
        inputs = [_meta(x) for x in mod.get_inputs()]
    compile_options = {"chip": chip, "precision": precision,
                       "format": format, "options": dict(options or {})}
    try:
        compiled = _compile(model, tuple(inputs), chip=chip,
                            precision=precision, format=format, cache=cache,
                            options=options, fallback=False)
    except LeftToPyTorch as left:
        compiled = _partitioned(model, inputs, left, cache, compile_options)
        notes = ["static shapes only: a partitioned model's graphs are "
                 "those of get_inputs()'s shapes"] if dynamic else []
        text = render(problem, source, compiled, recorded, notes,
                      compile_options)
        if report:
            print(compiled.fuser_report(), file=sys.stderr)
        return text
    notes: List[str] = []
    if dynamic:
        # Dim 0 of every tensor argument, else of the first alone: in
        # A @ B dim 0 of B is K, which must equal A's dim 1.
        tried = []
        for spec in ("batch", {0: {0: "batch"}}):
            try:
                add_variant(compiled, tuple(inputs), dynamic=spec,
                            name="batch")
                break
            except Exception as e:  # noqa: BLE001 - reported, static works
                # The compiler's diagnostic, past "fuser-translate failed".
                lines = [l.strip() for l in str(e).splitlines() if l.strip()]
                said = next((l for l in lines if "error:" in l),
                            lines[0] if lines else "")
                tried.append(f"{type(e).__name__}: {said}")
        else:
            notes.append("no dynamic-batch variant: " + "; ".join(tried))
    text = render(problem, source, compiled, recorded, notes)
    if report:
        print(compiled.fuser_report(), file=sys.stderr)
        for n in notes:
            print(n, file=sys.stderr)
    return text


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fuser.torch.kernelbench",
        description="Write a self-contained ModelNew file running fuser's "
                    "kernels for a problem file (Model, get_inputs, "
                    "get_init_inputs).")
    parser.add_argument("problem", type=Path, help="the problem file")
    parser.add_argument("-o", "--output", type=Path,
                        help="the ModelNew file (default: <problem>_new.py)")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--precision", default="fp32",
                        choices=["fp32", "tf32", "3xtf32"])
    parser.add_argument("--format", default="ptx", choices=["ptx", "cubin"])
    parser.add_argument("--no-dynamic", action="store_true",
                        help="only the static shapes of get_inputs()")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="print the kernels and fusion remarks")
    args = parser.parse_args(argv)
    output = args.output or args.problem.with_name(
        args.problem.stem + "_new.py")
    try:
        text = convert(args.problem, chip=args.chip, precision=args.precision,
                       format=args.format, dynamic=not args.no_dynamic,
                       cache=not args.no_cache, report=args.report)
    except FuserError as e:
        print(f"fuser.torch.kernelbench: {e}", file=sys.stderr)
        return 1
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.tmp")
    tmp.write_text(text)
    tmp.replace(output)
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
