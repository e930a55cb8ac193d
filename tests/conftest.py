"""Shared fixtures (personas, real SMTP servers, eager Celery, a real Chromium) and test tiers.

Helpers that tests import live in tests/factories.py (model builders) and tests/servers.py
(SMTP sinks, worker threads, the PostgreSQL server); nothing here is imported by tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.factories import make_user
from tests.servers import (
    FaultySMTP,
    SMTPSink,
    clear_own_keys,
    drop_stale_test_databases,
    free_port,
    serving_smtp,
)

# Playwright's sync API keeps an event loop in the test thread; Django's ORM guard would refuse it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
]


# Test tiers (markers in pyproject.toml). `make test-fast` runs, with `--fast`, the tests that
# carry none of these, on SQLite, a local-memory cache and an in-memory broker, and refuses to
# start Chromium: a test that needs a service and lacks its marker fails there.
TIER_MARKERS = frozenset({"postgres", "redis", "browser", "e2e", "slow"})
# Fixtures that bring a real service: a test using one, directly or through another fixture,
# gets its marker here.
FIXTURE_MARKERS = {"browser": "browser"}
SLOW_SECONDS = 2.0  # a fast-tier test that takes longer is listed at the end


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast tier: leave out tests marked " + ", ".join(sorted(TIER_MARKERS)),
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("fast"):
        _refuse_chromium()
    _own_cache_keys()


def _own_cache_keys() -> None:
    """Give this test process cache keys of its own: the parallel workers share one Redis
    database, and one worker's clearing must not wipe another's rate-limit counters."""
    from django.conf import settings

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    cache = settings.CACHES["default"]
    cache["KEY_PREFIX"] = f"{cache.get('KEY_PREFIX', 'webclip')}-test-{worker}"


def pytest_sessionstart(session: pytest.Session) -> None:
    drop_stale_test_databases()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in sorted(FIXTURE_MARKERS.keys() & set(getattr(item, "fixturenames", ()))):
            item.add_marker(FIXTURE_MARKERS[fixture])
    if config.getoption("fast"):
        left_out = [item for item in items if TIER_MARKERS & set(item.keywords)]
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not TIER_MARKERS & set(item.keywords)]


def _refuse_chromium() -> None:
    """Make every Chromium launch fail with a hint, whatever executable the test names."""
    from playwright import async_api, sync_api

    hint = "The fast tier starts no browser: mark this test `browser`."

    async def refuse(self, *args: object, **kwargs: object) -> None:
        raise async_api.Error(hint)

    def refuse_sync(self, *args: object, **kwargs: object) -> None:
        raise sync_api.Error(hint)

    async_api.BrowserType.launch = refuse
    sync_api.BrowserType.launch = refuse_sync


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if not config.getoption("fast"):
        return
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, ())]
    slow = sorted(
        ((r.duration, r.nodeid) for r in reports if r.when == "call" and r.duration > SLOW_SECONDS),
        reverse=True,
    )
    if slow:
        terminalreporter.section(f"tests over {SLOW_SECONDS:g} s in the fast tier")
        for seconds, nodeid in slow:
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}  (mark it slow?)")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """Keep a SQLite test database in memory; PostgreSQL ones keep their per-process names."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database["TEST"]["NAME"] = None


@pytest.fixture
def alice(db):
    return make_user("alice@example.com")


@pytest.fixture
def bob(db):
    return make_user("bob@example.com")


@pytest.fixture
def charlie(db):
    return make_user("charlie@example.com")


@pytest.fixture
def staff_client(client, db):
    """The test client logged in as a superuser, for admin pages."""
    client.force_login(make_user("admin@example.com", is_staff=True, is_superuser=True))
    return client


@pytest.fixture(autouse=True)
def _keep_topic_provider() -> Iterator[None]:
    """Tests install their own crawl topic; clipping's provider is put back after each."""
    from crawler import topic

    saved, matcher = topic._provider, topic._matcher
    yield
    topic.register_topic_provider(saved)
    topic.register_keyword_matcher(matcher)


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """A page served in German leaves German active in the test's thread; each test starts
    in LANGUAGE_CODE, so text built in Python reads the same whichever test ran before."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _clear_cache(request) -> Iterator[None]:
    """Rate-limit counters live in the shared cache; each test starts from zero."""
    marked = request.node.get_closest_marker("django_db") is not None
    if not marked and not {"db", "transactional_db"} & set(request.fixturenames):
        yield
        return
    from django.core.cache import cache

    clear_own_keys(cache)
    yield


@pytest.fixture(autouse=True)
def unpaced(settings) -> None:
    """Send each instant clip at once: a task called or run eagerly has no timer to wait on.

    The pacing of the product's defaults has its own tests (tests/clipping/test_pacing.py,
    and the end-to-end walk), which set it back.
    """
    settings.CLIPPING_INSTANT_GATHER_SECONDS = 0
    settings.CLIPPING_INSTANT_SPACING_SECONDS = 0


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


# --- Real SMTP servers ---------------------------------------------------------------------------


@pytest.fixture
def smtp_server(settings) -> Iterator[SMTPSink]:
    """A real SMTP server (aiosmtpd) that keeps every message; Django sends to it."""
    with serving_smtp(SMTPSink("127.0.0.1", free_port()), settings, timeout=5) as sink:
        yield sink


@pytest.fixture
def file_mailbox(settings, tmp_path):
    """Mail written as files to a fresh folder (returned), read by the DEBUG-only local
    mailbox page."""
    settings.EMAIL_PROVIDER = "file"
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    settings.DEBUG = True
    return tmp_path


@pytest.fixture
def faulty_smtp(settings) -> Iterator[FaultySMTP]:
    """A real SMTP server (aiosmtpd) whose replies, connection and speed tests can script."""
    with serving_smtp(FaultySMTP("127.0.0.1", free_port()), settings, timeout=1) as sink:
        yield sink


# --- A real browser ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()
