"""How xCrawl judges a fetched page: the validator's verdict, the topic affinity, the learnt
terms, and the verdicts and hubs it keeps in the database.

Part of `XCrawl` (crawler.strategies.xcrawl.strategy), on the state it keeps.
"""

from __future__ import annotations

from django.utils import timezone

from crawler.models import Page
from crawler.models.xcrawl import PageVerdict
from crawler.strategies.base import PageObservation
from crawler.strategies.xcrawl.reading import PageWords, Reading, page_words
from crawler.strategies.xcrawl.validator import Verdict, topic_affinity, validate

VERDICTS_PER_WRITE = 25  # verdicts written together (a commit per page costs a disk sync)


class ObservingPages:
    """XCrawl's judgement of each fetched page, and its memory of them."""

    def _verdict(self, node: int, observation: PageObservation, words: PageWords | None) -> Verdict:
        if not observation.ok:
            return Verdict(False, reason=str(observation.error or "fetch failed"))
        if observation.analysis is None and node in self.verdicts:
            return Verdict(self.verdicts[node], reason="unchanged since validated")
        return validate(
            observation.analysis,
            self.topic,
            min_score=self.config.validator_min_score,
            words=words,
        )

    def _note_affinity(
        self, node: int, observation: PageObservation, verdict: Verdict, words: PageWords | None
    ) -> None:
        if verdict.accepted or observation.analysis is None:
            self.weights.affinity.pop(node, None)
            return
        affinity = topic_affinity(
            observation.analysis,
            self.topic,
            min_score=self.config.validator_min_score,
            words=words,
        )
        if affinity > 0:
            self.weights.affinity[node] = affinity
        else:
            self.weights.affinity.pop(node, None)

    def _learn(
        self, observation: PageObservation, verdict: Verdict, words: PageWords | None
    ) -> None:
        """Count the words of information pages; relearn the terms every few authorities."""
        analysis = observation.analysis
        if analysis is None or words is None or observation.kind != "information":
            return
        self.learner.add(
            words.informational,
            accepted=verdict.accepted,
            language=analysis.language or "",
        )
        if not verdict.accepted:
            return
        self._accepted_seen += 1
        if self._accepted_seen % 5:
            return
        terms = self.learner.terms(self.config.sample_terms)
        if terms == self.evidence.learned:
            return
        self.evidence.learned = terms
        self.stats.learned_updates += 1
        for candidate in self.priorities.candidates.values():
            if candidate.stems:
                candidate.text_evidence = self.evidence.score(candidate.stems)
                candidate.evidence = max(candidate.text_evidence, candidate.boost)

    def _words(self, observation: PageObservation, reading: Reading | None) -> PageWords | None:
        """Return the stems of an analysed page's words: read ahead, or read now."""
        if observation.analysis is None:
            return None
        if reading is not None:
            return reading.words
        return page_words(observation.analysis, self.topic.language)

    def _store_verdict(self, observation: PageObservation, verdict: Verdict) -> None:
        """Keep the verdict for the next flush (one bulk upsert per `VERDICTS_PER_WRITE`)."""
        if observation.page_id is None or observation.analysis is None:
            return
        self._unsaved[observation.page_id] = PageVerdict(
            page_id=observation.page_id,
            accepted=verdict.accepted,
            score=verdict.score,
            validated_at=timezone.now(),
        )
        if len(self._unsaved) >= VERDICTS_PER_WRITE:
            self._flush_verdicts()

    def _flush_verdicts(self) -> None:
        if not self._unsaved:
            return
        PageVerdict.objects.bulk_create(
            list(self._unsaved.values()),
            update_conflicts=True,
            unique_fields=["page"],
            update_fields=["accepted", "score", "validated_at"],
        )
        self._unsaved.clear()

    def _store_hubs(self, hubs: set[int]) -> None:
        self._flush_verdicts()
        urls = [self.graph.urls[node] for node in hubs]
        for page_id, url in Page.objects.filter(site=self.site, url__in=urls).values_list(
            "id", "url"
        ):
            PageVerdict.objects.update_or_create(
                page_id=page_id, defaults={"hub": float(self.weights.hub[self.graph.index[url]])}
            )
