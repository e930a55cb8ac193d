"""Crawler admin: one module per concern, each registering its own model admins."""

from crawler.admin import hiddenweb, lessons, sites, xcrawl  # noqa: F401
