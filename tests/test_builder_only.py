"""Encodings build formulas through the Builder (``enc.b``), never through pysmt's
formula manager: one place folds constants, checks the deadline and names helpers."""

from __future__ import annotations

import re
from pathlib import Path

ENCODINGS = Path(__file__).resolve().parent.parent / "spotit" / "encodings"


def test_no_encoding_reaches_into_the_formula_manager():
    raw = []
    for path in sorted(ENCODINGS.glob("*.py")):
        if path.name == "builder.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bb\.m\.|\.b\.m\.", line):
                raw.append(f"{path.name}:{n}: {line.strip()}")
    assert not raw, "use the Builder's helpers (char_at, substr, uf, ...):\n" + "\n".join(raw)
