"""The files a fuser compilation produces, kept together."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

PathLike = Union[str, "os.PathLike[str]"]


# `.visible .entry name(` / `.entry name (` in PTX text.
_PTX_ENTRY = re.compile(
    r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$%][\w$%]*)",
    re.MULTILINE)
# At most this many kernel names in repr(); the rest are counted.
_REPR_MAX_KERNELS = 8


@dataclass(repr=False)
class Artifact:
    """A compiled module: PTX (or a cubin) plus its JSON manifest.

    `header` is the optional C header for C++ callers; when `cubin` is set the
    runtime loads it instead of JIT-compiling the PTX. `remarks` holds what
    the compiler reported (fusion remarks with `fuser.compile(report=True)`);
    it is not saved and plays no part in equality.
    """

    ptx: str
    manifest: str
    header: Optional[str] = None
    cubin: Optional[bytes] = None
    remarks: str = field(default="", compare=False)

    @classmethod
    def from_files(
        cls,
        ptx_path: PathLike,
        manifest_path: PathLike,
        header_path: Optional[PathLike] = None,
        cubin_path: Optional[PathLike] = None,
    ) -> "Artifact":
        """Reads an artifact from explicit paths."""
        return cls(
            ptx=Path(ptx_path).read_text(),
            manifest=Path(manifest_path).read_text(),
            header=Path(header_path).read_text() if header_path else None,
            cubin=Path(cubin_path).read_bytes() if cubin_path else None,
        )

    @classmethod
    def from_dir(cls, directory: PathLike, stem: str) -> "Artifact":
        """Reads `<stem>.ptx`, `<stem>.manifest.json` and, when present,
        `<stem>.h` and `<stem>.cubin` from `directory` (the layout save()
        writes)."""
        paths = cls._paths(directory, stem)
        return cls.from_files(
            paths["ptx"],
            paths["manifest"],
            paths["header"] if paths["header"].exists() else None,
            paths["cubin"] if paths["cubin"].exists() else None,
        )

    def save(self, directory: PathLike, stem: str) -> dict:
        """Writes the artifact's files into `directory` (created if needed)
        and returns {"ptx": Path, "manifest": Path, ...} of what was written."""
        paths = self._paths(directory, stem)
        paths["ptx"].parent.mkdir(parents=True, exist_ok=True)
        written = {}
        paths["ptx"].write_text(self.ptx)
        written["ptx"] = paths["ptx"]
        paths["manifest"].write_text(self.manifest)
        written["manifest"] = paths["manifest"]
        if self.header is not None:
            paths["header"].write_text(self.header)
            written["header"] = paths["header"]
        if self.cubin is not None:
            paths["cubin"].write_bytes(self.cubin)
            written["cubin"] = paths["cubin"]
        return written

    @property
    def manifest_dict(self) -> dict:
        """The manifest, parsed."""
        return json.loads(self.manifest)

    @property
    def function_names(self) -> list:
        return [f["name"] for f in self.manifest_dict.get("functions", [])]

    @property
    def kernel_names(self) -> list:
        """The kernels, in launch order without repeats: from the manifest's
        launches, else (no launches, or an unreadable manifest) from the
        PTX's `.entry` lines."""
        names: list = []
        try:
            manifest = json.loads(self.manifest)
        except ValueError:
            manifest = None
        for fn in _dicts(manifest, "functions"):
            for launch in _dicts(fn, "launches"):
                name = launch.get("kernel")
                if isinstance(name, str) and name not in names:
                    names.append(name)
        if not names and self.ptx:
            for name in _PTX_ENTRY.findall(self.ptx):
                if name not in names:
                    names.append(name)
        return names

    def __repr__(self) -> str:
        """One line: chip, kernels, entry signatures and file sizes, never
        the PTX or header text themselves (the fields hold them), e.g.
        `<fuser.Artifact sm_90a; 1 kernel (forward_pointwise);
        forward(x: f32[?, 4096]) -> f32[?, 4096]; ptx 5210 B, header 2630 B>`.
        Sizes are in bytes (UTF-8 for the text files)."""
        try:
            manifest = json.loads(self.manifest)
            if not isinstance(manifest, dict):
                raise ValueError("not a JSON object")
        except ValueError:
            manifest = None
        parts = []
        if manifest is None:
            parts.append("unreadable manifest")
        else:
            parts.append(str(manifest.get("chip", "no chip")))
        kernels = self.kernel_names
        shown = ", ".join(kernels[:_REPR_MAX_KERNELS])
        if len(kernels) > _REPR_MAX_KERNELS:
            shown += f", +{len(kernels) - _REPR_MAX_KERNELS} more"
        parts.append(f"{len(kernels)} kernel{'' if len(kernels) == 1 else 's'}"
                     + (f" ({shown})" if kernels else ""))
        if manifest is not None:
            functions = _dicts(manifest, "functions")
            parts.extend(_signature(fn) for fn in functions)
            if not functions:
                parts.append("no functions")
        sizes = []
        if self.ptx or self.cubin is None:
            sizes.append(f"ptx {len(self.ptx.encode())} B")
        if self.cubin is not None:
            sizes.append(f"cubin {len(self.cubin)} B")
        if self.header is not None:
            sizes.append(f"header {len(self.header.encode())} B")
        if self.remarks:
            lines = len(self.remarks.splitlines())
            sizes.append(f"{lines} remark line{'' if lines == 1 else 's'}")
        parts.append(", ".join(sizes))
        return f"<fuser.Artifact {'; '.join(parts)}>"

    @staticmethod
    def _paths(directory: PathLike, stem: str) -> dict:
        d = Path(directory)
        return {
            "ptx": d / f"{stem}.ptx",
            "manifest": d / f"{stem}.manifest.json",
            "header": d / f"{stem}.h",
            "cubin": d / f"{stem}.cubin",
        }


def _type_text(dtype, shape) -> str:
    """`f32[?, 4096]`: static sizes as numbers, anything else (`?`, or an
    expression over the arguments' sizes) as `?`."""
    if not isinstance(shape, list):
        return f"{dtype}[?]"
    dims = ", ".join(str(d) if isinstance(d, int) else "?" for d in shape)
    return f"{dtype}[{dims}]"


def _dicts(obj, key: str) -> list:
    """The dicts in the list `obj[key]`; [] where the manifest is not shaped
    so (repr() must not fail on a bad manifest: the loader reports it)."""
    items = obj.get(key) if isinstance(obj, dict) else None
    return [x for x in items if isinstance(x, dict)] \
        if isinstance(items, list) else []


def _signature(fn: dict) -> str:
    """`forward(x: f32[?, 4096], w: f32[1024, 4096]) -> f32[?, 1024]` from a
    manifest function."""
    args = _dicts(fn, "args")
    arg_text = ", ".join(
        f"{a.get('name', f'arg{i}')}: "
        f"{_type_text(a.get('dtype', '?'), a.get('shape'))}"
        for i, a in enumerate(args))
    buffers = {b["id"]: b for b in _dicts(fn, "buffers")
               if isinstance(b.get("id"), int)}
    results = []
    for r in _dicts(fn, "results"):
        ref = r.get("buffer")
        buf = buffers.get(ref) if isinstance(ref, int) else None
        if buf is not None and buf.get("kind") == "arg":
            arg = buf.get("arg")
            buf = (args[arg] if isinstance(arg, int) and 0 <= arg < len(args)
                   else None)
        results.append(_type_text(buf.get("dtype", "?"), buf.get("shape"))
                       if buf is not None else "?")
    out = ("None" if not results else results[0] if len(results) == 1
           else "(" + ", ".join(results) + ")")
    return f"{fn.get('name', '?')}({arg_text}) -> {out}"
