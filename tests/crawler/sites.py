"""Test sites for the crawler core: small linked sites and traps on a real local server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from crawler.models import Site
from tests.crawler.servers import Response, SiteServer


def article(title: str, text: str, links: list[tuple[str, str]] = (), extra_head: str = "") -> str:
    """Return an article page: a headline, paragraphs of prose, and a menu of links."""
    menu = "".join(f'<li><a href="{href}">{label}</a></li>' for href, label in links)
    paragraphs = "".join(
        f"<p>{text} Sentence {i} adds more words so the page reads as prose.</p>" for i in range(6)
    )
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>{extra_head}</head><body>"
        f"<nav><ul>{menu}</ul></nav>"
        f"<article><h1>{title}</h1>{paragraphs}</article>"
        f"<footer><p>Local test site</p></footer></body></html>"
    )


def hub(title: str, links: list[tuple[str, str]], extra_head: str = "") -> str:
    """Return a hub page: a list of article links with short teasers."""
    items = "".join(
        f'<li><h2><a href="{href}">{label}</a></h2><p>A short teaser.</p></li>'
        for href, label in links
    )
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title>{extra_head}</head><body>"
        f"<h1>{title}</h1><ul class='list'>{items}</ul></body></html>"
    )


class DynamicRoutes(dict):
    """Routes that fall back to a function of the path (for generated and trap sites)."""

    def __init__(self, build: Callable[[str], Response | None]) -> None:
        super().__init__()
        self.build = build

    def get(self, path, default=None):  # type: ignore[override]
        return super().get(path) or self.build(path) or default


def make_site(server: SiteServer, **overrides: object) -> Site:
    """Create a Site for a local server: private network allowed, no delay."""
    values: dict[str, object] = {
        "name": f"Local {server.port}",
        "root_url": server.url("/"),
        "allow_private_network": True,
        "crawl_delay": 0,
        "page_budget": 100,
        "max_depth": 8,
        "min_page_revisit": timedelta(minutes=10),
        "max_page_revisit": timedelta(days=7),
    }
    values.update(overrides)
    return Site.objects.create(**values)


def news_site(server: SiteServer, articles: int = 6) -> list[str]:
    """Serve a home page, two sections and `articles` articles; return the article paths."""
    paths = [f"/news/{i}" for i in range(articles)]
    half = articles // 2
    server.html("/", hub("Home", [("/world", "World"), ("/sport", "Sport")]))
    server.html("/world", hub("World", [(p, f"Story {p}") for p in paths[:half]]))
    server.html("/sport", hub("Sport", [(p, f"Story {p}") for p in paths[half:]]))
    for path in paths:
        server.html(
            path,
            article(f"Story {path}", f"Report number {path} about the harbour.", [("/", "Home")]),
        )
    return paths


class Published(list):
    """Tasks published to the real broker in a test: (task name, queue), via Celery's signal.

    Reading the queue back from Redis would race any worker consuming it; the signal fires
    once the broker has accepted the message.
    """

    def __enter__(self) -> Published:
        from celery.signals import after_task_publish

        after_task_publish.connect(self._record, weak=False)
        return self

    def __exit__(self, *exc: object) -> None:
        from celery.signals import after_task_publish

        after_task_publish.disconnect(self._record)

    def _record(
        self, sender: str | None = None, headers=None, routing_key: str = "", **kwargs
    ) -> None:  # type: ignore[no-untyped-def]
        self.append(((headers or {}).get("task", sender), routing_key))


def site_form(**overrides: str) -> dict[str, str]:
    """Return the fields of the admin's site form for a local site, with `overrides`."""
    data = {
        "name": "Local news",
        "root_url": "http://127.0.0.1:8765/",
        "seed_urls": "http://127.0.0.1:8765/news/",
        "allowed_hosts": "",
        "exclude_patterns": "",
        "strategy": "bfs",
        "page_budget": "100",
        "max_depth": "5",
        "revisit_interval": "01:00:00",
        "feed_poll_interval": "00:02:00",
        "min_hub_revisit": "00:05:00",
        "min_page_revisit": "00:10:00",
        "max_page_revisit": "7 00:00:00",
        "crawl_delay": "0.5",
        "obey_robots": "on",
        "allow_private_network": "on",
        "enabled": "on",
        **inline_management(Site),
    }
    data.update(overrides)
    return data


def inline_management(model: type[Site]) -> dict[str, str]:
    """Return the management fields of the model admin's inlines, each formset left empty."""
    from django.contrib import admin
    from django.forms.models import _get_foreign_key

    data = {}
    for inline in admin.site._registry[model].inlines:
        fk = _get_foreign_key(model, inline.model, fk_name=inline.fk_name)
        prefix = fk.remote_field.get_accessor_name(model=inline.model).replace("+", "")
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    return data
