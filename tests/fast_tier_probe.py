"""Run by tests/test_tiers.py under `--fast`: a Chromium launch there fails with a hint."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error, sync_playwright


def test_a_chromium_launch_fails_with_a_hint():
    with sync_playwright() as playwright, pytest.raises(Error, match="mark this test `browser`"):
        playwright.chromium.launch(executable_path="/usr/bin/chromium")
