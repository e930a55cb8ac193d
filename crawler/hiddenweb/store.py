"""The LVS manager and the searches' counts: what the hidden-web crawler reads and writes.

Runs in the crawl thread (database), never on the fetching event loop.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Least
from django.utils import timezone

from analyzer.text import stems, tokenize
from crawler.hiddenweb import assignments
from crawler.hiddenweb.assignments import FALLEN, Assignment, Plan, bare
from crawler.hiddenweb.entities import near_topic, recurring_names
from crawler.hiddenweb.lvs import LEARNED, LabelValues
from crawler.hiddenweb.outcome import FormOutcome
from crawler.hiddenweb.responses import EmptyPageModel
from crawler.models.hiddenweb import FormQuery, LabelValue, LabelValueSet, RunSearch
from crawler.models.pages import ArticleText, PageVersion
from crawler.models.sitesearch import SiteSearch
from crawler.sitesearch.analysis import Form
from crawler.sitesearch.detect import KEYWORD_ALIASES, KEYWORD_LABEL

if TYPE_CHECKING:
    from crawler.models import CrawlRun, Site

# Values learnt from crawled forms are trusted less than an admin's or users' (HiWE 5.5);
# each new sighting on another form adds a little, never reaching human confidence.
LEARNED_WEIGHT = 0.5
LEARNED_STEP = 0.1
LEARNED_MAX = 0.9


def load_table() -> list[LabelValues]:
    """Return every LVS row with its values, as the matcher uses them."""
    rows = []
    for row in LabelValueSet.objects.prefetch_related("values").order_by("id"):
        values = tuple((v.value, v.weight) for v in row.values.all())
        rows.append(
            LabelValues(row.label, values, tuple(row.alias_list()), row.source, row_id=row.id)
        )
    return rows


def sync_keywords(queries: Mapping[str, float]) -> LabelValueSet:
    """Make the users' row hold exactly the users' keywords, the heaviest with weight 1.

    Admins may edit the row's aliases; its values follow the keyword lists.
    """
    top = max(queries.values(), default=0.0)
    wanted = {q.strip(): (w / top if top else 1.0) for q, w in queries.items() if q.strip()}
    with transaction.atomic():
        row, _ = LabelValueSet.objects.get_or_create(
            label=KEYWORD_LABEL,
            source=LabelValueSet.Source.USERS,
            defaults={"aliases": "\n".join(KEYWORD_ALIASES)},
        )
        row.values.exclude(value__in=list(wanted)).delete()
        existing = {v.value: v for v in row.values.all()}
        for value, weight in wanted.items():
            found = existing.get(value)
            if found is None:
                LabelValue.objects.create(row=row, value=value[:500], weight=round(weight, 6))
            elif abs(found.weight - weight) > 1e-6:
                LabelValue.objects.filter(id=found.id).update(weight=round(weight, 6))
        LabelValueSet.objects.filter(id=row.id).update(updated_at=timezone.now())
    return row


def learn_domains(form: Form, language: str = "en") -> int:
    """Add a newly seen form's finite domains to LVS rows learnt from crawling.

    HiWE 5.5: a select labelled "Section" teaches the values a text box labelled "Section"
    on another form may take. Values already learnt from another form gain LEARNED_STEP,
    up to LEARNED_MAX. Call once per form (its first sighting); returns the values added.
    """
    added = 0
    for element in form.finite_elements:
        label = (element.label or "").strip()[:200]
        values = list(
            dict.fromkeys(o.text.strip()[:500] for o in element.options if o.text.strip())
        )
        if not label or not values:
            continue
        with transaction.atomic():
            row, _ = LabelValueSet.objects.get_or_create(
                label=label, source=LEARNED, defaults={"language": language}
            )
            known = set(row.values.filter(value__in=values).values_list("value", flat=True))
            row.values.filter(value__in=known, weight__lt=LEARNED_MAX).update(
                weight=Least(F("weight") + LEARNED_STEP, Value(LEARNED_MAX))
            )
            fresh = [v for v in values if v not in known]
            LabelValue.objects.bulk_create(
                [LabelValue(row=row, value=v, weight=LEARNED_WEIGHT) for v in fresh],
                ignore_conflicts=True,
            )
            added += len(fresh)
    return added


def empty_model(record: SiteSearch, threshold: float) -> EmptyPageModel:
    """Return the form's learnt "no results" signatures."""
    return EmptyPageModel.from_json(record.empty_signatures, threshold)


def save_probes(record: SiteSearch, model: EmptyPageModel, now: datetime) -> None:
    """Store the signatures learnt from nonsensical probes."""
    SiteSearch.objects.filter(id=record.id).update(empty_signatures=model.to_json(), probed_at=now)
    record.empty_signatures, record.probed_at = model.to_json(), now


def value_tallies(record: SiteSearch) -> dict[tuple[str, str], tuple[int, int]]:
    """Return, per (element, value) sent to the form, (submissions with results, submissions)."""
    tallies: dict[tuple[str, str], tuple[int, int]] = {}
    rows = FormQuery.objects.filter(form=record).values_list(
        "assignment", "with_results", "submissions"
    )
    for assignment, hits, sent in rows:
        for pair in assignment or []:
            if isinstance(pair, list) and len(pair) == 2:
                key = (str(pair[0]), bare(str(pair[1])))
                before = tallies.get(key, (0, 0))
                tallies[key] = (before[0] + hits, before[1] + sent)
    return tallies


HARVEST_PAGES = 200  # the site's newest article pages read for names


def site_names(
    site_id: int, queries: Mapping[str, float], language: str, limit: int
) -> dict[str, float]:
    """Return names recurring on the site's own articles that hold a user's keyword, as LVS
    values weighted below every keyword (HiWE's values learnt from crawled pages)."""
    if limit <= 0 or not queries:
        return {}
    rows = PageVersion.objects.filter(page__site_id=site_id, article__isnull=False)
    pages = []
    for packed in rows.order_by("-id").values_list("article", flat=True)[:HARVEST_PAGES]:
        article = ArticleText.unpack(bytes(packed))
        pages.append([article.title, article.text])
    topic = {stem for query in queries for stem in stems(tokenize(query), language)}
    names = recurring_names(
        near_topic(pages, topic, language), exclude=queries, limit=limit, language=language
    )
    weight = min(queries.values()) / 2
    return dict.fromkeys(names, weight)


def with_feedback(plan: Plan, record: SiteSearch) -> Plan:
    """Return the plan with its values' weights moved by their answers on this form so far."""
    return assignments.with_feedback(plan, value_tallies(record))


def order_by_staleness(record: SiteSearch, assignments: list[Assignment]) -> list[Assignment]:
    """Return assignments never tried first, then the least recently tried; rank breaks ties.

    An assignment ranked below FALLEN times the best rank (its values kept bringing the
    "no results" page, `assignments.with_feedback`) comes after all the others.
    """
    hashes = {a.key(): FormQuery.hash_key(a.key()) for a in assignments}
    tried = dict(
        FormQuery.objects.filter(form=record, key_hash__in=list(hashes.values())).values_list(
            "key_hash", "last_submitted_at"
        )
    )
    epoch = datetime.min.replace(tzinfo=timezone.get_current_timezone())
    best = max((a.rank for a in assignments), default=0.0)

    def staleness(item: tuple[int, Assignment]) -> tuple[bool, datetime, int]:
        position, assignment = item
        fallen = assignment.rank < FALLEN * best
        return fallen, tried.get(hashes[assignment.key()]) or epoch, position

    return [a for _, a in sorted(enumerate(assignments), key=staleness)]


def record_submission(
    record: SiteSearch, assignment: Assignment, *, had_results: bool, now: datetime
) -> None:
    """Count one submission on the form and on its assignment (submission efficiency)."""
    hit = int(had_results)
    SiteSearch.objects.filter(id=record.id).update(
        submissions=F("submissions") + 1,
        with_results=F("with_results") + hit,
        last_submitted_at=now,
    )
    query, _ = FormQuery.objects.get_or_create(
        form=record,
        key_hash=FormQuery.hash_key(assignment.key()),
        defaults={
            "assignment": [list(p) for p in assignment.values],
            "keyword": assignment.keyword[:500],
        },
    )
    FormQuery.objects.filter(id=query.id).update(
        submissions=F("submissions") + 1,
        with_results=F("with_results") + hit,
        last_submitted_at=now,
        last_had_results=had_results,
    )


def record_searches(
    site: Site,
    run: CrawlRun | None,
    outcomes: Iterable[FormOutcome],
    *,
    known: Collection[str],
    canonical: Callable[[str], str],
) -> int:
    """Write one `RunSearch` row per text typed into a form; return how many.

    `known` holds the canonical result URLs the site's crawl had fetched before this pass:
    the others are the search's new articles.
    """
    rows = []
    for outcome in outcomes:
        for log in outcome.searches:
            urls = {canonical(url) for url in log.results}
            rows.append(
                RunSearch(
                    site=site,
                    run=run,
                    form_id=outcome.form_id,
                    query=log.query[:500],
                    keyword=log.keyword[:500],
                    variant=log.form[:12],
                    had_results=log.had_results,
                    pages=log.pages,
                    results=len(urls),
                    new_articles=len(urls - set(known)),
                    stopped=log.stopped[:40],
                    style=outcome.style[:80],
                )
            )
    RunSearch.objects.bulk_create(rows)
    return len(rows)
