"""Element labels: the descriptive text a person sees next to a form widget.

Two sources:

1. The DOM (`dom_label`): aria-labelledby, aria-label, label[for], an enclosing label,
   placeholder, title; a radio or checkbox group is named by its fieldset's legend. A widget
   alone in a table cell takes the text of the cell to its left, else of the cell above it
   in the same column (`cell_label`): HiWE's table layouts, read without a browser.
2. Visual adjacency (`adjacent_labels`) on a browser layout, for forms laid out in tables
   where the text sits in another cell (HiWE section 5.1): the nearest text piece to the
   left of the widget or above it, of at most six words, ties broken by styling (bold,
   italics, a larger font). `measure_forms` reads the widgets' and text pieces' bounding
   boxes and styles from a Playwright page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree

MAX_LABEL_WORDS = 6
# Text inside these never labels another widget: it is a value, a script or a button.
_NOT_LABEL_TEXT = frozenset({"script", "style", "select", "option", "textarea", "button"})
_SPACES = re.compile(r"\s+")


def text_of(node: etree._Element, skip: frozenset[str] = _NOT_LABEL_TEXT) -> str:
    """Return a node's visible text with whitespace collapsed, leaving out values and scripts."""
    parts: list[str] = []
    _gather(node, skip, parts, top=True)
    return _SPACES.sub(" ", " ".join(parts)).strip()


def _gather(node: etree._Element, skip: frozenset[str], parts: list[str], *, top: bool) -> None:
    if not isinstance(node.tag, str):  # comments and processing instructions
        if not top and node.tail:
            parts.append(node.tail)
        return
    if node.tag not in skip or top:
        if node.text:
            parts.append(node.text)
        for child in node:
            _gather(child, skip, parts, top=False)
    if not top and node.tail:
        parts.append(node.tail)


def dom_label(
    doc: etree._Element, control: etree._Element, *, own_only: bool = False
) -> tuple[str, str]:
    """Return a control's label from the DOM and where it came from ("" and "" if none).

    With `own_only` (a radio button or checkbox) only the text naming this one value counts:
    its label, else the text right after it ("<input type=radio> Newest").
    """
    if not own_only:
        ids = (control.get("aria-labelledby") or "").split()
        texts = [text_of(found) for i in ids for found in doc.xpath("//*[@id=$i]", i=i)]
        if any(texts):
            return " ".join(t for t in texts if t), "aria"
        aria = (control.get("aria-label") or "").strip()
        if aria:
            return _SPACES.sub(" ", aria), "aria"
    control_id = control.get("id")
    if control_id:
        for label in doc.xpath("//label[@for=$i]", i=control_id):
            text = text_of(label)
            if text:
                return text, "label"
    enclosing = next(control.iterancestors("label"), None)
    if enclosing is not None:
        text = text_of(enclosing)
        if text:
            return text, "label"
    if own_only:
        tail = _SPACES.sub(" ", control.tail or "").strip()
        return (tail, "tail") if tail else ("", "")
    for attribute, source in (("placeholder", "placeholder"), ("title", "title")):
        value = _SPACES.sub(" ", control.get(attribute) or "").strip()
        if value:
            return value, source
    text = cell_label(control)
    return (text, "cell") if text else ("", "")


_CELLS = ("td", "th")
_CONTROLS = ("input", "select", "textarea", "button")


def cell_label(control: etree._Element) -> str:
    """Return the label a table layout gives a widget: the text of a neighbouring cell.

    1. The widget's cell must hold no text of its own and no other named widget.
    2. The nearest cell to its left in the same row with text (at most MAX_LABEL_WORDS
       words and no widget) labels it; failing that, the cell above it in the same column.
    """
    cell = next((a for a in control.iterancestors() if a.tag in _CELLS), None)
    if cell is None or text_of(cell) or _other_widgets(cell, control):
        return ""
    row = cell.getparent()
    if row is None or row.tag != "tr":
        return ""
    cells = [c for c in row if c.tag in _CELLS]
    position = cells.index(cell)
    for left in reversed(cells[:position]):
        text = _cell_text(left)
        if text:
            return text
        if _other_widgets(left, control):
            break  # another widget's cell lies between: its label is not ours
    above = row.getprevious()
    while above is not None and above.tag != "tr":
        above = above.getprevious()
    if above is not None:
        upper = [c for c in above if c.tag in _CELLS]
        if position < len(upper):
            return _cell_text(upper[position])
    return ""


def _cell_text(cell: etree._Element) -> str:
    if next(cell.iter(*_CONTROLS), None) is not None:
        return ""
    text = text_of(cell)
    return text if text and len(text.split()) <= MAX_LABEL_WORDS else ""


def _other_widgets(cell: etree._Element, control: etree._Element) -> bool:
    name = control.get("name")
    for other in cell.iter(*_CONTROLS):
        kind = (other.get("type") or "").lower()
        if other is control or kind in {"hidden", "submit", "image", "button", "reset"}:
            continue
        if other.tag == "button" or (name and other.get("name") == name):
            continue  # a radio group shares its name; a button labels nothing
        return True
    return False


def group_label(doc: etree._Element, members: Sequence[etree._Element]) -> tuple[str, str]:
    """Return the label of a radio or checkbox group: its fieldset legend or group's aria name."""
    first = members[0]
    for ancestor in first.iterancestors():
        if ancestor.tag == "form":
            break
        if ancestor.tag == "fieldset" and all(ancestor in m.iterancestors() for m in members):
            legend = next(ancestor.iter("legend"), None)
            if legend is not None and text_of(legend):
                return text_of(legend), "legend"
        if (ancestor.get("role") or "") in {"radiogroup", "group"}:
            label, source = dom_label(doc, ancestor)
            if label:
                return label, source
    return "", ""


# --- Visual adjacency --------------------------------------------------------------------------


@dataclass(frozen=True)
class Box:
    """A rectangle on the rendered page, in CSS pixels."""

    left: float
    top: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height


@dataclass(frozen=True)
class Widget:
    """A laid-out form element: its name and where its first control is drawn."""

    name: str
    box: Box


@dataclass(frozen=True)
class TextPiece:
    """A laid-out piece of text (one text node) that could label a widget."""

    text: str
    box: Box
    # Set apart by its style: bold, italics, or a larger font than the form's own text.
    styled: bool = False


# Widgets and texts a few pixels apart still count as beside or above each other.
_SLACK = 3.0


def adjacent_labels(
    widgets: Iterable[Widget], texts: Iterable[TextPiece], max_words: int = MAX_LABEL_WORDS
) -> dict[str, str]:
    """Return, per widget name, the nearest text piece to its left or above it.

    1. Pieces longer than `max_words` words are not labels (HiWE ignores them).
    2. A piece is left of a widget when it ends before the widget starts and they share
       some height; above when it ends before the widget's top and they share some width.
    3. The nearest such piece wins. Pieces as near as it (within a few pixels) tie, and
       HiWE breaks ties by styling: a bold, italic or larger piece wins; then the one to
       the left (the common layout), then the nearer.
    """
    candidates = [t for t in texts if t.text.strip() and len(t.text.split()) <= max_words]
    labels: dict[str, str] = {}
    for widget in widgets:
        near: list[tuple[float, int, TextPiece]] = []
        w = widget.box
        for piece in candidates:
            p = piece.box
            if p.right <= w.left + _SLACK and p.top < w.bottom and p.bottom > w.top:
                near.append((w.left - p.right, 0, piece))
            elif p.bottom <= w.top + _SLACK and p.left < w.right and p.right > w.left:
                near.append((w.top - p.bottom, 1, piece))
        if not near:
            continue
        nearest = min(distance for distance, _, _ in near)
        tied = [item for item in near if item[0] <= nearest + _SLACK]
        _, _, best = min(tied, key=lambda item: (not item[2].styled, item[1], item[0]))
        labels[widget.name] = _SPACES.sub(" ", best.text).strip()
    return labels


# Runs in the page: per form, the first visible control of each name and every text node
# under the form (HiWE's pruned tree: only the form's subtree matters for its labels).
LAYOUT_SCRIPT = """
() => Array.from(document.forms).map((form) => {
  const box = (r) => ({left: r.left + scrollX, top: r.top + scrollY, width: r.width, height: r.height});
  const widgets = [];
  const seen = new Set();
  for (const el of form.querySelectorAll('input, select, textarea')) {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (!el.name || seen.has(el.name) || ['hidden', 'submit', 'image', 'button', 'reset'].includes(type)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    seen.add(el.name);
    widgets.push({name: el.name, box: box(r)});
  }
  const texts = [];
  const base = parseFloat(getComputedStyle(form).fontSize) || 16;
  const walker = document.createTreeWalker(form, NodeFilter.SHOW_TEXT);
  const skip = new Set(['SCRIPT', 'STYLE', 'OPTION', 'SELECT', 'TEXTAREA', 'BUTTON']);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    if (!text || skip.has(node.parentElement.tagName)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const style = getComputedStyle(node.parentElement);
    const styled = parseInt(style.fontWeight, 10) >= 600 || style.fontStyle !== 'normal'
      || parseFloat(style.fontSize) > base * 1.1;
    texts.push({text, box: box(r), styled});
  }
  return {widgets, texts};
})
"""


def layouts_from_script(result: Any) -> list[tuple[list[Widget], list[TextPiece]]]:
    """Turn LAYOUT_SCRIPT's JSON into widgets and text pieces, one pair per form."""
    layouts = []
    for form in result or []:
        widgets = [Widget(w["name"], Box(**w["box"])) for w in form.get("widgets", [])]
        texts = [
            TextPiece(t["text"], Box(**t["box"]), bool(t.get("styled")))
            for t in form.get("texts", [])
        ]
        layouts.append((widgets, texts))
    return layouts


async def measure_forms(page: Any) -> list[dict[str, str]]:
    """Return visual labels (name -> text) for each form of a loaded Playwright page."""
    result = await page.evaluate(LAYOUT_SCRIPT)
    return [adjacent_labels(widgets, texts) for widgets, texts in layouts_from_script(result)]
