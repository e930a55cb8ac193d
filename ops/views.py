"""Staff pages of the operator dashboard: charts, live crawl progress, the mail queue, retries."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from clipping import tasks
from crawler.models import Site
from ops import queries, retry

SITES_PER_PAGE = 10
# How often the page asks for fresh crawl progress, in seconds.
POLL_SECONDS = 5

View = Callable[..., HttpResponse]


def staff_only(view: View) -> View:
    """Send anonymous visitors to log in; answer 404 to everyone else who is not staff."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (request.user.is_active and request.user.is_staff):
            raise Http404("No such page.")
        return view(request, *args, **kwargs)

    return guarded


@never_cache
@staff_only
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    """Show per-site crawl charts, the crawls under way and the mail queue."""
    page = Paginator(Site.objects.order_by("name", "id"), SITES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    sites = list(page.object_list)
    charts = queries.site_charts(sites)
    now = timezone.now()
    context = {
        "page": page,
        "sites": [(site, charts[site.pk][-1] if charts[site.pk] else None) for site in sites],
        "chart_data": queries.chart_data(sites, charts),
        "running": [(run, queries.run_progress(run, now)) for run in queries.running_runs()],
        "queue": queries.mail_queue(now),
        "freshness": queries.freshness(now),
        "failed_matches": queries.failed_matches(),
        "failed_digests": queries.failed_digests(),
        "poll_seconds": POLL_SECONDS,
        "waiting_sites": Site.objects.filter(approval=Site.Approval.PENDING).count(),
    }
    return render(request, "ops/dashboard.html", context)


@never_cache
@staff_only
@require_GET
def progress(request: HttpRequest) -> JsonResponse:
    """Return the crawls under way and the mail queue's size as JSON, for the page to poll."""
    now = timezone.now()
    queue = queries.mail_queue(now)
    return JsonResponse(
        {
            "generated_at": now.isoformat(),
            "runs": [queries.run_progress(run, now) for run in queries.running_runs()],
            "queues": queries.queue_lengths(),
            "mail": {
                "undelivered": queue.undelivered,
                "sending": queue.sending,
                "failed_matches": queue.failed_matches,
                "failed_digests": queue.failed_digests,
            },
        }
    )


@staff_only
@require_POST
def retry_match(request: HttpRequest, pk: int) -> HttpResponse:
    """Re-enqueue one failed match."""
    if retry.retry_match(pk):
        # An owner who switched to digests since is left to the digest planner.
        tasks.queue_instant_mail([pk])
        messages.success(request, f"Match {pk} is queued again.")
    else:
        messages.info(request, f"Match {pk} is no longer failed; nothing was queued.")
    return redirect("ops:dashboard")


@staff_only
@require_POST
def retry_digest(request: HttpRequest, pk: int) -> HttpResponse:
    """Re-enqueue one failed digest."""
    if retry.retry_digest(pk):
        tasks.deliver_digest.delay_on_commit(pk)
        messages.success(request, f"Digest {pk} is queued again.")
    else:
        messages.info(request, f"Digest {pk} is no longer failed; nothing was queued.")
    return redirect("ops:dashboard")


@staff_only
@require_POST
def retry_all(request: HttpRequest) -> HttpResponse:
    """Re-enqueue the newest failed matches and digests."""
    matches, digests = retry.retry_all_failed()
    tasks.queue_instant_mail(matches)
    for digest_id in digests:
        tasks.deliver_digest.delay_on_commit(digest_id)
    messages.success(request, f"Queued again: {len(matches)} matches, {len(digests)} digests.")
    return redirect("ops:dashboard")


@staff_only
@require_POST
def sweep(request: HttpRequest) -> HttpResponse:
    """Run the publisher's periodic sweep now."""
    tasks.publish_due.delay_on_commit()
    messages.success(request, "The publisher will send due digests and re-queue stalled mail.")
    return redirect("ops:dashboard")
