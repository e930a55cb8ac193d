"""Sort keys for names people read: neither case nor accents decide the order."""

from __future__ import annotations

import unicodedata


def sort_key(text: str) -> str:
    """Return a key that orders names as a reader expects: "central bank" before "Zelmora",
    "Émile" beside "Emile" (accents dropped, case folded; the text's own order breaks ties)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return plain.casefold()
