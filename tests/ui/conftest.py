"""The interface tests run against compiled German and French catalogues."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

LOCALE = Path(__file__).resolve().parents[2] / "locale"


@pytest.fixture(scope="session", autouse=True)
def _compiled_catalogues() -> None:
    """Compile locale/*.po when a .mo is missing or older (`make test` does it before)."""
    stale = [
        po
        for po in LOCALE.glob("*/LC_MESSAGES/django.po")
        if not po.with_suffix(".mo").exists()
        or po.with_suffix(".mo").stat().st_mtime < po.stat().st_mtime
    ]
    if stale:
        call_command(
            "compilemessages",
            locale=[p.parts[-3] for p in stale],
            ignore_patterns=[".venv", "var", "node_modules"],
            verbosity=0,
        )
