"""Turn fetched bytes into text: BOM, then HTTP header, then <meta>, then detection.

Decoding never raises: undecodable bytes become U+FFFD. In text handed over as str, lone
surrogates (which lxml cannot take) and NUL become U+FFFD too, so the parser never rejects
a page for them and no text is silently dropped.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# WHATWG Encoding Standard labels that differ from Python's codec of the same name:
# browsers decode these as the superset, and so must we to see the same text.
_WHATWG = {
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "l1": "cp1252",
    "iso-8859-9": "cp1254",
    "latin5": "cp1254",
    "iso-8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "x-sjis": "shift_jis",
    "windows-31j": "cp932",
    "x-mac-roman": "mac-roman",
    "unicode-1-1-utf-8": "utf-8",
    "utf8": "utf-8",
}
# How far into the page <meta charset> is looked for: the HTML standard prescans 1,024
# bytes, but many real pages put a long <head> before it.
_META_SCAN = 8192
_META = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([a-zA-Z0-9_.:\-]+)"""
    rb"""|<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:\-]+)""",
    re.IGNORECASE,
)
_MIN_DETECT_BYTES = 32
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([a-zA-Z0-9_.:\-]+)""", re.IGNORECASE)
# Lone surrogates cannot be encoded for lxml; NUL becomes U+FFFD as the HTML standard says.
_UNSAFE = re.compile("[\x00\ud800-\udfff]")
# Characters that XML 1.0, mail headers or HTML refuse, or that carry nothing a reader sees:
# C0 controls but tab, line feed and carriage return (vertical tab and form feed read as a
# space), DEL and the C1 controls are dropped; noncharacters become U+FFFD.
_SPACE_CONTROLS = re.compile("[\x0b\x0c]")
_CONTROLS = re.compile("[\x01-\x08\x0e-\x1f\x7f-\x9f]")
_NONCHARACTERS = re.compile(
    "[\ufdd0-\ufdef"
    + "".join(chr(plane << 16 | low) for plane in range(17) for low in (0xFFFE, 0xFFFF))
    + "]"
)
# One scan finds whatever printable() must change: a class of ranges is fast, while the
# astral noncharacters as single members make a class slow, so every astral character is a
# suspect and _replacement decides.
_SUSPECT = re.compile(
    "[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff\U00010000-\U0010ffff]"
)
# Format characters a reader never sees that split words for search and matching: the soft
# hyphen, zero-width space, word joiner, zero-width no-break space, Mongolian vowel
# separator and the invisible mathematical operators. Zero-width (non-)joiners and
# direction marks stay: they change how Persian, Indic scripts and emoji are shown.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff\u180e\u2061\u2062\u2063\u2064"))
_INVISIBLE_ANY = re.compile("[\u00ad\u200b\u2060\ufeff\u180e\u2061-\u2064]")
# Numeric character references, which the parser would turn into the characters above.
_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));?")
# Charset labels browsers never honour (UTF-7 smuggles markup past filters) and Python
# codecs that are no character encodings of the web.
_REFUSED_CODECS = frozenset(
    {"utf-7", "unicode-escape", "raw-unicode-escape", "punycode", "idna", "undefined"}
)


def codec_for(label: str | None) -> str | None:
    """Return the Python codec for a charset label (or a Content-Type header), else None."""
    if not label:
        return None
    found = _HEADER_CHARSET.search(label)
    name = (found.group(1) if found else label).strip().strip("\"'").lower()
    name = _WHATWG.get(name, name)
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    if info.name.replace("_", "-") in _REFUSED_CODECS or not getattr(
        info, "_is_text_encoding", True
    ):
        return None
    return info.name


def sniff(data: bytes, declared_encoding: str | None = None) -> tuple[str, str]:
    """Return (codec, source) for bytes; source is "bom", "header", "meta" or "detected".

    1. A byte order mark wins over everything, as in browsers.
    2. Then the HTTP header's charset (declared_encoding), then <meta charset> or
       http-equiv, then an XML declaration. Unknown labels are skipped. A meta that names
       UTF-16 is wrong by construction (it was read as ASCII) and means UTF-8.
    3. Without any: BOM-less UTF-16 by its NUL pattern, then strict UTF-8, then
       charset-normalizer, then windows-1252.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, "bom"
    header = codec_for(declared_encoding)
    if header is not None:
        return header, "header"
    meta = _meta_codec(data[:_META_SCAN])
    if meta is not None:
        return meta, "meta"
    return _detect(data), "detected"


def decode(data: bytes, declared_encoding: str | None = None) -> tuple[str, str]:
    """Return (text, codec) for fetched bytes, never raising on bad bytes."""
    codec, source = sniff(data, declared_encoding)
    if source == "bom":
        data = data[len(_bom_of(data)) :]
    # Python's decoders never yield lone surrogates, the one thing lxml cannot take.
    return data.decode(codec, errors="replace"), codec


def clean(text: str) -> str:
    """Return text without a leading BOM, with only characters every output accepts."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return printable(_UNSAFE.sub("\ufffd", text))


def printable(text: str) -> str:
    """Return text that XML 1.0, mail and HTML accept: see `_CONTROLS` and `_NONCHARACTERS`.

    Numeric references to such characters ("&#1;", "&#x1b;", "&#xFFFE;") are neutralised
    the same way, so the parser cannot bring them back.
    """
    if "&#" in text:
        text = _REFERENCE.sub(_reference, text)
    if _SUSPECT.search(text) is None:
        return text
    return _SUSPECT.sub(_replacement, text)


def visible(text: str) -> str:
    """Return text without the invisible format characters of `_INVISIBLE` (soft hyphens,
    zero-width spaces), which split words a reader sees whole."""
    if _INVISIBLE_ANY.search(text) is None:
        return text
    return text.translate(_INVISIBLE)


def _replacement(found: re.Match[str]) -> str:
    """Return what printable() makes of one suspect character."""
    char = found.group()
    if char in "\x0b\x0c":
        return " "
    if _CONTROLS.match(char):
        return ""
    return "\ufffd" if _NONCHARACTERS.match(char) else char


def _reference(found: re.Match[str]) -> str:
    hexadecimal, decimal = found.groups()
    point = int(hexadecimal, 16) if hexadecimal else int(decimal)
    if point in (0x09, 0x0A, 0x0D) or 0x20 <= point < 0x7F:
        return found.group(0)
    if 0x80 <= point <= 0x9F:
        # The HTML standard reads these as windows-1252; the five it leaves undefined go.
        return bytes([point]).decode("cp1252", errors="ignore")
    if point in (0x0B, 0x0C):
        return " "
    if point < 0x20 or point == 0x7F:
        return ""
    if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
        return "\ufffd"
    return "\ufffd" if _NONCHARACTERS.match(chr(point)) else found.group(0)


def _bom_of(data: bytes) -> bytes:
    """Return the byte order mark that data starts with."""
    return next(bom for bom, _ in _BOMS if data.startswith(bom))


def _meta_codec(head: bytes) -> str | None:
    """Return the codec named by the first usable <meta> or XML declaration."""
    for match in _META.finditer(head):
        label = (match.group(1) or match.group(2)).decode("ascii")
        codec = codec_for(label)
        if codec is None:
            continue
        if codec.startswith(("utf-16", "utf-32")):
            return "utf-8"
        return codec
    return None


def _detect(data: bytes) -> str:
    """Guess the codec of bytes that declare none."""
    utf16 = _utf16_without_bom(data[:4096])
    if utf16 is not None:
        return utf16
    if _mostly_utf8(data):
        return "utf-8"
    sample = data[:65536]
    # With a handful of non-ASCII bytes any guess is a coin toss; windows-1252 is what
    # browsers assume for undeclared legacy pages.
    if len(sample) - len(sample.decode("ascii", errors="ignore")) < _MIN_DETECT_BYTES:
        return "cp1252"
    best = charset_normalizer.from_bytes(sample).best()
    if best is not None:
        return codec_for(best.encoding) or "cp1252"
    return "cp1252"


def _mostly_utf8(data: bytes) -> bool:
    """Say whether bytes are UTF-8, allowing a few broken sequences in a UTF-8 page."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return True
    text = data.decode("utf-8", errors="replace")
    broken = text.count("\ufffd")
    # Legacy 8-bit text gives almost no valid multi-byte sequences; a UTF-8 page with a
    # damaged byte here and there gives many more valid ones than broken ones.
    valid = len(text) - len(text.encode("ascii", "ignore")) - broken
    return valid > 4 * broken


def _utf16_without_bom(sample: bytes) -> str | None:
    """Return a UTF-16 codec when NUL bytes sit in every other position, as in ASCII markup."""
    if len(sample) < 8:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    half = len(sample) // 2
    if odd > 0.4 * half and even < 0.05 * half:
        return "utf-16-le"
    if even > 0.4 * half and odd < 0.05 * half:
        return "utf-16-be"
    return None
