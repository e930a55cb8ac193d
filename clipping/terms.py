"""Parse the keyword language of a list: words, "quoted phrases", -exclusions, site: lines and
re: lines (regular expressions, matched by clipping.matching.patterns)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

import regex

from analyzer.text import tokenize

MAX_TERMS = 100
MAX_TERM_LENGTH = 100

# People paste terms from word processors, so typographic quotes count as quotes.
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'})
_LABEL = regex.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_SITE = "site:"
PATTERN_PREFIX = "re:"
# Like every other line, a pattern ignores case unless it says otherwise, as with (?-i).
PATTERN_FLAGS = regex.IGNORECASE
NOTHING_TO_LOOK_FOR = "Add at least one term to look for, not only exclusions or site: lines."


@dataclass(frozen=True)
class Term:
    """One line of a keyword list."""

    raw: str
    words: tuple[str, ...]
    phrase: bool = False
    exclude: bool = False
    site: str | None = None
    pattern: str | None = None  # a re: line's regular expression, as written

    @property
    def is_site(self) -> bool:
        """Return True for a site: line, which restricts the list instead of matching text."""
        return self.site is not None

    @property
    def is_pattern(self) -> bool:
        """Return True for a re: line, which matches by a regular expression."""
        return self.pattern is not None


class TermSyntaxError(ValueError):
    """A keyword list that cannot be parsed; the message names the line and says what to fix."""


def parse_terms(text: str) -> list[Term]:
    """Parse a list's text, one term per line, or raise TermSyntaxError."""
    numbered = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)]
    lines = [(number, line) for number, line in numbered if line]
    if not lines:
        raise TermSyntaxError("Add at least one term.")
    if len(lines) > MAX_TERMS:
        raise TermSyntaxError(f"A list holds at most {MAX_TERMS} terms; this one has {len(lines)}.")
    terms = [parse_term(line, number) for number, line in lines]
    if not any(not term.exclude and not term.is_site for term in terms):
        raise TermSyntaxError(NOTHING_TO_LOOK_FOR)
    return terms


def parse_term(line: str, number: int = 1) -> Term:
    """Parse one stripped, non-blank line of a keyword list; number names it in errors."""
    try:
        return parse_line(line)
    except TermSyntaxError as exc:
        raise TermSyntaxError(f"Line {number}: {exc}") from None


def parse_line(line: str) -> Term:
    """Parse one line; a TermSyntaxError's message does not name the line."""
    if len(line) > MAX_TERM_LENGTH:
        raise TermSyntaxError(f"a term holds at most {MAX_TERM_LENGTH} characters.")
    body = line.translate(_QUOTES)
    exclude = body.startswith("-")
    if exclude:
        body = body[1:].strip()
        if not body:
            raise TermSyntaxError('put the word to exclude right after the "-", as in -sports.')
    if body.lower().startswith(_SITE):
        return Term(raw=line, words=(), exclude=exclude, site=parse_host(body[len(_SITE) :]))
    if body.lower().startswith(PATTERN_PREFIX):  # as written: quotes are the pattern's own
        pattern = line[len(line) - len(body) + len(PATTERN_PREFIX) :].strip()
        compile_pattern(pattern)
        return Term(raw=line, words=(), exclude=exclude, pattern=pattern)
    phrase = body.startswith('"')
    if body.count('"') % 2:
        raise TermSyntaxError("the quote is not closed.")
    if phrase:
        if not body.endswith('"') or body.count('"') != 2:
            raise TermSyntaxError(
                'put the whole phrase in one pair of quotes, as in "stock market".'
            )
        body = body[1:-1]
    elif '"' in body:
        raise TermSyntaxError('quotes go around the whole term, as in "stock market".')
    words = tuple(tokenize(body))
    if not words:
        raise TermSyntaxError("a term needs at least one letter or digit.")
    return Term(raw=line, words=words, phrase=phrase, exclude=exclude)


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Return a re: line's compiled expression, or raise TermSyntaxError saying what is wrong."""
    if not pattern:
        raise TermSyntaxError("write a regular expression after re:, as in re:colou?r.")
    try:
        compiled = regex.compile(pattern, PATTERN_FLAGS)
    except (regex.error, OverflowError, ValueError) as exc:
        raise TermSyntaxError(f"the regular expression is not valid: {exc}.") from None
    if compiled.fullmatch("", timeout=1.0) is not None:
        raise TermSyntaxError("the regular expression matches empty text: it would match anything.")
    return compiled


def parse_host(value: str) -> str:
    """Return a site: host in lower-case ASCII (IDNA) form, or raise TermSyntaxError."""
    host = value.strip().rstrip(".").lower()
    if not host or any(char in host for char in "/: "):
        raise TermSyntaxError("write only a host after site:, as in site:example.com.")
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        pass
    else:
        return host
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        ascii_host = ""
    if len(ascii_host) > 253 or not all(_LABEL.fullmatch(label) for label in ascii_host.split(".")):
        raise TermSyntaxError(f"{host!r} is not a valid host name.")
    return ascii_host


def normalize_host(host: str) -> str:
    """Return a page's host in the form site: lines are stored in (lower-case IDNA, no port)."""
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 literal with or without a port
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.rstrip(".")
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def host_within(host: str, site: str) -> bool:
    """Return True if a normalised host is the site or one of its subdomains."""
    return host == site or host.endswith("." + site)
