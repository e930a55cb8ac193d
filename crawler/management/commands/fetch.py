"""Show what the fetcher and the Page Analyzer make of one URL (nothing is stored)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from crawler.canonical import canonicalize
from crawler.extract.page import extract
from crawler.fetch.policy import url_origin
from crawler.fetch.result import FetchResult
from crawler.fetch.sync import run_sync
from crawler.models import Site
from crawler.run.fetching import FetchBackend, is_html


class Command(BaseCommand):
    help = "Fetch URL as the crawler would (robots.txt, limits, address checks) and print the analysis."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url")
        parser.add_argument(
            "--site",
            default=None,
            help="Use this site's rules (default: the site whose origin matches).",
        )
        parser.add_argument(
            "--render", action="store_true", help="Render the page in Chromium as well."
        )
        parser.add_argument("--json", action="store_true", help="Print the full analysis as JSON.")
        parser.add_argument(
            "--links", type=int, default=20, help="How many links to list (default 20)."
        )

    def handle(self, *args: object, **options: object) -> None:
        url = str(options["url"])
        site = self._site(url, options["site"])
        fetched = run_sync(_fetch(site, url, render=bool(options["render"])))
        self.stdout.write(f"URL:          {url}")
        if fetched.redirected:
            self.stdout.write(f"Final URL:    {fetched.final_url}")
        self.stdout.write(
            f"Site rules:   {site.name if site.pk else 'defaults (no matching site)'}"
        )
        self.stdout.write(
            f"Status:       {fetched.status}{' (rendered)' if fetched.rendered else ''}"
        )
        if fetched.error is not None:
            self.stdout.write(f"Error:        {fetched.error}")
            raise CommandError(f"Fetch failed: {fetched.error}")
        self.stdout.write(f"Content type: {fetched.content_type} ({len(fetched.body)} bytes)")
        extracted = extract(fetched, canonicalize)
        if options["json"] and extracted.analysis is not None:
            self.stdout.write(
                json.dumps(extracted.analysis.to_dict(), ensure_ascii=False, indent=2)
            )
            return
        summary = extracted.summary
        self.stdout.write(f"Kind:         {extracted.kind or summary.get('kind', '-')}")
        self.stdout.write(f"Title:        {extracted.title}")
        if "language" in summary:
            self.stdout.write(f"Language:     {summary['language']}")
            self.stdout.write(f"Main text:    {summary['main_text_chars']} characters")
        for name in ("informational_areas", "hub_areas", "navigational_areas"):
            for area in summary.get(name, []):  # type: ignore[attr-defined]
                self.stdout.write(f"{name.split('_')[0]:13} {area['path']}  {_describe(area)}")
        for feed in extracted.feeds:
            self.stdout.write(f"Feed:         {feed}")
        limit = int(options["links"])  # type: ignore[call-overload]
        self.stdout.write(f"Links:        {len(extracted.links)}")
        for link in extracted.links[:limit]:
            self.stdout.write(f"  [{link.area_kind or '-'}] {link.url}  {link.anchor[:60]}")

    def _site(self, url: str, reference: object) -> Site:
        if reference:
            from crawler.management.commands.crawl import find_site

            return find_site(str(reference))
        origin = url_origin(url)
        if origin is None:
            raise CommandError(f"{url!r} is not an http(s) URL.")
        matches = Site.objects.at_origin(origin)
        if len(matches) > 1:
            names = ", ".join(f"{site.pk} {site.name}" for site in matches)
            raise CommandError(
                f"{origin} belongs to several sites ({names}); choose one with --site."
            )
        return matches[0] if matches else Site(name="(none)", root_url=url)


async def _fetch(site: Site, url: str, *, render: bool) -> FetchResult:
    backend = FetchBackend(site)
    try:
        fetched = await backend.fetch(url)
        if render and fetched.succeeded and is_html(fetched):
            fetched = await backend.render(fetched.final_url)
        return fetched
    finally:
        await backend.aclose()


def _describe(area: dict[str, object]) -> str:
    return ", ".join(f"{key} {value}" for key, value in area.items() if key != "path")
