"""What a generated ModelNew file (python -m fuser.torch.kernelbench) calls
besides CompiledModule."""

from __future__ import annotations

import inspect
from typing import Any, Sequence

from ..._native import FuserError
from .._package import jsonable_or_none


def check_init_arguments(model_cls: type, args: tuple, kwargs: dict,
                         recorded: Sequence[Any]) -> None:
    """For generated ModelNew files: the constructor arguments must be those
    the kernels were compiled for (shapes and constants are baked in)."""
    sig = inspect.signature(model_cls.__init__)
    try:
        got = sig.bind(None, *args, **kwargs)
        want = sig.bind(None, *recorded)
    except TypeError as e:
        raise TypeError(f"{model_cls.__name__}: {e}") from None
    got.apply_defaults()
    want.apply_defaults()
    for name, value in want.arguments.items():
        if name == list(sig.parameters)[0]:
            continue
        have = got.arguments.get(name)
        if jsonable_or_none(have) != jsonable_or_none(value) and \
                have != value:
            raise FuserError(
                f"ModelNew's kernels were compiled for {name}={value!r}; got "
                f"{have!r} (regenerate the file with python -m "
                "fuser.torch.kernelbench for other constructor arguments)")
