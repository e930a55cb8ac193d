"""Name elements: a node path ("html/body/div[2]/article[1]") and a CSS selector."""

from __future__ import annotations

import re

from analyzer.walk import Node

# Ids usable as "#id" without CSS escaping.
_PLAIN_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_UNINDEXED = frozenset({"html", "head", "body"})


class Namer:
    """Compute paths and selectors for the nodes of one page, remembering them."""

    def __init__(self, ids: dict[str, int]) -> None:
        self._ids = ids
        self._paths: dict[int, str] = {}

    def path(self, node: Node) -> str:
        """Return the node path: names with their position among same-name siblings."""
        paths = self._paths
        pending: list[Node] = []
        current: Node | None = node
        while current is not None and current.index not in paths:
            pending.append(current)
            current = current.parent
        prefix = paths[current.index] if current is not None else ""
        for item in reversed(pending):  # iterative: pages may nest a thousand deep
            step = item.name if item.name in _UNINDEXED else f"{item.name}[{item.nth}]"
            prefix = f"{prefix}/{step}" if prefix else step
            paths[item.index] = prefix
        return prefix

    def selector(self, node: Node) -> str:
        """Return a CSS selector for the node, anchored at the nearest unique id."""
        steps: list[str] = []
        current: Node | None = node
        while current is not None:
            ident = current.attrs.get("id") or ""
            if ident and self._ids.get(ident) == 1 and _PLAIN_ID.match(ident):
                steps.append(f"#{ident}")
                break
            if current.name in _UNINDEXED:
                steps.append(current.name)
            else:
                steps.append(f"{current.name}:nth-of-type({current.nth})")
            current = current.parent
        return " > ".join(reversed(steps))
