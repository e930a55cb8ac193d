"""Settings, system checks and the Celery wiring."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings

from base.env import SettingError, parse_duration
from clipping.conf import clipping_settings
from config.celery_app import app
from crawler.conf import (
    VARIANTS,
    FetchSettings,
    XcrawlSettings,
    crawler_settings,
    deepweb_settings,
    xcrawl_settings,
)
from crawler.fetch import FetchPolicy, policy_from_settings
from crawler.strategies.xcrawl.weights import Variant

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x7Hq2-production-like-secret-key-for-the-deploy-check-0f9a8b7c6d5e4f3",
    "ALLOWED_HOSTS": "clips.example.org",
    "SITE_URL": "https://clips.example.org",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/webclip",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/2",
    "CACHE_URL": "redis://127.0.0.1:6379/1",
    "EMAIL_PROVIDER": "smtp",
    "EMAIL_HOST": "smtp.example.org",
    "DEFAULT_FROM_EMAIL": "Webclip <alerts@clips.example.org>",
}


@pytest.fixture
def unpaced() -> None:
    """The suite's pacing override stays out: these tests read the settings as deployed."""


def run_check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    test_only = {"WEBCLIP_TESTING", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV and k not in test_only}
    return subprocess.run(
        [sys.executable, "manage.py", "check", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_deploy_check_passes_with_no_warnings_on_a_production_configuration():
    result = run_check(PRODUCTION_ENV, "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("override", "error_id"),
    [
        ({"SECRET_KEY": ""}, "webclip.E001"),
        ({"DEBUG": "1"}, "webclip.E002"),
        ({"CELERY_BROKER_URL": "filesystem://"}, "webclip.E003"),
        ({"DEFAULT_FROM_EMAIL": "Webclip <webclip@localhost>"}, "webclip.E004"),
        ({"EMAIL_PROVIDER": "file"}, "webclip.E005"),
    ],
)
def test_deploy_check_refuses_a_configuration_that_cannot_work(override, error_id):
    result = run_check({**PRODUCTION_ENV, **override}, "--deploy")
    assert result.returncode != 0
    assert error_id in result.stdout + result.stderr


@pytest.mark.slow
def test_a_malformed_boolean_env_var_is_a_clear_configuration_error():
    result = run_check({**PRODUCTION_ENV, "DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr


def test_celery_time_limits_stay_below_the_broker_visibility_timeout():
    visibility = app.conf.broker_transport_options["visibility_timeout"]
    assert app.conf.task_soft_time_limit < app.conf.task_time_limit < visibility


def test_celery_speaks_json_and_acknowledges_late():
    assert app.conf.task_serializer == "json"
    assert app.conf.accept_content == ["json"]
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True


def test_tasks_are_routed_to_their_queues():
    router = app.amqp.router
    assert router.route({}, "crawler.tasks.crawl_site")["queue"].name == "crawl"
    assert router.route({}, "clipping.tasks.deliver_match")["queue"].name == "publish"


@pytest.mark.redis
@pytest.mark.postgres
def test_the_suite_runs_on_postgresql_and_redis():
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"


def test_beat_uses_the_database_scheduler_with_crawl_and_publish_schedules(db):
    from importlib import import_module

    from django.apps import apps
    from django_celery_beat.models import PeriodicTask

    # A transactional test in the same process may have emptied the table the migrations
    # filled: their schedules are made again as the migrations make them (get or create).
    for migration in (
        "crawler.migrations.0002_dispatch_schedule",
        "clipping.migrations.0003_publish_schedule",
    ):
        import_module(migration).create_schedule(apps, None)
    assert app.conf.beat_scheduler == "django_celery_beat.schedulers:DatabaseScheduler"
    assert PeriodicTask.objects.filter(
        task="crawler.tasks.dispatch_due_sites", enabled=True
    ).exists()
    publishing = PeriodicTask.objects.get(task="clipping.tasks.publish_due")
    assert publishing.enabled and publishing.queue == "publish"


def test_pages_carry_security_headers(client):
    response = client.get("/")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp


def test_static_files_carry_the_content_security_policy_and_nosniff(client, settings):
    settings.WHITENOISE_USE_FINDERS = True  # serve from static/ without collectstatic
    css = next(path.name for path in (ROOT / "static" / "css").glob("*.css"))

    response = client.get(f"{settings.STATIC_URL}css/{css}")

    assert response.status_code == 200
    assert response["X-Content-Type-Options"] == "nosniff"
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp


def run_embedded(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run manage.py with none of the production env vars: the laptop defaults apply."""
    service_vars = {
        "DATABASE_URL",
        "CACHE_URL",
        "CELERY_BROKER_URL",
        "EMAIL_PROVIDER",
        "WEBCLIP_TESTING",
        "PYTEST_XDIST_WORKER",
        "DEBUG",
    }
    clean = {k: v for k, v in os.environ.items() if k not in service_vars | set(PRODUCTION_ENV)}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, "WEBCLIP_VAR_DIR": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def last_line(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stdout.strip().splitlines()[-1].split()


SHOW_SETTINGS = (
    "shell",
    "-c",
    "from django.conf import settings as s; print(s.DATABASES['default']['ENGINE'], "
    "s.CELERY_BROKER_URL, s.CACHES['default']['BACKEND'], s.EMAIL_BACKEND, "
    "s.ANYMAIL.get('REQUESTS_TIMEOUT'), s.ANYMAIL.get('MAILGUN_API_KEY'))",
)


@pytest.mark.slow
def test_the_embedded_defaults_need_no_server(tmp_path):
    result = run_embedded(tmp_path, *SHOW_SETTINGS)
    assert result.returncode == 0, result.stderr
    assert last_line(result) == [
        "django.db.backends.sqlite3",
        "filesystem://",
        "django.core.cache.backends.filebased.FileBasedCache",
        "django.core.mail.backends.filebased.EmailBackend",
        "20",
        "None",
    ]


@pytest.mark.slow
def test_an_anymail_provider_is_chosen_by_env_with_the_mail_timeout(tmp_path):
    result = run_embedded(
        tmp_path,
        *SHOW_SETTINGS,
        EMAIL_PROVIDER="mailgun",
        ANYMAIL_MAILGUN_API_KEY="key-123",
        EMAIL_TIMEOUT="7",
    )
    assert result.returncode == 0, result.stderr
    assert last_line(result)[3:] == ["anymail.backends.mailgun.EmailBackend", "7", "key-123"]


@pytest.mark.slow
def test_mail_on_the_embedded_defaults_lands_in_a_mailbox_the_mailbox_command_reads(tmp_path):
    sent = run_embedded(tmp_path, "sendtestemail", "dana@example.com")
    assert sent.returncode == 0, sent.stderr
    assert list((tmp_path / "mailbox").glob("*.log"))

    shown = run_embedded(tmp_path, "mailbox", "--limit", "1")

    assert shown.returncode == 0, shown.stderr
    assert "To: dana@example.com" in shown.stdout
    assert "Test email from" in shown.stdout
    assert "If you're reading this, it was successful." in shown.stdout


# Views that take POSTs without a CSRF token on purpose: RFC 8058 one-click unsubscribe (mail
# providers post without cookies), the ESP tracking webhooks (authenticated by their secret) and
# the REST API (a bearer token, never the session cookie: tests/api checks it answers 401).
CSRF_EXEMPT = {"unsubscribe", "anymail:", "api:"}


def every_route(patterns=None, prefix: str = "", namespace: str = ""):
    """Yield (name, path) of every route, converters filled with placeholder values."""
    from django.urls import URLPattern, URLResolver, get_resolver
    from django.urls.resolvers import RoutePattern

    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue  # the admin's regex catch-alls; its named views are routes
        route = re.sub(r"<int:\w+>", "1", str(entry.pattern))
        route = re.sub(r"<(?:\w+:)?\w+>", "x", route)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from every_route(entry.url_patterns, prefix + route, inner)
        elif isinstance(entry, URLPattern):
            yield f"{namespace}{entry.name or ''}", "/" + prefix + route


def test_every_post_view_refuses_a_post_without_a_csrf_token(alice):
    from django.test import Client

    alice.is_staff = alice.is_superuser = True
    alice.save()
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    checked = []
    for name, path in every_route():
        if any(name.startswith(exempt) for exempt in CSRF_EXEMPT):
            continue
        response = client.post(path, {"email": "x@example.com", "name": "x"})
        assert response.status_code == 403, (name, path, response.status_code)
        checked.append(name)
    # The walk reached the app's own POST views, allauth's and the admin's.
    for name in ("list_create", "account_delete", "account_logout", "admin:index"):
        assert name in checked


# --- The apps' settings (crawler/conf.py, clipping/conf.py) and their start-up check ----------


@pytest.mark.slow
def test_an_unknown_setting_in_the_environment_is_named_with_the_closest_known_one():
    result = run_check({"CRAWLER_RUN_SECONDSS": "600", "HIDDENWEB_SMAX": "3"})
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "webclip.E010" in output
    assert "CRAWLER_RUN_SECONDSS is set in the environment" in output
    assert "Did you mean CRAWLER_RUN_SECONDS?" in output
    assert "Did you mean DEEPWEB_SMAX?" in output


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DEEPWEB_SMAX", "lots", "DEEPWEB_SMAX must be an integer, got 'lots'"),
        ("XCRAWL_SEARCH", "maybe", "XCRAWL_SEARCH must be a boolean"),
        ("XCRAWL_VARIANT", "pagerank", "XCRAWL_VARIANT must be one of hits, hits+pagerank"),
        ("CLIPPING_CLAIM_TIMEOUT", "10s", "CLIPPING_CLAIM_TIMEOUT must be at least 60 seconds"),
    ],
)
def test_a_malformed_setting_in_the_environment_is_named_at_start_up(name, value, message):
    result = run_check({name: value})
    assert result.returncode != 0
    assert "webclip.E011" in result.stderr
    assert message in result.stderr


@pytest.mark.slow
def test_well_formed_app_settings_pass_the_start_up_check():
    env = {
        "CRAWLER_RUN_SECONDS": "600",
        "CRAWLER_USER_AGENT": "ClipBot/2 (+https://clips.example.org/bot)",
        "DEEPWEB_ENABLED": "off",
        "XCRAWL_VARIANT": "hits",
        "CLIPPING_CLAIM_TIMEOUT": "15m",
        "WEBCLIP_ADMIN_PASSWORD": "chosen-admin-pass-42",
    }
    result = run_check(env, "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_setting_comes_from_the_environment_when_django_settings_lack_it(monkeypatch):
    monkeypatch.setenv("CRAWLER_VERSIONS_KEPT", "3")
    monkeypatch.setenv("CLIPPING_CLAIM_TIMEOUT", "2h")
    monkeypatch.setenv("XCRAWL_PROBE", "no")

    assert crawler_settings().versions_kept == 3
    assert clipping_settings().claim_timeout == timedelta(hours=2)
    assert xcrawl_settings().probe is False


def test_a_django_setting_wins_over_the_environment(settings, monkeypatch):
    monkeypatch.setenv("DEEPWEB_SMAX", "7")
    settings.DEEPWEB_SMAX = 2

    assert deepweb_settings().smax == 2


def test_an_unset_setting_takes_the_default_stated_in_its_conf_module(monkeypatch):
    for _, spec in FetchSettings.declared():
        monkeypatch.delenv(spec.name, raising=False)
    monkeypatch.delenv("CRAWLER_RUN_SECONDS", raising=False)
    monkeypatch.setenv("CLIPPING_PAGE_SIZE", "")  # empty: unset

    assert crawler_settings().run_seconds == 1200.0
    assert clipping_settings().page_size == 20
    assert policy_from_settings() == FetchPolicy()


def test_django_settings_repeat_no_default_of_the_apps():
    from base.checks import app_sections

    names = [spec.name for section in app_sections() for _, spec in section.declared()]
    assert len(names) == len(set(names)) > 60
    assert [name for name in names if hasattr(settings, name)] == []


@pytest.mark.parametrize(
    ("raw", "seconds"), [("90", 90), ("90s", 90), ("15m", 900), ("2h", 7200), ("7d", 604800)]
)
def test_a_duration_takes_seconds_or_a_unit(raw, seconds):
    assert parse_duration("X", raw) == timedelta(seconds=seconds)


def test_a_malformed_value_raises_an_error_that_names_the_variable(monkeypatch):
    monkeypatch.setenv("CRAWLER_RUN_CONCURRENCY", "sixteen")
    with pytest.raises(SettingError, match="CRAWLER_RUN_CONCURRENCY must be an integer"):
        crawler_settings()
    with pytest.raises(SettingError, match="CLIPPING_STALLED_AFTER must be a duration"):
        parse_duration("CLIPPING_STALLED_AFTER", "soon")


def test_values_given_in_code_obey_the_same_limits():
    with pytest.raises(SettingError, match="XCRAWL_DAMPING must be below 1"):
        xcrawl_settings(damping=1.0)
    with pytest.raises(SettingError, match="XCRAWL_MAX_ITERATIONS must be at least 1"):
        XcrawlSettings(max_iterations=0)


def test_the_xcrawl_variant_choices_are_the_weight_variants():
    assert set(VARIANTS) == {variant.value for variant in Variant}


@pytest.mark.slow
def test_the_readme_lists_every_setting_with_its_default():
    result = subprocess.run(
        [sys.executable, "scripts/settings_table.py", "--check", "README.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
