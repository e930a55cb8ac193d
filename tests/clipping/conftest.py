"""Fixtures for clips, matches and publishing: sites, stored page versions, lists, an SMTP server with faults."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

import pytest
from aiosmtpd.controller import Controller
from django.utils import timezone

from analyzer import analyze
from clipping.ingest import IngestResult, ingest
from clipping.matching import KeywordIndex, current_index
from clipping.matching.native import speedups as _speedups
from clipping.matching.shared import refresh_index
from clipping.models import Clip, KeywordList, Match
from crawler.models import Page, PageVersion, Site
from tests.conftest import SMTPSink, free_port


def make_site(name: str = "Daily Example", root: str = "https://news.example.com/") -> Site:
    return Site.objects.create(name=name, root_url=root)


def make_list(owner, name: str, terms: str, **extra: object) -> KeywordList:
    return KeywordList.objects.create(owner=owner, name=name, terms=terms, **extra)


def active_index() -> KeywordIndex:
    """Return the process's shared index of the active lists, brought up to date now."""
    refresh_index()
    return current_index()


def store_version(
    site: Site,
    url: str,
    html: str,
    *,
    fetched_at: datetime | None = None,
    content_type: str = "text/html; charset=utf-8",
    has_information: bool = True,
) -> PageVersion:
    """Store a fetched page version the way the crawler does (compressed body, hash)."""
    page, _ = Page.objects.get_or_create(site=site, url=url)
    body = html.encode()
    version = PageVersion(
        page=page,
        content_hash=hashlib.sha256(body).hexdigest(),
        content_type=content_type,
        fetched_at=fetched_at or timezone.now(),
        has_information=has_information,
    )
    version.set_body(body)
    version.save()
    return version


def ingest_html(site: Site, url: str, html: str, **kwargs: object) -> IngestResult:
    """Store a version of a page, analyse it with the real analyzer and ingest it."""
    version = store_version(site, url, html)
    return ingest(version, analyze(html, url), index=active_index(), **kwargs)


@pytest.fixture(params=["c", "python"])
def matching_loops(request, monkeypatch) -> str:
    """Match with the index's C loops, then again with their pure-Python reference."""
    if request.param == "c":
        assert _speedups is not None, "clipping/matching/_speedups.c was not built"
    monkeypatch.setattr(KeywordIndex, "accelerated", request.param == "c")
    return request.param


@pytest.fixture
def eager_celery() -> Iterator[None]:
    """Run tasks in the calling process, as a worker would, with their retries."""
    from config.celery_app import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    try:
        yield
    finally:
        app.conf.task_always_eager = False
        app.conf.task_eager_propagates = False


@pytest.fixture
def site(db) -> Site:
    return make_site()


@dataclass
class FaultySMTP(SMTPSink):
    """The shared SMTP sink plus faults: "DROP" closes the connection, "STALL" never answers in time."""

    stall_seconds: float = 3.0
    attempts: int = 0
    rcpt_replies: dict[str, str] = field(default_factory=dict)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:  # noqa: N802
        reply = self.rcpt_replies.get(address)
        if reply:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: N802
        self.attempts += 1
        if self.scripted_replies and self.scripted_replies[0] == "DROP":
            self.scripted_replies.pop(0)
            server.transport.close()
            return "421 closing"
        if self.scripted_replies and self.scripted_replies[0] == "STALL":
            self.scripted_replies.pop(0)
            await asyncio.sleep(self.stall_seconds)  # the client gave up: the message is dropped
            return "451 too slow"
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def faulty_smtp(settings) -> Iterator[FaultySMTP]:
    """A real SMTP server (aiosmtpd) whose replies, connection and speed tests can script."""
    sink = FaultySMTP("127.0.0.1", free_port())
    controller = Controller(sink, hostname=sink.host, port=sink.port)
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = sink.host
    settings.EMAIL_PORT = sink.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 1
    try:
        yield sink
    finally:
        controller.stop()


def make_clip(
    site: Site | None = None,
    *,
    title: str = "Council backs solar subsidies",
    url: str = "https://news.example.com/news/solar",
    summary: str = "The council gives households solar subsidies for panels. Officials agreed.",
    seen_at: datetime | None = None,
) -> Clip:
    """Create a clip directly (ingest has its own tests)."""
    return Clip.objects.create(
        site=site,
        url=url,
        host="news.example.com",
        area_path="html/body/article[1]",
        title=title,
        summary=summary,
        spans=[],
        language="en",
        seen_at=seen_at or timezone.now(),
    )


def make_match(
    keyword_list: KeywordList,
    clip: Clip | None = None,
    *,
    term: str = "subsidies",
    **clip_fields: object,
) -> Match:
    """Create a match of a clip for a list, with the term highlighted in its summary."""
    clip = clip or make_clip(**clip_fields)
    start = clip.summary.find(term)
    spans = [[start, start + len(term), term]] if start >= 0 else []
    return Match.objects.create(
        owner=keyword_list.owner,
        keyword_list=keyword_list,
        clip=clip,
        story=clip,
        summary=clip.summary,
        spans=spans,
    )
