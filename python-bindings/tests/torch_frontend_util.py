"""What the fuser.torch tests share, in one place: their precondition
(torch, torch-mlir and fuser's compiler tools: `make venv` and `make build`;
called at module level, it skips the whole module when something is
missing), and running code in a child interpreter without torch-mlir or the
compiler, as on a GPU host."""

import os
import subprocess
import sys
import textwrap

import pytest


def require_front_end():
    """Returns torch, or skips the calling test module."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_mlir")
    import fuser
    from fuser.compiler import find_tools

    try:
        find_tools()
    except fuser.FuserError:
        pytest.skip("fuser's compiler tools are not built",
                    allow_module_level=True)
    return torch


def subprocess_env(**extra):
    """os.environ with PYTHONPATH absolute and naming this fuser package, so
    a child running elsewhere (cwd) imports the same one."""
    import fuser
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(fuser.__file__)))]
    paths += [os.path.abspath(p) for p in
              os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), **extra)


# Prepended to a child's code: importing torch_mlir fails there.
BLOCK_TORCH_MLIR = '''
import sys
class _NoTorchMlir:
    def find_spec(self, name, path=None, target=None):
        if name == "torch_mlir" or name.startswith("torch_mlir."):
            raise ImportError("torch_mlir is not available in this test")
        return None
sys.meta_path.insert(0, _NoTorchMlir())
'''


def run_without_compiler(code: str, tmp_path) -> str:
    """Runs `code` in a fresh interpreter without torch-mlir or the compiler
    tools; returns its stdout. The code ends by checking that nothing
    imported torch_mlir."""
    env = subprocess_env(FUSER_TOOLS_DIR=str(tmp_path / "no-tools"))
    script = BLOCK_TORCH_MLIR + textwrap.dedent(code) + (
        '\nassert not any(m.startswith("torch_mlir") for m in sys.modules)\n'
        'print("ok")\n')
    done = subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("ok"), done.stdout
    return done.stdout
