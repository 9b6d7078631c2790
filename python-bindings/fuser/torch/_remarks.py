"""Compiler remarks, read from fuser-opt's diagnostics and pointed at the
model's Python source. Needs nothing but the standard library."""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass, field
from typing import List

# `file:line:col: remark: message` as MLIR's diagnostic printer writes it.
_DIAGNOSTIC = re.compile(
    r"^(?P<loc>.*?):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<kind>remark|warning|error|note): (?P<msg>.*)$")
# Diagnostics without a file location (`loc(unknown): remark: ...`).
_BARE_DIAGNOSTIC = re.compile(
    r"^(?P<loc>\S*?):? ?(?P<kind>remark|warning|error): (?P<msg>.*)$")


@dataclass
class Remark:
    """One compiler remark: where in the model's Python source (the frame of
    the user's code that made the op), what kind, and the message."""

    file: str
    line: int
    kind: str
    message: str
    variant: str = ""
    notes: List[str] = field(default_factory=list)

    @property
    def source(self) -> str:
        """The source line the remark points at, when the file is readable."""
        if not self.file or self.line <= 0:
            return ""
        return linecache.getline(self.file, self.line).strip()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file else "<unknown>"

    def __str__(self) -> str:
        return f"{self.where}: {self.kind}: {self.message}"


def parse_remarks(text: str, variant: str = "") -> List[Remark]:
    """The remarks in fuser-opt's diagnostics output; a `note:` line (MLIR's
    "called from") joins the remark before it."""
    remarks: List[Remark] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            continue
        m = _DIAGNOSTIC.match(line)
        if m:
            file, lineno = m.group("loc"), int(m.group("line"))
        else:
            m = _BARE_DIAGNOSTIC.match(line)
            file, lineno = "", 0
        if m is None:
            if remarks:
                remarks[-1].notes.append(line)
            continue
        if m.group("kind") == "note" and remarks:
            remarks[-1].notes.append(f"{file}:{lineno}: {m.group('msg')}")
            continue
        remarks.append(Remark(file, lineno, m.group("kind"), m.group("msg"),
                              variant))
    return remarks
