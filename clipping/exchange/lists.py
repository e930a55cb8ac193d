"""Keyword lists as files: JSON (one object per list) and CSV (one term per row).

Out and back in gives the same lists (`ListRecord`s compare equal); the CSV repeats the list's
settings on each of its rows and carries each term's synonym switches as JSON. Lists come in
through the list form's own validation, upserted on their name: created, updated or
unchanged, each reported; the lists that then need a backfill are returned.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from base.bodies import MAX_JSON_DEPTH, TooDeep, check_json_depth
from clipping import backfill
from clipping.forms import KeywordListForm
from clipping.models import KeywordList

LISTS_FORMAT = "webclip-lists"
FORMAT_VERSION = 1
CSV_COLUMNS = (
    "list",
    "language",
    "term",
    "synonyms",
    "synonym_switches",
    "match_all",
    "active",
    "mail",
)
# A spreadsheet reads a cell starting with one of these as a formula: such cells are written
# with a leading apostrophe, which reading takes off again (an apostrophe itself is escaped
# too, so every text comes back as it went out).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
MAX_LISTS = 500  # lists one import may bring


class ExchangeError(ValueError):
    """A file that cannot be read as what it claims to be; the message says why."""


@dataclass(frozen=True)
class ListRecord:
    """One keyword list as files carry it: everything its owner chose, nothing derived."""

    name: str
    language: str
    terms: tuple[str, ...]
    use_synonyms: bool = True
    match_all: bool = False
    active: bool = True
    mail_enabled: bool = True
    synonym_choices: dict[str, dict[str, bool]] = field(default_factory=dict)

    @classmethod
    def of(cls, keyword_list: KeywordList) -> ListRecord:
        return cls(
            name=keyword_list.name,
            language=keyword_list.language,
            terms=tuple(keyword_list.term_lines()),
            use_synonyms=keyword_list.use_synonyms,
            match_all=keyword_list.match_all,
            active=keyword_list.active,
            mail_enabled=keyword_list.mail_enabled,
            synonym_choices=dict(keyword_list.synonym_choices or {}),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "language": self.language,
            "terms": list(self.terms),
            "use_synonyms": self.use_synonyms,
            "match_all": self.match_all,
            "active": self.active,
            "mail_enabled": self.mail_enabled,
            "synonym_choices": self.synonym_choices,
        }


# --- Lists out -----------------------------------------------------------------------------


def lists_json(lists: Iterable[KeywordList]) -> str:
    """Return the lists as one JSON document."""
    document = {
        "format": LISTS_FORMAT,
        "version": FORMAT_VERSION,
        "lists": [ListRecord.of(item).as_dict() for item in lists],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def lists_csv(lists: Iterable[KeywordList]) -> str:
    """Return the lists as CSV: a header, then one row per term."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for item in lists:
        record = ListRecord.of(item)
        for term in record.terms:
            switches = record.synonym_choices.get(term)
            writer.writerow(
                _cell(value)
                for value in (
                    record.name,
                    record.language,
                    term,
                    _yes(record.use_synonyms),
                    json.dumps(switches, ensure_ascii=False, sort_keys=True) if switches else "",
                    _yes(record.match_all),
                    _yes(record.active),
                    _yes(record.mail_enabled),
                )
            )
    return out.getvalue()


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _cell(text: str) -> str:
    return "'" + text if text.startswith(_FORMULA_START) else text


def _uncell(text: str) -> str:
    return text[1:] if text.startswith("'") else text


# --- Lists in ------------------------------------------------------------------------------


def read_lists(data: bytes, filename: str = "") -> list[ListRecord]:
    """Read lists from a JSON or CSV file (by its name, else by its first character)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExchangeError(_("The file is not UTF-8 text.")) from None
    name = filename.lower()
    if name.endswith(".json") or (not name.endswith(".csv") and text.lstrip().startswith("{")):
        return read_lists_json(text)
    return read_lists_csv(text)


def read_lists_json(text: str) -> list[ListRecord]:
    """Read the lists of a JSON document written by `lists_json` (or by hand, alike)."""
    try:
        check_json_depth(text)
        document = json.loads(text)
    except TooDeep:
        raise ExchangeError(
            _("The JSON nests deeper than %(depth)s levels.") % {"depth": MAX_JSON_DEPTH}
        ) from None
    except json.JSONDecodeError as exc:
        raise ExchangeError(_("Not JSON: %(reason)s") % {"reason": exc}) from None
    if not isinstance(document, dict) or not isinstance(document.get("lists"), list):
        raise ExchangeError(_('Expected an object with a "lists" array.'))
    if len(document["lists"]) > MAX_LISTS:
        raise ExchangeError(_("At most %(count)s lists per file.") % {"count": MAX_LISTS})
    return [_record_from_json(item, number) for number, item in enumerate(document["lists"], 1)]


def _record_from_json(item: object, number: int) -> ListRecord:
    if not isinstance(item, dict):
        raise ExchangeError(_("List %(number)s is not an object.") % {"number": number})
    terms = item.get("terms", [])
    if isinstance(terms, str):
        terms = terms.splitlines()
    if not isinstance(terms, list) or not all(isinstance(term, str) for term in terms):
        raise ExchangeError(
            _("List %(number)s: terms must be an array of strings.") % {"number": number}
        )
    choices = item.get("synonym_choices") or {}
    if not _valid_choices(choices):
        raise ExchangeError(
            _("List %(number)s: synonym_choices must map terms to {key: bool}.")
            % {"number": number}
        )
    flags = {}
    for key, default in (
        ("use_synonyms", True),
        ("match_all", False),
        ("active", True),
        ("mail_enabled", True),
    ):
        value = item.get(key, default)
        if not isinstance(value, bool):
            raise ExchangeError(
                _("List %(number)s: %(key)s must be true or false.")
                % {"number": number, "key": key}
            )
        flags[key] = value
    return ListRecord(
        name=str(item.get("name", "")),
        language=str(item.get("language", "en")),
        terms=tuple(term.strip() for term in terms if term.strip()),
        synonym_choices=choices,
        **flags,
    )


def _valid_choices(choices: object) -> bool:
    return isinstance(choices, dict) and all(
        isinstance(term, str)
        and isinstance(own, dict)
        and all(isinstance(key, str) and isinstance(on, bool) for key, on in own.items())
        for term, own in choices.items()
    )


def read_lists_csv(text: str) -> list[ListRecord]:
    """Read the lists of a CSV file written by `lists_csv`: rows of one list stay together."""
    reader = csv.DictReader(io.StringIO(text))
    try:
        return _read_csv_rows(reader)
    except csv.Error as exc:  # a field over csv.field_size_limit(), a NUL byte, ...
        raise ExchangeError(
            _("Line %(line)s: %(reason)s.") % {"line": reader.line_num, "reason": exc}
        ) from None


def _read_csv_rows(reader: csv.DictReader[str]) -> list[ListRecord]:
    missing = {"list", "term"} - set(reader.fieldnames or ())
    if missing:
        raise ExchangeError(
            _("The CSV header lacks %(columns)s.") % {"columns": ", ".join(sorted(missing))}
        )
    gathered: dict[str, dict[str, Any]] = {}
    for row in reader:
        line = reader.line_num
        name = _uncell((row.get("list") or "").strip())
        term = _uncell((row.get("term") or "").strip())
        if not name or not term:
            continue
        entry = gathered.get(name)
        settings = {
            "language": _uncell((row.get("language") or "en").strip()),
            "use_synonyms": _flag(row.get("synonyms"), True, line),
            "match_all": _flag(row.get("match_all"), False, line),
            "active": _flag(row.get("active"), True, line),
            "mail_enabled": _flag(row.get("mail"), True, line),
        }
        if entry is None:
            if len(gathered) >= MAX_LISTS:
                raise ExchangeError(_("At most %(count)s lists per file.") % {"count": MAX_LISTS})
            entry = gathered[name] = {**settings, "terms": [], "synonym_choices": {}}
        elif any(entry[key] != value for key, value in settings.items()):
            raise ExchangeError(
                _("Line %(line)s: list %(name)s has other settings than above.")
                % {"line": line, "name": repr(name)}
            )
        entry["terms"].append(term)
        raw = _uncell((row.get("synonym_switches") or "").strip())
        if raw:
            try:
                check_json_depth(raw)
                switches = json.loads(raw)
            except (json.JSONDecodeError, TooDeep):
                raise ExchangeError(
                    _("Line %(line)s: synonym_switches is not JSON.") % {"line": line}
                ) from None
            if not _valid_choices({term: switches}):
                raise ExchangeError(
                    _("Line %(line)s: synonym_switches must be {key: bool}.") % {"line": line}
                )
            entry["synonym_choices"][term] = switches
    return [
        ListRecord(name=name, terms=tuple(entry.pop("terms")), **entry)
        for name, entry in gathered.items()
    ]


def _flag(raw: str | None, default: bool, line: int) -> bool:
    value = _uncell((raw or "").strip()).lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ExchangeError(
        _("Line %(line)s: %(value)s is not yes or no.") % {"line": line, "value": repr(raw)}
    )


@dataclass
class ImportReport:
    """What an import did, list by list; `to_backfill` names lists to match against recent pages."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    to_backfill: list[int] = field(default_factory=list)


def import_lists(owner: User, records: Iterable[ListRecord]) -> ImportReport:
    """Create or update the owner's lists from records, keyed on the list name (any case)."""
    report = ImportReport()
    for record in records:
        existing = KeywordList.objects.owned_by(owner).filter(name__iexact=record.name.strip())
        current = existing.first()
        if current is not None and ListRecord.of(current) == record:
            report.unchanged.append(current.name)
            continue
        before = backfill.matching_state(current) if current is not None else None
        instance = current or KeywordList(owner=owner)
        instance.synonym_choices = record.synonym_choices
        form = KeywordListForm(form_data(record), instance=instance, owner=owner)
        if not form.is_valid():
            report.failed.append((record.name or _("(no name)"), _errors(form)))
            continue
        with transaction.atomic():
            saved = form.save()
        (report.updated if current is not None else report.created).append(saved.name)
        if backfill.needs_backfill(before, saved):
            report.to_backfill.append(saved.pk)
    return report


def form_data(record: ListRecord) -> dict[str, Any]:
    """Return the list form's data for a record (booleans as the checkbox widget reads them)."""
    return {
        "name": record.name,
        "terms": "\n".join(record.terms),
        "language": record.language,
        "use_synonyms": record.use_synonyms,
        "match_all": record.match_all,
        "active": record.active,
        "mail_enabled": record.mail_enabled,
    }


def _errors(form: KeywordListForm) -> str:
    return "; ".join(
        f"{name}: {' '.join(messages)}" if name != "__all__" else " ".join(messages)
        for name, messages in form.errors.items()
    )
