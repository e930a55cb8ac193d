"""The keyword index's loops in C (clipping/matching/_speedups.c), when built and current.

pip install builds the extension where a C compiler is found (setup.py). Without it, or
with a build older than this code (its API number differs: the code was updated without
reinstalling), the index runs the same loops in Python, slower, and says so in the log.
"""

from __future__ import annotations

import logging
from types import ModuleType

log = logging.getLogger(__name__)

# Raise with _speedups.c's API whenever a function's arguments or results change.
API = 3


def load() -> ModuleType | None:
    """Return the _speedups module if it is built for this code, else None."""
    try:
        from clipping.matching import _speedups  # noqa: PLC0415
    except ImportError:
        log.info("clipping.matching._speedups is not built: matching runs in Python")
        return None
    if getattr(_speedups, "API", None) != API:
        log.warning(
            "clipping.matching._speedups is out of date (API %s, this code needs %s): matching"
            " runs in Python until it is rebuilt (pip install -e . or make install)",
            getattr(_speedups, "API", None),
            API,
        )
        return None
    return _speedups


speedups = load()
