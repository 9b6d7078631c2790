#!/usr/bin/env python3
"""Seeds the pipeline fuzzer's corpus from the lit tests and the examples.

Usage: seed-pipeline-corpus.py OUT_DIR MAX_LEN SOURCE_DIR...

Every *.mlir file under the source directories is split into its cases (at
`// -----` and at split-file's `//--- name` markers), full-line comments
(RUN, CHECK, expected-error, prose) are dropped, and each case of at most
MAX_LEN bytes is written to OUT_DIR under its content hash. Seeding each run
from the current tests means new tests reach the fuzzer without a step.
"""

import hashlib
import pathlib
import re
import sys

SPLIT = re.compile(r"^// -----\s*$|^//--- .*$", re.MULTILINE)


def cases(text):
    for chunk in SPLIT.split(text):
        lines = [l for l in chunk.splitlines()
                 if not l.lstrip().startswith("//")]
        case = "\n".join(lines).strip()
        if case:
            yield case + "\n"


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, max_len = pathlib.Path(sys.argv[1]), int(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for root in sys.argv[3:]:
        for path in sorted(pathlib.Path(root).rglob("*.mlir")):
            for case in cases(path.read_text(errors="replace")):
                data = case.encode()
                if len(data) > max_len:
                    continue
                name = hashlib.sha1(data).hexdigest()
                (out / name).write_bytes(data)
                written += 1
    print(f"[fuzz] {written} seed inputs from {' '.join(sys.argv[3:])}")
    if written == 0:
        sys.exit("no seed inputs found")


if __name__ == "__main__":
    main()
