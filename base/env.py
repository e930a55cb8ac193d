"""Read settings from the environment: typed parsers, and the declared settings of the apps.

`config/settings.py` reads Django's own settings with the `env_*` helpers. Each app declares
its settings once, as fields of a frozen `Settings` dataclass made with `setting(...)` (name,
default, meaning, limits); `load()` reads each one from Django settings if set there (tests
override them so), else from the environment, else takes its default.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field, fields
from datetime import timedelta
from typing import Any, ClassVar, Self

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?)\s*([smhd]?)\s*", re.IGNORECASE)
_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_MISSING = object()

# Every name an env_* helper was asked for, so the start-up check knows them.
_names_read: set[str] = set()


class SettingError(ImproperlyConfigured, ValueError):
    """A setting whose value cannot work; the message names the variable."""


def parse_bool(name: str, raw: str) -> bool:
    """Parse 1/0, true/false, yes/no, on/off."""
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingError(f"{name} must be a boolean (1/0, true/false, yes/no), got {raw!r}")


def parse_int(name: str, raw: str) -> int:
    """Parse a whole number."""
    try:
        return int(raw)
    except ValueError:
        raise SettingError(f"{name} must be an integer, got {raw!r}") from None


def parse_float(name: str, raw: str) -> float:
    """Parse a number."""
    try:
        return float(raw)
    except ValueError:
        raise SettingError(f"{name} must be a number, got {raw!r}") from None


def parse_list(name: str, raw: str) -> list[str]:  # noqa: ARG001 (same shape as the others)
    """Parse a comma-separated list, dropping empty items."""
    return [item.strip() for item in raw.split(",") if item.strip()]


def parse_duration(name: str, raw: str) -> timedelta:
    """Parse seconds, or a number with a unit: 90, 90s, 15m, 2h, 7d."""
    found = _DURATION.fullmatch(raw)
    if not found:
        raise SettingError(f"{name} must be a duration (90, 90s, 15m, 2h, 7d), got {raw!r}")
    return timedelta(seconds=float(found[1]) * _SECONDS[found[2].lower()])


def parse_networks(name: str, raw: str) -> tuple[str, ...]:
    """Return the CIDRs of a comma-separated list ("10.1.2.0/24, 127.0.0.1/32"), each checked."""
    specs = tuple(part.strip() for part in raw.split(",") if part.strip())
    for spec in specs:
        try:
            ipaddress.ip_network(spec, strict=False)
        except ValueError as exc:
            raise SettingError(f"{name}: {exc}") from None
    return specs


def _raw(name: str) -> str | None:
    _names_read.add(name)
    return os.environ.get(name)


def env_str(name: str, default: str = "") -> str:
    """Return the variable, or the default when it is unset."""
    raw = _raw(name)
    return default if raw is None else raw


def env_bool(name: str, default: bool = False) -> bool:
    """Return the variable as a boolean (an empty value is false)."""
    raw = _raw(name)
    return default if raw is None else parse_bool(name, raw)


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """Return the variable as an integer of at least `minimum` (empty: the default)."""
    raw = _raw(name)
    if raw is None or not raw.strip():
        return default
    value = parse_int(name, raw)
    if minimum is not None and value < minimum:
        raise SettingError(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    """Return the variable as a comma-separated list."""
    raw = _raw(name)
    return list(default) if raw is None else parse_list(name, raw)


def names_read() -> frozenset[str]:
    """Return the names the env_* helpers have read so far."""
    return frozenset(_names_read)


_PARSERS: dict[type, Any] = {
    bool: parse_bool,
    int: parse_int,
    float: parse_float,
    str: lambda name, raw: raw,  # noqa: ARG005
    timedelta: parse_duration,
}
_KIND_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}


@dataclass(frozen=True)
class Setting:
    """One setting of an app: its variable name, default, meaning and limits."""

    name: str
    default: Any
    help: str
    kind: type
    minimum: float | None = None  # inclusive bounds; durations are compared in seconds
    maximum: float | None = None
    above: float | None = None  # exclusive bounds
    below: float | None = None
    choices: tuple[str, ...] = ()

    def read(self) -> Any:
        """Return the Django setting of this name, else the env var, else the default."""
        from django.conf import settings

        value = getattr(settings, self.name, _MISSING) if settings.configured else _MISSING
        if value is _MISSING:
            value = os.environ.get(self.name, "")
            if not value.strip():
                return self.default
        return self.check(self.convert(value))

    def convert(self, value: Any) -> Any:
        """Parse a string, or accept a value of this setting's type."""
        if isinstance(value, str):
            return _PARSERS[self.kind](self.name, value.strip() if self.kind is not str else value)
        if (
            self.kind is timedelta
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            return timedelta(seconds=value)
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if self.kind is int and isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, self.kind) and not (self.kind is int and isinstance(value, bool)):
            return value
        kind = _KIND_NAMES.get(self.kind, "a duration")
        raise SettingError(f"{self.name} must be {kind}, got {value!r}")

    def check(self, value: Any) -> Any:
        """Return the value if it lies within this setting's limits; raise SettingError if not."""
        if value is None:
            return value
        if self.choices and value not in self.choices:
            choices = ", ".join(self.choices)
            raise SettingError(f"{self.name} must be one of {choices}, got {value!r}")
        if self.kind in (str, bool):
            return value
        size = value.total_seconds() if isinstance(value, timedelta) else value
        if self.minimum is not None and size < self.minimum:
            self._refuse("at least", self.minimum, size)
        if self.maximum is not None and size > self.maximum:
            self._refuse("at most", self.maximum, size)
        if self.above is not None and size <= self.above:
            self._refuse("above", self.above, size)
        if self.below is not None and size >= self.below:
            self._refuse("below", self.below, size)
        return value

    def _refuse(self, words: str, bound: float, size: float) -> None:
        unit = " seconds" if self.kind is timedelta else ""
        raise SettingError(f"{self.name} must be {words} {bound:g}{unit}, got {size:g}{unit}")

    @property
    def shown_default(self) -> str:
        """Return the default as an operator would write it in the environment."""
        value = self.default
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, timedelta):
            return f"{value.total_seconds():g}"
        return f"{value:g}" if isinstance(value, float) else str(value)


def setting(name: str, default: Any, help: str, *, kind: type | None = None, **limits: Any) -> Any:
    """Declare a field of a `Settings` dataclass read from the variable `name`."""
    spec = Setting(name, default, help, kind or type(default), **limits)
    return field(default=default, metadata={"setting": spec})


_DECLARED: dict[type, list[tuple[str, Setting]]] = {}


@dataclass(frozen=True)
class Settings:
    """Base of an app's settings section: fields made with `setting(...)`."""

    # Dotted path of a class whose attributes hold the defaults of fields declared as None.
    defaults_of: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for name, spec in self.declared():
            spec.check(getattr(self, name))

    @classmethod
    def declared(cls) -> list[tuple[str, Setting]]:
        """Return (field name, Setting) for every setting of this section."""
        if cls not in _DECLARED:
            found = [
                (f.name, f.metadata["setting"]) for f in fields(cls) if "setting" in f.metadata
            ]
            _DECLARED[cls] = found
        return _DECLARED[cls]

    @classmethod
    def read(cls, name: str) -> Any:
        """Read the one setting of field `name`."""
        return dict(cls.declared())[name].read()

    @classmethod
    def load(cls, **overrides: Any) -> Self:
        """Read every setting of this section, then apply `overrides` given in code."""
        values = {name: spec.read() for name, spec in cls.declared() if name not in overrides}
        return cls(**values, **overrides)
