"""Record on new matches why they matched (clipping.matching.why), from their summaries."""

from __future__ import annotations

from collections.abc import Iterable

from clipping.matching import compile_text
from clipping.matching.why import explain
from clipping.models import Match
from clipping.terms import TermSyntaxError


def record_reasons(match_ids: Iterable[int]) -> None:
    """Store the reasons of some matches; a list that no longer parses gets none."""
    matches = Match.objects.filter(id__in=list(match_ids)).select_related("keyword_list")
    for match in matches:
        lst = match.keyword_list
        try:
            compiled = compile_text(
                lst.id,
                lst.terms,
                lst.language,
                lst.use_synonyms,
                lst.match_all,
                lst.synonym_choices,
            )
        except TermSyntaxError:
            continue
        terms = compiled.positives
        reasons = explain(match.summary, match.spans, terms, lst.language)
        Match.objects.filter(id=match.id).update(reasons=reasons)
