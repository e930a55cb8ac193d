"""Limits on what a request body may hold before anything parses it: JSON nesting depth.

Python's json module recurses once per nested array or object, so a few kilobytes of "["
end in RecursionError; every JSON body, upload and webhook is measured here first.
"""

from __future__ import annotations

import re

MAX_JSON_DEPTH = 32  # no document Webclip reads nests deeper than a handful of levels

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class TooDeep(ValueError):
    """A JSON document nested deeper than allowed."""


def json_depth(text: str | bytes) -> int:
    """Return how deep a JSON text's arrays and objects nest (strings do not count)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def check_json_depth(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise TooDeep when a JSON text nests deeper than `limit`."""
    if json_depth(text) > limit:
        raise TooDeep(f"JSON nested deeper than {limit} levels")
