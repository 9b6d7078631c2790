"""TrainingCompiler: forward/backward variant pairs of one module, for
fuser's kernels in both directions (run as one torch.autograd.Function:
_runtime/autograd.py). It is the compiler a TrainingModule is handed
(_runtime/compiler_interface.py).

compile(module, example_inputs, training=True):

1. torch.export of the same functional wrapper as the forward-only path
   (_export/program.py: parameters and buffers are arguments, never
   frozen; `meta` tensors, else fake CPU ones; dynamic dims as `?`).
2. AOTAutograd (_lowering/partition.py) traces the joint forward+backward
   of that graph (with torch-mlir's decomposition table, the one the
   forward-only path uses) and its min-cut partitioner splits it into a
   forward graph (outputs, then the tensors saved for the backward) and a
   backward graph (saved tensors and the outputs' gradients in, the
   arguments' gradients out). The partitioner decides what to save: it
   recomputes cheap pointwise values in the backward instead of saving
   them.
3. Both graphs are cleaned for fuser (_lowering/plan.py): a saved value
   that is an argument (a weight, the input) or a view of one is not a
   kernel result but passed to the backward from the argument itself (the
   view recomputed there); a saved size (dynamic shapes) becomes a size of
   a backward argument; results returned twice or returned unchanged are
   kernel results once / not at all.
4. Each graph goes through torch-mlir's FX importer
   (_export/mlir.import_graph) and fuser.compile (fuser_compile.py: the
   same cache and unfused retry as the forward-only path).

The package holds, per shape variant, a forward variant (`static`,
`dynamic`) and its backward (`static-backward`); the forward variant's info
has the plan ("training" below), so loading needs only torch and fuser's
runtime:

    "training": {
      "backward": "static-backward",     the backward variant's name
      "outputs": 1,                      the forward kernel's first results:
                                         the updated arguments' new values
                                         (the variant's "mutations", written
                                         back), then the module's output
                                         tensors; the rest are saved for the
                                         backward
      "backward_args": [                 the backward kernel's arguments:
        {"from": "result", "index": 1},  a forward kernel result
        {"from": "arg", "index": 0},     a forward kernel argument (a weight)
        {"from": "grad", "index": 0}],   the gradient of output 0
      "differentiable": [0],             the outputs that get a gradient
                                         (absent: all; the others depend
                                         on nothing requiring grad)
      "grads": [                         per forward kernel argument:
        {"from": "result", "index": 0},  a backward kernel result
        {"from": "arg", "index": 2},     a backward argument, unchanged
        null]                            no gradient (buffers; what did not
    }                                    require grad when it was compiled)

Gradients are chosen at run time: a pair computes the gradients of the
arguments that required grad when it was compiled (its "grads" say which),
and the module (_runtime/training_module.py) runs, per call, a pair that
covers what the call's tensors require, compiling one on demand where the
compiler is (`requires_of`). Frozen parameters and data batches that do not
require grad cost no backward kernels.

Argument order of the forward kernel: as the forward-only path (parameters,
buffers, tensor inputs). The backward kernel's arguments are named in its
manifest (`saved:mm`, `arg:lin.weight`, `grad:0`).
"""

from __future__ import annotations

import sys
from typing import Optional, Sequence, Tuple

import torch

from ..._native import FuserError
from .._export.binding import DynamicSpec
from .._export.mlir import import_graph
from .._export.program import count_tensors, export_attempts, output_tree
from .._lowering.fx_graph import output_node
from .._lowering.partition import partitioned_graphs
from .._lowering.plan import backward_arg_names, plan_graphs
from .._lowering.rewrites import fold_permutes, inner_reductions
from .._package import Variant, current_autocast, manifest_function
from .forward import ForwardCompiler, unique_name, variant_base


class TrainingCompiler:
    """Compiles forward/backward pairs of one module (the forward-only
    path's ForwardCompiler does the binding, export, cache and compile)."""

    def __init__(self, compiler: ForwardCompiler) -> None:
        self.compiler = compiler

    def pair(self, name: str, state: Sequence[torch.Tensor],
             inputs: Sequence[torch.Tensor], dynamic: DynamicSpec,
             autocast: Optional[str] = None) -> Tuple[Variant, Variant]:
        """Exports, partitions, plans and compiles one forward/backward
        pair, whose backward computes the gradients of the tensors that
        require grad (`requires_of`); for calls under CUDA autocast to
        `autocast` when given (the casts are ops of the forward, their
        gradients ops of the backward)."""
        compiler = self.compiler
        dynamic_shapes, described = compiler.dynamic_shapes(dynamic, inputs)
        requires = requires_of(compiler.spec["args"], [*state, *inputs])

        def attempt(device):
            program = compiler.program(state, inputs, dynamic_shapes, device,
                                       autocast)
            outputs = output_tree(program.call_spec.out_spec)
            fw, bw, differentiable, mutated = partitioned_graphs(
                program, requires,
                compiler.spec["training"].get("recompute", "policy"))
            # The forward returns the updated arguments' new values first
            # (BatchNorm's running statistics): outputs without gradients.
            n_out = len(mutated) + count_tensors(outputs)
            plan = plan_graphs(fw, bw, n_out, len(compiler.spec["args"]),
                               [len(mutated) + i for i in differentiable])
            fold_permutes(bw)  # Views recomputed from the weights.
            for gm in (fw, bw):
                inner_reductions(gm)
            return (outputs, fw, bw, plan, mutated, import_graph(fw),
                    import_graph(bw))

        # Meta tensors first, then fake CPU ones (export_attempts).
        outputs, fw, bw, plan, mutated, fw_text, bw_text = \
            export_attempts(attempt)
        n_out = plan["outputs"]
        compiler.spec["outputs"] = outputs

        fw_art, fw_info = compiler.compile_text(fw_text)
        fw_names = [a["name"] for a in compiler.spec["args"]]
        fw_art = compiler.named_arguments(fw_art, fw_names)
        fw_names_mutated = [f"new:{fw_names[i]}" for i in mutated]
        fw_results = fw_names_mutated + [
            f"out{i}" for i in range(n_out - len(mutated))] + [
            n.name for n in list(output_node(fw.graph).args[0])[n_out:]]
        bw_art, bw_info = compiler.compile_text(bw_text)
        bw_art = compiler.named_arguments(
            bw_art, backward_arg_names(plan, fw_names, fw_results))

        bw_name = f"{name}-backward"
        fw_info["dynamic"] = described
        if autocast:
            fw_info["autocast"] = bw_info["autocast"] = autocast
        fw_info["training"] = dict(plan, backward=bw_name,
                                   saved=fw_results[n_out:])
        if mutated:
            # Written back after each call (CompiledModule's write_back).
            fw_info["mutations"] = mutated
        bw_info["dynamic"] = described
        bw_info["backward_of"] = name
        forward = Variant(name, fw_art, compiler.spec["function"], fw_info)
        backward = Variant(bw_name, bw_art, compiler.spec["function"], bw_info)
        # The fx graphs the kernels were compiled from (not saved): the CPU
        # tests run them in place of the kernels to check the plan's
        # gradients.
        forward.graph, backward.graph = fw, bw
        check_counts(forward, len(fw_results), len(compiler.spec["args"]))
        kernel_grads = {g["index"] for g in plan["grads"]
                        if g is not None and g["from"] == "result"}
        check_counts(backward, len(kernel_grads), len(plan["backward_args"]))
        return forward, backward

    # The compiler interface (_runtime/compiler_interface.py): the forward
    # of each pair is the variant calls run.
    def on_demand(self, compiled, tensors: Sequence[torch.Tensor],
                  dynamic: DynamicSpec = None,
                  autocast: Optional[str] = None) -> Variant:
        n = len(self.compiler.state_names)
        package = compiled.fuser_package
        name = unique_name(package, variant_base(dynamic, autocast))
        forward, backward = self.pair(name, tensors[:n], tensors[n:], dynamic,
                                      autocast)
        package.variants += [forward, backward]
        if self.compiler.report:
            print(compiled.fuser_report(), file=sys.stderr)
        return forward

    def add_variant(self, compiled, example_inputs: tuple,
                    dynamic: DynamicSpec, name: Optional[str]) -> Variant:
        inputs = self.compiler.tensor_inputs(example_inputs)
        package = compiled.fuser_package
        autocast = current_autocast()  # Called under autocast: for it.
        forward, backward = self.pair(
            unique_name(package, name or variant_base(dynamic, autocast)),
            compiled._fuser_state_tensors(), inputs, dynamic, autocast)
        package.variants += [forward, backward]
        return forward


def requires_of(args: Sequence[dict],
                tensors: Sequence[torch.Tensor]) -> list:
    """Which kernel arguments a pair computes gradients of: the parameters
    and floating-point inputs that require grad (buffers never). When none
    does (a compile from example data that does not require grad, of a
    module without trainable parameters), the floating-point inputs: that
    is what such a module trains."""
    requires = [a["kind"] != "buffer" and t.is_floating_point() and
                bool(t.requires_grad) for a, t in zip(args, tensors)]
    if not any(requires):
        requires = [a["kind"] == "input" and t.is_floating_point()
                    for a, t in zip(args, tensors)]
    return requires


def check_counts(variant: Variant, results: int, args: int) -> None:
    """The compiled function takes and returns as many tensors as the plan
    says."""
    fn = manifest_function(variant.artifact.manifest_dict,
                           variant.function_name)
    got_r, got_a = len(fn.get("results", [])), len(fn.get("args", []))
    if (got_r, got_a) != (results, args):
        raise FuserError(
            f"variant {variant.name}: the compiled function takes {got_a} "
            f"arguments and returns {got_r} tensors; the plan has {args} and "
            f"{results}")
