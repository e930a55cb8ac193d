"""The REST API of sites: the shared pool the admins watch, and the caller's own sites.

A person reads the shared sites and the ones they follow; they add a site (or follow the site
already watching its origin) through the same flow as their Sites page (`crawler.usersites`)
and stop following one. A private site someone else follows answers 404.
Authentication is the API's (config/api.py): the crawler knows nothing of accounts.
"""

from __future__ import annotations

from typing import Any, Literal

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Query, Router, Schema, Status

from base.api import PageIn, created, error, page_of, page_schema, responses
from crawler.models import Site
from crawler.usersites.follow import add_site, unfollow_site
from crawler.usersites.quota import SiteRefused

router = Router()


class SiteOut(Schema):
    id: int
    name: str
    root_url: str
    shared: bool = Field(description="In the admins' pool: matched against everyone's lists.")
    following: bool = Field(description="On my Sites page: I added or follow it.")
    added_by_me: bool
    approval: str = Field(description="approved, pending (an admin decides) or denied.")
    enabled: bool


class SiteIn(Schema):
    url: str = Field(description="A home page, a section or a feed of the site.", max_length=2083)


SitePage = page_schema(SiteOut, "SitePage")


def _visible(request: HttpRequest) -> QuerySet[Site]:
    return Site.objects.visible_to(request.auth).order_by("name", "id")  # type: ignore[attr-defined]


def _site_out(site: Site, user: Any, following: set[int]) -> dict[str, Any]:
    return {
        "id": site.pk,
        "name": site.name,
        "root_url": site.root_url,
        "shared": site.visibility == Site.Visibility.SHARED,
        "following": site.pk in following,
        "added_by_me": site.added_by_id == user.pk,
        "approval": site.approval,
        "enabled": site.enabled,
    }


def _following(user: Any) -> set[int]:
    return set(Site.objects.followed_by(user).values_list("id", flat=True))


@router.get("/sites", response=responses(SitePage), tags=["sites"])
def sites_index(
    request: HttpRequest,
    response: HttpResponse,
    page: Query[PageIn],
    scope: Literal["all", "shared", "mine"] = "all",
) -> dict[str, Any]:
    """List the shared sites and mine (`scope=shared` or `mine` for one kind), by name."""
    user = request.auth  # type: ignore[attr-defined]
    sites = _visible(request)
    if scope == "shared":
        sites = sites.filter(visibility=Site.Visibility.SHARED)
    elif scope == "mine":
        sites = sites.filter(subscribers=user)
    following = _following(user)
    return page_of(request, response, sites, page, lambda site: _site_out(site, user, following))


@router.get("/sites/{int:site_id}", response=responses(SiteOut), tags=["sites"])
def sites_read(request: HttpRequest, site_id: int) -> dict[str, Any]:
    """Read a shared site or one of mine."""
    user = request.auth  # type: ignore[attr-defined]
    return _site_out(get_object_or_404(_visible(request), pk=site_id), user, _following(user))


@router.post("/sites", response=responses({200: SiteOut, 201: SiteOut}), tags=["sites"])
def sites_add(
    request: HttpRequest, response: HttpResponse, payload: SiteIn
) -> Status[dict[str, Any]]:
    """Add a site (previewed and planned as on the Sites page) or follow the one already watched.

    201: a new site (it may wait for an admin's approval), named in `Location`; 200: I now
    follow a site already watched. A new site is fetched first to preview it: the answer can take seconds.
    """
    user = request.auth  # type: ignore[attr-defined]
    try:
        added = add_site(user, payload.url)
    except SiteRefused as exc:
        return Status(422, error(str(exc), {"url": [str(exc)]}))
    if added.created:
        created(request, response, f"/api/sites/{added.site.pk}")
    return Status(201 if added.created else 200, _site_out(added.site, user, _following(user)))


@router.delete("/sites/{int:site_id}", response=responses({204: None}), tags=["sites"])
def sites_unfollow(request: HttpRequest, site_id: int) -> Status[None]:
    """Stop following a site; a private site nobody follows stops being crawled."""
    user = request.auth  # type: ignore[attr-defined]
    site = get_object_or_404(Site.objects.followed_by(user), pk=site_id)
    unfollow_site(user, site)
    return Status(204, None)
