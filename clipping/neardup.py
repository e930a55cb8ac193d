"""Find the same story on another URL or site: MinHash of word 3-shingles, looked up by LSH bands.

Overlap is the Jaccard similarity of the two texts' sets of 3-word shingles, estimated from
128-value MinHash signatures (datasketch). Candidates come from 16 bands of 8 values stored
in ClipBand: a pair at similarity 0.85 shares a band with probability 0.994, a pair at 0.5
with 0.06; every candidate is then checked against the full signature.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import reduce
from operator import or_

import numpy as np
from datasketch import MinHash
from django.db.models import Q

from analyzer.text import tokenize
from clipping.models import Clip, ClipBand

NUM_PERM = 128
BANDS = 16
ROWS = NUM_PERM // BANDS
SHINGLE = 3
MAX_CANDIDATES = 200


@dataclass(frozen=True)
class Fingerprint:
    """A text's MinHash signature."""

    values: np.ndarray  # uint32, NUM_PERM long

    def to_bytes(self) -> bytes:
        return self.values.astype("<u4").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes | memoryview) -> Fingerprint:
        return cls(np.frombuffer(bytes(data), dtype="<u4"))

    def bands(self) -> list[int]:
        """Return one signed 64-bit value per band (what ClipBand stores)."""
        raw = self.values.astype("<u4")
        return [
            int.from_bytes(
                hashlib.blake2b(
                    raw[band * ROWS : (band + 1) * ROWS].tobytes(), digest_size=8
                ).digest(),
                "big",
                signed=True,
            )
            for band in range(BANDS)
        ]

    def similarity(self, other: Fingerprint) -> float:
        """Return the estimated Jaccard similarity of the two texts' shingle sets."""
        if self.values.shape != other.values.shape:
            return 0.0
        return float(np.mean(self.values == other.values))


def fingerprint(text: str) -> Fingerprint | None:
    """Return a text's fingerprint, or None when it has too few words to compare."""
    words = tokenize(text)
    if len(words) < SHINGLE:
        return None
    shingles = {" ".join(words[i : i + SHINGLE]).encode() for i in range(len(words) - SHINGLE + 1)}
    minhash = MinHash(num_perm=NUM_PERM, seed=1)
    minhash.update_batch(shingles)
    return Fingerprint(np.asarray(minhash.hashvalues, dtype=np.uint64).astype(np.uint32))


def find_original(
    print_: Fingerprint, *, threshold: float, exclude_page_id: int | None
) -> Clip | None:
    """Return the first clip of the story this text repeats (on another page), or None."""
    bands = print_.bands()
    lookup = reduce(or_, (Q(band=band, value=value) for band, value in enumerate(bands)))
    candidate_ids = list(
        ClipBand.objects.filter(lookup)
        .values_list("clip_id", flat=True)
        .distinct()[:MAX_CANDIDATES]
    )
    if not candidate_ids:
        return None
    candidates = Clip.objects.filter(id__in=candidate_ids).only(
        "id", "page_id", "fingerprint", "duplicate_of_id"
    )
    best: tuple[float, int] | None = None
    for candidate in candidates:
        if candidate.page_id is not None and candidate.page_id == exclude_page_id:
            continue  # a page's own new text is new content, not a repeat
        if candidate.fingerprint is None:
            continue
        score = print_.similarity(Fingerprint.from_bytes(candidate.fingerprint))
        root = candidate.duplicate_of_id or candidate.id
        if score >= threshold and (best is None or (score, -root) > (best[0], -best[1])):
            best = (score, root)
    return None if best is None else Clip.objects.get(id=best[1])


def store_bands(clip: Clip, print_: Fingerprint) -> None:
    """Index a clip's fingerprint so later repeats find it."""
    ClipBand.objects.bulk_create(
        [ClipBand(clip=clip, band=band, value=value) for band, value in enumerate(print_.bands())],
        ignore_conflicts=True,
    )
