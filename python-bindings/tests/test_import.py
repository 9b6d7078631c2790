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
