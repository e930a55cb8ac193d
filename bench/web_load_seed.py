"""Seed the web load benchmark's database: users, lists, sites with runs, clips and matches.

Small tables go in with bulk_create; the big ones (pages, versions, clips, matches,
deliveries: about half a million rows) with PostgreSQL's COPY, because bulk_create spends
about a millisecond of Python per row on this two-core machine and the run must stay short. Matches follow a Zipf law over users, as
real interest does: most people get a few hundred clips, a few get thousands, and those
few are the ones whose pages (counts, pagination, search) show a missing index first.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np
from django.contrib.auth.hashers import make_password
from django.core.management.color import no_style
from django.db import connection
from django.utils import timezone

PASSWORD = "bench-password-7"
BATCH = 5000
CLIPS_PER_VERSION = 2
STAFF = 5

_WORD_TEXT = (
    "harbour council ferry budget election school hospital bridge railway strike tariff "
    "subsidy solar wind energy climate flood drought harvest market bank inflation wages "
    "housing rent tenants mayor minister parliament court judge police museum festival "
    "theatre concert football league cup stadium coach transfer athlete marathon cycling "
    "weather storm snow heatwave forest river lake coast island mountain village city "
    "airport airline tourism hotel restaurant wine cheese fishing farming factory steel "
    "software startup research university student teacher exam library bicycle tram bus "
    "motorway traffic parking pollution recycling water pipeline gas nuclear battery car "
    "electric charging grid outage repair archive painting sculpture novel poetry "
    "film series award prize ceremony protest union contract pension tax reform vote"
)
WORDS = sorted(set(_WORD_TEXT.split()))


@dataclass
class Person:
    """What a load client needs to know about the user it browses as."""

    id: int
    email: str
    staff: bool
    feed_token: str
    digest: bool = False
    list_ids: list[int] = field(default_factory=list)
    site_ids: set[int] = field(default_factory=set)
    matches: int = 0


@dataclass
class Seeded:
    people: list[Person]
    site_ids: list[int]
    counts: dict[str, int]


def sentence(rng: random.Random, words: int, must: str = "") -> str:
    chosen = rng.choices(WORDS, k=words)
    if must:
        chosen[rng.randrange(words)] = must
    return " ".join(chosen).capitalize() + "."


def copy_rows(model: type, rows: list[dict[str, object]]) -> None:
    """COPY rows into a model's table; columns a row leaves out get the field's default."""
    fields = model._meta.concrete_fields
    defaults = [f.get_db_prep_save(f.get_default(), connection) for f in fields]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    names = [f.attname for f in fields]
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(
            f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN"
        ) as copy,
    ):
        for row in rows:
            copy.write_row(
                [row.get(name, default) for name, default in zip(names, defaults, strict=True)]
            )


def seed(users: int, clips: int, sites: int, runs_per_site: int, seed_value: int = 7) -> Seeded:
    """Fill the (empty, migrated) database and return who the clients may log in as."""
    from allauth.account.models import EmailAddress

    from accounts.models import User
    from clipping.models import Clip, Delivery, KeywordList, Match
    from crawler.models import CrawlRun, Page, PageVersion, Site, SiteOrigin

    rng = random.Random(seed_value)
    now = timezone.now()
    password = make_password(PASSWORD)  # hashed once: a million PBKDF2 rounds per user is slow
    user_rows = User.objects.bulk_create(
        [
            User(
                email=f"user{i:04d}@bench.example",
                password=password,
                is_staff=i < STAFF,
                delivery_mode="daily" if i % 5 == 4 else "instant",
                feed_token=secrets.token_urlsafe(24),
            )
            for i in range(users)
        ],
        batch_size=BATCH,
    )
    EmailAddress.objects.bulk_create(
        [EmailAddress(user=u, email=u.email, primary=True, verified=True) for u in user_rows],
        batch_size=BATCH,
    )
    people = [
        Person(u.id, u.email, u.is_staff, u.feed_token, u.delivery_mode != "instant")
        for u in user_rows
    ]
    lists = KeywordList.objects.bulk_create(
        [
            KeywordList(owner_id=p.id, name=f"List {k}", terms="\n".join(rng.sample(WORDS, 3)))
            for p in people
            for k in range(rng.randint(1, 4))
        ],
        batch_size=BATCH,
    )
    by_id = {p.id: p for p in people}
    for item in lists:
        by_id[item.owner_id].list_ids.append(item.id)
    terms = {item.id: item.terms.split("\n") for item in lists}

    site_rows = Site.objects.bulk_create(
        [
            Site(name=f"Bench site {n:02d}", root_url=f"https://site{n}.bench.example/")
            for n in range(sites)
        ]
    )
    SiteOrigin.objects.bulk_create(  # what Site.save writes; bulk_create skips save
        [SiteOrigin(site=site, origin=origin) for site in site_rows for origin in site.origins()]
    )
    runs: dict[int, list[CrawlRun]] = {}
    run_rows = []
    for site in site_rows:
        for day in range(runs_per_site, 0, -1):
            started = now - timedelta(days=day, minutes=rng.randint(0, 600))
            fetched = rng.randint(50, 500)
            run_rows.append(
                CrawlRun(
                    site=site,
                    strategy="xcrawl",
                    status="finished",
                    started_at=started,
                    heartbeat_at=started + timedelta(minutes=20),
                    finished_at=started + timedelta(minutes=20),
                    page_budget=500,
                    fetched=fetched,
                    new=rng.randint(0, fetched // 4),
                    changed=rng.randint(0, fetched // 5),
                    unchanged=fetched // 2,
                    errors=rng.randint(0, 5),
                    relevant=rng.randint(0, fetched),
                    stop_reason="budget",
                )
            )
        if site.pk % 4 == 0:
            run_rows.append(
                CrawlRun(site=site, strategy="xcrawl", page_budget=500, fetched=rng.randint(1, 400))
            )
    for run in CrawlRun.objects.bulk_create(run_rows, batch_size=BATCH):
        if run.finished_at:
            runs.setdefault(run.site_id, []).append(run)

    # Zipf over users: the heaviest reader gets thousands of clips, the median a few hundred.
    weights = 1.0 / np.arange(1, users + 1) ** 0.6
    np_rng = np.random.default_rng(seed_value)
    user_weights = np_rng.permutation(weights / weights.sum())
    owner_draws = iter(np_rng.choice(users, size=clips * 3, p=user_weights).tolist())
    big: dict[type, list[dict[str, object]]] = {
        Page: [],
        PageVersion: [],
        Clip: [],
        Match: [],
        Delivery: [],
    }
    for n in range(clips):
        if n % CLIPS_PER_VERSION == 0:
            site = site_rows[(n // CLIPS_PER_VERSION) % sites]
            run = rng.choice(runs[site.pk])
            page_id = len(big[Page]) + 1
            url = f"{site.root_url}news/{page_id}"
            big[Page].append(
                {"id": page_id, "site_id": site.pk, "url": url, "last_fetched_at": now}
            )
            big[PageVersion].append(
                {
                    "id": page_id,
                    "page_id": page_id,
                    "run_id": run.pk,
                    "fetched_at": run.started_at + timedelta(minutes=5),
                    "content_hash": f"{page_id:064x}",
                    "kind": "information",
                    "has_information": True,
                }
            )
        clip_id = n + 1
        seen_at = now - timedelta(minutes=rng.randint(0, 90 * 24 * 60))
        summary = " ".join(sentence(rng, rng.randint(10, 18)) for _ in range(3))
        big[Clip].append(
            {
                "id": clip_id,
                "site_id": site.pk,
                "page_id": page_id,
                "page_version_id": page_id,
                "area_path": f"html/body/main/article[{n % CLIPS_PER_VERSION + 1}]",
                "url": url,
                "host": url.split("/")[2],
                "title": sentence(rng, rng.randint(5, 9))[:-1],
                "summary": summary,
                "language": "en",
                "seen_at": seen_at,
            }
        )
        owners = {next(owner_draws) for _ in range(rng.choice((1, 2, 2, 3)))}
        for index in owners:
            person = people[index]
            list_id = rng.choice(person.list_ids)
            term = rng.choice(terms[list_id])
            text = sentence(rng, 14, must=term) + " " + summary
            at = text.find(term)
            # The queue holds the last day's digest matches; older mail went out, 2% failed.
            roll = rng.random()
            if now - seen_at < timedelta(days=1) and (person.digest or roll < 0.05):
                status = "pending"
            else:
                status = "sent" if roll < 0.98 else "failed"
            match_id = len(big[Match]) + 1
            big[Match].append(
                {
                    "id": match_id,
                    "owner_id": person.id,
                    "keyword_list_id": list_id,
                    "clip_id": clip_id,
                    "story_id": clip_id,
                    "summary": text,
                    "spans": json.dumps([[at, at + len(term), term]]),
                    "created_at": seen_at,
                    "mail_status": status,
                    "delivered_at": seen_at if status == "sent" else None,
                    "read_at": seen_at if rng.random() < 0.5 else None,
                }
            )
            if status != "pending":
                big[Delivery].append(
                    {
                        "id": len(big[Delivery]) + 1,
                        "user_id": person.id,
                        "kind": "instant",
                        "match_id": match_id,
                        "address": person.email,
                        "status": status,
                        "error": "" if status == "sent" else "554 5.7.1 rejected",
                        "created_at": seen_at,
                        "finished_at": seen_at,
                    }
                )
            person.site_ids.add(site.pk)
            person.matches += 1
    for model, rows in big.items():
        copy_rows(model, rows)
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), list(big)):
            cursor.execute(statement)
    # As autovacuum would after a bulk load: statistics for the planner, and the visibility
    # map that lets index-only scans (is this clip mine?) skip the heap.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    counts = {
        "users": users,
        "keyword lists": len(lists),
        "sites": sites,
        "crawl runs": len(run_rows),
        "clips": clips,
        "matches": len(big[Match]),
        "deliveries": len(big[Delivery]),
    }
    return Seeded(people, [s.pk for s in site_rows], counts)
