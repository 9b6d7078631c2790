"""A process that uses fuser exits silently (issue 12): nothing on stderr, in
particular no "nanobind: leaked N instances" report at interpreter shutdown.

Each case runs in a fresh interpreter, because nanobind checks for leaked
instances only when the interpreter finalizes. What runs here is what the
CPU can do (load, inspect, validate, fail readably); test/gpu/
test_quiet_exit.py does the same with launches on a GPU, and torch.compile."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import DATA

PROLOGUE = f"""
import sys
import numpy as np
import fuser
from fuser import _fuser_runtime as rt
ART = fuser.Artifact.from_files({str(DATA / "scale_add.ptx")!r},
                                {str(DATA / "scale_add.manifest.json")!r})
CUDA = 0x7F0000010000
def ref(shape, data=CUDA):
    return fuser.TensorRef(data, "f32", shape, None, "cuda", 0)
"""

GLOBALS_OUTLIVE = """
    import ctypes
    mod = fuser.load(ART)
    forward = fuser.load(ART).scale_add   # its LoadedModule is gone
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(globals()))
"""

CASES = {
    # Import only.
    "import": "",
    # A loaded module kept in a global until exit, inspected and printed.
    "load_global": """
        mod = fuser.load(ART)
        print(mod, mod.scale_add, ART, mod.chip, mod.function_names)
        assert mod.matmul.result_specs(ref((5, 8)), ref((8, 4))) == \\
            [((5, 4), "f32"), ((5,), "bf16")]
    """,
    # Modules and functions in containers, closures and a cycle.
    "containers": """
        mods = [fuser.load(ART) for _ in range(3)]
        table = {i: m.scale_add for i, m in enumerate(mods)}
        call = lambda: mods[0].matmul
        class Holder:
            pass
        h = Holder(); h.self = h; h.mod = fuser.load(ART)
        raw = rt.Module(ART.ptx.encode(), ART.manifest)
        fns = [raw.function(n) for n in raw.function_names]
    """,
    # Errors raised from C++ (a CPU array, a bad shape) and kept with their
    # tracebacks, whose frames hold the module.
    "errors_kept": """
        mod = fuser.load(ART)
        errors = []
        for bad in (np.zeros(16, np.float32), ref((5, 8)), "not a tensor"):
            try:
                mod.scale_add(bad, out=ref((16,)))
            except fuser.FuserError as e:
                errors.append(e)
        assert len(errors) == 3, errors
        def fail(m):
            m.scale_add(np.zeros(4, np.float32))
        try:
            fail(fuser.load(ART))
        except fuser.FuserError as e:
            last = e
    """,
    # What torch.compile did to the globals of a module with a compiled
    # function (issue 12): a reference the collector cannot see, so they
    # outlive finalization and are never cleared. fuser's native objects
    # must not wait for them to be freed.
    "globals_outlive_finalization": GLOBALS_OUTLIVE,
    # A launch: without a driver it fails before any CUDA call; with one the
    # fake pointers are rejected. Either way a FuserError, and a clean exit.
    "launch": """
        mod = fuser.load(ART)
        try:
            mod.scale_add(ref((16,)), out=ref((16,), data=CUDA * 2))
        except fuser.FuserError as e:
            err = e
        else:
            raise AssertionError("the launch should have failed")
    """,
}


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))


@pytest.mark.parametrize("case", sorted(CASES))
def test_exit_is_silent(case):
    code = PROLOGUE + textwrap.dedent(CASES[case])
    r = run_python(code)
    assert r.returncode == 0, f"rc {r.returncode}, stderr:\n{r.stderr}"
    assert r.stderr == "", f"stderr is not empty:\n{r.stderr}"


def test_released_module_fails_readably():
    """An atexit handler that runs after fuser's release (one registered
    before fuser was imported) gets a FuserError, not a crash."""
    code = PROLOGUE + textwrap.dedent("""
        import fuser.loader
        mod = fuser.load(ART)
        fuser.loader._release_all()
        for use in (lambda: mod.scale_add(ref((16,))), lambda: mod.chip):
            try:
                use()
            except fuser.FuserError as e:
                assert "released at interpreter exit" in str(e), e
            else:
                raise AssertionError("no error")
        print("ok")
    """)
    r = run_python(code)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr
    assert r.stderr == "", r.stderr


def test_leaks_would_be_reported():
    """The check above is live: leak warnings are on, so a leaked module
    (one reference too many, on purpose) is reported at exit."""
    code = PROLOGUE + textwrap.dedent("""
        import ctypes
        mod = fuser.load(ART)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(mod._module))
    """)
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "nanobind: leaked 1 instances!" in r.stderr, r.stderr
    assert 'of type "fuser._fuser_runtime.Module"' in r.stderr, r.stderr



def test_outliving_globals_leaked_the_module_before_the_fix():
    """Without the release at exit, the case above reproduces issue 12's
    report: the module and its functions, 2 types, 11 functions."""
    code = PROLOGUE + textwrap.dedent("""
        import atexit, fuser.loader
        atexit.unregister(fuser.loader._release_all)
    """) + textwrap.dedent(GLOBALS_OUTLIVE)
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "nanobind: leaked 4 instances!" in r.stderr, r.stderr
    assert "nanobind: leaked 2 types!" in r.stderr, r.stderr
    assert "nanobind: leaked 11 functions!" in r.stderr, r.stderr
