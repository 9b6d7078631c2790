"""Exported IR to fuser's kernels: fuser.compile through the on-disk cache
(cache.py, fuser_compile.py), and the compilers that build a package's
variants from a module (forward.py; training.py with _lowering/). The
compilers implement the runtime's compiler interface
(_runtime/compiler_interface.py); nothing here imports _compiler.py."""
