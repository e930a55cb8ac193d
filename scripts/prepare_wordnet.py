#!/usr/bin/env python3
"""Lay out Debian's WordNet files as an NLTK data folder (analyzer.nltkdata's command).

Usage: scripts/prepare_wordnet.py [TARGET]

`python -m analyzer.nltkdata` does the same, but Python warns there (the package's own import
has loaded the module before runpy executes it); this caller imports it like any other module.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analyzer.nltkdata import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
