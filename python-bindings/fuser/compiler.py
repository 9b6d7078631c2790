"""fuser.compile: MLIR to an Artifact, through fuser-opt and fuser-translate.

The compiler is not linked into Python: compile() runs the same command-line
tools a user would, so the Python API and the tools cannot drift apart, and
the package still imports on machines without MLIR (the GPU machines).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

from ._native import FuserError
from .artifact import Artifact

_TOOLS = ("fuser-opt", "fuser-translate")
_FORMATS = ("ptx", "cubin")
# Set through compile()'s own arguments, so `options` may not repeat them.
_ARGUMENT_OPTIONS = ("chip", "precision", "format", "report")


def _build_tools_dir() -> Optional[str]:
    """The tools directory CMake recorded at build time, if any."""
    try:
        from ._build_config import TOOLS_DIR
    except ImportError:  # Run from the source tree, without CMake.
        return None
    return TOOLS_DIR


def _tools_in(directory: str) -> Optional[Tuple[str, str]]:
    paths = tuple(os.path.join(directory, tool) for tool in _TOOLS)
    if all(os.path.isfile(p) and os.access(p, os.X_OK) for p in paths):
        return paths  # type: ignore[return-value]
    return None


def find_tools() -> Tuple[str, str]:
    """(fuser-opt, fuser-translate): from $FUSER_TOOLS_DIR when it is set,
    else the build that made this package, else PATH.

    An explicit FUSER_TOOLS_DIR is never silently passed over, so a wrong
    setting is reported rather than masked by another install.
    """
    env = os.environ.get("FUSER_TOOLS_DIR")
    if env:
        found = _tools_in(env)
        if found:
            return found
        raise FuserError(_no_tools(f"FUSER_TOOLS_DIR={env}"))
    searched = []
    build_dir = _build_tools_dir()
    if build_dir:
        found = _tools_in(build_dir)
        if found:
            return found
        searched.append(f"the build directory {build_dir}")
    on_path = tuple(shutil.which(tool) for tool in _TOOLS)
    if all(on_path):
        return on_path  # type: ignore[return-value]
    searched.append("PATH")
    raise FuserError(_no_tools(", ".join(searched)))


def _no_tools(searched: str) -> str:
    return (
        "fuser.compile needs fuser-opt and fuser-translate, which were not "
        f"found (searched: {searched}). fuser was built without the compiler "
        "(FUSER_ENABLE_COMPILER=OFF) or its tools are elsewhere: set "
        "FUSER_TOOLS_DIR to the directory holding them (<build>/bin), or "
        "compile on a machine with MLIR and load the artifact here"
    )


def _source_path(source: Union[str, "os.PathLike[str]"]) -> Optional[Path]:
    """The file `source` names, or None when it is MLIR text. A path is an
    os.PathLike or a one-line string naming an existing file."""
    if isinstance(source, os.PathLike):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"no MLIR file at '{path}'")
        return path
    if isinstance(source, str):
        if "\n" not in source and source.strip() and Path(source).is_file():
            return Path(source)
        return None
    raise TypeError(
        f"compile() expects MLIR text or a path, got {type(source).__name__}"
    )


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if any(c in text for c in " \t\n{}'\""):
        raise ValueError(
            f"pipeline option value {text!r} holds spaces, quotes or braces")
    return text


def _pipeline_options(chip: str, precision: str, format: str, report: bool,
                      options: Optional[Mapping[str, Any]]) -> str:
    pairs = {"chip": chip, "precision": precision, "format": format,
             "report": report}
    for key, value in (options or {}).items():
        if key in _ARGUMENT_OPTIONS:
            raise ValueError(
                f"pass '{key}' as compile()'s own argument, not in options")
        pairs[key] = value
    return " ".join(f"{k}={_option_text(v)}" for k, v in pairs.items())


def _run(command: Sequence[str], input_path: Path,
         input_name: Optional[str]) -> subprocess.CompletedProcess:
    """Runs one tool; its diagnostics become a FuserError on failure."""
    # The diagnostics' source lines say where; a dump of the op would bury
    # them.
    command = [*command, "--mlir-print-op-on-diagnostic=false"]
    done = subprocess.run(command, capture_output=True)
    stderr = done.stderr.decode(errors="replace")
    if input_name:
        # Diagnostics name the temporary copy of MLIR text; name the text.
        stderr = stderr.replace(str(input_path), input_name)
    done.stderr = stderr
    if done.returncode != 0:
        tool = os.path.basename(command[0])
        status = (f"exit status {done.returncode}" if done.returncode > 0
                  else f"signal {-done.returncode}")
        raise FuserError(
            f"{tool} failed ({status}):\n{stderr.rstrip() or '(no output)'}\n"
            f"command: {shlex.join(command)}"
        )
    return done


def compile(
    source: Union[str, "os.PathLike[str]"],
    chip: str = "sm_90a",
    precision: str = "fp32",
    *,
    format: str = "ptx",
    report: bool = False,
    options: Optional[Mapping[str, Any]] = None,
) -> Artifact:
    """Compiles MLIR (text, or a path to a .mlir file) for `chip`.

    Runs `fuser-opt --fuser-gpu-pipeline`, then `fuser-translate` for the
    kernel image, the manifest and (for PTX) the C header. `format` is "ptx"
    or "cubin" (needs ptxas); `report=True` asks for fusion remarks, returned
    in `Artifact.remarks`; `options` adds other pipeline options, e.g.
    {"opt-level": 2, "fuse": False, "cuda-path": "/opt/cuda"}.

    Raises FuserError with the tools' diagnostics when compilation fails, or
    when the tools cannot be found (see find_tools()).
    """
    if format not in _FORMATS:
        raise ValueError(
            f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
    pipeline = _pipeline_options(chip, precision, format, report, options)
    path = _source_path(source)
    opt, translate = find_tools()

    with tempfile.TemporaryDirectory(prefix="fuser-compile-") as tmp:
        work = Path(tmp)
        input_name = None
        if path is None:
            path, input_name = work / "input.mlir", "<input>"
            path.write_text(source)  # type: ignore[arg-type]
        # Debug locations carry the source lines through to fuser-translate's
        # diagnostics, which would otherwise point into the lowered module.
        compiled = work / "compiled.mlir"
        lowered = _run([opt, str(path), f"--fuser-gpu-pipeline={pipeline}",
                        "--mlir-print-debuginfo", "-o", str(compiled)],
                       path, input_name)

        def translate_to(flag: str, out: str) -> Path:
            _run([translate, str(compiled), flag, "-o", str(work / out)],
                 path, input_name)
            return work / out

        image = translate_to(f"--fuser-to-{format}", f"kernels.{format}")
        manifest = translate_to("--fuser-to-manifest", "manifest.json")
        header = (translate_to("--fuser-to-c-header", "kernels.h")
                  if format == "ptx" else None)
        return Artifact(
            ptx=image.read_text() if format == "ptx" else "",
            manifest=manifest.read_text(),
            header=header.read_text() if header else None,
            cubin=image.read_bytes() if format == "cubin" else None,
            remarks=lowered.stderr,
        )
