"""Render an analysis as text: the tag tree down to each area, with metrics and reasons."""

from __future__ import annotations

from analyzer.areas import Found
from analyzer.pipeline import Run
from analyzer.walk import Node

_PREVIEW = 70


def explain(result: Run) -> str:
    """Return the tag tree of the page's areas with IV/HV/LTR/LAR and why each got its kind.

    Only elements that are areas or ancestors of areas are shown; every other element
    passed its IV and HV up to them (Algorithm 1).
    """
    analysis = result.analysis
    limits = analysis.thresholds
    lines = [
        f"page kind: {analysis.kind} (score {analysis.kind_score:.2f}): {result.kind_reason}",
        f"title: {analysis.title!r}   language: {analysis.language}   "
        f"encoding: {analysis.encoding or 'str input'}",
        f"thresholds: ThrIV {limits.iv:.0f}, ThrHV {limits.hv:.0f}   "
        f"areas: {len(analysis.informational_areas)} informational, "
        f"{len(analysis.hub_areas)} hub, {len(analysis.navigational_areas)} navigational   "
        f"links: {len(analysis.links)}",
        f"main text: {len(analysis.main_text)} characters",
        "",
    ]
    shown = _shown_nodes(result.found)
    by_index = {area.node.index: area for area in result.found}
    for node in result.page.nodes:
        if node.index not in shown:
            continue
        indent = "  " * node.depth
        label = f"{indent}{result.namer.path(node).rsplit('/', 1)[-1]}"
        area = by_index.get(node.index)
        if area is None:
            lines.append(label)
            continue
        lines.append(f"{label}  [{_kind_label(area)}] {_metrics(area)}")
        lines.append(f"{indent}    why: {area.reason}")
        preview = _preview(result, node)
        if preview:
            lines.append(f"{indent}    text: {preview}")
    return "\n".join(lines)


def _shown_nodes(found: list[Found]) -> set[int]:
    """Return the indexes of areas and all their ancestors."""
    shown: set[int] = set()
    for area in found:
        current: Node | None = area.node
        while current is not None and current.index not in shown:
            shown.add(current.index)
            current = current.parent
    return shown


def _kind_label(area: Found) -> str:
    """Return the area's kind as shown."""
    if area.main:
        return "INFORMATION: article body"
    if area.teaser is not None:
        return "INFORMATION: teaser"
    return area.kind.upper()


def _metrics(area: Found) -> str:
    """Return the area's metrics in one line."""
    return (
        f"IV={area.iv:.0f} HV={area.hv} LTR={area.ltr:.2f} LAR={area.lar:.3f} "
        f"T={area.text} Ltext={area.link_text} L={area.links}"
    )


def _preview(result: Run, node: Node) -> str:
    """Return the start of the text shown for an area."""
    path = result.namer.path(node)
    for area in (
        *result.analysis.informational_areas,
        *result.analysis.hub_areas,
        *result.analysis.navigational_areas,
    ):
        if area.path == path:
            text = " ".join(area.text.split())
            return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "\u2026"
    return ""
