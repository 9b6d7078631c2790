"""torch.compile(model, backend="fuser"): registers fuser's dynamo backend
(_dynamo_backend.py, which says how graphs are compiled, split and kept).

    import fuser.torch.dynamo            # registers "fuser" (fuser.torch does
                                         # too when torch._dynamo is loaded)
    compiled = torch.compile(model, backend="fuser",
                             options={"precision": "fp32", "cache": True})

`COMPILED` holds one record per graph compiled in this process.
"""

from __future__ import annotations

from torch._dynamo.backends.registry import register_backend

from ._dynamo_backend import COMPILED, backend, graph_packages  # noqa: F401


def register() -> None:
    """Registers `backend` as torch.compile's "fuser" (once)."""
    from torch._dynamo.backends import registry

    if "fuser" not in registry._COMPILER_FNS:
        register_backend(name="fuser")(backend)


register()
