"""Readers the analysing child runs beside an analysis in tests/analyzer/test_isolation.py:
plain functions at a module's top level, which the child imports by name."""

from __future__ import annotations

import os
from typing import Any

from analyzer.isolation import MIB


def where_and_what(html: bytes | str, url: str | None, analysis: Any, tag: str) -> tuple:
    """Return the process that read the page, and what it was given."""
    return os.getpid(), len(html), url, analysis.title, tag


def broken(html: bytes | str, url: str | None, analysis: Any) -> None:
    """Fail as a reader with a bug would."""
    raise ValueError("a fault of the reader's own")


def greedy(html: bytes | str, url: str | None, analysis: Any, mib: int) -> int:
    """Take `mib` MiB of memory."""
    return len(bytearray(mib * MIB))
