"""Sites people add themselves: first a preview of what the crawler finds, then the site.

`preview.preview_site` fetches and analyses the URL a person gives as a crawl would, and
picks crawl settings within the person's allowances (`quota`); `follow.add_site` saves the
site, or subscribes the person to the site already watching that origin: one origin is never
crawled twice.

A person never reaches a private network: the site's allow_private_network flag is the
admins' alone and stays off here; only the operator's CRAWLER_USER_SITE_NETWORKS opens
networks to people's sites (`Site.allowed_networks`). A person's site is private, its clips
theirs alone, until an admin shares it with everyone.
"""

from crawler.usersites.follow import (
    Added,
    FollowedSite,
    add_site,
    describe,
    followed_sites,
    unfollow_site,
)
from crawler.usersites.preview import Preview, candidate, normalized, preview_site
from crawler.usersites.quota import CrawlPlan, SiteRefused, daily_pages, pages_allowance, plan_for

__all__ = [
    "Added",
    "CrawlPlan",
    "FollowedSite",
    "Preview",
    "SiteRefused",
    "add_site",
    "candidate",
    "daily_pages",
    "describe",
    "followed_sites",
    "normalized",
    "pages_allowance",
    "plan_for",
    "preview_site",
    "unfollow_site",
]
