"""The files a fuser compilation produces, kept together."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

PathLike = Union[str, "os.PathLike[str]"]


@dataclass
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

    @staticmethod
    def _paths(directory: PathLike, stem: str) -> dict:
        d = Path(directory)
        return {
            "ptx": d / f"{stem}.ptx",
            "manifest": d / f"{stem}.manifest.json",
            "header": d / f"{stem}.h",
            "cubin": d / f"{stem}.cubin",
        }
