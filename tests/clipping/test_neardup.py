"""Near-duplicate stories: MinHash of word 3-shingles finds >= 85% overlap and nothing much below."""

from __future__ import annotations

import random

import pytest

from clipping.neardup import find_original, fingerprint, store_bands
from tests.clipping.pages import RAIL, SOLAR
from tests.factories import make_clip

pytestmark = pytest.mark.django_db

STORY = " ".join(SOLAR + RAIL)


def edited(text: str, share: float, seed: int = 7) -> str:
    """Return text with about `share` of its words replaced by other words."""
    rng = random.Random(seed)
    words = text.split()
    for index in rng.sample(range(len(words)), int(len(words) * share)):
        words[index] = f"changed{index}"
    return " ".join(words)


def test_a_lightly_edited_copy_is_similar_and_another_story_is_not():
    original = fingerprint(STORY)
    assert original.similarity(fingerprint(STORY.upper())) == 1.0  # case does not matter
    assert original.similarity(fingerprint(STORY + " Reuters contributed.")) >= 0.9
    assert original.similarity(fingerprint(edited(STORY, 0.02))) >= 0.85
    assert original.similarity(fingerprint(edited(STORY, 0.2))) < 0.85
    half = fingerprint(" ".join(SOLAR + RAIL[:1]))  # one story plus a paragraph of the other
    assert 0.3 < original.similarity(half) < 0.85
    assert fingerprint(" ".join(SOLAR)).similarity(fingerprint(" ".join(RAIL))) < 0.1


def test_texts_too_short_to_compare_have_no_fingerprint():
    assert fingerprint("Breaking news") is None
    assert fingerprint("") is None


def test_the_original_is_found_through_the_stored_bands_and_a_chain_leads_to_the_first():
    first = make_clip(title="First")
    first_print = fingerprint(STORY)
    first.fingerprint = first_print.to_bytes()
    first.save()
    store_bands(first, first_print)
    repeat = make_clip(title="Repeat")
    repeat.duplicate_of = first
    repeat_print = fingerprint(STORY + " Updated at noon.")
    repeat.fingerprint = repeat_print.to_bytes()
    repeat.save()
    store_bands(repeat, repeat_print)

    assert (
        find_original(fingerprint(STORY + " Updated again."), threshold=0.85, exclude_page_id=None)
        == first
    )
    assert find_original(fingerprint(" ".join(RAIL)), threshold=0.85, exclude_page_id=None) is None
