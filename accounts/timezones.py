"""The time zones people choose from: current IANA zones only, grouped by region.

`zoneinfo.available_timezones()` also holds deprecated aliases and legacy groups (`US/Eastern`,
`Etc/GMT+5`, `Asia/Calcutta`, `EST5EDT`). The menu offers the zones of the tz database's
zone.tab (one or more per country, the list that time-zone pickers use) and UTC; an alias
a browser or an old account names is read as the zone it links to (tzdata.zi's "L" lines).
"""

from __future__ import annotations

import zoneinfo
from functools import cache
from importlib import resources
from pathlib import Path

UTC = "UTC"
_SYSTEM = Path("/usr/share/zoneinfo")


def _tz_file(name: str) -> str:
    """Return a file of the tz database: the tzdata package's, else the system's."""
    try:
        return resources.files("tzdata").joinpath("zoneinfo", name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return (_SYSTEM / name).read_text(encoding="utf-8")


@cache
def current_time_zones() -> frozenset[str]:
    """Return the zone names worth offering: zone.tab's that this Python knows, and UTC."""
    known = zoneinfo.available_timezones()
    names = {
        line.split("\t")[2]
        for line in _tz_file("zone.tab").splitlines()
        if line and not line.startswith("#")
    }
    return frozenset((names & known) | {UTC})


@cache
def _links() -> dict[str, str]:
    """Return each alias of the tz database with the zone it links to."""
    links = {}
    for line in _tz_file("tzdata.zi").splitlines():
        if line.startswith("L "):
            _, target, alias = line.split()
            links[alias] = target
    return links


def canonical_time_zone(name: str) -> str | None:
    """Return the current zone a name means (itself, or what the alias links to), else None."""
    current = current_time_zones()
    seen = set()
    while name not in current:
        if name in seen or name not in _links():
            return UTC if name in {"Etc/UTC", "Etc/UCT", "UCT", "Universal", "Zulu"} else None
        seen.add(name)
        name = _links()[name]
    return name


def _place(name: str) -> str:
    return name.replace("_", " ").replace("/", " / ")


@cache
def time_zone_choices() -> list[tuple[str, list[tuple[str, str]]] | tuple[str, str]]:
    """Return the menu: UTC first, then one group per region, places sorted by name."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for name in current_time_zones() - {UTC}:
        region, _, place = name.partition("/")
        groups.setdefault(region, []).append((name, _place(place)))
    menu: list[tuple[str, list[tuple[str, str]]] | tuple[str, str]] = [(UTC, UTC)]
    for region in sorted(groups):
        menu.append((region, sorted(groups[region], key=lambda choice: choice[1])))
    return menu
