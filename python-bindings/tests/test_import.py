import fuser


def test_public_api():
    for name in ("load", "Artifact", "FuserError", "compile", "TensorRef",
                 "LoadedModule", "__version__"):
        assert hasattr(fuser, name), name
    assert isinstance(fuser.__version__, str) and fuser.__version__


def test_fuser_error_is_runtime_error():
    assert issubclass(fuser.FuserError, RuntimeError)
    assert fuser.FuserError.__module__ == "fuser"
    from fuser import _fuser_runtime

    assert fuser.FuserError is _fuser_runtime.FuserError


def test_cuda_graph_mode_round_trips():
    import pytest

    saved = fuser.cuda_graphs()
    assert saved in ("off", "auto", "on")
    try:
        for mode in ("off", "on", "auto"):
            fuser.set_cuda_graphs(mode)
            assert fuser.cuda_graphs() == mode
        with pytest.raises(ValueError, match="one of .*'off', 'auto', 'on'.*got 'always'"):
            fuser.set_cuda_graphs("always")
        assert fuser.cuda_graphs() == "auto"
    finally:
        fuser.set_cuda_graphs(saved)


def test_cuda_graph_mode_from_the_environment(tmp_path):
    import os
    import subprocess
    import sys

    def mode(value):
        env = dict(os.environ, FUSER_CUDA_GRAPHS=value)
        return subprocess.run(
            [sys.executable, "-c", "import fuser; print(fuser.cuda_graphs())"],
            env=env, capture_output=True, text=True)

    assert mode("off").stdout.strip() == "off"
    assert mode("").stdout.strip() == "auto"
    bad = mode("sometimes")
    assert bad.returncode != 0
    assert "FUSER_CUDA_GRAPHS: unknown CUDA graph mode 'sometimes' " \
        "(expected off, auto or on)" in bad.stderr
