import importlib.util

import pytest

import fuser

HAS_COMPILER = importlib.util.find_spec("fuser._fuser_compiler") is not None


@pytest.mark.skipif(HAS_COMPILER, reason="the compiler extension is built")
def test_compile_without_compiler_is_a_clear_error():
    with pytest.raises(fuser.FuserError) as info:
        fuser.compile("func.func @f() { return }", chip="sm_90a")
    assert str(info.value) == (
        "fuser was built without the compiler (FUSER_ENABLE_COMPILER=OFF); "
        "compile on a machine with MLIR and load the artifact here")
