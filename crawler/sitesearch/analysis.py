"""Form analysis (HiWE section 5.1): a page's forms as elements with labels and domains.

A form becomes a `Form`: its submission information (action, method, encoding), its fixed
fields (hidden inputs), and its elements. Finite elements (select, radio and checkbox groups)
carry their domain read from the page; text boxes are infinite. Labels come from the DOM
(`crawler.sitesearch.labels`); elements the DOM leaves unlabelled can be labelled by visual
adjacency on a browser layout afterwards (`Form.with_labels`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from urllib.parse import urljoin, urlsplit

import lxml.html
from lxml import etree

from crawler.sitesearch.labels import dom_label, group_label, text_of

TEXT = "text"
SELECT = "select"
RADIO = "radio"
CHECKBOX = "checkbox"
TEXTAREA = "textarea"

FINITE_KINDS = frozenset({SELECT, RADIO, CHECKBOX})
# Input types whose domain is every string; the crawler fills them from the LVS table.
TEXT_TYPES = frozenset(
    {"text", "search", "", "email", "url", "tel", "number", "date", "month", "week"}
)
# Input types that never carry a value the crawler chooses.
BUTTON_TYPES = frozenset({"submit", "image", "button", "reset"})


class FormParseError(ValueError):
    """The HTML could not be parsed into a document."""


@dataclass(frozen=True)
class Option:
    """One value of a finite domain: what is submitted and what a person reads."""

    value: str
    text: str


@dataclass(frozen=True)
class Element:
    """One form element a person fills: a text box, a select, or a radio/checkbox group."""

    name: str
    kind: str  # TEXT, SELECT, RADIO, CHECKBOX or TEXTAREA
    input_type: str = ""  # the input's type attribute ("search", "email", "password"...)
    label: str = ""  # descriptive text a person sees; "" when none was found
    label_source: str = ""  # "aria", "label", "placeholder", "title", "legend", "visual", ""
    options: tuple[Option, ...] = ()  # the finite domain; empty for text boxes
    default: tuple[str, ...] = ()  # submitted values when the person changes nothing
    required: bool = False
    dom_id: str = ""

    @property
    def finite(self) -> bool:
        """Tell whether the element's domain is read from the page (select, radio, checkbox)."""
        return self.kind in FINITE_KINDS

    def option_text(self, value: str) -> str:
        """Return the visible text of one of the element's values (the value itself if unknown)."""
        for option in self.options:
            if option.value == value:
                return option.text
        return value


@dataclass(frozen=True)
class Form:
    """A form as the crawler sees it: where it goes, how, and what a person fills in."""

    page_url: str
    index: int  # position among the page's forms
    action: str  # absolute URL the form submits to
    method: str  # "GET" or "POST"
    enctype: str
    elements: tuple[Element, ...]
    hidden: tuple[tuple[str, str], ...] = ()  # fixed name/value pairs sent as they are
    submit: tuple[str, str] | None = None  # the default submit button's name/value, if named
    # Fields that mark a form which changes state or wants personal data (password, file...).
    sensitive_types: frozenset[str] = frozenset()
    # The form's own words: id, class, name, role, aria-label, legend, button texts, headings.
    signals: str = ""
    buttons: tuple[str, ...] = ()
    role: str = ""
    dom_path: str = ""
    field_order: tuple[str, ...] = ()  # control names in document order (submission order)
    scripted: bool = False  # the action is no http(s) URL ("javascript:"): a script submits it

    @property
    def fingerprint(self) -> str:
        """Return a hash naming the form by where it goes and what it asks (not by its page)."""
        shape = [self.method, self.action, sorted((e.name, e.kind) for e in self.elements)]
        return hashlib.sha256(json.dumps(shape).encode()).hexdigest()

    @property
    def text_elements(self) -> tuple[Element, ...]:
        """Return the elements with an infinite domain (text boxes and text areas)."""
        return tuple(e for e in self.elements if not e.finite)

    @property
    def finite_elements(self) -> tuple[Element, ...]:
        """Return the elements whose domain is read from the page."""
        return tuple(e for e in self.elements if e.finite)

    def element(self, name: str) -> Element:
        """Return the element called `name`."""
        for element in self.elements:
            if element.name == name:
                return element
        raise KeyError(name)

    def unlabelled(self) -> tuple[Element, ...]:
        """Return the elements the DOM gave no descriptive label."""
        return tuple(e for e in self.elements if not e.label)

    def with_labels(self, labels: dict[str, str], source: str = "visual") -> Form:
        """Return a copy where unlabelled elements take the labels given by element name."""
        elements = tuple(
            replace(e, label=labels[e.name], label_source=source)
            if not e.label and labels.get(e.name)
            else e
            for e in self.elements
        )
        return replace(self, elements=elements)

    def default_values(self) -> list[tuple[str, str]]:
        """Return what submitting the form unchanged would send, in document order."""
        return self.fill({})

    def fill(self, values: dict[str, str]) -> list[tuple[str, str]]:
        """Return the pairs a browser would send with `values` set and the rest left as is.

        Pairs follow document order; the named submit button comes last, as when a person
        presses Enter (HTML's implicit submission uses the first submit button).
        """
        pairs: list[tuple[str, str]] = []
        done: set[str] = set()
        hidden = dict(self.hidden)
        for name in self.field_order or [*hidden, *(e.name for e in self.elements)]:
            if name in done:
                continue
            done.add(name)
            if name in values:
                pairs.append((name, values[name]))
                continue
            pairs += [(n, v) for n, v in self.hidden if n == name]
            element = next((e for e in self.elements if e.name == name), None)
            if element is not None:
                pairs += [(name, value) for value in element.default]
        if self.submit is not None:
            pairs.append(self.submit)
        return pairs


@dataclass
class _Collector:
    elements: list[Element] = field(default_factory=list)
    hidden: list[tuple[str, str]] = field(default_factory=list)
    sensitive: set[str] = field(default_factory=set)
    buttons: list[str] = field(default_factory=list)
    submit: tuple[str, str] | None = None
    groups: dict[str, list[etree._Element]] = field(default_factory=dict)


def parse_html(html: str | bytes, url: str) -> lxml.html.HtmlElement:
    """Parse a page into an lxml document, raising FormParseError when there is nothing to parse."""
    if isinstance(html, bytes):
        html = html.decode("utf-8", "replace")
    if not html.strip():
        raise FormParseError(f"{url}: the page is empty.")
    try:
        return lxml.html.document_fromstring(html, base_url=url)
    except (etree.ParserError, ValueError) as exc:
        raise FormParseError(f"{url}: {exc}") from exc


def analyze_forms(html: str | bytes, url: str) -> list[Form]:
    """Return every form of a page with its elements, domains, DOM labels and submission data."""
    doc = parse_html(html, url)
    base = _base_url(doc, url)
    return [_analyze(doc, node, index, url, base) for index, node in enumerate(doc.iter("form"))]


def _base_url(doc: lxml.html.HtmlElement, url: str) -> str:
    for base in doc.iter("base"):
        href = (base.get("href") or "").strip()
        if href:
            return urljoin(url, href)
    return url


def _analyze(
    doc: lxml.html.HtmlElement, node: etree._Element, index: int, page_url: str, base: str
) -> Form:
    action = urljoin(base, (node.get("action") or "").strip()) or page_url
    # An empty action submits to the page itself (HTML: the document's URL, no fragment).
    action = action.split("#", 1)[0]
    method = (node.get("method") or "get").strip().upper()
    if method not in {"GET", "POST"}:
        method = "GET"  # "dialog" and unknown methods behave as GET when they submit anywhere
    enctype = (node.get("enctype") or "application/x-www-form-urlencoded").strip().lower()
    collected = _Collector()
    for control in node.iter("input", "select", "textarea", "button"):
        if _disabled(control):
            continue
        _collect(doc, control, collected)
    for name, members in collected.groups.items():
        collected.elements.append(_group(doc, name, members))
    collected.elements.sort(key=lambda e: _order(node, e))
    scripted = urlsplit(action).scheme not in {"http", "https"}
    return Form(
        page_url=page_url,
        index=index,
        action=page_url if scripted else action,
        method=method,
        enctype=enctype,
        elements=tuple(collected.elements),
        hidden=tuple(collected.hidden),
        submit=collected.submit,
        sensitive_types=frozenset(collected.sensitive),
        signals=_signals(node),
        buttons=tuple(collected.buttons),
        role=(node.get("role") or "").strip().lower(),
        dom_path=doc.getroottree().getpath(node),
        field_order=tuple(
            dict.fromkeys(
                (c.get("name") or "").strip()
                for c in node.iter("input", "select", "textarea")
                if (c.get("name") or "").strip() and not _disabled(c)
            )
        ),
        scripted=scripted,
    )


def _disabled(control: etree._Element) -> bool:
    if control.get("disabled") is not None:
        return True
    fieldset = next((a for a in control.iterancestors("fieldset")), None)
    return fieldset is not None and fieldset.get("disabled") is not None


def _collect(doc: lxml.html.HtmlElement, control: etree._Element, out: _Collector) -> None:
    tag = control.tag
    name = (control.get("name") or "").strip()
    if tag == "button":
        kind = (control.get("type") or "submit").strip().lower()
        if kind == "submit":
            out.buttons.append(text_of(control) or control.get("value") or "")
            if name and out.submit is None:
                out.submit = (name, control.get("value") or "")
        return
    if tag == "select":
        if name:
            out.elements.append(_select(doc, control, name))
        return
    if tag == "textarea":
        out.sensitive.add("textarea")
        if name:
            out.elements.append(_text(doc, control, name, TEXTAREA, "textarea"))
        return
    kind = (control.get("type") or "text").strip().lower()
    if kind in {"password", "file", "email"}:
        out.sensitive.add(kind)
    if kind in BUTTON_TYPES:
        if kind in {"submit", "image"}:
            out.buttons.append(control.get("value") or control.get("alt") or "")
            if name and out.submit is None and kind == "submit":
                out.submit = (name, control.get("value") or "")
        return
    if not name:
        return
    if kind == "hidden":
        out.hidden.append((name, control.get("value") or ""))
    elif kind in {RADIO, CHECKBOX}:
        out.groups.setdefault(f"{kind}:{name}", []).append(control)
    elif kind in TEXT_TYPES or kind in {"password", "file"}:
        out.elements.append(_text(doc, control, name, TEXT, kind))


def _text(
    doc: lxml.html.HtmlElement, control: etree._Element, name: str, kind: str, input_type: str
) -> Element:
    label, source = dom_label(doc, control)
    value = control.text_content() if kind == TEXTAREA else (control.get("value") or "")
    return Element(
        name=name,
        kind=kind,
        input_type=input_type,
        label=label,
        label_source=source,
        default=(value,),
        required=control.get("required") is not None,
        dom_id=control.get("id") or "",
    )


def _select(doc: lxml.html.HtmlElement, control: etree._Element, name: str) -> Element:
    options = []
    selected: list[str] = []
    for option in control.iter("option"):
        if option.get("disabled") is not None:
            continue
        text = text_of(option)
        value = option.get("value")
        value = text if value is None else value
        options.append(Option(value=value, text=text))
        if option.get("selected") is not None:
            selected.append(value)
    multiple = control.get("multiple") is not None
    if not selected and options and not multiple:
        selected = [options[0].value]  # a single select submits its first option by default
    if not multiple:
        selected = selected[-1:]  # browsers keep the last of several "selected" options
    label, source = dom_label(doc, control)
    return Element(
        name=name,
        kind=SELECT,
        input_type="select-multiple" if multiple else "select-one",
        label=label,
        label_source=source,
        options=tuple(options),
        default=tuple(selected),
        required=control.get("required") is not None,
        dom_id=control.get("id") or "",
    )


def _group(doc: lxml.html.HtmlElement, key: str, members: list[etree._Element]) -> Element:
    kind, name = key.split(":", 1)
    options = []
    checked: list[str] = []
    for member in members:
        value = member.get("value")
        value = "on" if value is None else value
        text, _ = dom_label(doc, member, own_only=True)
        options.append(Option(value=value, text=text or value))
        if member.get("checked") is not None:
            checked.append(value)
    if kind == RADIO:
        checked = checked[-1:]
    label, source = group_label(doc, members)
    return Element(
        name=name,
        kind=kind,
        input_type=kind,
        label=label,
        label_source=source,
        options=tuple(options),
        default=tuple(checked),
        required=any(m.get("required") is not None for m in members),
        dom_id=members[0].get("id") or "",
    )


def _order(form: etree._Element, element: Element) -> int:
    """Return the document position of an element's first control inside its form."""
    for position, control in enumerate(form.iter("input", "select", "textarea")):
        if (control.get("name") or "").strip() == element.name:
            return position
    return 0


_PRECEDING_HEADING = "preceding::*[self::h1 or self::h2 or self::h3 or self::h4][1]"
_SIGNAL_ATTRIBUTES = ("id", "class", "name", "role", "aria-label", "title", "action")


def _signals(node: etree._Element) -> str:
    """Return the words that say what a form is for, besides its fields' labels."""
    words = [node.get(attribute) or "" for attribute in _SIGNAL_ATTRIBUTES]
    for legend in node.iter("legend"):
        words.append(text_of(legend))
    for heading in node.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        words.append(text_of(heading))
    # A heading just before the form usually names it ("Subscribe to our newsletter").
    previous = node.getprevious()
    if previous is not None and previous.tag in {"h1", "h2", "h3", "h4", "h5", "h6", "p"}:
        words.append(text_of(previous)[:200])
    # A section's heading names the form under it ("Advanced search" above a table), unless
    # another form comes first: that heading is the other form's.
    heading = next(iter(node.xpath(_PRECEDING_HEADING)), None)
    if heading is not None and heading is not previous:
        first_form = next(iter(heading.xpath("following::form[1]")), None)
        if first_form is node:
            words.append(text_of(heading)[:200])
    parent = node.getparent()
    if parent is not None:
        words += [parent.get("id") or "", parent.get("class") or "", parent.get("role") or ""]
    return " ".join(w for w in words if w)
