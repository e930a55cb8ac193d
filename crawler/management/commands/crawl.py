"""Crawl one site now, in this process, with a progress bar and a summary."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from crawler.fetch import ErrorKind
from crawler.models import CrawlRun, Site
from crawler.run.claims import CrawlAlreadyRunning
from crawler.run.loop import crawl
from crawler.strategies import PageObservation, UnknownStrategy, strategy_names
from crawler.tasks import queue_renders


def find_site(reference: str) -> Site:
    """Return the site named by id, root URL or name; raise CommandError otherwise."""
    sites = Site.objects.all()
    if reference.isdigit():
        found = sites.filter(id=int(reference))
    elif "://" in reference:
        found = sites.filter(root_url=reference) or sites.filter(
            root_url=reference.rstrip("/") + "/"
        )
    else:
        found = sites.filter(name__iexact=reference)
    if len(found) != 1:
        known = ", ".join(f"{s.pk} {s.name}" for s in sites[:20]) or "none"
        raise CommandError(f"No single site matches {reference!r} (sites: {known}).")
    return found[0]


class Command(BaseCommand):
    help = "Crawl SITE (id, root URL or name) once now and print what the run found."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("site")
        parser.add_argument(
            "--max-pages",
            type=int,
            default=None,
            help="Page budget of this run (default: the site's).",
        )
        parser.add_argument(
            "--strategy",
            default=None,
            help=f"Strategy (default: the site's): {', '.join(strategy_names())}.",
        )
        parser.add_argument(
            "--seed", type=int, default=None, help="Random seed for strategies that draw."
        )
        parser.add_argument(
            "--render-shells",
            choices=["inline", "defer", "off"],
            default="inline",
            help="Render script-shell pages here (inline), on the render queue (defer), or not.",
        )

    def handle(self, *args: object, **options: object) -> None:
        site = find_site(str(options["site"]))
        max_pages = options["max_pages"]
        if max_pages is not None and int(max_pages) < 1:  # type: ignore[call-overload]
            raise CommandError("--max-pages must be at least 1.")
        budget = int(max_pages) if max_pages is not None else site.page_budget  # type: ignore[call-overload]
        bar = tqdm(total=budget, unit="page", disable=None, file=self.stderr._out)  # type: ignore[attr-defined]

        def progress(run: CrawlRun, observation: PageObservation) -> None:
            error = observation.error
            if error is not None and error.kind in {ErrorKind.ROBOTS, ErrorKind.BACKOFF}:
                bar.set_postfix_str(f"{error.kind} {observation.url}"[:60])
                return
            bar.update(1)
            bar.set_postfix_str(observation.url[-60:])

        shells: list[int] = []  # with --render-shells defer: for the render queue
        try:
            run = crawl(
                site,
                max_pages=budget,
                strategy=options["strategy"],  # type: ignore[arg-type]
                seed=options["seed"],  # type: ignore[arg-type]
                render_shells=str(options["render_shells"]),
                progress=progress,
                to_render=shells,
            )
        except (CrawlAlreadyRunning, UnknownStrategy) as exc:
            raise CommandError(str(exc)) from exc
        finally:
            bar.close()
            queue_renders(shells)
        self.stdout.write(summary(run))


def summary(run: CrawlRun) -> str:
    """Return the operator's summary of a finished run."""
    seconds = (run.finished_at - run.started_at).total_seconds() if run.finished_at else 0.0
    rate = f"{run.fetched / seconds:.1f} pages/s" if seconds > 0 else "-"
    harvest = f"{100 * run.harvest_rate:.0f}%" if run.harvest_rate is not None else "-"
    return (
        f"Run {run.pk} of {run.site} ({run.strategy}): {run.status}, stopped: {run.stop_reason}\n"
        f"  fetched {run.fetched} in {seconds:.1f} s ({rate}); new {run.new}, changed {run.changed}, "
        f"unchanged {run.unchanged}, errors {run.errors}, robots-skipped {run.robots_skipped}, "
        f"rendered {run.rendered}; harvest rate {harvest}"
        + (f"\n  error: {run.error}" if run.error else "")
    )
