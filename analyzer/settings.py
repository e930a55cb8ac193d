"""Limits and thresholds of the Page Analyzer, read at call time so callers may change them.

The analyzer has no Django import: a caller that wants other values assigns them here once
(`analyzer.settings.MAX_BYTES = 20_000_000`), e.g. from Django settings at start-up.
"""

from __future__ import annotations

# Size caps. A page beyond any of them is refused with a typed AnalyzerError, in
# well under a second, instead of being analysed slowly or partly.
MAX_BYTES = 10_000_000
"""Longest input accepted, in bytes (or characters for str input)."""
MAX_NODES = 100_000
"""Most elements a page may have (typical news pages have 500 to 5,000)."""
MAX_DEPTH = 1_000
"""Deepest element nesting accepted. libxml2 stops at 2,048 even with huge_tree."""

# Algorithm 1 thresholds, adapted to each page (see analyzer.areas.thresholds):
#   ThrIV = clamp(THR_IV_SHARE * page Ctext, THR_IV_MIN, THR_IV_MAX)
#   ThrHV = clamp(THR_HV_SHARE * page links, THR_HV_MIN, THR_HV_MAX)
# Calibrated on the 60 real pages of the extraction dev set (bench/analyzer_extraction.py)
# (`python bench/analyzer_extraction.py --calibrate` prints the sweep):
# - ThrIV: with these values Algorithm 1's informational areas, before the article body is
#   merged into one area, hold 99.5% of the articles' text (shingle recall), with a median
#   of 4 areas per page; a teaser of 80 characters or more is an area of its own. Coarser
#   values (share 0.5, cap 1,500) raise precision but lose 5% of the articles and merge
#   whole teaser lists into one area.
# - ThrHV: 94% of a page's links fall in some area, a median of 8 hub or navigational areas
#   per page (the paper counted 6 to 21 on portals) of 11 links each.
THR_IV_SHARE = 0.1
THR_IV_MIN = 80
THR_IV_MAX = 800
THR_HV_SHARE = 0.05
THR_HV_MIN = 4
THR_HV_MAX = 25
